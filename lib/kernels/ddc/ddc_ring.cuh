/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Internal, CUDA: a block's copies of one tile's input bytes into a ring
// stage (ddc_ring.h), shared by the DDC's ring kernel and the tensor form's
// ring form.

#ifndef INCLUDED_GPUDSP_KERNELS_DDC_RING_CUH
#define INCLUDED_GPUDSP_KERNELS_DDC_RING_CUH

#include "ddc_ring.h"
#include "kernels/common/cp_async.cuh"
#include <cuda_runtime.h>

namespace gr {
namespace gpudsp {
namespace kernels {

/*! Stage \p st gets the input bytes of window \p w (this thread's share of
 *  the block's): 16-byte asynchronous copies where all 16 bytes are
 *  readable (plain 16-byte copies below sm_80, which has no cp.async), the
 *  readable bytes one at a time and zeros for the rest at a launch's ends.
 *  The caller commits the group. */
__device__ __forceinline__ void ddc_ring_fill(unsigned char* st,
                                              const unsigned char* in,
                                              const ddc_ring_window& w,
                                              const ddc_ring_bytes& readable,
                                              int tid,
                                              int n_threads)
{
    ddc_ring_for_chunks(
        w,
        readable,
        tid,
        n_threads,
        [&](int c, long long o) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
            copy16_async(st + c * ddc_ring_chunk, in + o);
#else
            *reinterpret_cast<uint4*>(st + c * ddc_ring_chunk) =
                __ldg(reinterpret_cast<const uint4*>(in + o));
#endif
        },
        [&](int c, long long o) {
            for (int b = 0; b < ddc_ring_chunk; ++b)
                st[c * ddc_ring_chunk + b] =
                    o + b >= readable.lo && o + b < readable.hi ? in[o + b] : 0;
        });
}

} // namespace kernels
} // namespace gpudsp
} // namespace gr

#endif
