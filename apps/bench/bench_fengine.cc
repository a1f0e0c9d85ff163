/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// gpudsp_bench fengine: input samples per second (over all inputs) of the
// F-engine, packed 10-bit in, ci8 out, T = 16, for several channel counts.
//   cpu          one core, the CPU plan
//   gr peer      the work GNU Radio's pfb_channelizer_ccf does per output
//                vector (N fir_filter_ccf branch filters of T taps and one
//                N-point fft_complex_rev), same channels and taps per channel
//   flowgraph    block with block, at channel counts a GNU Radio flowgraph
//                of pfb_channelizer_ccf handles (N = 64, 256: it has N
//                output ports): vector source -> head -> stream_to_streams
//                -> pfb_channelizer_ccf -> N null sinks, against vector
//                source -> head -> our pfb_fengine (float in, cf32 out, one
//                input) -> null sink, 1 MiB buffers; channel samples per
//                second (our real input carries N channels in 2N samples,
//                theirs in N complex samples: the same bandwidth)
//   cuda         device-resident (input already in device memory) and
//                host-fed (pinned upload of the packed bytes on the stream),
//                the plan's form (tuned, else its heuristic's: cuFFT and
//                the post-processing kernel; the row says which)
//   cuda/onepass the one-pass kernel (GPUDSP_FENGINE_ONEPASS=1) where it
//                runs, device-resident
//   cuda/cufft   cuFFT with the post-processing fused into it as LTO
//                callbacks (GPUDSP_FENGINE_ONEPASS=0 GPUDSP_FENGINE_FUSED=1;
//                where cuFFT refuses them, the unfused form, not repeated)
//   cuda/unfused the post-processing as its own kernel
//                (GPUDSP_FENGINE_FUSED=0), device-resident, same run
//   cuda/split   at N <= 4096, the split form with U = 1 (cuFFT's complex
//                transform and our real fold: GPUDSP_FENGINE_SPLIT=1),
//                device-resident; above, the split form is the plan's
//                heuristic (the `cuda` row, unless the tuner chose another)
//   cuda/fftpost the FIR kernel and our fused FFT and post-processing
//                kernel (GPUDSP_FENGINE_FFTPOST=1: one input a CTA) where
//                it runs (N <= 8192), device-resident
//                (a form that is the plan's own is not timed twice)
// GPU roofline: the device copy bandwidth measured in the same run divided
// by the bytes the form moves per sample: one pass 1.25 in (plus at most
// 1/8 for each section's priming rows) and 1 out (2.41 B); cuFFT's: FIR
// 1.25 in and 4 out, FFT 4 in, and then either 1 out (fused into cuFFT, or
// our fused FFT and post-processing kernel: 10.25 B) or 4
// out and post-processing 4 in and 1 out (18.25 B; the split form too, in
// one cuFFT pass where rows of N/U points take one); host-fed: pinned
// host-to-device bandwidth / 1.25 B.

#include "bench.h"
#include <gnuradio/blocks/head.h>
#include <gnuradio/blocks/null_sink.h>
#include <gnuradio/blocks/stream_to_streams.h>
#include <gnuradio/blocks/vector_source.h>
#include <gnuradio/fft/fft.h>
#include <gnuradio/filter/fir_filter.h>
#include <gnuradio/filter/pfb_channelizer_ccf.h>
#include <gnuradio/gpudsp/kernels/pfb_fengine.h>
#include <gnuradio/gpudsp/kernels/unpack10.h>
#include <gnuradio/gpudsp/pfb_fengine.h>
#include <gnuradio/top_block.h>
#include <cstdlib>
#include <memory>
#include <random>

