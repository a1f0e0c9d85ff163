/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Internal, CUDA: the DDC kernels' output rotation by the mixer's exact
// phase, shared by the tile, simple and tensor-core kernels.

#ifndef INCLUDED_GPUDSP_KERNELS_DDC_ROTATE_CUH
#define INCLUDED_GPUDSP_KERNELS_DDC_ROTATE_CUH

#include <cuda_runtime.h>

namespace gr {
namespace gpudsp {
namespace kernels {

// y exp(-2j pi phase(mD)), the phase exact in 64-bit fixed point.
__device__ __forceinline__ float2 ddc_rotate_output(float2 acc,
                                                    unsigned long long m,
                                                    int decimation,
                                                    unsigned long long phase_step,
                                                    unsigned long long phase_offset)
{
    const unsigned long long p =
        phase_step * (m * (unsigned long long)decimation) + phase_offset;
    const float cycles = float((long long)p) * 0x1p-64f; // in [-0.5, 0.5)
    float s, c;
    sincospif(-2.0f * cycles, &s, &c);
    return make_float2(acc.x * c - acc.y * s, acc.x * s + acc.y * c);
}

} // namespace kernels
} // namespace gpudsp
} // namespace gr

#endif
