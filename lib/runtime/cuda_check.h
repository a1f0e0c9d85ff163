/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Internal (CUDA translation units only): one way to turn a failed CUDA
// runtime call into device_error, for the runtime and the kernels alike.

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

} // namespace runtime
} // namespace gpudsp
} // namespace gr

#endif
