/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Internal, CUDA: the launcher of the DDC's tensor-core form (the kernel is
// in ddc_tensor.cu, its arithmetic in ddc_tensor.h; docs/ddc.md, "Tensor
// cores"). 10-bit input, sm_80 and later.

#ifndef INCLUDED_GPUDSP_KERNELS_DDC_TENSOR_CUDA_H
#define INCLUDED_GPUDSP_KERNELS_DDC_TENSOR_CUDA_H

#include "ddc_tensor.h"
#include <cuda_runtime.h>
#include <cstdint>

namespace gr {
namespace gpudsp {
namespace kernels {

/*! Up to `max` outputs of one input with the same decimation and taps
 *  count, computed from one decode of each block's samples: each output's
 *  taps image (ddc_tensor::make_taps, device memory: its header, then
 *  [chunk][n][lane] x 16 bytes), mixer phase (output m's sample mD: step mD
 *  + offset) and destination. */
struct ddc_tensor_bank {
    static constexpr int max = 8;
    int count = 0;
    const uint4* taps[max];
    unsigned long long phase_step[max], phase_offset[max];
    float2* out[max];
};
/*! The most outputs a launch of a shape with \p nt column tiles and \p mt
 *  row tiles takes: each adds nt mt x 8 accumulators a lane (a bank of
 *  8 / (nt mt): the same 64 a lane). */
constexpr int ddc_tensor_bank_max(int nt, int mt = 1)
{
    return ddc_tensor_bank::max / (nt * mt);
}

/*! Outputs [0, n) of every output of \p bank (at most
 *  ddc_tensor_bank_max(sh.nt, sh.mt)) from 10-bit input \p in (the
 *  launch's first window sample at stream index \p first_sample, valid
 *  samples [0, valid) from there), rotated by each output's exact phase;
 *  \p first_output is output 0's absolute index. The kernel starts
 *  ddc_tensor::lead_of(sh, first_output) outputs early (it writes only [0, n)),
 *  so that an output's bits do not depend on where a call starts.
 *  \p ring_grid: 0, one block a block tile; else the ring form
 *  (ddc_tensor.h) on at most that many persistent blocks. */
void launch_ddc_tensor(const ddc_tensor::shape& sh,
                       const void* in,
                       long long first_sample,
                       long long valid,
                       const ddc_tensor_bank& bank,
                       unsigned long long first_output,
                       std::size_t n,
                       unsigned ring_grid,
                       cudaStream_t stream);

/*! Whether the kernel's body was compiled here for sm_80 or later: a
 *  build for sm_75 alone would JIT an empty kernel on a newer GPU (the
 *  current device's image is asked). */
bool ddc_tensor_built();

/*! Blocks of the kernel (the ring form's if \p ring; for banks of several
 *  outputs if \p bank, more registers) that fit one SM for \p sh (0: the
 *  query failed). */
int ddc_tensor_blocks_per_sm(const ddc_tensor::shape& sh,
                             bool ring = false,
                             bool bank = false);

/*! Whether the ring form's shared memory fits \p optin bytes a block; if
 *  so, its kernels may take that much (cudaFuncSetAttribute). */
bool ddc_tensor_ring_prepare(const ddc_tensor::shape& sh, int optin);

} // namespace kernels
} // namespace gpudsp
} // namespace gr

#endif
