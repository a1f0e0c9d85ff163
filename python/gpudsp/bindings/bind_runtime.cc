/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Device discovery, backend resolution and the copy counters of device
// buffers and device contexts.

#include "bindings.h"
#include <gnuradio/block.h>
#include <gnuradio/buffer.h>
#include <gnuradio/gpudsp/runtime/cpu_simd.h>
#include <gnuradio/gpudsp/runtime/data_dir.h>
#include <gnuradio/gpudsp/runtime/device_io.h>

using namespace gr::gpudsp::runtime;

namespace {

py::dict to_dict(const transfer_counters& c)
{
    py::dict d;
    d["h2d_calls"] = c.h2d_calls;
    d["h2d_bytes"] = c.h2d_bytes;
    d["d2h_calls"] = c.d2h_calls;
    d["d2h_bytes"] = c.d2h_bytes;
    d["d2d_calls"] = c.d2d_calls;
    d["d2d_bytes"] = c.d2d_bytes;
    return d;
}

py::object
buffer_counters(std::shared_ptr<gr::block> blk, int port, const std::string& side)
{
    if (side != "input" && side != "output")
        throw std::invalid_argument(
            "buffer_counters: side must be \"input\" or \"output\"");
    auto buf = side == "input" ? device_io::input_buffer(*blk, port)
                               : device_io::output_buffer(*blk, port);
    if (!buf)
        return py::none();
    auto d = to_dict(buf->counters());
    d["realignments"] = buf->realignments();
    d["bufsize_items"] = buf->bufsize();
    return d;
}

py::dict device_counters(const std::string& backend, int device)
{
    const auto choice = resolve_backend(backend, device, "device_counters");
    if (choice.kind == backend_kind::cpu)
        throw std::invalid_argument("device_counters: the cpu backend has no device");
    auto ctx = device_context::get(choice.kind, choice.device);
    auto d = to_dict(ctx->counters());
    const auto u = ctx->usage();
    d["device_bytes"] = u.device_bytes;
    d["device_allocations"] = u.device_allocations;
    d["pinned_bytes"] = u.host_bytes;
    d["pinned_allocations"] = u.host_allocations;
    // cudaMemGetInfo on CUDA (what teardown tests compare); on the emulated
    // device, the host's available memory.
    d["free_memory"] = ctx->free_memory();
    return d;
}

py::dict device_activity(const std::string& who, const std::string& backend, int device)
{
    const auto choice = resolve_backend(backend, device, "device_activity");
    if (choice.kind == backend_kind::cpu)
        throw std::invalid_argument("device_activity: the cpu backend has no device");
    const auto a = device_context::get(choice.kind, choice.device)->activity(who);
    py::dict d;
    d["allocations"] = a.allocations;
    d["frees"] = a.frees;
    d["synchronizations"] = a.synchronizations;
    d["plans"] = a.plans;
    return d;
}

} // namespace

void bind_runtime(py::module& m)
{
    m.def("built_with_cuda",
          &built_with_cuda,
          "True when this build has the CUDA backend.");
    m.def("data_dir",
          &gr::gpudsp::runtime::data_dir,
          "The folder the module reads its data (GNSS codes, LDPC base graphs) from.");
    m.def("cpu_simd",
          &gr::gpudsp::runtime::cpu_simd_description,
          "The SIMD level the CPU kernels use and the CPU's own, e.g. \"avx512 (CPU: "
          "avx512)\" (AVX-512 where a kernel has it, AVX2 elsewhere); "
          "GPUDSP_CPU_SIMD=avx2 or scalar (read at first use) caps the level.");
    m.def("cuda_available",
          &cuda_available,
          "True when a usable CUDA device exists; never raises, never hangs.");
    m.def(
        "devices",
        [] {
            py::list out;
            for (const auto& d : devices()) {
                py::dict info;
                info["index"] = d.index;
                info["name"] = d.name;
                info["compute_capability"] =
                    py::make_tuple(d.compute_major, d.compute_minor);
                info["total_memory"] = d.total_memory;
                info["multiprocessors"] = d.multiprocessors;
                out.append(info);
            }
            return out;
        },
        "The usable CUDA devices, as dicts (index, name, compute_capability, "
        "total_memory, multiprocessors); empty without one.");
    m.def(
        "resolve_backend",
        [](const std::string& backend, int device) {
            return std::string(
                to_string(resolve_backend(backend, device, "resolve_backend").kind));
        },
        py::arg("backend") = "auto",
        py::arg("device") = 0,
        "What a block given this backend and device would run on (\"cuda\" or "
        "\"cpu\"); raises as the block would.");
    m.def("buffer_counters",
          &buffer_counters,
          py::arg("block"),
          py::arg("port") = 0,
          py::arg("side") = "output",
          "Host<->device copies made by the device buffer on a port of a block "
          "(after the flowgraph ran), or None where the port has a host buffer.");
    m.def("device_counters",
          &device_counters,
          py::arg("backend") = "cuda",
          py::arg("device") = 0,
          "Copies and memory of one device since the process started.");
    m.def("device_activity",
          &device_activity,
          py::arg("who") = "",
          py::arg("backend") = "cuda",
          py::arg("device") = 0,
          "Allocations, frees, host synchronisations and library plans asked of "
          "one device by a caller (a block's alias, \"device_buffer of <alias>\", "
          "a plan's name) since the process started; every caller's when who is "
          "empty. Steady-state work() adds none of them.");
    m.def("buffers_allocated",
          &gr::buffer_ncurrently_allocated,
          "GNU Radio buffers currently allocated (for leak checks).");
}
