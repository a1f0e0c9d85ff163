/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Internal: the X-engine's Gram form on CUDA (xengine_gram.cu): a pack
// kernel writes each launch's rows of Y; then either cuBLASLt's batched int8
// GEMM forms G = Y Y^T per channel and a combine kernel adds (re, im) of
// every pair a >= b to the int32 partials (index arithmetic in
// xengine_gram.h), or our kernels form the lower triangle's tiles and add
// them themselves: mma.sync on sm_80 on (xengine_gram.h, "The Gram form on
// mma.sync"), the persistent warp-specialized kernel on sm_90a
// (xengine_ws.h).

#ifndef INCLUDED_GPUDSP_KERNELS_XENGINE_GRAM_CUDA_H
#define INCLUDED_GPUDSP_KERNELS_XENGINE_GRAM_CUDA_H

#include "runtime/stage_clock.h"
#include <gnuradio/gpudsp/runtime/device_context.h>
#include <cuda_runtime.h>
#include <memory>
#include <string>

namespace gr {
namespace gpudsp {
namespace kernels {

class xengine_gram_cuda
{
public:
    //! Engines: cuBLASLt, our mma.sync kernel (sm_80 on), or our
    //! persistent sm_90a kernel with B tiles of 128 or 256 rows (the value).
    static constexpr int cublaslt = 0;
    static constexpr int mma = 1;

    /*! Allocates the workspace (xgr_workspace) and, for cuBLASLt, its
     *  handle; throws device_error when they cannot be had. */
    xengine_gram_cuda(runtime::device_context::sptr ctx,
                      int n_channels,
                      int n_inputs,
                      const std::string& who,
                      int engine = cublaslt);
    ~xengine_gram_cuda();
    xengine_gram_cuda(const xengine_gram_cuda&) = delete;
    xengine_gram_cuda& operator=(const xengine_gram_cuda&) = delete;

    /*! Why the form with \p engine cannot run for these channels and
     *  inputs with \p free_bytes of device memory free (half of it at most
     *  for the workspace) on \p device (current); empty if it can. */
    static std::string unavailable(int n_channels,
                                   int n_inputs,
                                   std::size_t free_bytes,
                                   int engine = cublaslt,
                                   int device = 0);

    /*! Adds \p n (<= xengine_int32_spectra) spectra of ci8 [t][channel]
     *  [input] at \p x to the int32 partials [channel][pair][re, im]; marks
     *  its stages on \p clock (xengine_plan::time_stages). */
    void accumulate(const void* x,
                    std::size_t n,
                    int* part,
                    cudaStream_t stream,
                    runtime::stage_clock& clock);

private:
    struct impl;
    std::unique_ptr<impl> d;
};

} // namespace kernels
} // namespace gpudsp
} // namespace gr

#endif
