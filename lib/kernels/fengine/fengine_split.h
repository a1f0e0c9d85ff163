/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Internal: the split F-engine's arithmetic (docs/fengine.md, "Split FFT"),
// shared by its CUDA kernels and the CPU tests that emulate them. For real
// input of N channels (2N-point real transforms) the FIR writes each
// spectrum's pairs z[n] = y[2n] + i y[2n+1] as U rows, row r holding
// z[r + U m] (m = 0 .. N2-1, N2 = N / U): cuFFT then runs only N2-point
// complex transforms, Z_r, one pass where N alone would take two; the
// post-processing kernel does the last radix-U stage of the N-point FFT,
//   Z[k2 + N2 q] = sum_r exp(-2 pi i r k2 / N) Z_r[k2] exp(-2 pi i r q / U),
// and the fold to the real FFT, X[k] from Z[k] and Z[N - k], before the
// corrections and the quantiser it always ran. A thread takes the pair
// p = 0 .. N2/2: the columns k2a = p and k2b = (N2 - p) mod N2, whose
// channels {k2a + N2 q} and {k2b + N2 q} are each other's mirrors (N - k):
// it reads each of its 2U values once and writes 2U channels (U where
// k2a = k2b). Every float operation is written out, so the host's
// emulation rounds as the kernel does.

#ifndef INCLUDED_GPUDSP_KERNELS_FENGINE_SPLIT_H
#define INCLUDED_GPUDSP_KERNELS_FENGINE_SPLIT_H

#include "fengine_fft.h"
#include "kernels/common/host_device.h"
#include <vector>

