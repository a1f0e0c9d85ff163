/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// gpudsp_bench unpack10: samples per second of the unpack10 plan, against
// the memory roofline measured in the same run (memcpy on the CPU, a
// device-to-device copy on the GPU) for the bytes the job must move:
// 1.25 bytes in plus 4 (float) or 2 (short) bytes out per sample. The GPU
// rows time launches back to back between CUDA events (the roofline's
// copies too); the "per call" row times one call from the host with its
// synchronisation.

#include "bench.h"
#include <gnuradio/gpudsp/kernels/unpack10.h>
#include <random>

namespace bench {

using namespace gr::gpudsp;

void run_unpack10(const options& opt, report& rep)
{
    const std::size_t n = opt.size("samples", std::size_t(1) << 26) / 4 * 4;
    const int iterations = static_cast<int>(opt.size("iterations", 10));
    const int launches = static_cast<int>(opt.size("launches", 10));
    const std::size_t in_bytes = kernels::packed10_bytes(n);
    std::vector<uint8_t> in(in_bytes);
    std::mt19937 rng(1);
    for (auto& b : in)
        b = static_cast<uint8_t>(rng());

    const double cpu_bw = host_memcpy_bandwidth(n * sizeof(float), iterations);
    const auto ctx = cuda_or_skip(rep, "unpack10");
    const double gpu_bw = ctx ? device_copy_bandwidth(n * sizeof(float), iterations) : 0;

    for (auto format :
         { kernels::sample_format::float32, kernels::sample_format::int16 }) {
        const bool is_float = format == kernels::sample_format::float32;
        const double bytes_per_sample = 1.25 + (is_float ? 4 : 2);
        const std::string what = std::string(is_float ? "float" : "short") + " out, " +
                                 std::to_string(n) + " samples";

        kernels::unpack10_plan cpu_plan(format, runtime::backend_choice{}, "bench");
        std::vector<char> out(n * cpu_plan.sample_size());
        const double t_cpu =
            seconds_per_call([&] { cpu_plan.execute(in.data(), out.data(), n, nullptr); },
                             [] {},
                             iterations);
        rep.add({ "unpack10",
                  what,
                  "cpu",
                  n / t_cpu / 1e9,
                  "GS/s",
                  cpu_bw / bytes_per_sample / 1e9,
                  "memcpy",
                  "one core" });

        if (!ctx)
            continue;
        runtime::backend_choice gpu;
        gpu.kind = runtime::backend_kind::cuda;
        kernels::unpack10_plan plan(format, gpu, "bench");
        runtime::device_memory d_in(ctx, in_bytes, "bench");
        runtime::device_memory d_out(ctx, n * plan.sample_size(), "bench");
        runtime::device_stream stream(ctx, "bench");
        ctx->copy_async(d_in.get(),
                        in.data(),
                        in_bytes,
                        runtime::copy_kind::host_to_device,
                        stream.get(),
                        "bench");
        auto call = [&] { plan.execute(d_in.get(), d_out.get(), n, stream.get()); };
        const double t_gpu =
            seconds_per_launch(ctx, stream.get(), call, launches, iterations);
        const double t_call = seconds_per_call(
            call, [&] { stream.synchronize(); }, iterations);
        const std::string shape = plan.launch_shape(n);
        rep.add({ "unpack10",
                  what + ", device-resident",
                  "cuda",
                  n / t_gpu / 1e9,
                  "GS/s",
                  gpu_bw / bytes_per_sample / 1e9,
                  "device copy",
                  shape + ", " + std::to_string(launches) + " back to back" });
        rep.add({ "unpack10",
                  what + ", device-resident, per call",
                  "cuda",
                  n / t_call / 1e9,
                  "GS/s",
                  gpu_bw / bytes_per_sample / 1e9,
                  "device copy",
                  shape + ", one call timed from the host with its synchronisation" });
    }
}

} // namespace bench
