/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Internal: the GNSS code replica on the CPU, the correlator's costliest
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
 *  (+1/-1) followed by 16 padding entries, \p sub the S (<= 16) subcarrier
 *  values of a chip's sub-phases padded to 16 entries (S = 1: BPSK). */
struct gnss_code_table {
    const float* chips2;
    const float* sub;
    int S;
};

/*! out[k] = code(q0 + k step) for k < n, with q in chips * 2^F; the SIMD
 *  variants write whole groups of W = 8 or 16 samples: out[k] for k <
 *  n rounded up to a multiple of W. Needs q0 + (n + 15) step < 2 L 2^F
 *  (no wrap: the table holds the code twice), step <= 2^F (at most one
 *  chip per sample) and 32 <= F <= 62. */
void gnss_code_replica_scalar(
    float* out, int n, uint64_t q0, uint64_t step, int F, const gnss_code_table& t);
void gnss_code_replica_avx2(
    float* out, int n, uint64_t q0, uint64_t step, int F, const gnss_code_table& t);
void gnss_code_replica_avx512(
    float* out, int n, uint64_t q0, uint64_t step, int F, const gnss_code_table& t);

} // namespace kernels
} // namespace gpudsp
} // namespace gr

#endif
