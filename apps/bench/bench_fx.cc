/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// gpudsp_bench fx: the FX correlator end to end on one device — F-engine
// (packed 10-bit in, ci8 out, 16 taps) then X-engine (dual-pol, all
// baselines) on the same chunk of spectra — for MeerKAT-like antennas:
// 1712 MS/s per polarisation, 10-bit, 4096 channels. For each antenna count
// it reports input GS/s (all inputs) and whether that is real time
// (2 x 1.712 GS/s per antenna); host-fed rows include the upload of the
// packed bytes. The last line gives the most antennas sustained. The
// device-resident rows time calls back to back between CUDA events and
// state the F- and X-engine launches' blocks and waves; host-fed rows time
// each call from the host (its upload and synchronisation included).

#include "bench.h"
#include <gnuradio/gpudsp/kernels/pfb_fengine.h>
#include <gnuradio/gpudsp/kernels/unpack10.h>
#include <gnuradio/gpudsp/kernels/xengine.h>
#include <cstdio>
#include <random>

namespace bench {

using namespace gr::gpudsp;

namespace {

constexpr double meerkat_rate = 1712e6; // samples per second per polarisation

struct fx_chain {
    kernels::fengine_config fc;
    kernels::xengine_config xc;
    std::size_t spectra;
};

fx_chain make_chain(int antennas, int channels, std::size_t spectra)
{
    fx_chain c;
    c.fc.n_inputs = 2 * antennas;
    c.fc.n_channels = channels;
    c.fc.n_taps = 16;
    c.fc.input = kernels::fengine_input::packed10;
    c.fc.output = kernels::fengine_output::ci8;
    c.xc.n_stations = antennas;
    c.xc.n_pols = 2;
    c.xc.n_channels = channels;
    c.spectra = spectra;
    return c;
}

} // namespace

void run_fx(const options& opt, report& rep)
{
    if (opt.flag("flowgraph")) {
        run_fx_flowgraph(opt, rep);
        return;
    }
    const int N = int(opt.size("channels", 4096));
    const int iterations = int(opt.size("iterations", 3));
    const std::size_t spectra = opt.size("spectra", 256);

    // CPU: one small case, for scale.
    {
        const int A = int(opt.size("cpu-antennas", 2));
        auto c = make_chain(A, N, std::min<std::size_t>(spectra, 16));
        const std::size_t bytes = kernels::packed10_bytes(c.fc.samples_for(c.spectra));
        std::vector<std::vector<uint8_t>> in(c.fc.n_inputs, std::vector<uint8_t>(bytes));
        std::mt19937 rng(1);
        std::vector<kernels::fengine_input_view> views;
        for (auto& v : in) {
            for (auto& b : v)
                b = uint8_t(rng());
            views.push_back({ v.data(), 0 });
        }
        kernels::fengine_plan fe(c.fc, runtime::backend_choice{}, "bench");
        kernels::xengine_plan xe(c.xc, runtime::backend_choice{}, "bench");
        std::vector<char> spec(c.spectra * c.fc.output_item_size());
        std::vector<char> vis(c.xc.output_item_size());
        const double t = seconds_per_call(
            [&] {
                fe.execute(views, spec.data(), nullptr, c.spectra, 0, nullptr);
                xe.accumulate(spec.data(), c.spectra, nullptr);
                xe.dump(vis.data(), nullptr, nullptr);
            },
            [] {},
            iterations);
        const double gs = double(c.spectra) * c.fc.step() * c.fc.n_inputs / t / 1e9;
        rep.add({ "fx",
                  std::to_string(A) + " ant x 2 pol, N=" + std::to_string(N),
                  "cpu",
                  gs,
                  "GS/s",
                  2 * A * meerkat_rate / 1e9,
                  "real time",
                  "one core" });
    }

    const auto ctx = cuda_or_skip(rep, "fx");
    if (!ctx)
        return;
    runtime::backend_choice gpu{ runtime::backend_kind::cuda, 0 };
    const double copy =
        device_copy_bandwidth(std::size_t(1) << 28, 3); // the stages' ratio
    int best_host = 0;
    for (std::size_t A : opt.sizes("antennas", { 1, 2, 4, 8, 16, 24, 32, 48, 64 })) {
        auto c = make_chain(int(A), N, spectra);
        const std::size_t bytes = kernels::packed10_bytes(c.fc.samples_for(c.spectra));
        runtime::device_stream stream(ctx, "bench");
        std::vector<std::unique_ptr<runtime::device_memory>> d_in;
        std::vector<std::unique_ptr<runtime::pinned_memory>> h_in;
        std::vector<kernels::fengine_input_view> views;
        for (int i = 0; i < c.fc.n_inputs; ++i) {
            d_in.push_back(std::make_unique<runtime::device_memory>(ctx, bytes, "bench"));
            h_in.push_back(std::make_unique<runtime::pinned_memory>(ctx, bytes, "bench"));
            std::mt19937 rng(i);
            for (std::size_t b = 0; b < bytes; ++b)
                h_in.back()->get()[b] = char(rng());
            ctx->copy_async(d_in.back()->get(),
                            h_in.back()->get(),
                            bytes,
                            runtime::copy_kind::host_to_device,
                            stream.get(),
                            "bench");
            views.push_back({ d_in.back()->get(), 0 });
        }
        kernels::fengine_plan fe(c.fc, gpu, "bench");
        kernels::xengine_plan xe(c.xc, gpu, "bench");
        runtime::device_memory spec(ctx, c.spectra * c.fc.output_item_size(), "bench");
        runtime::device_memory vis(ctx, c.xc.output_item_size(), "bench");
        auto chain = [&] {
            fe.execute(views, spec.get(), nullptr, c.spectra, 0, stream.get());
            xe.accumulate(spec.get(), c.spectra, stream.get());
        };
        const double t_dev = seconds_per_launch(ctx, stream.get(), chain, 2, iterations);
        // One more call, its F-engine's kernel stages and its X-engine
        // timed apart: which of them binds the chain.
        const std::string f_stages = stages_of_one_call(
            fe,
            [&] { fe.execute(views, spec.get(), nullptr, c.spectra, 0, stream.get()); },
            copy);
        const double t_x = device_seconds(ctx, stream.get(), [&] {
            xe.accumulate(spec.get(), c.spectra, stream.get());
        });
        char x_alone[64];
        std::snprintf(x_alone, sizeof x_alone, "; X alone %.3f ms", t_x * 1e3);
        const double t_host = seconds_per_call(
            [&] {
                for (int i = 0; i < c.fc.n_inputs; ++i)
                    ctx->copy_async(d_in[i]->get(),
                                    h_in[i]->get(),
                                    bytes,
                                    runtime::copy_kind::host_to_device,
                                    stream.get(),
                                    "bench");
                chain();
            },
            [&] { stream.synchronize(); },
            iterations);
        const double samples = double(c.spectra) * c.fc.step() * c.fc.n_inputs;
        const double need = 2.0 * A * meerkat_rate / 1e9;
        const std::string what = std::to_string(A) +
                                 " ant x 2 pol, N=" + std::to_string(N) + ", " +
                                 xe.kernel_name() + " X";
        rep.add({ "fx",
                  what + ", device-resident",
                  "cuda",
                  samples / t_dev / 1e9,
                  "GS/s",
                  need,
                  "real time",
                  std::string(samples / t_dev / 1e9 >= need ? "real time"
                                                            : "slower than real time") +
                      "; 2 back to back; F: " + fe.launch_shape(c.spectra) + "; X: " +
                      xe.launch_shape(c.spectra) + "; F " + f_stages + x_alone });
        rep.add(
            { "fx",
              what + ", host-fed",
              "cuda",
              samples / t_host / 1e9,
              "GS/s",
              need,
              "real time",
              samples / t_host / 1e9 >= need ? "real time" : "slower than real time" });
        if (samples / t_host / 1e9 >= need)
            best_host = int(A);
    }
    rep.note("fx",
             "most MeerKAT-like antennas (2 x 1712 MS/s, 10-bit, " + std::to_string(N) +
                 " channels) one GPU sustains in real time, host-fed: " +
                 std::to_string(best_host));
}

} // namespace bench
