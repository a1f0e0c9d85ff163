/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Internal: one thread's column of the CUDA F-engine's polyphase FIR
// (pfb_fir_registers in pfb_fengine_cuda.cu), shared with the host test
// that runs it (qa_fengine_fir). The thread holds its MAXT taps,
// right-aligned with zeros in front, and the column's last MAXT samples in
// registers, as a ring: spectrum s's new sample goes to slot
// (s - s_begin + MAXT - 1) mod MAXT and tap t meets slot
// (s - s_begin + t) mod MAXT. The spectrum loop is unrolled MAXT times,
// so that every slot index is a constant: no sample moves between
// registers (sliding a window costs MAXT - 1 moves a spectrum, as many
// instructions as the multiply-adds), and no index reaches local memory.

#ifndef INCLUDED_GPUDSP_KERNELS_FENGINE_FIR_H
#define INCLUDED_GPUDSP_KERNELS_FENGINE_FIR_H

#include "kernels/common/host_device.h"
#include <cmath>

namespace gr {
namespace gpudsp {
namespace kernels {
namespace fir {

//! The multiply-add of a tap and a sample (real or complex).
GPUDSP_HD float fma_w(float w, float x, float acc) { return fmaf(w, x, acc); }
template <typename C>
GPUDSP_HD C fma_w(float w, C x, C acc)
{
    return C{ fmaf(w, x.x, acc.x), fmaf(w, x.y, acc.y) };
}
GPUDSP_HD float zero_of(float) { return 0.0f; }
template <typename C>
GPUDSP_HD C zero_of(C)
{
    return C{ 0.0f, 0.0f };
}

//! The block of the input a column's first read is (the rows are then read
//! in order, one block each: Rows keeps a cursor, no index is multiplied).
GPUDSP_HD int first_block(int s_begin, int taps, int maxt)
{
    return s_begin + taps - maxt;
}

/*! New blocks a column reads ahead of the spectrum it computes: loads in
 *  flight while it computes (a divisor of MAXT, so that every slot index
 *  stays a constant): 8 real samples (8 registers; 16 for the 10-bit
 *  rows' two fetched bytes) or 4 complex ones (8 registers). */
template <int MAXT, typename T>
constexpr int lookahead()
{
    constexpr int most = sizeof(T) <= 4 ? 8 : 4;
    return MAXT < most ? MAXT : most;
}

/*!
 * Spectra [s_begin, s_end) of one column: output(s) = sum over t of
 * w[t] x(s + taps - MAXT + t), taps in order t = 0 .. MAXT-1 (one fused
 * multiply-add each; the MAXT - taps leading zeros add exact zeros).
 * \p rows reads the column's blocks in order from
 * first_block(s_begin, taps, MAXT) in two steps: `Rows::raw fetch(bool
 * present)` loads the next block (nothing where \p present is false:
 * blocks before 0, and the lookahead's beyond the section's last block,
 * s_end + taps - 2) and moves on; `T value(Rows::raw)` converts a fetched
 * block (zero where it was not present), called once a block in the order
 * fetched; `void store(int s, T y)` writes spectrum s.
 *
 * The new blocks are fetched lookahead() spectra ahead: spectrum s's block
 * was requested while spectrum s - L was computed, so L loads are in
 * flight while a spectrum's multiply-adds and store issue, and converted
 * (the 10-bit decode, int16 to float) only when used: a conversion waits
 * for its load. Read and converted as they were used, each spectrum
 * waited for its own load: the section's early end (a `break` in the
 * unrolled loop) kept the compiler from hoisting them, one memory round
 * trip a spectrum (sm_90 SASS), which held the FIR to ~40% of DRAM
 * bandwidth (ncu, H100 2026-11-24) and the F-engine to ~105 GS/s (H200
 * 2026-11-28).
 */
template <int MAXT, typename T, typename Rows>
GPUDSP_HD void column_run(const float* w, int taps, int s_begin, int s_end, Rows& rows)
{
    constexpr int L = lookahead<MAXT, T>();
    static_assert(MAXT % L == 0, "the lookahead divides MAXT");
    T x[MAXT];
    typename Rows::raw ahead[L];
    // Slots 0 .. MAXT-2: the blocks before the section's first new one.
    GPUDSP_UNROLL
    for (int t = 0; t < MAXT - 1; ++t)
        x[t] = rows.value(rows.fetch(first_block(s_begin, taps, MAXT) + t >= 0));
    // The new blocks of spectra s_begin .. s_begin + L - 1 (block
    // s + taps - 1 for spectrum s: never before 0, taps >= 1).
    GPUDSP_UNROLL
    for (int l = 0; l < L; ++l)
        ahead[l] = rows.fetch(s_begin + l < s_end);
    for (int s = s_begin; s < s_end; s += MAXT) {
        GPUDSP_UNROLL
        for (int u = 0; u < MAXT; ++u) {
            if (s + u >= s_end)
                break;
            // (s - s_begin is a multiple of MAXT, so of L: slot u % L)
            x[(u + MAXT - 1) % MAXT] = rows.value(ahead[u % L]);
            ahead[u % L] = rows.fetch(s + u + L < s_end);
            T acc = zero_of(T());
            GPUDSP_UNROLL
            for (int t = 0; t < MAXT; ++t)
                acc = fma_w(w[t], x[(u + t) % MAXT], acc);
            rows.store(s + u, acc);
        }
    }
}

} // namespace fir
} // namespace kernels
} // namespace gpudsp
} // namespace gr

#endif /* INCLUDED_GPUDSP_KERNELS_FENGINE_FIR_H */
