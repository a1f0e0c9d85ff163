/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Internal (CUDA translation units only): one way to turn a failed CUDA
// runtime call into device_error, for the runtime and the kernels alike,
// and the launch configuration of thread-block clusters.

#ifndef INCLUDED_GPUDSP_RUNTIME_CUDA_CHECK_H
#define INCLUDED_GPUDSP_RUNTIME_CUDA_CHECK_H

#include <gnuradio/gpudsp/runtime/device_context.h>
#include <cuda_runtime.h>
#include <sstream>
#include <string>

namespace gr {
namespace gpudsp {
namespace runtime {

/*! Throws device_error naming \p who, the operation, the device and CUDA's
 *  error unless \p err is cudaSuccess. */
inline void cuda_check(cudaError_t err, const char* op, int device, const std::string& who)
{
    if (err == cudaSuccess)
        return;
    std::ostringstream msg;
    msg << who << ": " << op << " failed on CUDA device " << device << ": "
        << cudaGetErrorName(err) << " (" << cudaGetErrorString(err) << ")";
    throw device_error(msg.str());
}

/*! A launch of \p grid CTAs of \p threads in clusters of \p cluster CTAs
 *  along x (none for 1), with \p smem bytes of dynamic shared memory: the
 *  configuration cudaLaunchKernelEx and the occupancy queries take
 *  (\p attr, its cluster attribute, must outlive it). */
inline cudaLaunchConfig_t cluster_launch_config(
    dim3 grid, int threads, int cluster, int smem, cudaLaunchAttribute& attr)
{
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = grid;
    cfg.blockDim = dim3(unsigned(threads));
    cfg.dynamicSmemBytes = std::size_t(smem);
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = unsigned(cluster);
    attr.val.clusterDim.y = 1;
    attr.val.clusterDim.z = 1;
    cfg.attrs = &attr;
    cfg.numAttrs = cluster > 1 ? 1 : 0;
    return cfg;
}

} // namespace runtime
} // namespace gpudsp
} // namespace gr

#endif