namespace gr {
namespace gpudsp {
namespace kernels {
namespace split {

using fft::cpx;

//! The radices of the last stage the post-processing takes over.
constexpr int max_unzip = 8;
//! Threads of a post-processing block of U: 128 at U = 8, whose 16 values
//! a thread take ~168 registers (three blocks an SM; 256 threads would
//! allow one), else 256.
GPUDSP_HD constexpr int threads_for(int U) { return U == 8 ? 128 : 256; }
//! Blocks per SM the kernel is built for (registers: 65536 / threads / this).
GPUDSP_HD constexpr int min_blocks_for(int U) { return U == 8 ? 3 : 2; }

/*! Where the FIR writes float column \p j (0 .. 2N-1) of a spectrum, for
 *  U = 2^\p shift rows of \p n2 pairs: pair n = j / 2 goes to row n mod U,
 *  place n / U. U = 1 is the identity. */
GPUDSP_HD int fir_position(int j, int shift, int n2)
{
    if (shift == 0)
        return j;
    const int n = j >> 1;
    return 2 * ((n & ((1 << shift) - 1)) * n2 + (n >> shift)) + (j & 1);
}

//! Pairs per (spectrum, input): p = 0 .. n2/2.
GPUDSP_HD int pairs(int n2) { return n2 / 2 + 1; }
//! Whether pair \p p has a mirror column distinct from its own.
GPUDSP_HD bool has_mirror(int p, int n2) { return p > 0 && 2 * p != n2; }
//! The mirror column of pair \p p.
GPUDSP_HD int mirror(int p, int n2) { return p == 0 ? 0 : n2 - p; }

/*! Output run \p run (0 .. 2U-1) of pair \p p: runs 0 .. U-1 are the
 *  channels p + n2 q, runs U .. 2U-1 the mirror's, mirror(p) + n2 q. */
GPUDSP_HD int channel(int p, int run, int n2, int U)
{
    return run < U ? p + n2 * run : mirror(p, n2) + n2 * (run - U);
}
//! Whether a pair writes run \p run (the mirror's only where it has one).
GPUDSP_HD bool writes(int p, int run, int n2, int U)
{
    return p < pairs(n2) && (run < U || has_mirror(p, n2));
}

/*! A block's tile: `inputs` inputs (the smallest power of two >= the
 *  input count, at most 32) x `pairs` = threads / inputs consecutive pairs
 *  of one spectrum. Thread t computes pair t % pairs of input t / pairs
 *  (consecutive threads read consecutive columns); its 2U channels go
 *  through shared memory, at smem_index(run, pair, input), and leave
 *  input-contiguous: in the store phase thread t writes, in every run,
 *  pair t / inputs of input t % inputs. */
struct tile {
    int inputs, pairs;
    GPUDSP_HD int compute_pair(int t) const { return t % pairs; }
    GPUDSP_HD int compute_input(int t) const { return t / pairs; }
    GPUDSP_HD int store_pair(int t) const { return t / inputs; }
    GPUDSP_HD int store_input(int t) const { return t % inputs; }
    //! Rows of more than one input are padded by one: the compute phase's
    //! stores (a warp's lanes a row apart) then spread over the banks.
    GPUDSP_HD int row() const { return inputs > 1 ? inputs + 1 : 1; }
    GPUDSP_HD int smem_index(int run, int pair, int input) const
    {
        return (run * pairs + pair) * row() + input;
    }
    GPUDSP_HD int smem_elems(int U) const { return 2 * U * pairs * row(); }
};
GPUDSP_HD tile tile_for(int n_inputs, int threads)
{
    int inputs = 1;
    while (inputs < n_inputs && inputs < 32)
        inputs *= 2;
    return tile{ inputs, threads / inputs };
}
//! The largest shared-memory tile a block of U may need, in elements (two
//! inputs: threads / 2 pairs of rows of 3): 6 KiB of ci8 and 24 KiB of cf32
//! at U = 8 (128 threads) as at U = 4 (256).
GPUDSP_HD constexpr int max_smem_elems(int U)
{
    return 2 * U * (threads_for(U) + threads_for(U) / 2);
}

//! The U-point DFT in place (U = 1: nothing).
template <int U>
GPUDSP_HD void dft_u(cpx* v)
{
    if constexpr (U > 1)
        fft::dft_r<U>(v);
    else
        (void)v;
}

/*! One pair's channels. In: za[r] = Z_r[p], zb[r] = Z_r[mirror(p)]
 *  (r = 0 .. U-1, the rows' N2-point FFTs); the float64 tables
 *  \p twiddle = fft::twiddle_table(N) (exp(-2 pi i r k / N) at r k) and
 *  \p fold = fft::fold_table(N). (The kernel reads a pair's 4U - 2 table
 *  entries for every spectrum, from L1: held in registers across its
 *  spectra they spill at U = 8.) Out: xa[q] = X[p + n2 q], xb[q] = X[mirror(p) + n2 q]
 * (meaningful where has_mirror(p)): the 2N-point real FFT's channels. za and zb are
 *  overwritten. */
template <int U>
GPUDSP_HD void pair_channels(cpx* za,
                             cpx* zb,
                             int p,
                             int n2,
                             const cpx* twiddle,
                             const cpx* fold,
                             cpx* xa,
                             cpx* xb)
{
    const int b = mirror(p, n2);
    GPUDSP_UNROLL
    for (int r = 1; r < U; ++r) {
        za[r] = fft::mul(za[r], twiddle[r * p]);
        zb[r] = fft::mul(zb[r], twiddle[r * b]);
    }
    dft_u<U>(za); // za[q] = Z[p + n2 q]
    dft_u<U>(zb); // zb[q] = Z[mirror + n2 q]
    if (p == 0) {
        // Channel n2 q's mirror N - n2 q is n2 ((U - q) mod U): in za too.
        GPUDSP_UNROLL
        for (int q = 0; q < U; ++q)
            xa[q] = fft::real_fold(za[q], za[(U - q) % U], fold[n2 * q]);
        return;
    }
    // Channel p + n2 q's mirror is mirror(p) + n2 (U - 1 - q).
    GPUDSP_UNROLL
    for (int q = 0; q < U; ++q) {
        const int qb = U - 1 - q;
        xa[q] = fft::real_fold(za[q], zb[qb], fold[p + n2 * q]);
        xb[qb] = fft::real_fold(zb[qb], za[q], fold[b + n2 * qb]);
    }
}

/*! The unzip factors the split form takes for N channels: U = 1, 2, 4, 8
 *  dividing N with at least 32 pairs per row (below that cuFFT's own
 *  real transform is the better form anyway). */
inline std::vector<int> unzip_factors(int n_channels)
{
    std::vector<int> out;
    for (int u = 1; u <= max_unzip; u *= 2)
        if (n_channels % u == 0 && n_channels / u >= 32)
            out.push_back(u);
    return out;
}

/*! The heuristic's U: the fewest rows whose transforms are at most 4096
 *  points (one cuFFT pass on every GPU it supports), if any U gives that;
 *  0: the split form is not the heuristic's (N <= 4096: cuFFT's real
 *  transform takes one pass already). */
inline int heuristic_unzip(int n_channels)
{
    if (n_channels <= 4096)
        return 0;
    for (const int u : unzip_factors(n_channels))
        if (n_channels / u <= 4096)
            return u;
    const auto f = unzip_factors(n_channels);
    return f.empty() ? 0 : f.back();
}

} // namespace split
} // namespace kernels
} // namespace gpudsp
} // namespace gr

#endif /* INCLUDED_GPUDSP_KERNELS_FENGINE_SPLIT_H */
