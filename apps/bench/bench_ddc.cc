/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// gpudsp_bench ddc: input samples per second of the DDC and its FLOP rate,
// counted as 4 real flops per tap per kept output for real input (complex
// taps times a real sample) and 8 for complex input, for (D, T) = (16, 256),
// (8, 128), (64, 1024), packed 10-bit and complex input. CPU rows (one
// core), GNU Radio's freq_xlating_fir_filter_ccf on the same complex work in
// a flowgraph (for scale), and CUDA rows device-resident against the nominal
// FP32 peak.

#include "bench.h"
#include <gnuradio/blocks/head.h>
#include <gnuradio/blocks/null_sink.h>
#include <gnuradio/blocks/vector_source.h>
#include <gnuradio/filter/freq_xlating_fir_filter.h>
#include <gnuradio/gpudsp/kernels/ddc.h>
#include <gnuradio/gpudsp/kernels/unpack10.h>
#include <gnuradio/top_block.h>
#include <random>

namespace bench {

using namespace gr::gpudsp;

namespace {

double gr_xlating_seconds(int D, const std::vector<float>& taps, std::size_t n)
{
    std::vector<gr_complex> chunk(1 << 16);
    std::mt19937 rng(2);
    std::normal_distribution<float> g;
    for (auto& v : chunk)
        v = gr_complex(g(rng), g(rng));
    auto tb = gr::make_top_block("bench_ddc");
    auto src = gr::blocks::vector_source_c::make(chunk, true);
    auto head = gr::blocks::head::make(sizeof(gr_complex), n);
    auto xl = gr::filter::freq_xlating_fir_filter_ccf::make(D, taps, 1.23e5, 1e6);
    auto sink = gr::blocks::null_sink::make(sizeof(gr_complex));
    tb->connect(src, 0, head, 0);
    tb->connect(head, 0, xl, 0);
    tb->connect(xl, 0, sink, 0);
    const auto t0 = std::chrono::steady_clock::now();
    tb->run();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

} // namespace

void run_ddc(const options& opt, report& rep)
{
    const int iterations = int(opt.size("iterations", 3));
    const std::size_t n_in = opt.size("samples", std::size_t(1) << 22);
    const auto decims = opt.sizes("decimations", { 16, 8, 64 });
    const auto tapss = opt.sizes("taps", { 256, 128, 1024 });
    const auto ctx = cuda_or_skip(rep, "ddc");
    const double peak = ctx ? nominal_peaks().fp32 : 0;
    for (std::size_t i = 0; i < decims.size() && i < tapss.size(); ++i) {
        const int D = int(decims[i]), T = int(tapss[i]);
        std::vector<float> real_taps(T);
        std::mt19937 rng(3);
        std::uniform_real_distribution<float> u(-1, 1);
        for (auto& t : real_taps)
            t = u(rng);
        for (auto f : { kernels::ddc_input::packed10, kernels::ddc_input::complex64 }) {
            kernels::ddc_config c;
            c.decimation = D;
            c.center_freq = 1.23e5;
            c.samp_rate = 1e6;
            c.input = f;
            c.taps.assign(real_taps.begin(), real_taps.end());
            const bool cplx = f == kernels::ddc_input::complex64;
            const std::size_t n_out = (n_in - T) / D;
            const std::size_t span = (n_out - 1) * D + T;
            const std::size_t bytes = cplx ? span * 8 : kernels::packed10_bytes(span) + 8;
            std::vector<uint8_t> in(bytes);
            for (auto& b : in)
                b = uint8_t(rng());
            if (cplx) // finite floats
                for (std::size_t k = 0; k < span * 2; ++k)
                    reinterpret_cast<float*>(in.data())[k] = u(rng);
            const double flops = double(n_out) * T * (cplx ? 8 : 4);
            const std::string what = "D=" + std::to_string(D) +
                                     " T=" + std::to_string(T) +
                                     (cplx ? " complex in" : " 10-bit in");
            kernels::ddc_plan cpu(c, runtime::backend_choice{}, "bench");
            std::vector<std::complex<float>> out(n_out);
            const double t_cpu = seconds_per_call(
                [&] { cpu.execute(in.data(), 0, 0, n_out, out.data(), nullptr); },
                [] {},
                iterations);
            rep.add({ "ddc",
                      what,
                      "cpu",
                      span / t_cpu / 1e9,
                      "GS/s",
                      0,
                      "",
                      std::to_string(flops / t_cpu / 1e9).substr(0, 6) +
                          " GFLOP/s, one core" });
            if (cplx) {
                const double t_gr = gr_xlating_seconds(D, real_taps, span);
                rep.add({ "ddc",
                          what + ", GNU Radio freq_xlating_fir_filter_ccf",
                          "gr-cpu",
                          span / t_gr / 1e9,
                          "GS/s",
                          0,
                          "",
                          std::to_string(flops / t_gr / 1e9).substr(0, 6) +
                              " GFLOP/s, flowgraph" });
            }
            if (!ctx)
                continue;
            kernels::ddc_plan gpu(
                c, runtime::backend_choice{ runtime::backend_kind::cuda, 0 }, "bench");
            runtime::device_stream stream(ctx, "bench");
            runtime::device_memory d_in(ctx, bytes, "bench");
            runtime::device_memory d_out(ctx, n_out * 8, "bench");
            ctx->copy_async(d_in.get(),
                            in.data(),
                            bytes,
                            runtime::copy_kind::host_to_device,
                            stream.get(),
                            "bench");
            const double t = seconds_per_call(
                [&] { gpu.execute(d_in.get(), 0, 0, n_out, d_out.get(), stream.get()); },
                [&] { stream.synchronize(); },
                iterations);
            rep.add({ "ddc",
                      what + ", device-resident",
                      "cuda",
                      flops / t / 1e12,
                      "TFLOP/s",
                      peak / 1e12,
                      "FP32 peak (nominal)",
                      std::to_string(span / t / 1e9).substr(0, 7) + " GS/s in" });
        }
    }
}

} // namespace bench
