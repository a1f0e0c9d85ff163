/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// gpudsp_bench xengine: TOPS of the X-engine, counted as xGPU does: 8
// operations per complex multiply-accumulate over all baselines including
// autocorrelations, S (S + 1) / 2 x P^2 per spectrum and channel. Our rows
// time calls of T spectra (8192, the plans' preferred batch: each call
// reads and writes the int32 partials once, T / 2 operations per byte of
// them), the dump (once per integration) not in them, against min(peak,
// the input read once at the device-to-device bandwidth measured in the
// run): few stations are memory-bound. Channels: 2^30 bytes of input per
// call (2^16 / A at T = 8192), 16..4096. A "tensor/short-calls" row times
// the best tensor form on calls of 1024 spectra, to show what short calls
// cost. Every GPU row (cuBLAS too) times calls back to back between CUDA
// events; "tensor/per-call" times the best tensor form's call from the host
// with its synchronisation.
//   cpu      the CPU plan, one core (a small case: it is the reference)
//   fp32     the xGPU-style kernel, against the FP32 peak
//   tensor   the int8 tensor-core kernel in the heuristic's form on the GPU
//            (on sm_90a the persistent Gram kernel, direct at 64..128
//            inputs; mma.sync from sm_80, WMMA on sm_75; the form is in the
//            row's note), against the dense INT8 tensor peak
//   tensor/F each other form F the GPU also runs (GPUDSP_XENGINE_TENSOR):
//            wgmma (the packed sm_90a kernel the heuristic ran before
//            2026-11-27 beyond 256 inputs; mma.sync direct where inputs
//            are few), mma.sync, mma.sync-packed (no direct form),
//            mma.sync-direct-s=6
//            (the deeper direct ring, few stations), wmma, cublaslt (the
//            Gram form: cuBLASLt's GEMM inside the plan, pack and combine
//            included), wgmma-gram and wgmma-gram-n=128 (the Gram form on
//            our persistent sm_90a kernel, pack included), wgmma-gram-direct
//            (the same kernel packing the input itself: no pack pass),
//            mma.sync-gram (the Gram form on our sm_80+ mma.sync kernel)
//   cublas   cublasCherk3mEx (ci8 in, cf32 out) per channel on the same data
//   cublaslt a cuBLASLt int8 GEMM per channel (batched): Y = [Re X; Im X]
//            (2A x T, time contiguous, transposed on the host outside the
//            timing), G = Y Y^T in int32, from which V = G11 + G22 and
//            G21 - G12; the full square, so twice the needed work (its TOPS
//            count only the needed work, like ours)
// Peaks are nominal: SMs x clock x operations per SM per clock for the
// device's architecture (printed with the rows).

#include "bench.h"
#include <gnuradio/gpudsp/kernels/xengine.h>
#include <algorithm>
#include <cstdlib>
#include <random>
#include <set>
#ifdef GPUDSP_HAVE_CUDA
#include <cublasLt.h>
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


