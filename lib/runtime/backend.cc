/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "context_factories.h"
#include <gnuradio/gpudsp/runtime/backend.h>
#include <gnuradio/gpudsp/runtime/device_context.h>
#include <gnuradio/gpudsp/runtime/sync_costs.h>
#include <stdexcept>
#include <string>

namespace gr {
namespace gpudsp {
namespace runtime {

const char* to_string(backend_kind kind)
{
    switch (kind) {
    case backend_kind::cpu:
        return "cpu";
    case backend_kind::cuda:
        return "cuda";
    case backend_kind::emulated:
        return "emulated";
    }
    return "?";
}

bool built_with_cuda()
{
#ifdef GPUDSP_HAVE_CUDA
    return true;
#else
    return false;
#endif
}

std::vector<device_info> devices()
{
#ifdef GPUDSP_HAVE_CUDA
    // Devices do not come and go within a process; ask CUDA once.
    static const std::vector<device_info> found = detail::cuda_devices();
    return found;
#else
    return {};
#endif
}

bool cuda_available() { return !devices().empty(); }

#ifndef GPUDSP_HAVE_CUDA
std::vector<sync_cost> sync_costs(int device, int rounds)
{
    (void)rounds;
    throw device_error("sync_costs: no CUDA device " + std::to_string(device) +
                       " (built without CUDA)");
}
#endif

std::string backend_choice::describe() const
{
    switch (kind) {
    case backend_kind::cpu:
        return "cpu";
    case backend_kind::emulated:
        return "emulated device (CPU kernels on a separate host allocation)";
    case backend_kind::cuda:
        for (const auto& d : devices()) {
            if (d.index == device)
                return "cuda device " + std::to_string(device) + " (" + d.name + ")";
        }
        return "cuda device " + std::to_string(device);
    }
    return "?";
}

backend_choice
resolve_backend(const std::string& backend, int device, const std::string& who)
{
    if (device < 0)
        throw std::invalid_argument(who + ": device index must be >= 0, got " +
                                    std::to_string(device));
    backend_choice choice;
    choice.device = device;
    if (backend == "cpu") {
        choice.kind = backend_kind::cpu;
    } else if (backend == "emulated") {
        choice.kind = backend_kind::emulated;
    } else if (backend == "cuda" || backend == "auto") {
        const auto devs = devices();
        if (devs.empty()) {
            if (backend == "auto") {
                choice.kind = backend_kind::cpu;
                return choice;
            }
            throw std::runtime_error(
                who + ": backend \"cuda\" needs a usable CUDA device, but " +
                (built_with_cuda()
                     ? std::string("none was found (no NVIDIA GPU or driver, "
                                   "or CUDA_VISIBLE_DEVICES hides them)")
                     : std::string("gr-gpudsp was built without CUDA")) +
                "; use backend=\"cpu\" or \"auto\"");
        }
        if (device >= static_cast<int>(devs.size()))
            throw std::invalid_argument(who + ": device index " + std::to_string(device) +
                                        " is absent; " + std::to_string(devs.size()) +
                                        " CUDA device(s) found");
        choice.kind = backend_kind::cuda;
    } else {
        throw std::invalid_argument(who + ": unknown backend \"" + backend +
                                    "\"; use \"auto\", \"cuda\" or \"cpu\"");
    }
    return choice;
}

} // namespace runtime
} // namespace gpudsp
} // namespace gr