namespace bench {

using namespace gr::gpudsp;

namespace {

constexpr double bytes_per_sample_fused = 10.25, bytes_per_sample_unfused = 18.25;
// The one-pass kernel: 1.25 B in (plus T - 1 priming rows per section of at
// least 8 (T - 1) spectra) and 1 B out: at most 1.25 x 1.125 + 1.
constexpr double bytes_per_sample_onepass = 1.25 * 1.125 + 1.0;

bool is_onepass(const gr::gpudsp::kernels::fengine_plan& plan)
{
    return plan.kernel_form().rfind("one pass", 0) == 0;
}

// A plan made with environment variables set for its construction only.
std::unique_ptr<gr::gpudsp::kernels::fengine_plan>
plan_with(const gr::gpudsp::kernels::fengine_config& c,
          const gr::gpudsp::runtime::backend_choice& where,
          const std::vector<std::pair<const char*, const char*>>& env)
{
    const scoped_env set(env);
    return std::make_unique<gr::gpudsp::kernels::fengine_plan>(c, where, "bench");
}

// The host-fed row's pieces: piece k is spectra [spectrum of cut k, of cut
// k + 1) and uploads bytes [byte of cut k, of cut k + 1) (the last piece
// also the window's tail); its call needs the uploads up to piece `needs`
// (the one holding its window's last byte).
struct host_fed_cut {
    std::size_t spectrum, byte, needs;
};
std::vector<host_fed_cut> host_fed_pieces(const gr::gpudsp::kernels::fengine_config& c,
                                          std::size_t spectra,
                                          std::size_t in_bytes)
{
    const std::size_t pieces = std::min<std::size_t>(8, spectra);
    std::vector<host_fed_cut> cuts;
    for (std::size_t k = 0; k <= pieces; ++k) {
        const std::size_t s = spectra * k / pieces;
        // Packed 10-bit: a spectrum's 2N samples are whole 5-byte groups.
        cuts.push_back({ s, k == pieces ? in_bytes : s * c.step() * 10 / 8, 0 });
    }
    for (std::size_t k = 0; k < pieces; ++k) {
        const std::size_t last_byte =
            gr::gpudsp::kernels::packed10_bytes(c.samples_for(cuts[k + 1].spectrum)) - 1;
        std::size_t j = k;
        while (j + 1 < pieces && cuts[j + 1].byte <= last_byte)
            ++j;
        cuts[k].needs = j;
    }
    return cuts;
}

bool is_fused(const gr::gpudsp::kernels::fengine_plan& plan)
{
    return plan.kernel_form().rfind("cuFFT, post-processing fused", 0) == 0;
}

bool is_fftpost(const gr::gpudsp::kernels::fengine_plan& plan)
{
    return plan.kernel_form().find("fused FFT and post-processing kernel") !=
           std::string::npos;
}

bool is_split(const gr::gpudsp::kernels::fengine_plan& plan)
{
    return plan.kernel_form().rfind("cuFFT on ", 0) == 0;
}

double gr_channelizer_seconds(int N, int T, std::size_t spectra, int iterations)
{
    std::vector<float> taps(std::size_t(N) * T);
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> u(-1, 1);
    for (auto& t : taps)
        t = u(rng);
    std::vector<gr::filter::kernel::fir_filter_ccf> branches;
    for (int j = 0; j < N; ++j) {
        std::vector<float> branch(T);
        for (int t = 0; t < T; ++t)
            branch[t] = taps[std::size_t(t) * N + j];
        branches.emplace_back(branch);
    }
    gr::fft::fft_complex_rev fft(N);
    // Branch j's decimated input, contiguous: spectra + T samples.
    std::vector<gr_complex> in(std::size_t(N) * (spectra + T));
    for (auto& v : in)
        v = gr_complex(u(rng), u(rng));
    gr_complex sink = 0;
    const double t = seconds_per_call(
        [&] {
            for (std::size_t s = 0; s < spectra; ++s) {
                gr_complex* buf = fft.get_inbuf();
                for (int j = 0; j < N; ++j)
                    buf[j] = branches[j].filter(&in[std::size_t(j) * (spectra + T) + s]);
                fft.execute();
                sink += fft.get_outbuf()[s % N];
            }
        },
        [] {},
        iterations);
    if (sink == gr_complex(1e30f, 0)) // keep the work observable
        std::printf(" ");
    return t;
}

// Seconds to channelise \p spectra spectra of N channels in a flowgraph:
// GNU Radio's pfb_channelizer_ccf (gr = true) or our pfb_fengine block.
double flowgraph_seconds(bool gr, int N, int T, std::size_t spectra, int iterations)
{
    std::mt19937 rng(4);
    std::normal_distribution<float> g;
    std::vector<float> taps(std::size_t(N) * T);
    for (auto& t : taps)
        t = g(rng);
    return best_flowgraph_seconds(
        [&] {
            auto tb = gr::make_top_block("bench_fengine");
            constexpr int buffer_bytes = 1 << 20;
            if (gr) {
                std::vector<gr_complex> chunk(std::size_t(1) << 16);
                for (auto& v : chunk)
                    v = gr_complex(g(rng), g(rng));
                auto src = gr::blocks::vector_source_c::make(chunk, true);
                auto head = gr::blocks::head::make(sizeof(gr_complex), spectra * N);
                auto split = gr::blocks::stream_to_streams::make(sizeof(gr_complex), N);
                auto pfb = gr::filter::pfb_channelizer_ccf::make(N, taps, 1.0);
                src->set_min_output_buffer(buffer_bytes / 8);
                head->set_min_output_buffer(buffer_bytes / 8);
                tb->connect(src, 0, head, 0);
                tb->connect(head, 0, split, 0);
                for (int j = 0; j < N; ++j) {
                    tb->connect(split, j, pfb, j);
                    tb->connect(
                        pfb, j, gr::blocks::null_sink::make(sizeof(gr_complex)), 0);
                }
            } else {
                std::vector<float> chunk(std::size_t(1) << 16);
                for (auto& v : chunk)
                    v = g(rng);
                auto src = gr::blocks::vector_source_f::make(chunk, true);
                auto head = gr::blocks::head::make(sizeof(float), spectra * 2 * N);
                auto fe = gr::gpudsp::pfb_fengine::make(
                    1, N, T, "float", "cf32", 1.0, {}, false, "cpu");
                src->set_min_output_buffer(buffer_bytes / 4);
                head->set_min_output_buffer(buffer_bytes / 4);
                fe->set_min_output_buffer(std::max(2, buffer_bytes / (8 * N)));
                tb->connect(src, 0, head, 0);
                tb->connect(head, 0, fe, 0);
                tb->connect(fe, 0, gr::blocks::null_sink::make(std::size_t(8) * N), 0);
            }
            return tb;
        },
        iterations);
}

} // namespace

void run_fengine(const options& opt, report& rep)
{
    const int T = int(opt.size("taps", 16));
    const int n_inputs = int(opt.size("inputs", 2));
    const int iterations = int(opt.size("iterations", 3));
    const int launches = int(std::max<std::size_t>(opt.size("launches", 10), 1));
    const auto channels = opt.sizes("channels", { 1024, 4096, 32768 });
    const std::size_t samples_per_input = opt.size("samples", std::size_t(1) << 23);
    const auto ctx = cuda_or_skip(rep, "fengine");
    const double hbm = ctx ? device_copy_bandwidth(std::size_t(1) << 28, 5) : 0;
    const double h2d = ctx ? host_to_device_bandwidth(std::size_t(1) << 27, 5) : 0;

    for (std::size_t N : opt.sizes("flowgraph-channels", { 64, 256 })) {
        const std::size_t spectra = opt.size("flowgraph-spectra", std::size_t(1) << 17);
        const double t_gr = flowgraph_seconds(true, int(N), T, spectra, iterations);
        const double t_ours = flowgraph_seconds(false, int(N), T, spectra, iterations);
        const std::string what = "N=" + std::to_string(N) + " T=" + std::to_string(T) +
                                 ", flowgraph";
        rep.add({ "fengine",
                  what + ": GNU Radio pfb_channelizer_ccf (complex in)",
                  "gr-cpu",
                  double(spectra) * N / t_gr / 1e9,
                  "GS/s",
                  0,
                  "",
                  "channel samples/s; source -> head -> stream_to_streams -> block -> "
                  "N null sinks, 1 MiB buffers" });
        rep.add({ "fengine",
                  what + ": gpudsp pfb_fengine (cpu, float in, cf32 out)",
                  "cpu",
                  double(spectra) * N / t_ours / 1e9,
                  "GS/s",
                  0,
                  "",
                  "channel samples/s; " + times_faster(t_ours, t_gr, "GNU Radio's block") });
    }

    for (std::size_t N : channels) {
        kernels::fengine_config c;
        c.n_inputs = n_inputs;
        c.n_channels = int(N);
        c.n_taps = T;
        c.input = kernels::fengine_input::packed10;
        c.output = kernels::fengine_output::ci8;
        const std::size_t step = c.step();
        const std::size_t spectra = std::max<std::size_t>(1, samples_per_input / step);
        const std::size_t n = c.samples_for(spectra);
        const std::size_t in_bytes = kernels::packed10_bytes(n);
        std::vector<std::vector<uint8_t>> in;
        for (int i = 0; i < n_inputs; ++i) {
            in.emplace_back(in_bytes);
            std::mt19937 rng(i);
            for (auto& b : in.back())
                b = uint8_t(rng());
        }
        const double samples = double(spectra) * step * n_inputs;
        const std::string what = "N=" + std::to_string(N) + " T=" + std::to_string(T) +
                                 " " + std::to_string(n_inputs) + " inputs, 10b->ci8";

        std::vector<kernels::fengine_input_view> views;
        for (auto& v : in)
            views.push_back({ v.data(), 0 });
        kernels::fengine_plan cpu(c, runtime::backend_choice{}, "bench");
        std::vector<char> out(spectra * c.output_item_size());
        std::vector<uint32_t> sat(spectra * n_inputs);
        const double t_cpu = seconds_per_call(
            [&] { cpu.execute(views, out.data(), sat.data(), spectra, 0, nullptr); },
            [] {},
            iterations);
        rep.add(
            { "fengine", what, "cpu", samples / t_cpu / 1e9, "GS/s", 0, "", "one core" });

        // The same channel count and taps per channel through GNU Radio's
        // channelizer kernels (complex samples: N per output vector).
        const std::size_t gr_spectra = std::max<std::size_t>(1, spectra * n_inputs * 2);
        const double t_gr = gr_channelizer_seconds(int(N), T, gr_spectra, iterations);
        rep.add({ "fengine",
                  "N=" + std::to_string(N) + " T=" + std::to_string(T) +
                      " GNU Radio pfb_channelizer_ccf kernels",
                  "gr-cpu",
                  double(gr_spectra) * N / t_gr / 1e9,
                  "GS/s",
                  0,
                  "",
                  "complex in, one core" });

        if (!ctx)
            continue;
        runtime::backend_choice gpu;
        gpu.kind = runtime::backend_kind::cuda;
        // The plan's own choice (tuned, or its heuristic: cuFFT and the
        // post-processing kernel), the one-pass kernel where it runs, cuFFT
        // with the post-processing fused into it, and cuFFT unfused: each
        // against its own bytes, in the same run.
        kernels::fengine_plan plan(c, gpu, "bench");
        auto onepass_plan = plan_with(c, gpu, { { "GPUDSP_FENGINE_ONEPASS", "1" } });
        auto cufft = plan_with(
            c,
            gpu,
            { { "GPUDSP_FENGINE_ONEPASS", "0" }, { "GPUDSP_FENGINE_FUSED", "1" } });
        auto unfused = plan_with(
            c,
            gpu,
            { { "GPUDSP_FENGINE_ONEPASS", "0" }, { "GPUDSP_FENGINE_FUSED", "0" } });
        auto split = plan_with(c,
                               gpu,
                               { { "GPUDSP_FENGINE_ONEPASS", "0" },
                                 { "GPUDSP_FENGINE_SPLIT", N <= 4096 ? "1" : "0" } });
        auto fftpost = plan_with(
            c,
            gpu,
            { { "GPUDSP_FENGINE_ONEPASS", "0" }, { "GPUDSP_FENGINE_FFTPOST", "1" } });
        runtime::device_stream stream(ctx, "bench");
        std::vector<std::unique_ptr<runtime::device_memory>> d_in;
        std::vector<std::unique_ptr<runtime::pinned_memory>> h_in;
        std::vector<kernels::fengine_input_view> d_views;
        for (auto& v : in) {
            d_in.push_back(
                std::make_unique<runtime::device_memory>(ctx, in_bytes, "bench"));
            h_in.push_back(
                std::make_unique<runtime::pinned_memory>(ctx, in_bytes, "bench"));
            std::copy(v.begin(), v.end(), h_in.back()->get());
            d_views.push_back({ d_in.back()->get(), 0 });
        }
        runtime::device_memory d_out(ctx, out.size(), "bench");
        runtime::device_memory d_sat(ctx, sat.size() * 4, "bench");
        auto* dsat = reinterpret_cast<uint32_t*>(d_sat.get());
        const std::pair<kernels::fengine_plan*, const char*> forms[] = {
            { &plan, "cuda" },
            { onepass_plan.get(), "cuda/onepass" },
            { cufft.get(), "cuda/cufft" },
            { unfused.get(), "cuda/unfused" },
            { split.get(), "cuda/split" },
            { fftpost.get(), "cuda/fftpost" }
        };
        for (const auto& form : forms) {
            kernels::fengine_plan* p = form.first;
            if (p != &plan && p->kernel_form() == plan.kernel_form())
                continue; // the same form as the plan's row
            if (p == onepass_plan.get() && !is_onepass(*p))
                continue; // the one-pass kernel does not run here (the plan's row says
                          // why)
            if (p == split.get() && !is_split(*p))
                continue; // the split form does not run here (the row's kernel_form)
            if (p == fftpost.get() && !is_fftpost(*p))
                continue; // the fused FFT does not run here
            // Back to back, timed by events (what a stream of calls
            // sustains); the plan's form also host-timed per call below.
            const auto run = [&] {
                p->execute(d_views, d_out.get(), dsat, spectra, 0, stream.get());
            };
            const double t_dev =
                seconds_per_launch(ctx, stream.get(), run, launches, iterations);
            // One more call with an event between its kernels: which stage
            // binds, at what bandwidth (a GPU run's answer without ncu).
            const std::string stages = stages_of_one_call(*p, run, hbm);
            const bool onepass = is_onepass(*p), fused = is_fused(*p) || is_fftpost(*p);
            const double bytes = onepass ? bytes_per_sample_onepass
                                 : fused ? bytes_per_sample_fused
                                         : bytes_per_sample_unfused;
            rep.add({ "fengine",
                      what + ", device-resident",
                      form.second,
                      samples / t_dev / 1e9,
                      "GS/s",
                      hbm / bytes / 1e9,
                      onepass ? "HBM copy / 2.41 B"
                      : fused ? "HBM copy / 10.25 B"
                              : "HBM copy / 18.25 B",
                      p->kernel_form() + "; " + std::to_string(launches) +
                          " calls back to back, event-timed; " +
                          p->launch_shape(spectra) + "; " + stages });
            if (p != &plan)
                continue;
            const double t_call = seconds_per_call(
                run, [&] { stream.synchronize(); }, iterations);
            rep.add({ "fengine",
                      what + ", device-resident, per call",
                      form.second,
                      samples / t_call / 1e9,
                      "GS/s",
                      hbm / bytes / 1e9,
                      onepass ? "HBM copy / 2.41 B"
                      : fused ? "HBM copy / 10.25 B"
                              : "HBM copy / 18.25 B",
                      "one call host-timed with its synchronisation" });
        }
        // Host-fed as a flowgraph runs it (docs/formats.md): the input
        // arrives in pieces, each uploaded on its own stream with an event,
        // and the F-engine's call for a piece waits only for the uploads its
        // window reaches, so uploads of piece k+1 overlap its kernels.
        runtime::device_stream upload(ctx, "bench");
        const auto cuts = host_fed_pieces(c, spectra, in_bytes);
        std::vector<std::unique_ptr<runtime::device_event>> uploaded;
        for (std::size_t k = 0; k + 1 < cuts.size(); ++k)
            uploaded.push_back(std::make_unique<runtime::device_event>(ctx, "bench"));
        const double t_host = seconds_per_call(
            [&] {
                for (std::size_t k = 0; k + 1 < cuts.size(); ++k) {
                    for (int i = 0; i < n_inputs; ++i)
                        ctx->copy_async(d_in[i]->get() + cuts[k].byte,
                                        h_in[i]->get() + cuts[k].byte,
                                        cuts[k + 1].byte - cuts[k].byte,
                                        runtime::copy_kind::host_to_device,
                                        upload.get(),
                                        "bench");
                    uploaded[k]->record(upload.get());
                }
                for (std::size_t k = 0; k + 1 < cuts.size(); ++k) {
                    uploaded[cuts[k].needs]->wait_in(stream.get());
                    auto views = d_views;
                    for (auto& v : views)
                        v.first_sample = int64_t(cuts[k].spectrum * step);
                    plan.execute(views,
                                 d_out.get() + cuts[k].spectrum * c.output_item_size(),
                                 dsat + cuts[k].spectrum * n_inputs,
                                 cuts[k + 1].spectrum - cuts[k].spectrum,
                                 cuts[k].spectrum,
                                 stream.get());
                }
            },
            [&] { stream.synchronize(); },
            iterations);
        rep.add({ "fengine",
                  what + ", host-fed",
                  "cuda",
                  samples / t_host / 1e9,
                  "GS/s",
                  h2d / 1.25 / 1e9,
                  "pinned H2D / 1.25 B",
                  std::to_string(cuts.size() - 1) +
                      " pieces, uploads on their own stream overlapping the kernels" });
    }
}

} // namespace bench