#ifdef GPUDSP_HAVE_CUDA
// The cuBLASLt int8 peer (see the top of the file): one batched TN GEMM over
// the channels, K = T spectra.
void xengine_cublaslt(const runtime::device_context::sptr& ctx,
                      runtime::device_stream& stream,
                      const std::vector<uint8_t>& in, // [t][c][a][re, im], T0 spectra
                      std::size_t T0,
                      int S,
                      int C,
                      std::size_t T, // T0 repeated
                      int launches,
                      int iterations,
                      double ops,
                      double int8_peak,
                      const std::string& what,
                      report& rep)
{
    const int A = 2 * S, M = 2 * A; // rows of Y: re then im of every input
    const std::size_t y_bytes = std::size_t(C) * M * T;
    const std::size_t g_bytes = std::size_t(C) * M * M * sizeof(int32_t);
    const std::size_t ws_bytes = std::size_t(32) << 20;
    if (y_bytes + g_bytes + ws_bytes > ctx->free_memory() / 2) {
        rep.skip("xengine",
                 what + ": cuBLASLt peer needs " +
                     std::to_string((y_bytes + g_bytes + ws_bytes) >> 20) +
                     " MiB for its input and full-square output");
        return;
    }
    std::vector<int8_t> y(std::size_t(C) * M * T0);
    for (std::size_t t = 0; t < T0; ++t)
        for (int c = 0; c < C; ++c)
            for (int a = 0; a < A; ++a)
                for (int part = 0; part < 2; ++part)
                    y[(std::size_t(c) * M + part * A + a) * T0 + t] =
                        int8_t(in[2 * ((t * C + c) * A + a) + part]);
    runtime::device_memory d_y(ctx, y_bytes, "bench");
    runtime::device_memory d_g(ctx, g_bytes, "bench");
    runtime::device_memory d_ws(ctx, ws_bytes, "bench");
    // Each row's T0 spectra repeated along its T (pitched copies).
    for (std::size_t t0 = 0; t0 < T; t0 += T0)
        if (cudaMemcpy2DAsync(d_y.get() + t0,
                              T,
                              y.data(),
                              T0,
                              std::min(T0, T - t0),
                              std::size_t(C) * M,
                              cudaMemcpyHostToDevice,
                              static_cast<cudaStream_t>(stream.get())) != cudaSuccess) {
            cudaGetLastError();
            rep.skip("xengine", what + ": cuBLASLt peer: its input copy failed");
            return;
        }
    cublasLtHandle_t lt = nullptr;
    cublasLtMatmulDesc_t op = nullptr;
    cublasLtMatrixLayout_t ly = nullptr, lg = nullptr;
    cublasLtMatmulPreference_t pref = nullptr;
    cublasStatus_t st = cublasLtCreate(&lt);
    // Each step runs only while all before it succeeded.
    auto ok = [&](auto&& step) {
        if (st == CUBLAS_STATUS_SUCCESS)
            st = step();
    };
    ok([&] { return cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32I, CUDA_R_32I); });
    const cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
    ok([&] {
        return cublasLtMatmulDescSetAttribute(
            op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta);
    });
    ok([&] {
        return cublasLtMatmulDescSetAttribute(
            op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb);
    });
    // Y stored [row][t] is a column-major T x M matrix (ld = T); G = op(Y)^T Y.
    ok([&] {
        return cublasLtMatrixLayoutCreate(
            &ly, CUDA_R_8I, uint64_t(T), uint64_t(M), int64_t(T));
    });
    ok([&] {
        return cublasLtMatrixLayoutCreate(
            &lg, CUDA_R_32I, uint64_t(M), uint64_t(M), int64_t(M));
    });
    const int32_t batch = C;
    const int64_t y_stride = int64_t(M) * int64_t(T), g_stride = int64_t(M) * M;
    for (const auto& layout :
         { std::make_pair(ly, y_stride), std::make_pair(lg, g_stride) }) {
        const auto l = layout.first;
        const int64_t stride = layout.second;
        ok([&] {
            return cublasLtMatrixLayoutSetAttribute(
                l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batch, sizeof batch);
        });
        ok([&] {
            return cublasLtMatrixLayoutSetAttribute(
                l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof stride);
        });
    }
    ok([&] { return cublasLtMatmulPreferenceCreate(&pref); });
    ok([&] {
        return cublasLtMatmulPreferenceSetAttribute(
            pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws_bytes, sizeof ws_bytes);
    });
    cublasLtMatmulHeuristicResult_t heur{};
    int found = 0;
    ok([&] {
        return cublasLtMatmulAlgoGetHeuristic(
            lt, op, ly, ly, lg, lg, pref, 1, &heur, &found);
    });

    if (st == CUBLAS_STATUS_SUCCESS && found == 0)
        st = CUBLAS_STATUS_NOT_SUPPORTED;
    const int32_t alpha = 1, beta = 0;
    auto cu = static_cast<cudaStream_t>(stream.get());
    double t = 0;
    if (st == CUBLAS_STATUS_SUCCESS)
        t = seconds_per_launch(
            ctx,
            stream.get(),
            [&] {
                ok([&] {
                    return cublasLtMatmul(lt,
                                          op,
                                          &alpha,
                                          d_y.get(),
                                          ly,
                                          d_y.get(),
                                          ly,
                                          &beta,
                                          d_g.get(),
                                          lg,
                                          d_g.get(),
                                          lg,
                                          &heur.algo,
                                          d_ws.get(),
                                          ws_bytes,
                                          cu);
                });
            },
            launches,
            iterations);
    if (st == CUBLAS_STATUS_SUCCESS)
        rep.add({ "xengine",
                  what,
                  "cublaslt",
                  ops / t / 1e12,
                  "TOPS",
                  int8_peak / 1e12,
                  "INT8 TC peak (nominal)",
                  "cuBLASLt int8 GEMM, full square: 2x the needed work" });
    else
        rep.skip("xengine",
                 what + ": cuBLASLt int8 GEMM failed with status " +
                     std::to_string(int(st)));
    if (pref)
        cublasLtMatmulPreferenceDestroy(pref);
    if (ly)
        cublasLtMatrixLayoutDestroy(ly);
    if (lg)
        cublasLtMatrixLayoutDestroy(lg);
    if (op)
        cublasLtMatmulDescDestroy(op);
    if (lt)
        cublasLtDestroy(lt);
}
#endif

} // namespace

