/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// gpudsp_bench xengine: TOPS of the X-engine, counted as xGPU does: 8
// operations per complex multiply-accumulate over all baselines including
// autocorrelations, S (S + 1) / 2 x P^2 per spectrum and channel.
//   cpu      the CPU plan, one core (a small case: it is the reference)
//   fp32     the xGPU-style kernel, against the FP32 peak
//   tensor   the int8 tensor-core kernel, against the dense INT8 tensor peak
//   cublas   cublasCherk3mEx (ci8 in, cf32 out) per channel on the same data
// Peaks are nominal: SMs x clock x operations per SM per clock for the
// device's architecture (printed with the rows).

#include "bench.h"
#include <gnuradio/gpudsp/kernels/xengine.h>
#include <random>
#ifdef GPUDSP_HAVE_CUDA
#include <cublas_v2.h>
#endif

namespace bench {

using namespace gr::gpudsp;

namespace {

double ops_per_dump(int S, int P, int C, std::size_t T)
{
    return 8.0 * double(T) * C * (double(S) * (S + 1) / 2) * P * P;
}

std::vector<uint8_t> random_ci8(std::size_t values)
{
    std::vector<uint8_t> v(2 * values);
    std::mt19937 rng(7);
    for (auto& b : v)
        b = uint8_t(int8_t(int(rng() % 255) - 127));
    return v;
}


} // namespace

void run_xengine(const options& opt, report& rep)
{
    const int P = 2;
    const std::size_t T = opt.size("integrate", 1024);
    const int iterations = int(opt.size("iterations", 3));

    // CPU: a small case (the CPU plan is the exact reference, not a contender).
    {
        const int S = int(opt.size("cpu-stations", 16)),
                  C = int(opt.size("cpu-channels", 8));
        kernels::xengine_config c;
        c.n_stations = S;
        c.n_pols = P;
        c.n_channels = C;
        const std::size_t t_cpu = std::min<std::size_t>(T, 64);
        const auto in = random_ci8(t_cpu * C * c.n_inputs());
        kernels::xengine_plan plan(c, runtime::backend_choice{}, "bench");
        std::vector<uint8_t> out(c.output_item_size());
        const double t =
            seconds_per_call([&] { plan.correlate_host(in.data(), t_cpu, out.data()); },
                             [] {},
                             iterations);
        rep.add({ "xengine",
                  "S=" + std::to_string(S) + " dual-pol C=" + std::to_string(C) +
                      " T=" + std::to_string(t_cpu),
                  "cpu",
                  ops_per_dump(S, P, C, t_cpu) / t / 1e12,
                  "TOPS",
                  0,
                  "",
                  "one core" });
    }

    const auto ctx = cuda_or_skip(rep, "xengine");
    if (!ctx)
        return;
#ifdef GPUDSP_HAVE_CUDA
    const auto peaks = nominal_peaks();
    const double fp32_peak = peaks.fp32, int8_peak = peaks.int8;
    const std::string& gpu = peaks.description;
    cublasHandle_t blas = nullptr;
    cublasCreate(&blas);
    for (std::size_t S : opt.sizes("stations", { 64, 256, 512, 1024 })) {
        const int A = int(S) * P;
        const int C = int(std::clamp<std::size_t>(
            (std::size_t(1) << 27) / (std::size_t(A) * A), 16, 4096));
        kernels::xengine_config c;
        c.n_stations = int(S);
        c.n_pols = P;
        c.n_channels = C;
        const auto in = random_ci8(T * C * A);
        runtime::device_stream stream(ctx, "bench");
        runtime::device_memory d_in(ctx, in.size(), "bench");
        ctx->copy_async(d_in.get(),
                        in.data(),
                        in.size(),
                        runtime::copy_kind::host_to_device,
                        stream.get(),
                        "bench");
        const std::string what = "S=" + std::to_string(S) +
                                 " dual-pol C=" + std::to_string(C) +
                                 " T=" + std::to_string(T);
        const double ops = ops_per_dump(int(S), P, C, T);
        for (auto k :
             { kernels::xengine_kernel::fp32, kernels::xengine_kernel::tensor }) {
            c.kernel = k;
            kernels::xengine_plan plan(
                c, runtime::backend_choice{ runtime::backend_kind::cuda, 0 }, "bench");
            runtime::device_memory d_out(ctx, c.output_item_size(), "bench");
            const double t = seconds_per_call(
                [&] {
                    plan.accumulate(d_in.get(), T, stream.get());
                    plan.dump(d_out.get(), nullptr, stream.get());
                },
                [&] { stream.synchronize(); },
                iterations);
            const bool tensor = k == kernels::xengine_kernel::tensor;
            rep.add({ "xengine",
                      what,
                      tensor ? "tensor" : "fp32",
                      ops / t / 1e12,
                      "TOPS",
                      (tensor ? int8_peak : fp32_peak) / 1e12,
                      tensor ? "INT8 TC peak (nominal)" : "FP32 peak (nominal)",
                      gpu });
        }
        // cuBLAS: C_c = X_c X_c^H per channel, X_c = inputs x time (lda = C A).
        runtime::device_memory d_vis(ctx, std::size_t(C) * A * A * 8, "bench");
        cublasSetStream(blas, static_cast<cudaStream_t>(stream.get()));
        const float alpha = 1.0f, beta = 0.0f;
        cublasStatus_t status = CUBLAS_STATUS_SUCCESS;
        const double t = seconds_per_call(
            [&] {
                for (int ch = 0; ch < C && status == CUBLAS_STATUS_SUCCESS; ++ch)
                    status = cublasCherk3mEx(blas,
                                             CUBLAS_FILL_MODE_LOWER,
                                             CUBLAS_OP_N,
                                             A,
                                             int(T),
                                             &alpha,
                                             d_in.get() + std::size_t(ch) * A * 2,
                                             CUDA_C_8I,
                                             C * A,
                                             &beta,
                                             d_vis.get() + std::size_t(ch) * A * A * 8,
                                             CUDA_C_32F,
                                             A);
            },
            [&] { stream.synchronize(); },
            iterations);
        if (status == CUBLAS_STATUS_SUCCESS)
            rep.add({ "xengine",
                      what,
                      "cublas",
                      ops / t / 1e12,
                      "TOPS",
                      fp32_peak / 1e12,
                      "FP32 peak (nominal)",
                      "cublasCherk3mEx per channel" });
        else
            rep.skip("xengine",
                     what + ": cublasCherk3mEx failed with status " +
                         std::to_string(int(status)));
    }
    cublasDestroy(blas);
#endif
}

} // namespace bench
