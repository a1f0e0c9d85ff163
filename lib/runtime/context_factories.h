/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Internal: the concrete device contexts behind device_context::get().

#ifndef INCLUDED_GPUDSP_RUNTIME_CONTEXT_FACTORIES_H
#define INCLUDED_GPUDSP_RUNTIME_CONTEXT_FACTORIES_H

#include <gnuradio/gpudsp/runtime/device_context.h>
#include <vector>

namespace gr {
namespace gpudsp {
namespace runtime {
namespace detail {

device_context::sptr make_emulated_context();

/*! The CPU backend's tuner's context (one per process): the emulated
 *  device's host memory and stream order, without its random delays, named
 *  after the CPU ("CPU (model)"), so that CPU code timed on it keys its own
 *  cache entries. */
device_context::sptr cpu_timing_context();

#ifdef GPUDSP_HAVE_CUDA
device_context::sptr make_cuda_context(int device);
std::vector<device_info> cuda_devices() noexcept; // empty on any error
#endif

} // namespace detail
} // namespace runtime
} // namespace gpudsp
} // namespace gr

#endif
