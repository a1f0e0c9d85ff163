/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Internal: the CPU DDC's mixer (ddc_cpu_mix.cc) and the rotation from the
// exact phase it and the output rotation use.

#ifndef INCLUDED_GPUDSP_KERNELS_DDC_CPU_MIX_H
#define INCLUDED_GPUDSP_KERNELS_DDC_CPU_MIX_H

#include <gnuradio/gpudsp/kernels/ddc.h>
#include <array>
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdint>

namespace gr {
namespace gpudsp {
namespace kernels {

/*!
 * exp(-2j pi p / 2^64) for a 64-bit fixed-point phase p: the nearest of 1024
 * table points times exp of the rest (|angle| <= pi/1024) from its Taylor
 * series, all in float64 (error < 1e-15, against std::polar's ~1e-16): a
 * function of p alone, about a tenth of the cost of sincos.
 */
inline std::complex<double> mixer_rotation(uint64_t p)
{
    static const auto table = [] {
        std::array<std::complex<double>, 1024> t;
        for (int k = 0; k < 1024; ++k)
            t[k] = std::polar(1.0, -2 * M_PI * k / 1024.0);
        return t;
    }();
    const uint64_t k = (p + (uint64_t(1) << 53)) >> 54;     // nearest point
    const int64_t rest = int64_t(p - (k << 54));            // [-2^53, 2^53)
    const double th = -2 * M_PI * (double(rest) * 0x1p-64); // exact up to rounding
    const double t2 = th * th;
    const double c = 1 - t2 / 2 * (1 - t2 / 12 * (1 - t2 / 30));
    const double s = th * (1 - t2 / 6 * (1 - t2 / 20 * (1 - t2 / 42)));
    const std::complex<double> q = table[k & 1023];
    // Written out: std::complex's operator* calls __muldc3 (NaN rules).
    return { q.real() * c - q.imag() * s, q.real() * s + q.imag() * c };
}

/*! Samples per mixer block: the rotation is exact (from the 64-bit phase)
 *  at each multiple of this absolute sample index, and a table entry times
 *  that within the block. */
constexpr int ddc_mix_block = 512;

/*! The in-block rotations exp(-2j pi step j / 2^64), j < ddc_mix_block. */
struct ddc_mix_table {
    uint64_t step = 0;
    float re[ddc_mix_block], im[ddc_mix_block];
    explicit ddc_mix_table(uint64_t step);
};

/*!
 * w[i] = x[i] exp(-2j pi phase(n0 + i)) for i < n, as planar float arrays:
 * x interleaved I/Q, n0 the absolute index
 * of x[0] (mod 2^64). Each w[i] is a function of x[i] and its absolute
 * index alone — exp(-2j pi phase(b)) at the block start b below it (float64,
 * then float) times the table — computed with the same roundings at every
 * SIMD level's vector and scalar code, so a stream cut anywhere gives the
 * same bits.
 */
void ddc_mix(const float* x,
             std::size_t n,
             uint64_t n0,
             const mixer_phase& phase,
             const ddc_mix_table& table,
             float* wr,
             float* wi);

/*!
 * y[i] *= exp(-2j pi phase(n0 + i)) in place for i < n (y interleaved):
 * the same rotation as ddc_mix, for the outputs of the premultiplied form
 * (called with the phase of every D-th sample: step D, n0 the first output).
 */
void ddc_rotate(float* y,
                std::size_t n,
                uint64_t n0,
                const mixer_phase& phase,
                const ddc_mix_table& table);

} // namespace kernels
} // namespace gpudsp
} // namespace gr

#endif
