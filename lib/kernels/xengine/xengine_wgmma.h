/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Internal: the X-engine's wgmma kernel (xengine_wgmma.cu, sm_90a only).

#ifndef INCLUDED_GPUDSP_KERNELS_XENGINE_WGMMA_H
#define INCLUDED_GPUDSP_KERNELS_XENGINE_WGMMA_H

#include <cuda_runtime.h>

namespace gr {
namespace gpudsp {
namespace kernels {

/*! True when this build holds the wgmma kernel's sm_90a image and \p device
 *  (current) is of compute capability 9.0; then also raises the kernel's
 *  shared-memory limit to what it needs (the same for every plan). */
bool xengine_wgmma_usable(int device);

/*! Launches it on the packed input (3 parts): grid (tile pairs, channels). */
void xengine_wgmma_launch(unsigned tile_pairs,
                          int n_channels,
                          cudaStream_t stream,
                          const signed char* packed,
                          const int* im_sum,
                          int n_blocks,
                          int a_pad,
                          int channel0,
                          int n_inputs,
                          int* part);

} // namespace kernels
} // namespace gpudsp
} // namespace gr

#endif
