/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The F-engine plan on the test device (emulated, or CUDA when built with
// GPUDSP_TEST_CUDA) against the CPU plan, device-resident with poisoned
// outputs; the CPU plan itself is checked against a float64 reference in
// python/gpudsp/qa_pfb_fengine_kernels.py. Every input format, taps in the
// register and the generic paths, sizes that are not powers of two, call
// splits, dither and saturation.

#include "fengine_math.h"
#include "fengine_schedule.h"
#include "fengine_stages.h"
#include "runtime/qa_common.h"
#include <gnuradio/gpudsp/kernels/pfb_fengine.h>
#include <gnuradio/gpudsp/kernels/unpack10.h>
#include <gnuradio/gpudsp/runtime/device_context.h>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>

using namespace gr::gpudsp;
using kernels::fengine_input;
using kernels::fengine_output;

using device_fixture = qa::skip_without_device;
BOOST_TEST_GLOBAL_FIXTURE(device_fixture);

namespace {

struct device_run {
    std::vector<char> out;
    std::vector<uint32_t> sat;
};

// Runs the plan on the test device with device-resident input, output
// poisoned first; the spectra in calls of the sizes given.
device_run run_on_device(kernels::fengine_plan& plan,
                         const std::vector<std::vector<uint8_t>>& inputs,
                         const std::vector<int64_t>& first,
                         std::size_t n_spectra,
                         const std::vector<std::size_t>& calls)
{
    const auto& c = plan.config();
    auto ctx = runtime::device_context::get(plan.where().kind, plan.where().device);
    runtime::device_stream stream(ctx, "qa");
    std::vector<std::unique_ptr<runtime::device_memory>> d_in;
    std::vector<kernels::fengine_input_view> views;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        d_in.push_back(
            std::make_unique<runtime::device_memory>(ctx, inputs[i].size(), "qa"));
        ctx->copy_async(d_in.back()->get(),
                        inputs[i].data(),
                        inputs[i].size(),
                        runtime::copy_kind::host_to_device,
                        stream.get(),
                        "qa");
        views.push_back({ d_in.back()->get(), first[i] });
    }
    const std::size_t out_bytes = n_spectra * c.output_item_size();
    const std::size_t sat_bytes = n_spectra * c.n_inputs * sizeof(uint32_t);
    runtime::device_memory d_out(ctx, out_bytes, "qa"), d_sat(ctx, sat_bytes, "qa");
    ctx->memset_async(d_out.get(), 0xFF, out_bytes, stream.get(), "qa");
    ctx->memset_async(d_sat.get(), 0xFF, sat_bytes, stream.get(), "qa");
    std::size_t done = 0;
    for (std::size_t k = 0; done < n_spectra; ++k) {
        const std::size_t ns = std::min(calls[k % calls.size()], n_spectra - done);
        auto v = views;
        for (auto& x : v)
            x.first_sample += int64_t(done) * c.step();
        plan.execute(v,
                     d_out.get() + done * c.output_item_size(),
                     reinterpret_cast<uint32_t*>(d_sat.get()) + done * c.n_inputs,
                     ns,
                     done,
                     stream.get());
        done += ns;
    }
    device_run r{ std::vector<char>(out_bytes),
                  std::vector<uint32_t>(n_spectra * c.n_inputs) };
    ctx->copy_async(r.out.data(),
                    d_out.get(),
                    out_bytes,
                    runtime::copy_kind::device_to_host,
                    stream.get(),
                    "qa");
    ctx->copy_async(r.sat.data(),
                    d_sat.get(),
                    sat_bytes,
                    runtime::copy_kind::device_to_host,
                    stream.get(),
                    "qa");
    stream.synchronize();
    return r;
}

std::vector<uint8_t> random_input(fengine_input f, std::size_t n, unsigned seed)
{
    std::mt19937 rng(seed);
    std::normal_distribution<float> g(0.0f, 100.0f);
    switch (f) {
    case fengine_input::packed10:
        return qa::random_bytes(kernels::packed10_bytes(n), seed);
    case fengine_input::int16: {
        std::vector<uint8_t> b(2 * n);
        for (std::size_t i = 0; i < n; ++i) {
            const int16_t v = int16_t(std::lround(g(rng)) * 10);
            std::memcpy(b.data() + 2 * i, &v, 2);
        }
        return b;
    }
    case fengine_input::float32:
    case fengine_input::complex64: {
        const std::size_t m = f == fengine_input::float32 ? n : 2 * n;
        std::vector<uint8_t> b(4 * m);
        for (std::size_t i = 0; i < m; ++i) {
            const float v = g(rng);
            std::memcpy(b.data() + 4 * i, &v, 4);
        }
        return b;
    }
    }
    return {};
}

// Delay tracking on a dual-pol antenna's two inputs (a compare() tweak):
// delay and phase rates, fine delays, from spectrum 0.
void track_delays(kernels::fengine_corrections& corr)
{
    corr.delay_rates = { 1e-3, -2e-3 };
    corr.phase_rates = { 0.01, -0.03 };
    corr.fine_delays = { 0.2, -0.3 };
    corr.reference_spectrum = 0;
}

void compare(const kernels::fengine_config& c,
             unsigned seed,
             const std::vector<std::size_t>& calls,
             const std::function<void(const kernels::fengine_plan&)>& inspect = nullptr,
             const std::function<void(kernels::fengine_corrections&)>& tweak = nullptr,
             std::size_t n_spectra = 37)
{
    const std::size_t n = c.samples_for(n_spectra) + 11;
    std::vector<std::vector<uint8_t>> inputs;
    std::vector<int64_t> first;
    std::vector<kernels::fengine_input_view> host_views;
    for (int i = 0; i < c.n_inputs; ++i) {
        inputs.push_back(random_input(c.input, n, seed + i));
        first.push_back(i % 4 == 0 ? 0 : (i * 7) % 11); // windows starting mid-group too
    }
    for (int i = 0; i < c.n_inputs; ++i)
        host_views.push_back({ inputs[i].data(), first[i] });

    kernels::fengine_plan cpu(c, runtime::backend_choice{}, "qa_cpu");
    kernels::fengine_plan dev(c, qa::test_device(), "qa_device");
    if (inspect)
        inspect(dev);
    kernels::fengine_corrections corr;
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(-0.5, 0.5);
    for (int k = 0; k < c.n_channels * c.n_inputs; ++k)
        corr.gains.push_back(std::polar(float(1.0 + u(rng)), float(6 * u(rng))));
    for (int i = 0; i < c.n_inputs; ++i) {
        corr.fine_delays.push_back(u(rng));
        corr.phases.push_back(6 * u(rng));
    }
    if (tweak)
        tweak(corr);
    cpu.set_corrections(corr);
    dev.set_corrections(corr);

    std::vector<char> want(n_spectra * c.output_item_size());
    std::vector<uint32_t> want_sat(n_spectra * c.n_inputs);
    cpu.execute(host_views, want.data(), want_sat.data(), n_spectra, 0, nullptr);
    const auto got = run_on_device(dev, inputs, first, n_spectra, calls);

    if (c.output == fengine_output::cf32) {
        const auto* a = reinterpret_cast<const std::complex<float>*>(want.data());
        const auto* b = reinterpret_cast<const std::complex<float>*>(got.out.data());
        double scale = 0, err = 0;
        for (std::size_t k = 0; k < want.size() / 8; ++k) {
            scale = std::max(scale, double(std::abs(a[k])));
            err = std::max(err, double(std::abs(a[k] - b[k]))); // NaN poison fails this
        }
        const std::size_t bad = qa::first_non_finite(reinterpret_cast<const float*>(b),
                                                     2 * (want.size() / 8));
        BOOST_REQUIRE_MESSAGE(bad == 2 * (want.size() / 8),
                              "value " << bad / 2 << " is not finite");
        BOOST_CHECK_MESSAGE(err <= 2e-5 * scale, "max error " << err << " of " << scale);
    } else {
        int worst = 0;
        for (std::size_t k = 0; k < want.size(); ++k) {
            BOOST_REQUIRE(int8_t(got.out[k]) != -128);
            worst =
                std::max(worst, std::abs(int(int8_t(want[k])) - int(int8_t(got.out[k]))));
        }
        BOOST_CHECK_LE(worst, 1);
        for (std::size_t k = 0; k < want_sat.size();
             ++k) // FFT rounding may move a boundary value
            BOOST_CHECK_LE(std::abs(int64_t(want_sat[k]) - int64_t(got.sat[k])), 2);
    }
}

kernels::fengine_config
config(fengine_input in, fengine_output out, int n_inputs, int N, int T)
{
    kernels::fengine_config c;
    c.input = in;
    c.output = out;
    c.n_inputs = n_inputs;
    c.n_channels = N;
    c.n_taps = T;
    return c;
}

} // namespace

