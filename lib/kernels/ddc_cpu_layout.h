/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Internal: the CPU DDC's arithmetic that is not SIMD code, here so that
// qa_ddc_cpu_layout checks it exhaustively on small sizes — the taps laid out
// in vectors of W float lanes, and the rotation from the exact phase.

#ifndef INCLUDED_GPUDSP_KERNELS_DDC_CPU_LAYOUT_H
#define INCLUDED_GPUDSP_KERNELS_DDC_CPU_LAYOUT_H

#include <array>
#include <cmath>
#include <complex>
#include <cstdint>
#include <vector>

namespace gr {
namespace gpudsp {
namespace kernels {

/*!
 * The premultiplied taps z[0..T) as V vectors of W float lanes, reversed
 * (output m reads window sample j = x[mD - T + 1 + j] against z[T-1-j]).
 * Vector k holds window samples offset[k] / s .. + W/s (s floats per
 * sample: 1 real, 2 complex); the last vector ends at the window's end
 * (T - W/s), so that no load leaves the window, and its lanes that an
 * earlier vector covered hold zero taps. Real input: a = Re z, b = Im z per
 * lane; complex input (I/Q lane pairs): a = Re z and b = Im z on both lanes
 * of a pair. Needs T >= W/s.
 */
struct ddc_cpu_layout {
    int vectors = 0;
    std::vector<int> offset; //!< in floats from the window's start
    std::vector<float> a, b; //!< vectors * W lanes

    ddc_cpu_layout() = default;
    ddc_cpu_layout(const std::vector<std::complex<float>>& z, int W, bool complex_in)
    {
        const int T = int(z.size()), s = complex_in ? 2 : 1, S = W / s;
        vectors = (T + S - 1) / S;
        offset.resize(vectors);
        a.assign(std::size_t(vectors) * W, 0.0f);
        b.assign(std::size_t(vectors) * W, 0.0f);
        for (int k = 0; k < vectors; ++k) {
            const int first = k + 1 < vectors ? k * S : T - S; // sample
            const int covered = k * S; // samples before are in earlier vectors
            offset[k] = first * s;
            for (int l = 0; l < W; ++l) {
                const int j = first + l / s;
                if (j < covered)
                    continue;
                a[std::size_t(k) * W + l] = z[T - 1 - j].real();
                b[std::size_t(k) * W + l] = z[T - 1 - j].imag();
            }
        }
    }
};

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

} // namespace kernels
} // namespace gpudsp
} // namespace gr

#endif
