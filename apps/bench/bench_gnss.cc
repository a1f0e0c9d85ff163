/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// gpudsp_bench gnss: microseconds per call of the GNSS correlator for the
// configurations of Tracking.jl's published GPU table (L1 with 3 taps, E1-B
// with 5, one antenna; L1 at 5 MHz for 5K samples, else 25 MHz) and 128
// satellites x 4 antennas x 25K. CPU rows (one core, and --threads N, by
// default every core, with the speed-up over one core); CUDA rows
// kernel-only (events around the kernels) and end to end (host input
// uploaded, results back on the host); and, for the CPU peer, GNSS-SDR's
// VOLK_GNSSSDR resampler + rotator dot product (3 taps) timed by its own
// volk_gnsssdr_profile on the same vector length, when installed.

#include "bench.h"
#include <gnuradio/gpudsp/kernels/gnss_correlator.h>
#include <cmath>
#include <cstdio>
#include <random>
#include <thread>
#include <regex>
#include <sstream>

namespace bench {

using namespace gr::gpudsp;

namespace {

struct config {
    std::string name;
    int l1, e1b;     // satellites of each system
    int64_t samples; // per call
    int antennas;
    double samp_rate;
};

std::vector<kernels::gnss_job> jobs_of(const config& c)
{
    // As Tracking.jl's benchmarks: code phase 10.5 + 0.1 i chips, Doppler
    // 1000 + 10 i Hz (L1) or 100 + 10 i Hz (E1-B).
    std::vector<kernels::gnss_job> jobs;
    for (int i = 0; i < c.l1 + c.e1b; ++i) {
        kernels::gnss_job j;
        const bool l1 = i < c.l1;
        const int k = l1 ? i : i - c.l1;
        j.system =
            l1 ? kernels::gnss_system::gps_l1ca : kernels::gnss_system::galileo_e1b;
        j.prn = 1 + k % kernels::gnss_signal(j.system).n_prns;
        j.carrier_freq = (l1 ? 1000.0 : 100.0) + 10.0 * k;
        j.code_freq = 1.023e6 * (1 + j.carrier_freq / 1575.42e6);
        j.code_phase = 10.5 + 0.1 * k;
        j.start = 0;
        j.length = c.samples;
        jobs.push_back(j);
    }
    return jobs;
}

std::vector<double> taps_of(const config& c)
{
    if (c.e1b == 0)
        return { 0.5, 0.0, -0.5 };
    return { 0.6, 0.15, 0.0, -0.15, -0.6 }; // Tracking.jl's VeryEarlyPromptLate
}

// Microseconds per call of VOLK_GNSSSDR's fastest resampler (3 taps) plus
// its fastest rotator dot product (3 vectors) at \p n points, from
// volk_gnsssdr_profile's own timing; 0 when it is not installed.
double volk_gnsssdr_pair_us(int64_t n, int iterations, std::string& detail)
{
    double total = 0;
    for (const char* kernel :
         { "32f_resamplerxnpuppet_32f", "32fc_32f_rotator_dotprodxnpuppet_32fc" }) {
        const std::string cmd = "volk_gnsssdr_profile -n 1 -v " + std::to_string(n) +
                                " -i " + std::to_string(iterations) + " -R " + kernel +
                                " 2>/dev/null";
        FILE* p = popen(cmd.c_str(), "r");
        if (!p)
            return 0;
        std::string text;
        char buf[512];
        while (fgets(buf, sizeof buf, p))
            text += buf;
        if (pclose(p) != 0)
            return 0;
        // "<arch> completed in <ms> ms": keep the fastest arch.
        std::regex line(R"((\S+) completed in ([0-9.]+) ms)");
        double best = 0;
        std::string best_arch;
        for (std::sregex_iterator it(text.begin(), text.end(), line), end; it != end;
             ++it) {
            const double ms = std::stod((*it)[2]);
            if (best == 0 || ms < best) {
                best = ms;
                best_arch = (*it)[1];
            }
        }
        if (best == 0)
            return 0;
        const double us = best * 1e3 / iterations;
        detail += std::string(detail.empty() ? "" : " + ") + kernel + " " + best_arch +
                  " " + std::to_string(us).substr(0, 6) + " us";
        total += us;
    }
    return total;
}

// Tracking.jl's published CPU figures for a case (microseconds per call,
// single thread), not measured here: they come from its own machines.
struct published {
    const char* name;
    double us;
    const char* source;
};
const published tracking_jl[] = {
    { "L1 4sat/5K", 21.9, "Tracking.jl PR #101, fused, single thread" },
    { "E1B 4sat/25K", 143.2, "Tracking.jl PR #101, fused, single thread" },
    { "8L1+8E1B/25K", 478.7, "Tracking.jl PR #101, fused, single thread" },
    { "E1B 16sat/100K", 920.0, "Tracking.jl PR #99, CPU" },
};

} // namespace

void run_gnss(const options& opt, report& rep)
{
    const int iterations = int(opt.size("iterations", 20));
    const std::size_t only = opt.size("samples", 0); // 0: the published sizes
    std::vector<config> configs = {
        { "L1 4sat/5K", 4, 0, 5000, 1, 5e6 },
        { "L1 16sat/5K", 16, 0, 5000, 1, 5e6 },
        { "E1B 4sat/25K", 0, 4, 25000, 1, 25e6 },
        { "E1B 16sat/25K", 0, 16, 25000, 1, 25e6 },
        { "E1B 4sat/100K", 0, 4, 100000, 1, 25e6 },
        { "E1B 16sat/100K", 0, 16, 100000, 1, 25e6 },
        { "4L1+4E1B/25K", 4, 4, 25000, 1, 25e6 },
        { "8L1+8E1B/25K", 8, 8, 25000, 1, 25e6 },
        { "8L1+8E1B/100K", 8, 8, 100000, 1, 25e6 },
        { "64L1+64E1B x 4 ant/25K", 64, 64, 25000, 4, 25e6 },
    };
    const bool skip_cpu = opt.flag("no-cpu");
    const int threads = int(opt.size( // (the plan takes 1..256)
        "threads",
        std::min(256u, std::max(1u, std::thread::hardware_concurrency()))));
    const auto ctx = cuda_or_skip(rep, "gnss");
    std::mt19937 rng(5);
    std::normal_distribution<float> g;
    for (auto& c : configs) {
        if (only)
            c.samples = int64_t(only);
        const auto jobs = jobs_of(c);
        const auto taps = taps_of(c);
        const std::size_t n_in = std::size_t(c.samples) * c.antennas;
        std::vector<std::complex<float>> x(n_in);
        for (auto& v : x)
            v = { g(rng), g(rng) };
        std::vector<const void*> ants(c.antennas);
        for (int m = 0; m < c.antennas; ++m)
            ants[m] = x.data() + std::size_t(m) * c.samples;
        std::vector<std::complex<float>> out(jobs.size() * c.antennas * taps.size());
        const double sat_samples = double(jobs.size()) * c.samples * c.antennas;
        const std::string what = c.name + " (" + std::to_string(taps.size()) + " taps)";
        if (!skip_cpu) {
            kernels::gnss_correlator_plan cpu(c.antennas,
                                              taps,
                                              c.samp_rate,
                                              kernels::gnss_input::complex64,
                                              runtime::backend_choice{},
                                              "bench");
            const double t = seconds_per_call(
                [&] { cpu.execute(ants, c.samples, jobs, out.data(), nullptr); },
                [] {},
                std::max(1, iterations / 4));
            rep.add({ "gnss",
                      what,
                      "cpu",
                      t * 1e6,
                      "us/call",
                      0,
                      "",
                      std::to_string(sat_samples / t / 1e9).substr(0, 6) +
                          " G sat.ant.samples/s, one core" });
            for (const auto& p : tracking_jl)
                if (!only && c.name == p.name)
                    rep.add({ "gnss",
                              what + ", published",
                              "julia",
                              p.us,
                              "us/call",
                              0,
                              "",
                              std::string("PUBLISHED figure, not measured here: ") +
                                  p.source + ", on its authors' machine; ours " +
                                  std::to_string(p.us / (t * 1e6)).substr(0, 4) +
                                  "x its speed" });
            if (threads > 1) {
                cpu.set_cpu_threads(threads);
                const double tn = seconds_per_call(
                    [&] { cpu.execute(ants, c.samples, jobs, out.data(), nullptr); },
                    [] {},
                    std::max(1, iterations / 4));
                rep.add({ "gnss",
                          what + ", " + std::to_string(threads) + " threads",
                          "cpu",
                          tn * 1e6,
                          "us/call",
                          0,
                          "",
                          std::to_string(t / tn).substr(0, 4) + "x one core" });
            }
        }
        if (!ctx)
            continue;
        auto gpu_plan = [&](kernels::gnss_input format) {
            return kernels::gnss_correlator_plan(
                c.antennas,
                taps,
                c.samp_rate,
                format,
                runtime::backend_choice{ runtime::backend_kind::cuda, 0 },
                "bench");
        };
        auto gpu = gpu_plan(kernels::gnss_input::complex64);
        runtime::device_stream stream(ctx, "bench");
        runtime::device_memory d_x(ctx, n_in * 8, "bench");
        runtime::pinned_memory h_x(ctx, n_in * 8, "bench");
        std::copy_n(reinterpret_cast<const char*>(x.data()), n_in * 8, h_x.get());
        ctx->copy_async(d_x.get(),
                        h_x.get(),
                        n_in * 8,
                        runtime::copy_kind::host_to_device,
                        stream.get(),
                        "bench");
        std::vector<const void*> dev(c.antennas);
        for (int m = 0; m < c.antennas; ++m)
            dev[m] = d_x.get() + std::size_t(m) * c.samples * 8;
        double kernel_best = 0;
        const double t_resident = seconds_per_call(
            [&] {
                gpu.execute(dev, c.samples, jobs, out.data(), stream.get());
                const double k = gpu.last_kernel_seconds();
                kernel_best = kernel_best == 0 ? k : std::min(kernel_best, k);
            },
            [] {},
            iterations);
        // End to end: the samples uploaded from pinned memory, then the call.
        auto end_to_end = [&](kernels::gnss_correlator_plan& plan,
                              const runtime::pinned_memory& host,
                              const std::vector<const void*>& on_device) {
            return seconds_per_call(
                [&] {
                    ctx->copy_async(d_x.get(),
                                    host.get(),
                                    host.size(),
                                    runtime::copy_kind::host_to_device,
                                    stream.get(),
                                    "bench");
                    plan.execute(on_device, c.samples, jobs, out.data(), stream.get());
                },
                [] {},
                iterations);
        };
        const double t_e2e = end_to_end(gpu, h_x, dev);
        rep.add({ "gnss",
                  what + ", kernels only",
                  "cuda",
                  kernel_best * 1e6,
                  "us/call",
                  0,
                  "",
                  std::to_string(sat_samples / kernel_best / 1e9).substr(0, 6) +
                      " G sat.ant.samples/s; " + gpu.last_launch_shape() });
        rep.add({ "gnss",
                  what + ", device-resident input, results to host",
                  "cuda",
                  t_resident * 1e6,
                  "us/call",
                  0,
                  "",
                  "" });
        rep.add({ "gnss",
                  what + ", end to end (host input)",
                  "cuda",
                  t_e2e * 1e6,
                  "us/call",
                  0,
                  "",
                  "" });
        // The same from int16 samples, what front ends deliver: half the
        // upload of float (at 16 x 100K samples, 0.4 MB instead of 0.8,
        // about 7 us of pinned PCIe Gen5 instead of 15).
        auto gpu16 = gpu_plan(kernels::gnss_input::complex_int16);
        runtime::pinned_memory h_x16(ctx, n_in * 4, "bench");
        auto* x16 = reinterpret_cast<int16_t*>(h_x16.get());
        for (std::size_t k = 0; k < n_in; ++k) { // (noise of rms 1 at 1/1000)
            x16[2 * k] = int16_t(std::lrint(1000 * x[k].real()));
            x16[2 * k + 1] = int16_t(std::lrint(1000 * x[k].imag()));
        }
        std::vector<const void*> dev16(c.antennas);
        for (int m = 0; m < c.antennas; ++m)
            dev16[m] = d_x.get() + std::size_t(m) * c.samples * 4;
        const double t_e2e16 = end_to_end(gpu16, h_x16, dev16);
        rep.add({ "gnss",
                  what + ", end to end (host int16 input)",
                  "cuda",
                  t_e2e16 * 1e6,
                  "us/call",
                  0,
                  "",
                  "" });
    }
    // The CPU peer on the vector lengths of the single-system rows.
    if (!skip_cpu && !opt.flag("no-peer")) {
        for (int64_t n : { int64_t(5000), int64_t(25000), int64_t(100000) }) {
            const int64_t len = only ? int64_t(only) : n;
            std::string detail;
            const double peer = volk_gnsssdr_pair_us(len, 200, detail);
            if (peer == 0) {
                rep.skip("gnss",
                         "VOLK_GNSSSDR peer: volk_gnsssdr_profile not installed "
                         "(Debian package gnss-sdr)");
                break;
            }
            kernels::gnss_correlator_plan cpu(1,
                                              { 0.5, 0.0, -0.5 },
                                              25e6,
                                              kernels::gnss_input::complex64,
                                              runtime::backend_choice{},
                                              "bench");
            config c{ "", 1, 0, len, 1, 25e6 };
            const auto jobs = jobs_of(c);
            std::vector<std::complex<float>> x(len), out(3);
            for (auto& v : x)
                v = { g(rng), g(rng) };
            std::vector<const void*> ants{ x.data() };
            const double t = seconds_per_call(
                [&] { cpu.execute(ants, len, jobs, out.data(), nullptr); }, [] {}, 50);
            const std::string what = "1sat/" + std::to_string(len) + " (3 taps)";
            rep.add({ "gnss", what, "cpu", t * 1e6, "us/call", 0, "", "one core" });
            rep.add({ "gnss",
                      what + ", VOLK_GNSSSDR pair",
                      "volk_gnsssdr",
                      peer,
                      "us/call",
                      0,
                      "",
                      detail + "; ours is " +
                          std::to_string(peer / (t * 1e6)).substr(0, 4) + "x faster" });
        }
    }
}

} // namespace bench
