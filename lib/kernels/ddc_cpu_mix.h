/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Internal: the CPU DDC's mixer for complex input with real taps
// (ddc_cpu_mix.cc).

#ifndef INCLUDED_GPUDSP_KERNELS_DDC_CPU_MIX_H
#define INCLUDED_GPUDSP_KERNELS_DDC_CPU_MIX_H

#include <gnuradio/gpudsp/kernels/ddc.h>
#include <cstddef>
#include <cstdint>

namespace gr {
namespace gpudsp {
namespace kernels {

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
