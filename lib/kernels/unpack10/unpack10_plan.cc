/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "runtime/autotune.h"
#include <gnuradio/gpudsp/kernels/unpack10.h>
#ifdef GPUDSP_HAVE_CUDA
#include "unpack10_cuda.h"
#include <cstdio>
#endif
#include <stdexcept>

namespace gr {
namespace gpudsp {
namespace kernels {

using runtime::backend_kind;

unpack10_plan::unpack10_plan(sample_format format,
                             runtime::backend_choice where,
                             const std::string& who)
    : d_format(format), d_where(where), d_who(who)
{
    const std::string shape = format == sample_format::float32 ? "float" : "int16";
    d_tuning = runtime::untuned(
        "unpack10", shape, where.kind == backend_kind::cuda ? "per_thread=8" : "cpu");
    if (where.kind != backend_kind::cpu)
        d_ctx = runtime::device_context::get(where.kind, where.device);
#ifdef GPUDSP_HAVE_CUDA
    if (where.kind == backend_kind::cuda)
        tune();
#endif
}

#ifdef GPUDSP_HAVE_CUDA
// Samples per thread of the per-sample kernel, or groups per thread of the
// group kernel, timed on calls of 2^24 samples (64 waves of an H100 at 8 a
// thread): the choice does not depend on the call's size once the GPU is
// full, and smaller calls are launch-bound whatever it is.
void unpack10_plan::tune()
{
    constexpr std::size_t n = std::size_t(1) << 24;
    runtime::tune_problem p;
    p.kernel = "unpack10";
    p.version = 2; // 2: the group kernel's candidates
    p.shape = d_tuning.shape + " n=2^24";
    p.unit = "sample";
    p.input_bytes = packed10_bytes(n);
    p.output_bytes = n * sample_size();
    // Every configuration: (samples a thread, 0) or (0, groups a thread).
    struct config {
        std::string id;
        int per_thread, groups;
    };
    std::vector<config> configs;
    for (const int pt : cuda::unpack10_per_thread_options)
        configs.push_back({ "per_thread=" + std::to_string(pt), pt, 0 });
    for (const int g : cuda::unpack10_group_options)
        configs.push_back({ "groups=" + std::to_string(g), 0, g });
    std::vector<std::string> ids;
    for (const auto& c : configs) {
        ids.push_back(c.id);
        p.candidates.push_back(
            { c.id,
              "",
              double(n),
              [this, c](const void* in, void* out, runtime::stream_handle s) {
                  launch(
                      static_cast<const uint8_t*>(in), out, n, c.per_thread, c.groups, s);
              } });
    }
    p.heuristic = "per_thread=" + std::to_string(cuda::unpack10_per_thread_default);
    p.forced =
        runtime::configuration_from_environment("GPUDSP_UNPACK10_CONFIG", ids, d_who);
    d_tuning = runtime::autotune(p, d_ctx, d_who);
    for (const auto& c : configs)
        if (d_tuning.chosen == c.id) {
            d_per_thread = c.per_thread;
            d_groups = c.groups;
        }
}

void unpack10_plan::launch(const uint8_t* in,
                           void* out,
                           std::size_t n_samples,
                           int per_thread,
                           int groups,
                           runtime::stream_handle s)
{
    const bool f = d_format == sample_format::float32;
    if (groups && f)
        cuda::launch_unpack10_groups(in, static_cast<float*>(out), n_samples, groups, s);
    else if (groups)
        cuda::launch_unpack10_groups(
            in, static_cast<int16_t*>(out), n_samples, groups, s);
    else if (f)
        cuda::launch_unpack10(in, static_cast<float*>(out), n_samples, per_thread, s);
    else
        cuda::launch_unpack10(in, static_cast<int16_t*>(out), n_samples, per_thread, s);
    d_ctx->check_last_error("unpack10 kernel launch", d_who);
}
#endif

std::string unpack10_plan::launch_shape(std::size_t n_samples) const
{
#ifdef GPUDSP_HAVE_CUDA
    if (d_where.kind == backend_kind::cuda) {
        d_ctx->make_current();
        char text[160];
        if (d_groups)
            std::snprintf(text,
                          sizeof text,
                          "%u blocks of %d threads a launch, %d groups of 4 samples a "
                          "thread (the group kernel), %.1f waves",
                          cuda::unpack10_group_blocks(n_samples, d_groups),
                          cuda::unpack10_threads,
                          d_groups,
                          cuda::unpack10_waves(n_samples,
                                               d_per_thread,
                                               d_format == sample_format::float32,
                                               d_groups));
        else
            std::snprintf(
                text,
                sizeof text,
                "%u blocks of %d threads a launch, %d samples a thread, %.1f waves",
                cuda::unpack10_blocks(n_samples, d_per_thread),
                cuda::unpack10_threads,
                d_per_thread,
                cuda::unpack10_waves(
                    n_samples, d_per_thread, d_format == sample_format::float32));
        return text;
    }
#endif
    (void)n_samples;
    return "";
}

void unpack10_plan::execute(const void* in,
                            void* out,
                            std::size_t n_samples,
                            runtime::stream_handle stream)
{
    const auto* bytes = static_cast<const uint8_t*>(in);
    if (d_where.kind == backend_kind::cuda) {
#ifdef GPUDSP_HAVE_CUDA
        launch(bytes, out, n_samples, d_per_thread, d_groups, stream);
        return;
#endif
    }
    const auto format = d_format;
    auto run = [bytes, out, n_samples, format] {
        if (format == sample_format::float32)
            unpack10_cpu(bytes, static_cast<float*>(out), n_samples);
        else
            unpack10_cpu(bytes, static_cast<int16_t*>(out), n_samples);
    };
    if (d_where.kind == backend_kind::emulated) // the CPU code, in stream order
        d_ctx->enqueue_host_work(
            stream, run, { { out, n_samples * sample_size() } }, d_who);
    else
        run();
}

void unpack10_plan::execute_host(const uint8_t* in, void* out, std::size_t n_samples)
{
    if (!d_ctx) {
        execute(in, out, n_samples, nullptr);
        return;
    }
    const std::size_t in_bytes = packed10_bytes(n_samples);
    const std::size_t out_bytes = n_samples * sample_size();
    runtime::device_stream stream(d_ctx, d_who);
    runtime::device_memory d_in(d_ctx, in_bytes ? in_bytes : 1, d_who);
    runtime::device_memory d_out(d_ctx, out_bytes ? out_bytes : 1, d_who);
    d_ctx->copy_async(d_in.get(),
                      in,
                      in_bytes,
                      runtime::copy_kind::host_to_device,
                      stream.get(),
                      d_who);
    execute(d_in.get(), d_out.get(), n_samples, stream.get());
    d_ctx->copy_async(out,
                      d_out.get(),
                      out_bytes,
                      runtime::copy_kind::device_to_host,
                      stream.get(),
                      d_who);
    stream.synchronize();
}

} // namespace kernels
} // namespace gpudsp
} // namespace gr