BOOST_AUTO_TEST_CASE(every_input_format_cf32)
{
    unsigned seed = 100;
    for (auto f : { fengine_input::packed10,
                    fengine_input::int16,
                    fengine_input::float32,
                    fengine_input::complex64 })
        for (int T : { 1, 3, 16, 21 })
            compare(config(f, fengine_output::cf32, 3, 64, T), seed++, { 37 });
}

BOOST_AUTO_TEST_CASE(sizes_and_input_counts)
{
    compare(
        config(fengine_input::packed10, fengine_output::cf32, 1, 4096, 16), 200, { 37 });
    compare(
        config(fengine_input::packed10, fengine_output::cf32, 70, 128, 8), 201, { 37 });
    compare(config(fengine_input::int16, fengine_output::cf32, 5, 96, 6), 202, { 37 });
    compare(
        config(fengine_input::complex64, fengine_output::cf32, 2, 40, 4), 203, { 37 });
}

BOOST_AUTO_TEST_CASE(ci8_with_dither_split_across_calls)
{
    auto c = config(fengine_input::packed10, fengine_output::ci8, 4, 256, 16);
    c.dither = true;
    compare(c, 300, { 1, 10, 3 });
    c.dither = false;
    compare(c, 301, { 36, 1 });
    auto f = config(fengine_input::float32, fengine_output::ci8, 2, 64, 4); // saturates
    compare(f, 302, { 5 });
}

BOOST_AUTO_TEST_CASE(tuned_plans_match_the_cpu)
{
    // Every form and FIR section the tuner may choose ran and matched the
    // heuristic's output within the tuner's tolerance (or it was rejected);
    // the chosen one matches the CPU.
    const qa::tuning_forced tuning;
    compare(config(fengine_input::packed10, fengine_output::ci8, 4, 256, 16),
            310,
            { 10, 27 },
            [](const kernels::fengine_plan& p) { qa::check_tuned(p.tuning()); });
    compare(config(fengine_input::complex64, fengine_output::cf32, 2, 64, 4),
            311,
            { 37 },
            [](const kernels::fengine_plan& p) { qa::check_tuned(p.tuning()); });
}

BOOST_AUTO_TEST_CASE(split_is_bit_identical_on_the_device)
{
    auto c = config(fengine_input::packed10, fengine_output::ci8, 3, 128, 16);
    c.dither = true;
    kernels::fengine_plan dev(c, qa::test_device(), "qa_device");
    const std::size_t n_spectra = 29;
    std::vector<std::vector<uint8_t>> in;
    for (int i = 0; i < 3; ++i)
        in.push_back(random_input(c.input, c.samples_for(n_spectra), 400 + i));
    const std::vector<int64_t> first = { 0, 0, 0 };
    const auto whole = run_on_device(dev, in, first, n_spectra, { n_spectra });
    const auto split = run_on_device(dev, in, first, n_spectra, { 4, 1, 13 });
    BOOST_CHECK(whole.out == split.out);
    BOOST_CHECK(whole.sat == split.sat);
}

