/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Internal, CUDA only: the int8 MMA of the X-engine's sm_80+ kernels
// (xengine_cuda.cu, xengine_gram.cu): d += a b, mma.sync m16n8k32, s8
// operands, s32 accumulators (fragment layouts: xengine_tile.h, xtc_*).
// Compiled to nothing below sm_80, where those kernels are never launched.

#ifndef INCLUDED_GPUDSP_KERNELS_XENGINE_MMA_CUH
#define INCLUDED_GPUDSP_KERNELS_XENGINE_MMA_CUH

#include <cuda_runtime.h>
#include <cstdint>

namespace gr {
namespace gpudsp {
namespace kernels {

__device__ __forceinline__ void
mma_s8(int (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2])
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 "
                 "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                 : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#else
    (void)d, (void)a, (void)b;
#endif
}

} // namespace kernels
} // namespace gpudsp
} // namespace gr

#endif
