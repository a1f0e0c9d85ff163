/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Internal: the GNSS code replicas on the CPU, the correlator's costliest
// step (each tap's replica is evaluated at its exact fixed-point code
// phase). Three variants give identical values: scalar, AVX2 (8 samples
// per step) and AVX-512 (16); qa_gnss_replica compares them.

#ifndef INCLUDED_GPUDSP_KERNELS_GNSS_REPLICA_CPU_H
#define INCLUDED_GPUDSP_KERNELS_GNSS_REPLICA_CPU_H

#include <cstdint>

namespace gr {
namespace gpudsp {
namespace kernels {

/*! Where a replica is read from: \p chips2 holds one PRN's code twice
 *  (+1/-1) followed by 32 padding entries, \p sub the S (<= 16) subcarrier
 *  values of a chip's sub-phases padded to 16 entries (S = 1: BPSK). */
struct gnss_code_table {
    const float* chips2;
    const float* sub;
    int S;
};

/*! The sample a SIMD lane j of a W-lane group holds (W = 4, 8 or 16): the
 *  order in which one in-lane shuffle (vshufps) per 128-bit lane splits W
 *  interleaved I/Q samples into W I and W Q values. Each 128-bit lane i
 *  holds samples 2i, 2i + 1, W/2 + 2i, W/2 + 2i + 1: identity for W = 4,
 *  0 1 4 5 2 3 6 7 for W = 8. The correlator keeps carrier and code in this
 *  order, so its samples need no lane-crossing permutation; lane 0 is
 *  sample 0 and every lane within W - 1 samples of it. */
constexpr int gnss_lane_sample(int W, int j)
{
    return j % 4 < 2 ? 2 * (j / 4) + j % 4 : W / 2 + 2 * (j / 4) + j % 4 - 2;
}

/*! The replicas of \p n_taps taps that share a base phase: out[l][k] =
 *  code(qb + rel[l] + k step) for l < n_taps and k < n, with phases in chips
 *  * 2^F. Each rel[l] lies on the 2^-32 chip grid (a multiple of
 *  2^(F-32)), so that a tap's phase differs from the base's only in the 32
 *  fractional bits the sub-phase reads and in the chip: the taps share the
 *  lanes' 64-bit phase arithmetic. The SIMD variants write whole groups of
 *  W = 8 or 16 samples, each in lane order (gnss_lane_sample): out[l][g W
 *  + j] is sample g W + gnss_lane_sample(W, j), for g W < n.
 *  Needs qb + rel[l] + (n + 15) step < 2 L 2^F (no wrap: the table holds
 *  the code twice), step <= 2^F (at most one chip per sample), 32 <= F <=
 *  62 and n_taps <= gnss_replica_max_taps. */
constexpr int gnss_replica_max_taps = 64;
typedef void (*gnss_replicas_fn)(float* const* out,
                                 const uint64_t* rel,
                                 int n_taps,
                                 int n,
                                 uint64_t qb,
                                 uint64_t step,
                                 int F,
                                 const gnss_code_table& t);
void gnss_code_replicas_scalar(float* const* out, const uint64_t* rel, int n_taps, int n,
                               uint64_t qb, uint64_t step, int F, const gnss_code_table& t);
void gnss_code_replicas_avx2(float* const* out, const uint64_t* rel, int n_taps, int n,
                             uint64_t qb, uint64_t step, int F, const gnss_code_table& t);
void gnss_code_replicas_avx512(float* const* out, const uint64_t* rel, int n_taps, int n,
                               uint64_t qb, uint64_t step, int F, const gnss_code_table& t);

} // namespace kernels
} // namespace gpudsp
} // namespace gr

#endif