// The post-processing fused into cuFFT (LTO store callbacks, linked by cuFFT
// at run time) is only ever a tuner candidate, or what GPUDSP_FENGINE_FUSED=1
// forces: the plan's own form is cuFFT and the post-processing kernel. Forced, it runs
// and matches the CPU, or (cuFFT refusing the callbacks: an nvJitLink older than cuFFT, a
// build without them) the plan runs its heuristic's form and says why.
BOOST_AUTO_TEST_CASE(fused_form_is_only_a_candidate)
{
    const qa::env_setting no_onepass("GPUDSP_FENGINE_ONEPASS", "0");
    const auto c = config(fengine_input::packed10, fengine_output::ci8, 2, 1024, 16);
    {
        const qa::env_setting unset("GPUDSP_FENGINE_FUSED", nullptr);
        kernels::fengine_plan dev(c, qa::test_device(), "qa_device");
        BOOST_TEST_MESSAGE("form: " << dev.kernel_form());
#ifdef GPUDSP_TEST_CUDA
        BOOST_CHECK_MESSAGE(
            dev.kernel_form().rfind("cuFFT + post-processing kernel", 0) == 0,
            dev.kernel_form());
        // The benchmark's note: chunks, the FIR's blocks and waves.
        const std::string shape = dev.launch_shape(1000);
        BOOST_CHECK_MESSAGE(shape.find("FIR: ") != std::string::npos &&
                                shape.find(" waves") != std::string::npos,
                            shape);
#else
        BOOST_CHECK_EQUAL(dev.kernel_form(), "");
        BOOST_CHECK_EQUAL(dev.launch_shape(1000), "");
#endif
    }
    const qa::env_setting forced("GPUDSP_FENGINE_FUSED", "1");
    compare(c, 290, { 20, 17 }, [](const kernels::fengine_plan& p) {
        const std::string form = p.kernel_form();
        BOOST_TEST_MESSAGE("forced: " << form << " (" << p.tuning().describe() << ")");
#if defined(GPUDSP_TEST_CUDA) && defined(GPUDSP_HAVE_FENGINE_CALLBACK)
        BOOST_CHECK_MESSAGE(form.rfind("cuFFT, post-processing fused", 0) == 0 ||
                                form.find("fusion: ") != std::string::npos,
                            form);
#elif defined(GPUDSP_TEST_CUDA)
        BOOST_CHECK_MESSAGE(form.find("built without cuFFT LTO callbacks") != std::string::npos,
                            form);
#else
        (void)form;
#endif
    });
}

// The one-pass kernel (fengine_onepass.cu: FIR, FFT and post-processing in
// one kernel; clusters above N = 512) against the CPU: every N it takes,
// 5 and 16 taps, every real input format, windows starting mid-group, ci8
// with dither and saturation and cf32, calls split anywhere, more inputs
// than one launch takes, delay tracking (drift). On CUDA it is the form
// GPUDSP_FENGINE_ONEPASS=1 forces (at N <= 512 on every GPU, above on
// sm_90, else the plan says why).
BOOST_AUTO_TEST_CASE(onepass_matches_the_cpu)
{
    const qa::env_setting force("GPUDSP_FENGINE_ONEPASS", "1");
    unsigned seed = 500;
    auto form_is_onepass = [](int N) {
        return [N](const kernels::fengine_plan& p) {
            const std::string form = p.kernel_form();
            BOOST_TEST_MESSAGE("N = " << N << ": " << form);
#ifdef GPUDSP_TEST_CUDA
            if (N <= 512)
                BOOST_CHECK_MESSAGE(form.rfind("one pass", 0) == 0, form);
            else
                BOOST_CHECK_MESSAGE(form.rfind("one pass", 0) == 0 ||
                                        form.find("needs clusters") != std::string::npos,
                                    form);
#else
            (void)form;
#endif
        };
    };
    for (int N : { 256, 512, 1024, 2048, 4096 })
        for (int T : { 5, 16 }) {
            auto c = config(fengine_input::packed10, fengine_output::ci8, 3, N, T);
            c.dither = N == 1024;
            compare(c, seed++, { 37 }, form_is_onepass(N));
        }
    compare(
        config(fengine_input::int16, fengine_output::cf32, 2, 512, 16), seed++, { 37 });
    compare(
        config(fengine_input::float32, fengine_output::cf32, 2, 2048, 8), seed++, { 37 });
    compare(config(fengine_input::packed10, fengine_output::ci8, 2, 1024, 16),
            seed++,
            { 1, 17, 19 },
            form_is_onepass(1024));
    compare(config(fengine_input::packed10, fengine_output::ci8, 70, 256, 16),
            seed++,
            { 37 });
    // Delay tracking: rates per spectrum from a reference before the call.
    compare(config(fengine_input::packed10, fengine_output::ci8, 2, 4096, 16),
            seed++,
            { 20, 17 },
            nullptr,
            track_delays);
}

// The split form (fengine_split.h: the FIR writes U rows a spectrum, cuFFT
// transforms N/U-point rows, the post-processing kernel does the last
// radix-U stage and the real fold) against the CPU: every U at a small N
// (GPUDSP_FENGINE_SPLIT=U forces it), the heuristic's choice above 4096
// channels, rows of an odd length, ci8 with dither and saturation, cf32,
// calls split anywhere, 70 inputs (three tiles of inputs), delay tracking.
BOOST_AUTO_TEST_CASE(split_matches_the_cpu)
{
    const qa::env_setting no_onepass("GPUDSP_FENGINE_ONEPASS", "0");
    unsigned seed = 700;
    auto form_is_split = [](int u) {
        return [u](const kernels::fengine_plan& p) {
            const std::string form = p.kernel_form();
            BOOST_TEST_MESSAGE("U = " << u << ": " << form);
#ifdef GPUDSP_TEST_CUDA
            BOOST_CHECK_MESSAGE(form.find("cuFFT on " + std::to_string(u) + " rows") == 0,
                                form);
#else
            (void)form;
#endif
        };
    };
    for (int u : { 1, 2, 4, 8 }) {
        const qa::env_setting force("GPUDSP_FENGINE_SPLIT", std::to_string(u).c_str());
        auto c = config(fengine_input::packed10, fengine_output::ci8, 3, 256, 16);
        c.dither = u == 4;
        compare(c, seed++, { 1, 17, 19 }, form_is_split(u));
        compare(config(fengine_input::int16, fengine_output::cf32, 2, 1000, 5),
                seed++,
                { 37 },
                form_is_split(u)); // rows of 1000, 500, 250 and 125 points
    }
    {
        const qa::env_setting force("GPUDSP_FENGINE_SPLIT", "2");
        compare(config(fengine_input::float32, fengine_output::ci8, 70, 64, 4),
                seed++,
                { 5, 32 },
                form_is_split(2)); // saturates
    }
    // Unforced: the heuristic's form above 4096 channels.
    compare(config(fengine_input::packed10, fengine_output::ci8, 2, 8192, 16),
            seed++,
            { 37 },
            form_is_split(2));
    compare(config(fengine_input::packed10, fengine_output::ci8, 2, 32768, 16),
            seed++,
            { 20, 17 },
            form_is_split(8),
            track_delays);
}

