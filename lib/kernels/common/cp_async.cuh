/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Internal, CUDA only: asynchronous 16-byte copies from global to shared
// memory (cp.async, sm_80 and later; compiled to nothing below, where the
// kernels that use them are never launched).

#ifndef INCLUDED_GPUDSP_KERNELS_CP_ASYNC_CUH
#define INCLUDED_GPUDSP_KERNELS_CP_ASYNC_CUH

#include <cuda_runtime.h>

namespace gr {
namespace gpudsp {
namespace kernels {

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define GPUDSP_CP_ASYNC(...) asm volatile(__VA_ARGS__)
#else
#define GPUDSP_CP_ASYNC(...) (void)0
#endif

/*! 16 bytes, both addresses 16-byte aligned; bypasses L1 (.cg). */
__device__ __forceinline__ void copy16_async(void* smem, const void* gmem)
{
    const unsigned s = unsigned(__cvta_generic_to_shared(smem));
    GPUDSP_CP_ASYNC("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(gmem));
    (void)s;
}

/*! The same, reading only the first \p bytes (0 .. 16) and zero-filling
 *  the rest; \p gmem must still be a valid 16-byte aligned address (the
 *  callers pass their base pointer when \p bytes is 0). */
__device__ __forceinline__ void
copy16_async_zfill(void* smem, const void* gmem, int bytes)
{
    const unsigned s = unsigned(__cvta_generic_to_shared(smem));
    GPUDSP_CP_ASYNC("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s),
                    "l"(gmem),
                    "r"(bytes));
    (void)s;
}

/*! Closes this thread's group of copies issued since the last commit. */
__device__ __forceinline__ void copy_commit()
{
    GPUDSP_CP_ASYNC("cp.async.commit_group;\n" ::);
}

/*! Waits until at most N of this thread's committed groups are in flight. */
template <int N>
__device__ __forceinline__ void copy_wait()
{
    GPUDSP_CP_ASYNC("cp.async.wait_group %0;\n" ::"n"(N));
}

/*! The prologue of a pipeline at least 3 stages deep, two ahead: stages 0
 *  and 1 issued (issue(stage) for each) and committed, one group each; an
 *  empty group where there is no stage 1 keeps copy_wait's count. */
template <class Issue>
__device__ __forceinline__ void copy_prologue(Issue issue, int n_stages)
{
    issue(0);
    copy_commit();
    if (n_stages > 1)
        issue(1);
    copy_commit();
}

#undef GPUDSP_CP_ASYNC

} // namespace kernels
} // namespace gpudsp
} // namespace gr

#endif
