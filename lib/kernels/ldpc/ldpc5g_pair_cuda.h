/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Internal: the CUDA pair kernel's launch (ldpc5g_pair_cuda.cu), used by
// the CUDA decoder (ldpc5g_decoder_cuda.cu) for fixed-point layered
// decoding: the pair kernel (two codewords per block, the throughput path)
// and, for a launch of one codeword, the latency kernel.

#ifndef INCLUDED_GPUDSP_KERNELS_LDPC5G_PAIR_CUDA_H
#define INCLUDED_GPUDSP_KERNELS_LDPC5G_PAIR_CUDA_H

#include "ldpc5g_pair_bg.h"
#include <cuda_runtime.h>

namespace gr {
namespace gpudsp {
namespace kernels {

/*! What the pair kernel reads of a configuration (device tables). */
struct ldpc_pair_config {
    int Z, K, K_ldpc, E, Ncb, period, rows_used, cols_used, max_iterations;
    bool early, positive_is_zero;
    float fixed_scale;
    ldpc_norm norm;
    const int32_t* row_start;   // rows_used + 1
    const int32_t* edges;       // column << 16 | shift
    const int32_t* first_read;  // per circular-buffer position
    const int32_t* interleaved; // per rate-matching index
    int bg;                     // base graph (selects the kernel)
    ldpc_bg_shifts bg_shifts;   // its first rows' shifts
    ldpc_bg_halves bg_halves;   // ... for one codeword in both lanes (Z even)
};

/*! Whether one codeword decodes with its lifts in both lanes (the latency
 *  kernel): every row specialised and Z even. */
inline bool ldpc_pair_split_fits(const ldpc_pair_config& c)
{
    return c.rows_used <= ldpc_bg_rows && c.Z % 2 == 0;
}

/*! Device memory a launch of \p n codewords needs beside the tables: the
 *  check states (12 bytes per row, lift index and pair) and, where shared memory cannot
 * hold them, the a-posteriori pairs. */
std::size_t ldpc_pair_state_bytes(const ldpc_pair_config& c, int n);
std::size_t ldpc_pair_app_bytes(const ldpc_pair_config& c, int n, std::size_t smem);

/*! Decodes codewords [0, n) of \p llrs (E values each, \p format), two
 *  per thread block (one codeword: both lanes of one block where
 *  ldpc_pair_split_fits); bits unpacked (K bytes per codeword) or packed MSB
 *  first (ceil(K / 8) bytes). \p smem: the dynamic shared memory
 *  (ldpc5g_cuda_shared_bytes of the pairs' values; 0: global memory). */
void ldpc_pair_launch(const ldpc_pair_config& c,
                      const void* llrs,
                      ldpc5g_llr_format format,
                      int n,
                      void* states,
                      void* app,
                      std::size_t smem,
                      uint8_t* bits,
                      bool packed_bits,
                      int32_t* iterations,
                      uint8_t* ok,
                      cudaStream_t stream);

/*! Which pair kernel a launch of \p n codewords with \p smem bytes of
 *  shared memory a pair (0: values in global memory) runs, and its grid:
 *  one codeword in both lanes (n = 1, the latency kernel), several pairs a
 *  block (small lifts), one pair a block with values in shared or global
 *  memory. */
enum class pair_form { split, group, pair_shared, pair_global };
struct pair_launch {
    pair_form form;
    int blocks, threads;
    std::size_t smem;
};
pair_launch pair_launch_of(const ldpc_pair_config& c, int n, std::size_t smem);

/*! Blocks of that launch's kernel one SM holds (the CUDA runtime's
 *  occupancy; 0 where it cannot say). */
int pair_blocks_per_sm(const ldpc_pair_config& c,
                       ldpc5g_llr_format format,
                       const pair_launch& l);

/*! Sets the pair kernels' shared-memory limit to \p optin (see
 *  ldpc5g_decoder_cuda.cu: never lowered by a later plan). */
cudaError_t ldpc_pair_allow_shared(int optin);

} // namespace kernels
} // namespace gpudsp
} // namespace gr

#endif