// The fused FFT and post-processing kernel after the FIR kernel
// (fengine_fftpost.h; GPUDSP_FENGINE_FFTPOST=rows forces it) against the
// CPU: 1, 2 and 4 inputs a CTA, input counts that leave the last CTA's rows
// short, N = 64 .. 8192, ci8 with dither and saturation, cf32, calls split
// anywhere, 70 inputs, delay tracking; staged by clusters (ci8, sm_90:
// GPUDSP_FENGINE_FFTPOST=rowsxcluster) with whole runs of inputs, a last
// cluster cut short, input counts no multiple of 8, padding CTAs.
BOOST_AUTO_TEST_CASE(fftpost_matches_the_cpu)
{
    const qa::env_setting no_onepass("GPUDSP_FENGINE_ONEPASS", "0");
    unsigned seed = 800;
    auto form_is_fftpost = [](int rows, int cluster = 1) {
        return [rows, cluster](const kernels::fengine_plan& p) {
            const std::string form = p.kernel_form();
            BOOST_TEST_MESSAGE("rows = " << rows << ", cluster = " << cluster << ": "
                                         << form);
#ifdef GPUDSP_TEST_CUDA
            BOOST_CHECK_MESSAGE(form.find("fused FFT and post-processing kernel (" +
                                          std::to_string(rows) + " input") !=
                                    std::string::npos,
                                form);
            BOOST_CHECK_MESSAGE(
                (form.find("staged by clusters of " + std::to_string(cluster) +
                           " CTAs") != std::string::npos) == (cluster > 1),
                form);
#else
            (void)form;
#endif
        };
    };
    for (int rows : { 1, 2, 4 }) {
        const qa::env_setting force("GPUDSP_FENGINE_FFTPOST",
                                    std::to_string(rows).c_str());
        auto c = config(fengine_input::packed10, fengine_output::ci8, 3, 256, 16);
        c.dither = rows == 2;
        compare(c, seed++, { 1, 17, 19 }, form_is_fftpost(rows));
        compare(config(fengine_input::int16, fengine_output::cf32, 5, 64, 5),
                seed++,
                { 37 },
                form_is_fftpost(rows));
        compare(config(fengine_input::float32, fengine_output::ci8, 70, 128, 4),
                seed++,
                { 5, 32 },
                form_is_fftpost(rows)); // saturates
        if (rows <= 2)
            compare(config(fengine_input::packed10, fengine_output::ci8, 2, 4096, 16),
                    seed++,
                    { 20, 17 },
                    form_is_fftpost(rows),
                    track_delays);
    }
    const qa::env_setting force("GPUDSP_FENGINE_FFTPOST", "1");
    compare(config(fengine_input::packed10, fengine_output::cf32, 2, 8192, 16),
            seed++,
            { 37 },
            form_is_fftpost(1));
#ifdef GPUDSP_TEST_CUDA
    const auto where = qa::test_device();
    if (runtime::device_context::get(where.kind, where.device)->info().compute_major < 9)
        return; // the staged form takes clusters
#endif
    struct staged_case {
        int rows, cluster, inputs, n;
    };
    for (const staged_case sc : { staged_case{ 2, 8, 32, 256 },  // two whole clusters
                                  staged_case{ 2, 8, 70, 128 },  // value by value
                                  staged_case{ 4, 8, 40, 1024 }, // one cut short
                                  staged_case{ 1, 2, 2, 4096 } }) {
        const std::string value =
            std::to_string(sc.rows) + "x" + std::to_string(sc.cluster);
        const qa::env_setting staged("GPUDSP_FENGINE_FFTPOST", value.c_str());
        auto c =
            config(fengine_input::packed10, fengine_output::ci8, sc.inputs, sc.n, 16);
        c.dither = sc.rows == 2;
        compare(c, seed++, { 3, 17 }, form_is_fftpost(sc.rows, sc.cluster));
    }
    const qa::env_setting staged("GPUDSP_FENGINE_FFTPOST", "1x2");
    compare(config(fengine_input::packed10, fengine_output::ci8, 2, 4096, 16),
            seed++,
            { 20, 17 },
            form_is_fftpost(1, 2),
            track_delays);
}

