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

/*! Outputs [0, n) of 10-bit input \p in (the launch's first window sample
 *  at stream index \p first_sample, valid samples [0, valid) from there)
 *  into \p out: \p taps the image of ddc_tensor::make_taps (device
 *  memory: its header, then [chunk][lane] x 16 bytes), rotated by the mixer's exact phase
 *  (output m's sample mD: phase_step mD + phase_offset). */
void launch_ddc_tensor(const ddc_tensor::shape& sh,
                       const void* in,
                       long long first_sample,
                       long long valid,
                       const void* taps,
                       unsigned long long phase_step,
                       unsigned long long phase_offset,
                       float2* out,
                       unsigned long long first_output,
                       std::size_t n,
                       cudaStream_t stream);

/*! Whether the kernel's body was compiled here for sm_80 or later: a
 *  build for sm_75 alone would JIT an empty kernel on a newer GPU (the
 *  current device's image is asked). */
bool ddc_tensor_built();

/*! Blocks of the kernel that fit one SM for \p sh (0: the query failed). */
int ddc_tensor_blocks_per_sm(const ddc_tensor::shape& sh);

} // namespace kernels
} // namespace gpudsp
} // namespace gr

#endif