void run_xengine(const options& opt, report& rep)
{
    const int P = 2;
    const std::size_t T = std::max<std::size_t>(opt.size("integrate", 8192), 1);
    const std::size_t T_short = opt.size("short", 1024);
    const int iterations = int(opt.size("iterations", 3));
    const int launches = int(opt.size("launches", 2));

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
    // Where stations are few the X-engine is bound by reading its input: its
    // rows' roofline is min(peak, the input read once at the device-to-device
    // copy bandwidth measured here).
    const double hbm =
        device_copy_bandwidth(std::size_t(1) << 28, 5); // bytes moved per s
    cublasHandle_t blas = nullptr;
    cublasCreate(&blas);
    // The tensor rows set GPUDSP_XENGINE_TENSOR per form; the user's value
    // (if any) applies to the main rows and is restored at the end.
    const char* user_env = std::getenv("GPUDSP_XENGINE_TENSOR");
    const std::string user_cap = user_env ? user_env : "";
    for (std::size_t S : opt.sizes("stations", { 64, 256, 512, 1024, 2048 })) {
        const int A = int(S) * P;
        const int C = int(std::clamp<std::size_t>(
            (std::size_t(1) << 30) / (T * 2 * std::size_t(A)), 16, 4096));
        kernels::xengine_config c;
        c.n_stations = int(S);
        c.n_pols = P;
        c.n_channels = C;
        // 1024 random spectra (drawing a GiB on the host would take
        // seconds), repeated on the device to T.
        const std::size_t T0 = std::min<std::size_t>(T, 1024);
        const auto in = random_ci8(T0 * C * A);
        const std::size_t in_bytes = T * C * A * 2;
        runtime::device_stream stream(ctx, "bench");
        runtime::device_memory d_in(ctx, in_bytes, "bench");
        for (std::size_t t0 = 0; t0 < T; t0 += T0)
            ctx->copy_async(d_in.get() + t0 * C * A * 2,
                            in.data(),
                            std::min(T0, T - t0) * C * A * 2,
                            runtime::copy_kind::host_to_device,
                            stream.get(),
                            "bench");
        const std::string what = "S=" + std::to_string(S) +
                                 " dual-pol C=" + std::to_string(C) +
                                 " T=" + std::to_string(T);
        const double ops = ops_per_dump(int(S), P, C, T);
        // fp32; the tensor kernel in its best form on this GPU; then each
        // lesser form the GPU also runs (GPUDSP_XENGINE_TENSOR caps it), so
        // that the run shows which wins where.
        struct variant {
            kernels::xengine_kernel kernel;
            const char* cap; // GPUDSP_XENGINE_TENSOR, null: unset
        };
        std::set<std::string> measured; // tensor forms
        for (const variant v :
             { variant{ kernels::xengine_kernel::fp32, nullptr },
               variant{ kernels::xengine_kernel::tensor, nullptr },
               variant{ kernels::xengine_kernel::tensor, "wgmma" },
               variant{ kernels::xengine_kernel::tensor, "mma.sync" },
               variant{ kernels::xengine_kernel::tensor, "mma.sync packed" },
               variant{ kernels::xengine_kernel::tensor, "mma.sync direct s=6" },
               variant{ kernels::xengine_kernel::tensor, "wmma" },
               variant{ kernels::xengine_kernel::tensor, "cublaslt" },
               variant{ kernels::xengine_kernel::tensor, "wgmma gram" },
               variant{ kernels::xengine_kernel::tensor, "wgmma gram n=128" },
               variant{ kernels::xengine_kernel::tensor, "wgmma gram direct" },
               variant{ kernels::xengine_kernel::tensor, "wgmma gram channel" },
               variant{ kernels::xengine_kernel::tensor, "mma.sync gram" } }) {
            c.kernel = v.kernel;
            const std::string form_cap = v.cap ? v.cap : user_cap;
            if (form_cap.empty())
                unsetenv("GPUDSP_XENGINE_TENSOR");
            else
                setenv("GPUDSP_XENGINE_TENSOR", form_cap.c_str(), 1);
            kernels::xengine_plan plan(
                c, runtime::backend_choice{ runtime::backend_kind::cuda, 0 }, "bench");
            const bool tensor = v.kernel == kernels::xengine_kernel::tensor;
            const std::string form = plan.kernel_variant();
            if (tensor && v.cap && measured.count(form))
                continue; // the best form again, or one already measured
            if (tensor)
                measured.insert(form);
            std::string form_name = form; // a backend name without spaces
            std::replace(form_name.begin(), form_name.end(), ' ', '-');
            // The accumulation alone: a dump (every n_integrate spectra,
            // typically 10^4-10^5) is a separate, small cost; the plan
            // promotes its int32 partials as the calls go on.
            auto call = [&] { plan.accumulate(d_in.get(), T, stream.get()); };
            const double t =
                seconds_per_launch(ctx, stream.get(), call, launches, iterations);
            // One more call with an event between its kernels: the Gram
            // forms' pack against their GEMM, say.
            const std::string stages = stages_of_one_call(plan, call, 0);
            const double peak = tensor ? int8_peak : fp32_peak;
            const double memory = hbm > 0 ? ops / (double(in_bytes) / hbm) : peak;
            rep.add({ "xengine",
                      what,
                      !tensor ? "fp32"
                      : v.cap ? "tensor/" + form_name
                              : std::string("tensor"),
                      ops / t / 1e12,
                      "TOPS",
                      std::min(peak, memory) / 1e12,
                      memory < peak ? "input at D2D bandwidth (memory-bound)"
                      : tensor      ? "INT8 TC peak (nominal)"
                                    : "FP32 peak (nominal)",
                      (tensor ? gpu + ", " + form : gpu) + ", accumulation only; " +
                          plan.launch_shape(T) + "; " + std::to_string(launches) +
                          " back to back; " + stages });
            if (tensor && !v.cap) { // the best form, one call from the host
                const double t_call = seconds_per_call(
                    call, [&] { stream.synchronize(); }, iterations);
                rep.add(
                    { "xengine",
                      what,
                      "tensor/per-call",
                      ops / t_call / 1e12,
                      "TOPS",
                      std::min(peak, memory) / 1e12,
                      memory < peak ? "input at D2D bandwidth (memory-bound)"
                                    : "INT8 TC peak (nominal)",
                      gpu + ", " + form +
                          ", one call timed from the host with its synchronisation" });
            }
        }
        // Short calls: the best tensor form (as the plan chooses it) on calls
        // of T_short spectra, each reading and writing the whole partials.
        if (T_short > 0 && T_short < T) {
            if (user_cap.empty())
                unsetenv("GPUDSP_XENGINE_TENSOR");
            else
                setenv("GPUDSP_XENGINE_TENSOR", user_cap.c_str(), 1);
            c.kernel = kernels::xengine_kernel::tensor;
            kernels::xengine_plan plan(
                c, runtime::backend_choice{ runtime::backend_kind::cuda, 0 }, "bench");
            const double t = seconds_per_launch(
                ctx,
                stream.get(),
                [&] {
                    for (std::size_t t0 = 0; t0 + T_short <= T; t0 += T_short)
                        plan.accumulate(
                            d_in.get() + t0 * C * A * 2, T_short, stream.get());
                },
                launches,
                iterations);
            const std::size_t done = T / T_short * T_short;
            const double short_ops = ops_per_dump(int(S), P, C, done);
            const double memory =
                hbm > 0 ? short_ops / (double(done * C * A * 2) / hbm) : int8_peak;
            rep.add({ "xengine",
                      what,
                      "tensor/short-calls",
                      short_ops / t / 1e12,
                      "TOPS",
                      std::min(int8_peak, memory) / 1e12,
                      memory < int8_peak ? "input at D2D bandwidth (memory-bound)"
                                         : "INT8 TC peak (nominal)",
                      gpu + ", " + plan.kernel_variant() + ", calls of " +
                          std::to_string(T_short) + " spectra; " +
                          plan.launch_shape(T_short) });
        }
        // cuBLAS: C_c = X_c X_c^H per channel, X_c = inputs x time (lda = C A).
        runtime::device_memory d_vis(ctx, std::size_t(C) * A * A * 8, "bench");
        cublasSetStream(blas, static_cast<cudaStream_t>(stream.get()));
        const float alpha = 1.0f, beta = 0.0f;
        cublasStatus_t status = CUBLAS_STATUS_SUCCESS;
        const double t = seconds_per_launch(
            ctx,
            stream.get(),
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
            launches,
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
        xengine_cublaslt(ctx,
                         stream,
                         in,
                         T0,
                         int(S),
                         C,
                         T,
                         launches,
                         iterations,
                         ops,
                         int8_peak,
                         what,
                         rep);
    }
    cublasDestroy(blas);
    if (user_cap.empty())
        unsetenv("GPUDSP_XENGINE_TENSOR");
    else
        setenv("GPUDSP_XENGINE_TENSOR", user_cap.c_str(), 1);
#endif
}

} // namespace bench