// fengine_plan::time_stages: on CUDA a timed call of each form reports the
// kernel stages that form runs, in order, each timed and with the bytes
// fengine_stage_bytes counts, within the call's wall time, and timing
// changes no output bit; the emulated device times nothing.
BOOST_AUTO_TEST_CASE(stage_times_name_each_forms_kernels_and_change_no_output)
{
    using kernels::fengine_stage;
    struct form {
        const char* variable; // forces the form (with GPUDSP_FENGINE_ONEPASS=0)
        const char* value;
        const char* named; // in kernel_form() when the form runs here
        std::vector<fengine_stage> stages;
    };
    const form forms[] = {
        { "GPUDSP_FENGINE_FUSED",
          "0",
          "cuFFT + post-processing kernel",
          { fengine_stage::fir, fengine_stage::fft, fengine_stage::post } },
        { "GPUDSP_FENGINE_FFTPOST",
          "2",
          "fused FFT and post-processing kernel",
          { fengine_stage::fir, fengine_stage::fft_post } },
        { "GPUDSP_FENGINE_SPLIT",
          "1",
          "cuFFT on ",
          { fengine_stage::fir, fengine_stage::split_fft, fengine_stage::split_post } },
        { "GPUDSP_FENGINE_ONEPASS", "1", "one pass", { fengine_stage::one_pass } },
    };
    auto c = config(fengine_input::packed10, fengine_output::ci8, 3, 1024, 16);
    c.dither = true;
    const std::size_t n_spectra = 37, last_call = 17;
    std::vector<std::vector<uint8_t>> inputs;
    for (int i = 0; i < c.n_inputs; ++i)
        inputs.push_back(random_input(c.input, c.samples_for(n_spectra), 900 + i));
    const std::vector<int64_t> first(c.n_inputs, 0);
    for (const auto& f : forms) {
        const bool onepass = std::strcmp(f.variable, "GPUDSP_FENGINE_ONEPASS") == 0;
        const qa::env_setting no_onepass("GPUDSP_FENGINE_ONEPASS", onepass ? "1" : "0");
        const qa::env_setting force(f.variable, f.value);
        kernels::fengine_plan dev(c, qa::test_device(), "qa_device");
        const auto untimed =
            run_on_device(dev, inputs, first, n_spectra, { 20, last_call });
        dev.time_stages(true);
        const auto t0 = std::chrono::steady_clock::now();
        const auto timed =
            run_on_device(dev, inputs, first, n_spectra, { 20, last_call });
        const auto stages = dev.stage_times(); // the last call's
        const double wall =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        BOOST_CHECK(timed.out == untimed.out);
        BOOST_CHECK(timed.sat == untimed.sat);
#ifdef GPUDSP_TEST_CUDA
        if (dev.kernel_form().find(f.named) == std::string::npos) {
            BOOST_TEST_MESSAGE(f.variable << "=" << f.value
                                          << " does not run here: " << dev.kernel_form());
            continue;
        }
        BOOST_REQUIRE_EQUAL(stages.size(), f.stages.size());
        double sum = 0;
        for (std::size_t k = 0; k < stages.size(); ++k) {
            BOOST_TEST_MESSAGE(stages[k].stage << ": " << stages[k].seconds * 1e6
                                               << " us");
            BOOST_CHECK_EQUAL(stages[k].stage, kernels::fengine_stage_name(f.stages[k]));
            BOOST_CHECK_GT(stages[k].seconds, 0.0);
            BOOST_CHECK_EQUAL(stages[k].bytes,
                              kernels::fengine_stage_bytes(c, f.stages[k], last_call));
            sum += stages[k].seconds;
        }
        BOOST_CHECK_LE(sum, wall);
#else
        BOOST_CHECK(stages.empty());
        (void)wall;
#endif
    }
}

// The stages' bytes give each form's bytes per sample that docs/fengine.md
// and the benchmark's rooflines state: 10-bit in and ci8 out, 18.25 through
// cuFFT and the post-processing kernel (or the split form), 10.25 fused,
// 2.25 in one pass; cf32 out and complex input as the docs' tables.
BOOST_AUTO_TEST_CASE(stage_bytes_give_each_forms_bytes_per_sample)
{
    using kernels::fengine_stage;
    const std::size_t ns = std::size_t(1) << 20; // the T - 1 priming rows vanish
    const auto per_sample = [&](const kernels::fengine_config& c,
                                std::vector<fengine_stage> stages) {
        double b = 0;
        for (const auto s : stages)
            b += kernels::fengine_stage_bytes(c, s, ns);
        return b / (double(ns) * c.step() * c.n_inputs);
    };
    const auto near = [](double got, double want) {
        // (a real FFT's Nyquist bin adds 4 / N bytes, under 4e-3 here)
        BOOST_CHECK_MESSAGE(std::abs(got - want) < 5e-3,
                            got << " B a sample, not " << want);
    };
    const auto c = config(fengine_input::packed10, fengine_output::ci8, 2, 4096, 16);
    near(per_sample(c, { fengine_stage::fir, fengine_stage::fft, fengine_stage::post }),
         18.25);
    near(per_sample(
             c,
             { fengine_stage::fir, fengine_stage::split_fft, fengine_stage::split_post }),
         18.25);
    near(per_sample(c, { fengine_stage::fir, fengine_stage::fft_post }), 10.25);
    near(per_sample(c, { fengine_stage::fir, fengine_stage::fft_callback }), 10.25);
    near(per_sample(c, { fengine_stage::one_pass }), 2.25);
    // cf32 out: 4 bytes a sample instead of 1.
    near(per_sample(config(fengine_input::int16, fengine_output::cf32, 3, 1024, 8),
                    { fengine_stage::fir, fengine_stage::fft, fengine_stage::post }),
         2 + 4 + 4 + 4 + 4 + 4);
    // Complex input, per complex sample: 8 in, 8 through each intermediate.
    near(per_sample(config(fengine_input::complex64, fengine_output::ci8, 1, 256, 4),
                    { fengine_stage::fir, fengine_stage::fft, fengine_stage::post }),
         8 + 8 + 8 + 8 + 8 + 2);
}

