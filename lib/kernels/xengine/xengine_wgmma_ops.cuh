/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Internal, sm_90a device code only: the int8 warpgroup MMAs the X-engine's
// Hopper kernels issue (xengine_wgmma.cu, xengine_ws.cu): wgmma.mma_async
// m64n64k32, m64n128k32, m64n192k32 and m64n256k32, s8 operands from shared-memory
// descriptors, s32 accumulators, d = a b + (accumulate ? d : 0). Include it only where
// __CUDA_ARCH_FEAT_SM90_ALL is defined (wgmma exists only in sm_90a).

#ifndef INCLUDED_GPUDSP_KERNELS_XENGINE_WGMMA_OPS_CUH
#define INCLUDED_GPUDSP_KERNELS_XENGINE_WGMMA_OPS_CUH

#include <cstdint>

namespace gr {
namespace gpudsp {
namespace kernels {

// Read-write accumulator operands d[i] .. d[i + 7] (D8) and d[i] .. d[i + 63]
// (D64): an asm statement names each register; the instruction strings
// below number them in order.
// clang-format off
#define GPUDSP_WGMMA_D8(i)                                                      \
    "+r"(d[(i) + 0]), "+r"(d[(i) + 1]), "+r"(d[(i) + 2]), "+r"(d[(i) + 3]),     \
    "+r"(d[(i) + 4]), "+r"(d[(i) + 5]), "+r"(d[(i) + 6]), "+r"(d[(i) + 7])
#define GPUDSP_WGMMA_D64(i)                                                     \
    GPUDSP_WGMMA_D8((i) + 0), GPUDSP_WGMMA_D8((i) + 8), GPUDSP_WGMMA_D8((i) + 16), \
    GPUDSP_WGMMA_D8((i) + 24), GPUDSP_WGMMA_D8((i) + 32), GPUDSP_WGMMA_D8((i) + 40), \
    GPUDSP_WGMMA_D8((i) + 48), GPUDSP_WGMMA_D8((i) + 56)
// clang-format on

__device__ __forceinline__ void
wgmma_m64n64(int (&d)[32], uint64_t a, uint64_t b, int accumulate)
{
    // d = a b + (accumulate ? d : 0)
    asm volatile(
        "{\n"
        ".reg .pred p;\n"
        "setp.ne.b32 p, %34, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n64k32.s32.s8.s8 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
        "}, %32, %33, p;\n"
        "}\n"
        : GPUDSP_WGMMA_D8(0), GPUDSP_WGMMA_D8(8), GPUDSP_WGMMA_D8(16), GPUDSP_WGMMA_D8(24)
        : "l"(a), "l"(b), "r"(accumulate));
}

__device__ __forceinline__ void
wgmma_m64n128(int (&d)[64], uint64_t a, uint64_t b, int accumulate)
{
    // d = a b + (accumulate ? d : 0)
    asm volatile(
        "{\n"
        ".reg .pred p;\n"
        "setp.ne.b32 p, %66, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k32.s32.s8.s8 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
        "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
        "}, %64, %65, p;\n"
        "}\n"
        : GPUDSP_WGMMA_D64(0)
        : "l"(a), "l"(b), "r"(accumulate));
}

__device__ __forceinline__ void
wgmma_m64n256(int (&d)[128], uint64_t a, uint64_t b, int accumulate)
{
    // d = a b + (accumulate ? d : 0)
    asm volatile(
        "{\n"
        ".reg .pred p;\n"
        "setp.ne.b32 p, %130, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n256k32.s32.s8.s8 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
        "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "
        "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "
        "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
        "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, "
        "%110, %111, "
        "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, "
        "%125, %126, %127"
        "}, %128, %129, p;\n"
        "}\n"
        : GPUDSP_WGMMA_D64(0), GPUDSP_WGMMA_D64(64)
        : "l"(a), "l"(b), "r"(accumulate));
}

__device__ __forceinline__ void
wgmma_m64n192(int (&d)[96], uint64_t a, uint64_t b, int accumulate)
{
    // d = a b + (accumulate ? d : 0)
    asm volatile(
        "{\n"
        ".reg .pred p;\n"
        "setp.ne.b32 p, %98, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n192k32.s32.s8.s8 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
        "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "
        "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "
        "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95"
        "}, %96, %97, p;\n"
        "}\n"
        : GPUDSP_WGMMA_D64(0),
          GPUDSP_WGMMA_D8(64),
          GPUDSP_WGMMA_D8(72),
          GPUDSP_WGMMA_D8(80),
          GPUDSP_WGMMA_D8(88)
        : "l"(a), "l"(b), "r"(accumulate));
}

#undef GPUDSP_WGMMA_D64
#undef GPUDSP_WGMMA_D8

} // namespace kernels
} // namespace gpudsp
} // namespace gr

#endif