// The CUDA plan's chunks (fengine_chunk_spectra): about 128 MiB of FIR
// output, but long enough that a FIR section's priming rows add at most an
// eighth to the input it reads, where a sixteenth of the device's memory
// holds the chunk's scratch; never shorter than the 128 MiB give.
BOOST_AUTO_TEST_CASE(chunks_prime_at_most_an_eighth_of_the_fir_input)
{
    using kernels::fengine_chunk_spectra;
    const std::size_t gib = std::size_t(1) << 30;
    const auto pk = fengine_input::packed10;
    const auto ci8 = fengine_output::ci8;
    // The FX job's 64 dual-pol antennas: 32 spectra of 15 priming rows each
    // (1.47x the input) before; now 128 (1.12x) on an 80 GB GPU.
    const auto fx = config(pk, ci8, 128, 4096, 16);
    BOOST_CHECK_EQUAL(fengine_chunk_spectra(fx, 80 * gib), 128);
    BOOST_CHECK_LE(15.0 / fengine_chunk_spectra(fx, 80 * gib), 1.0 / 8);
    // Less memory: the largest power of two a sixteenth holds (1 GiB of a
    // 16 GB GPU: 127 spectra of 8.4 MB), never under the 128 MiB chunk.
    BOOST_CHECK_EQUAL(fengine_chunk_spectra(fx, 16 * gib), 64);
    BOOST_CHECK_EQUAL(fengine_chunk_spectra(fx, 1 * gib), 32);
    // Few inputs: 128 MiB is long already (2048 spectra at N = 4096).
    BOOST_CHECK_EQUAL(fengine_chunk_spectra(config(pk, ci8, 2, 4096, 16), 80 * gib),
                      2048);
    // The window sets the priming: 4 taps, 3 rows (24 -> 32 spectra, as the
    // 128 MiB give); one tap, none; 64 taps (the generic kernel), 63 rows.
    BOOST_CHECK_EQUAL(fengine_chunk_spectra(config(pk, ci8, 128, 4096, 4), 80 * gib), 32);
    BOOST_CHECK_EQUAL(fengine_chunk_spectra(config(pk, ci8, 512, 4096, 1), 80 * gib), 8);
    BOOST_CHECK_EQUAL(fengine_chunk_spectra(config(pk, ci8, 128, 4096, 64), 80 * gib),
                      512);
    // The register kernel's window is the taps rounded up to a power of two
    // (5 taps: 8, 7 priming rows, 56 -> 64 spectra); the generic kernel's
    // the taps themselves (17: 16 rows, 128 spectra, not 32 taps' 256).
    BOOST_CHECK_EQUAL(fengine_chunk_spectra(config(pk, ci8, 128, 4096, 5), 80 * gib), 64);
    BOOST_CHECK_EQUAL(fengine_chunk_spectra(config(pk, ci8, 128, 4096, 17), 80 * gib),
                      128);
    BOOST_CHECK_EQUAL(kernels::fengine_primed_spectra(config(pk, ci8, 2, 64, 5)), 64);
    BOOST_CHECK_EQUAL(kernels::fengine_primed_spectra(config(pk, ci8, 2, 64, 17)), 128);
    BOOST_CHECK_EQUAL(kernels::fengine_primed_spectra(config(pk, ci8, 2, 64, 1)), 1);
    // Within the memory's sixteenth: FIR output and spectra (8 B each a
    // sample and a bin).
    for (const int I : { 1, 2, 16, 128, 256, 1024 })
        for (const int N : { 64, 1024, 4096, 32768 }) {
            const auto c = config(pk, ci8, I, N, 16);
            const int n = fengine_chunk_spectra(c, 80 * gib);
            const double scratch = double(n) * I * (2.0 * N * 4 + (N + 1) * 8.0);
            const double mib128 = double(128 << 20) / (double(I) * 2 * N * 4);
            BOOST_CHECK_MESSAGE(
                n >= std::min(65535.0, std::floor(mib128)) &&
                    (n <= std::max(1.0, mib128) || scratch <= 80.0 * gib / 16) &&
                    (15.0 / n <= 1.0 / 8 || scratch > 80.0 * gib / 32 || n >= 65535),
                "I=" << I << " N=" << N << ": " << n << " spectra");
        }
}

// The L2-resident variants (fengine_l2_chunk_spectra): the L2's chunk for
// each form, at the shapes used here, and none where the FIR's priming or
// the plan's own chunk leave no room for one.
BOOST_AUTO_TEST_CASE(l2_chunks_fit_half_the_l2_and_the_firs_priming)
{
    using kernels::fengine_l2_chunk_spectra;
    const std::size_t l2 = std::size_t(50) << 20; // an H100's
    const auto pk = fengine_input::packed10;
    const auto ci8 = fengine_output::ci8;
    // 2 inputs, N = 4096: 128 KiB of FIR output and spectra a spectrum, 200
    // in 25 MiB: 128 (the FIR's 8 warm-ups at 16 taps); FIR output alone, 256.
    const auto two = config(pk, ci8, 2, 4096, 16);
    BOOST_CHECK_EQUAL(fengine_l2_chunk_spectra(two, l2, true, 2048), 128);
    BOOST_CHECK_EQUAL(fengine_l2_chunk_spectra(two, l2, false, 2048), 256);
    // Never the plan's own chunk or more.
    BOOST_CHECK_EQUAL(fengine_l2_chunk_spectra(two, l2, false, 256), 0);
    // The FX job's 128 inputs: 2 spectra would fit, under the 128 the
    // priming needs; 32768 channels likewise; a 4 MiB L2 (a T4's) too.
    BOOST_CHECK_EQUAL(
        fengine_l2_chunk_spectra(config(pk, ci8, 128, 4096, 16), l2, true, 128), 0);
    BOOST_CHECK_EQUAL(
        fengine_l2_chunk_spectra(config(pk, ci8, 2, 32768, 16), l2, true, 256), 0);
    BOOST_CHECK_EQUAL(fengine_l2_chunk_spectra(two, std::size_t(4) << 20, true, 2048), 0);
    // Fewer taps prime less: 4 taps, 32 spectra suffice (4 inputs, N = 8192:
    // 512 KiB a spectrum, 50 in 25 MiB: 32).
    BOOST_CHECK_EQUAL(
        fengine_l2_chunk_spectra(config(pk, ci8, 4, 8192, 4), l2, true, 512), 32);
}

// Forced (GPUDSP_FENGINE_CONFIG), each L2-resident variant the device
// offers against the CPU, in calls that cross its chunks: the heuristic's
// cuFFT form and the fused FFT kernel, 2 inputs at N = 1024.
BOOST_AUTO_TEST_CASE(l2_resident_chunks_match_the_cpu)
{
#ifdef GPUDSP_TEST_CUDA
    const auto where = qa::test_device();
    const auto info = runtime::device_context::get(where.kind, where.device)->info();
    const qa::env_setting no_onepass("GPUDSP_FENGINE_ONEPASS", "0");
    unsigned seed = 900;
    for (const char* form : { "kernel sec=1", "fftpost r=2" }) {
        auto c = config(fengine_input::packed10, fengine_output::ci8, 2, 1024, 16);
        c.dither = true;
        const bool spectra = std::string(form).rfind("fftpost", 0) != 0;
        const int chunk = kernels::fengine_l2_chunk_spectra(
            c,
            info.l2_bytes,
            spectra,
            kernels::fengine_chunk_spectra(c, info.total_memory));
        if (chunk == 0) {
            BOOST_TEST_MESSAGE(form << ": no L2-resident variant on this device");
            continue;
        }
        const std::string id = std::string(form) + " l2";
        const qa::env_setting force("GPUDSP_FENGINE_CONFIG", id.c_str());
        try { // (its form refused here, or left out by a GPUDSP_FENGINE_* variable)
            kernels::fengine_plan probe(c, where, "qa_probe");
        } catch (const std::invalid_argument& e) {
            BOOST_TEST_MESSAGE(id << " is not offered here: " << e.what());
            continue;
        }
        const std::size_t n = 2 * std::size_t(chunk) + 37;
        compare(
            c,
            seed++,
            { std::size_t(chunk) + 5, std::size_t(chunk) / 2, 1 },
            [&](const kernels::fengine_plan& p) {
                BOOST_TEST_MESSAGE(id << ": " << p.kernel_form());
                BOOST_CHECK_EQUAL(p.tuning().chosen, id);
                BOOST_CHECK_MESSAGE(p.kernel_form().find("L2-resident chunks of " +
                                                         std::to_string(chunk)) !=
                                        std::string::npos,
                                    p.kernel_form());
            },
            nullptr,
            n);
    }
#else
    BOOST_TEST_MESSAGE("the L2-resident variants are the CUDA plan's");
#endif
}

// The post-processing as its own kernel (GPUDSP_FENGINE_FUSED=0, the form
// the plan falls back to) against the CPU too: both output formats,
// dither, saturation, a call split.
BOOST_AUTO_TEST_CASE(unfused_post_processing_matches_the_cpu)
{
    const qa::env_setting off("GPUDSP_FENGINE_FUSED", "0");
    auto c = config(fengine_input::packed10, fengine_output::ci8, 3, 256, 16);
    c.dither = true;
    compare(c, 500, { 7, 30 });
    compare(config(fengine_input::float32, fengine_output::ci8, 2, 64, 4), 501, { 5 });
    compare(
        config(fengine_input::complex64, fengine_output::cf32, 3, 40, 4), 502, { 37 });
#if defined(GPUDSP_TEST_CUDA) && defined(GPUDSP_HAVE_FENGINE_CALLBACK)
    kernels::fengine_plan dev(c, qa::test_device(), "qa_device");
    BOOST_CHECK_MESSAGE(dev.kernel_form().find("GPUDSP_FENGINE_FUSED=0") !=
                            std::string::npos,
                        dev.kernel_form());
#endif
}

// The CUDA F-engine's FFT stage (no GPU needed): a call of n spectra is cut
// into power-of-two runs, one per bit of n, covering [0, n) once and in
// order, each within the plans made (2^k <= the chunk, so k <= log2(n)); and
// the spectrum-major scratch puts every run in one contiguous block.
BOOST_AUTO_TEST_CASE(fft_runs_cover_every_call_size)
{
    namespace fm = gr::gpudsp::kernels::fmath;
    for (int n = 0; n <= 70000; ++n) {
        const auto runs = fm::fft_runs(n);
        int next = 0, last_k = 31;
        for (const auto& r : runs) {
            BOOST_REQUIRE_EQUAL(r.begin, next);
            BOOST_REQUIRE_LT(r.log2_count, last_k); // largest first, each once
            BOOST_REQUIRE_LE(1 << r.log2_count, n);
            last_k = r.log2_count;
            next += 1 << r.log2_count;
        }
        BOOST_REQUIRE_EQUAL(next, n);
        BOOST_REQUIRE_LE(runs.size(), std::size_t(17));
    }
    // Scratch: a bijection onto [0, spectra x inputs x points), and the
    // points of a run of spectra (all inputs) are one contiguous range.
    for (int inputs : { 1, 2, 3, 7 })
        for (int points : { 1, 6, 16 }) {
            const int spectra = 11;
            std::vector<int> seen(std::size_t(spectra) * inputs * points, 0);
            for (int s = 0; s < spectra; ++s)
                for (int i = 0; i < inputs; ++i)
                    for (int j = 0; j < points; ++j)
                        ++seen.at(
                            std::size_t(fm::scratch_index(s, i, inputs, points, j)));
            for (int v : seen)
                BOOST_REQUIRE_EQUAL(v, 1);
            for (const auto& r : fm::fft_runs(spectra)) {
                const int64_t first = fm::scratch_index(r.begin, 0, inputs, points, 0);
                const int64_t last = fm::scratch_index(r.begin + (1 << r.log2_count) - 1,
                                                       inputs - 1,
                                                       inputs,
                                                       points,
                                                       points - 1);
                BOOST_REQUIRE_EQUAL(last - first + 1,
                                    int64_t(1 << r.log2_count) * inputs * points);
            }
        }
}

// The GPU evaluates the delay-tracking drift in float (fmath::drift_halfturns,
// then sincospif), the CPU in double: for every channel of small sizes, both
// inputs, and offsets up to the block's rebase interval (2^16 spectra) at
// the largest rates the block gives (a fine delay that moves 0.5 sample and
// a phase of 2^10 rad over the interval), they agree to 1e-4 rad per 100 rad
// of phase (float's resolution; 1e-3 rad at the largest); and the double
// form is the definition (-pi tau k' / N + phi for real input, -2 pi tau k'
// / N for complex, k' the signed frequency: k - N above N/2 in natural
// order, k - N/2 centred).
BOOST_AUTO_TEST_CASE(drift_phase_float_matches_double)
{
    namespace fm = gr::gpudsp::kernels::fmath;
    using axis_t = fm::channel_axis;
    const double rd = 0.5 / 65536, rp = 1024.0 / 65536;
    for (axis_t axis : { axis_t::real, axis_t::complex_natural, axis_t::complex_centred })
        for (int N : { 2, 3, 7, 64, 1000, 4096 })
            for (double d : { 0.0, 1.0, 17.0, 4097.0, 65535.0, 65536.0 + 8191.0 }) {
                if (axis == axis_t::complex_centred && N % 2)
                    continue; // centred channels need an even N
                const bool cplx = axis != axis_t::real;
                for (int k = 0; k < N; ++k) {
                    const double kk = axis == axis_t::complex_centred ? k - N / 2
                                      : cplx && k >= N / 2            ? k - N
                                                                      : k;
                    const double want = rp * d - (cplx ? 2 : 1) * M_PI * rd * d * kk / N;
                    const double got_d =
                        M_PI * fm::drift_halfturns<double>(rd, rp / M_PI, d, k, N, axis);
                    BOOST_REQUIRE_SMALL(got_d - want, 1e-9);
                    // As the GPU: rates uploaded as float (phase rate / pi).
                    const float got_f = fm::drift_halfturns<float>(
                        float(rd), float(rp / M_PI), float(d), k, N, axis);
                    const double err = std::remainder(M_PI * double(got_f) - want, 2 * M_PI);
                    BOOST_REQUIRE_SMALL(err, 1e-4 * std::max(1.0, std::fabs(want) / 100));
                }
            }
}

// A delay model's segments: every spectrum of a segment has the coarse delay
// of the model where its convention evaluates it (gpudsp: floor(tau + 0.5)
// at the window centre; katgpucbf: rint(tau), ties to even, at the window's
// first sample), fine = tau - coarse, and the segment ends exactly where
// some input's coarse delay changes (or after the rebase interval). Random
// models, rates of both signs up to the block's limit, steps of 2 to 2^17
// samples, and (every fifth trial) delays on half samples.
BOOST_AUTO_TEST_CASE(delay_model_segments_end_where_coarse_changes)
{
    using gr::gpudsp::fengine_delay_convention;
    using gr::gpudsp::fengine_delay_model;
    std::mt19937_64 rng(5);
    std::uniform_real_distribution<double> u(0, 1);
    for (int trial = 0; trial < 800; ++trial) {
        const int64_t step = int64_t(2) << (trial % 17);
        const int T = 1 + trial % 7;
        fengine_delay_model m;
        m.convention = trial % 2 ? fengine_delay_convention::katgpucbf
                                 : fengine_delay_convention::gpudsp;
        const bool kat = m.convention == fengine_delay_convention::katgpucbf;
        const int I = 1 + trial % 3;
        for (int i = 0; i < I; ++i) {
            m.delay.push_back(trial % 5 == 1 ? std::floor(1000 * u(rng)) + 0.5
                                             : 1000 * u(rng));
            m.delay_rate.push_back((u(rng) - 0.5) * 2e-3 * (trial % 5 == 0 ? 1e-4 : 1));
            m.phase.push_back(0);
            m.phase_rate.push_back(0);
        }
        m.at_sample = int64_t(1e6 * u(rng));
        uint64_t spec = uint64_t(m.at_sample / step) + uint64_t(T);
        for (int seg_no = 0; seg_no < 5; ++seg_no) {
            const auto seg = gr::gpudsp::fengine_segment(m, spec, step, T);
            BOOST_REQUIRE_GT(seg.end, spec);
            auto tau = [&](int i, uint64_t mm) {
                const double dn = kat ? double((int64_t(mm) - T + 1) * step - m.at_sample)
                                      : 0.5 * double(gr::gpudsp::fengine_centre_offset2(
                                                  mm, step, T, m.at_sample));
                return m.delay[i] + m.delay_rate[i] * dn;
            };
            // Written out, not fengine_coarse: rint's ties go to the even neighbour.
            auto coarse = [&](double t) {
                if (!kat)
                    return std::floor(t + 0.5);
                const double f = std::floor(t);
                if (t - f != 0.5)
                    return std::floor(t + 0.5);
                return std::fmod(f, 2.0) == 0 ? f : f + 1;
            };
            for (int i = 0; i < I; ++i) {
                BOOST_REQUIRE_EQUAL(seg.coarse[i], int64_t(coarse(tau(i, spec))));
                BOOST_REQUIRE_SMALL(seg.fine[i] - (tau(i, spec) - seg.coarse[i]), 1e-9);
                BOOST_REQUIRE_LE(std::fabs(seg.fine[i]), 0.5);
                // Inside: the same coarse delay (checked at the ends and a few within).
                for (uint64_t mm : { spec, (spec + seg.end) / 2, seg.end - 1 })
                    BOOST_REQUIRE_EQUAL(coarse(tau(i, mm)), double(seg.coarse[i]));
            }
            if (seg.end - spec < gr::gpudsp::fengine_rebase_spectra) {
                bool changed = false;
                for (int i = 0; i < I; ++i)
                    changed |= coarse(tau(i, seg.end)) != double(seg.coarse[i]);
                BOOST_REQUIRE(changed);
            }
            spec = seg.end;
        }
    }
}

// katgpucbf's convention as the plan applies it: for real input the phase
// referred to DC is the model's phase at the spectrum's first sample plus
// pi/2 (fine + coarse mod 4) (its band-centre terms), and drifts by the
// model's phase rate plus pi/2 per sample of fine delay; complex input
// takes the model's phase as it is. Checked against the same arithmetic
// written out with every coarse delay mod 4.
BOOST_AUTO_TEST_CASE(katgpucbf_phase_is_referred_to_the_band_centre)
{
    using gr::gpudsp::fengine_delay_convention;
    std::mt19937_64 rng(9);
    std::uniform_real_distribution<double> u(0, 1);
    for (int trial = 0; trial < 200; ++trial) {
        gr::gpudsp::fengine_delay_model m;
        m.convention = fengine_delay_convention::katgpucbf;
        m.real_input = trial % 3 != 0;
        const double D = double(trial % 8) + 10; // every D mod 4
        m.delay = { D + (u(rng) - 0.5) * 0.9 };
        m.delay_rate = { (u(rng) - 0.5) * 1e-6 };
        m.phase = { (u(rng) - 0.5) * 6 };
        m.phase_rate = { (u(rng) - 0.5) * 1e-3 };
        m.at_sample = trial * 37;
        const int64_t step = 64;
        const int T = 4;
        const uint64_t spec = uint64_t(trial) + 100;
        const auto seg = gr::gpudsp::fengine_segment(m, spec, step, T);
        const double t = double((int64_t(spec) - T + 1) * step - m.at_sample);
        const double tau = m.delay[0] + m.delay_rate[0] * t;
        BOOST_REQUIRE_EQUAL(seg.coarse[0], int64_t(D));
        const double phi = std::remainder(m.phase[0] + m.phase_rate[0] * t, 2 * M_PI);
        const double want =
            m.real_input ? phi + 0.5 * M_PI * ((tau - D) + double(int64_t(D) % 4)) : phi;
        BOOST_REQUIRE_SMALL(std::remainder(seg.phase[0] - want, 2 * M_PI), 1e-12);
        const double want_rate =
            m.phase_rate[0] * step +
            (m.real_input ? 0.5 * M_PI * m.delay_rate[0] * step : 0.0);
        BOOST_REQUIRE_SMALL(seg.phase_rate[0] - want_rate, 1e-15);
    }
}
