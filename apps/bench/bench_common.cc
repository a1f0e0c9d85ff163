/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "bench.h"
#include <gnuradio/gpudsp/runtime/backend.h>
#include <gnuradio/gpudsp/runtime/cpu_simd.h>
#include <boost/program_options.hpp>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <stdexcept>
#ifdef GPUDSP_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace bench {

using namespace gr::gpudsp::runtime;

namespace {

// A whole number, all of \p text ("abc", "-3", "7x" and "" are refused).
std::size_t parse_size(const std::string& option, const std::string& text)
{
    std::size_t used = 0;
    unsigned long long v = 0;
    try {
        if (!text.empty() && text[0] != '-' && text[0] != '+')
            v = std::stoull(text, &used, 10);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used == 0 || used != text.size())
        throw usage_error("--" + option + " takes a whole number, got \"" + text + "\"");
    return std::size_t(v);
}

std::vector<std::size_t> parse_sizes(const std::string& option, const std::string& text)
{
    const usage_error wrong(
        "--" + option + " takes whole numbers separated by commas, got \"" + text + "\"");
    std::vector<std::size_t> out;
    std::stringstream ss(text);
    std::string item;
    try {
        while (std::getline(ss, item, ','))
            out.push_back(parse_size(option, item));
    } catch (const usage_error&) {
        throw wrong;
    }
    if (out.empty() || text.back() == ',')
        throw wrong;
    return out;
}

} // namespace

options::options(const std::string& job,
                 const std::vector<option_spec>& specs,
                 int argc,
                 char** argv,
                 int first)
    : d_specs(specs)
{
    namespace po = boost::program_options;
    po::options_description desc(job + " options");
    desc.add_options()("help,h",
                       "this job's options")("json",
                                             po::value<std::string>()->value_name("FILE"),
                                             "write the rows to FILE as JSON");
    for (const auto& s : specs) {
        if (s.kind == option_spec::flag)
            desc.add_options()(s.name.c_str(), po::bool_switch(), s.help.c_str());
        else
            desc.add_options()(s.name.c_str(),
                               po::value<std::string>()->value_name(
                                   s.kind == option_spec::size    ? "N"
                                   : s.kind == option_spec::sizes ? "N[,N...]"
                                                                  : "TEXT"),
                               s.help.c_str());
    }
    std::ostringstream u;
    u << "usage: gpudsp_bench " << job << " [options]\n\n" << desc;
    d_usage = u.str();
    po::options_description all;
    all.add(desc).add_options()("stray", po::value<std::vector<std::string>>());
    po::positional_options_description stray; // words that are not options
    stray.add("stray", -1);
    po::variables_map vm;
    try {
        po::store(
            po::command_line_parser(std::vector<std::string>(argv + first, argv + argc))
                .options(all)
                .positional(stray)
                .style(po::command_line_style::default_style &
                       ~po::command_line_style::allow_guessing)
                .run(),
            vm);
    } catch (const po::error& e) {
        throw usage_error(std::string(e.what()) + " (gpudsp_bench " + job +
                          " --help lists its options)");
    }
    if (vm.count("stray"))
        throw usage_error("unexpected argument '" +
                          vm["stray"].as<std::vector<std::string>>().front() +
                          "' (gpudsp_bench " + job + " --help lists its options)");
    d_help = vm.count("help") > 0;
    if (vm.count("json"))
        d_values["json"] = vm["json"].as<std::string>();
    for (const auto& s : specs) {
        if (!vm.count(s.name) || vm[s.name].defaulted())
            continue;
        if (s.kind == option_spec::flag) {
            if (vm[s.name].as<bool>())
                d_values[s.name] = "";
            continue;
        }
        const std::string v = vm[s.name].as<std::string>();
        if (s.kind == option_spec::size)
            parse_size(s.name, v);
        else if (s.kind == option_spec::sizes)
            parse_sizes(s.name, v);
        d_values[s.name] = v;
    }
}

const option_spec& options::declared(const std::string& name) const
{
    for (const auto& s : d_specs)
        if (s.name == name)
            return s;
    throw std::logic_error("gpudsp_bench: the job reads --" + name +
                           ", which it does not declare (gpudsp_bench.cc)");
}

std::size_t options::size(const std::string& name, std::size_t fallback) const
{
    declared(name);
    auto it = d_values.find(name);
    return it == d_values.end() ? fallback : parse_size(name, it->second);
}

std::vector<std::size_t> options::sizes(const std::string& name,
                                        const std::vector<std::size_t>& fallback) const
{
    declared(name);
    auto it = d_values.find(name);
    return it == d_values.end() ? fallback : parse_sizes(name, it->second);
}

std::string options::text(const std::string& name, const std::string& fallback) const
{
    if (name != "json")
        declared(name);
    auto it = d_values.find(name);
    return it == d_values.end() ? fallback : it->second;
}

bool options::flag(const std::string& name) const
{
    declared(name);
    return d_values.count(name) > 0;
}

void report::skip(const std::string& job, const std::string& why)
{
    d_skipped.push_back(job + ": " + why);
}

void report::note(const std::string& job, const std::string& text)
{
    d_notes.push_back(job + ": " + text);
}

void report::print() const
{
    // Every CPU figure depends on it (docs/performance.md states it too).
    std::cout << "CPU kernels' SIMD: " << cpu_simd_description() << "\n";
    int width = 34; // the case column: as wide as its longest name
    for (const auto& r : d_rows)
        width = std::max(width, int(r.name.size()) + 1);
    std::cout << std::left << std::setw(10) << "job" << std::setw(width) << "case"
              << std::setw(9) << "backend" << std::right << std::setw(12) << "value"
              << "  " << std::left << std::setw(8) << "unit" << std::right
              << std::setw(12) << "roofline" << std::setw(8) << "ratio"
              << "  " << std::left << "roofline measured"
              << "\n";
    for (const auto& r : d_rows) {
        std::cout << std::left << std::setw(10) << r.job << std::setw(width) << r.name
                  << std::setw(9) << r.backend << std::right << std::setw(12)
                  << std::fixed << std::setprecision(3) << r.value << "  " << std::left
                  << std::setw(8) << r.unit << std::right;
        if (r.roofline > 0)
            std::cout << std::setw(12) << r.roofline << std::setw(7)
                      << std::setprecision(1) << 100.0 * r.value / r.roofline << "%  "
                      << r.roofline_name;
        else
            std::cout << std::setw(12) << "-" << std::setw(8) << "-";
        if (!r.note.empty())
            std::cout << "  (" << r.note << ")";
        std::cout << "\n";
    }
    for (const auto& s : d_skipped)
        std::cout << "SKIPPED " << s << "\n";
    for (const auto& s : d_notes)
        std::cout << "NOTE " << s << "\n";
}

namespace {
std::string json_string(const std::string& s)
{
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\')
            out += '\\';
        out += c;
    }
    return out + "\"";
}
} // namespace

void report::write_json(const std::string& path) const
{
    std::ofstream f(path);
    if (!f)
        throw std::runtime_error("cannot write " + path);
    const auto devs = devices();
    f << "{\n  \"device\": " << json_string(devs.empty() ? "none" : devs[0].name)
      << ",\n  \"cpu_simd\": " << json_string(cpu_simd_description())
      << ",\n  \"rows\": [\n";
    for (std::size_t i = 0; i < d_rows.size(); ++i) {
        const auto& r = d_rows[i];
        f << "    {\"job\": " << json_string(r.job)
          << ", \"case\": " << json_string(r.name)
          << ", \"backend\": " << json_string(r.backend) << ", \"value\": " << r.value
          << ", \"unit\": " << json_string(r.unit) << ", \"roofline\": " << r.roofline
          << ", \"roofline_name\": " << json_string(r.roofline_name)
          << ", \"note\": " << json_string(r.note) << "}"
          << (i + 1 < d_rows.size() ? "," : "") << "\n";
    }
    f << "  ],\n  \"skipped\": [";
    for (std::size_t i = 0; i < d_skipped.size(); ++i)
        f << (i ? ", " : "") << json_string(d_skipped[i]);
    f << "],\n  \"notes\": [";
    for (std::size_t i = 0; i < d_notes.size(); ++i)
        f << (i ? ", " : "") << json_string(d_notes[i]);
    f << "]\n}\n";
}

std::string times_faster(double ours, double theirs, const std::string& whom)
{
    return std::to_string(theirs / ours).substr(0, 5) + "x " + whom + " (same run)";
}

double best_flowgraph_seconds(const std::function<std::shared_ptr<gr::top_block>()>& make,
                              int iterations)
{
    double best = 1e30;
    for (int it = 0; it < iterations; ++it) {
        auto tb = make();
        const auto t0 = std::chrono::steady_clock::now();
        tb->run();
        best = std::min(
            best,
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    return best;
}

double seconds_per_call(const std::function<void()>& fn,
                        const std::function<void()>& sync,
                        int iterations)
{
    fn(); // warm-up: first-touch, plan caches, clocks
    sync();
    double best = 1e30;
    for (int i = 0; i < std::max(1, iterations); ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        fn();
        sync();
        const auto t1 = std::chrono::steady_clock::now();
        best = std::min(best, std::chrono::duration<double>(t1 - t0).count());
    }
    return best;
}

namespace {

// A timing event, destroyed with its scope.
struct timer {
    const device_context::sptr& ctx;
    event_handle e;
    explicit timer(const device_context::sptr& c) : ctx(c), e(c->timer_create("bench")) {}
    ~timer() { ctx->event_destroy(e); }
};

} // namespace

double seconds_per_launch(const device_context::sptr& ctx,
                          stream_handle stream,
                          const std::function<void()>& launch,
                          int launches,
                          int iterations)
{
    const timer start(ctx), end(ctx);
    launch(); // warm-up: first-touch, plan caches, clocks
    ctx->stream_synchronize(stream, "bench");
    double best = 1e30;
    for (int i = 0; i < std::max(1, iterations); ++i) {
        ctx->event_record(start.e, stream, "bench");
        for (int k = 0; k < std::max(1, launches); ++k)
            launch();
        ctx->event_record(end.e, stream, "bench");
        ctx->event_synchronize(end.e, "bench");
        best = std::min(
            best, ctx->elapsed_seconds(start.e, end.e, "bench") / std::max(1, launches));
    }
    return best;
}

double device_seconds(const device_context::sptr& ctx,
                      stream_handle stream,
                      const std::function<void()>& work)
{
    const timer start(ctx), end(ctx);
    ctx->event_record(start.e, stream, "bench");
    work();
    ctx->event_record(end.e, stream, "bench");
    ctx->event_synchronize(end.e, "bench");
    return ctx->elapsed_seconds(start.e, end.e, "bench");
}

std::string describe_stages(const std::vector<stage_time>& stages, double copy)
{
    double total = 0;
    for (const auto& s : stages)
        total += s.seconds;
    std::string out;
    for (const auto& s : stages) {
        char buf[200];
        int k = std::snprintf(buf,
                              sizeof buf,
                              "%s %.3f ms (%.0f%%)",
                              s.stage.c_str(),
                              s.seconds * 1e3,
                              total > 0 ? 100.0 * s.seconds / total : 0.0);
        const double rate = s.seconds > 0 ? s.bytes / s.seconds : 0;
        if (s.bytes > 0 && k > 0 && k < int(sizeof buf))
            k += std::snprintf(buf + k, sizeof buf - k, " at %.2f TB/s", rate / 1e12);
        if (s.bytes > 0 && copy > 0 && k > 0 && k < int(sizeof buf))
            std::snprintf(buf + k,
                          sizeof buf - k,
                          " = %.0f%% of the HBM copy",
                          100.0 * rate / copy);
        out += (out.empty() ? "stages of one call: " : ", ") + std::string(buf);
    }
    return out;
}

double host_memcpy_bandwidth(std::size_t bytes, int iterations)
{
    std::vector<char> a(bytes, 1), b(bytes, 2);
    const double s = seconds_per_call(
        [&] { std::memcpy(b.data(), a.data(), bytes); }, [] {}, iterations);
    return 2.0 * bytes / s;
}

device_peaks nominal_peaks()
{
    device_peaks p;
#ifdef GPUDSP_HAVE_CUDA
    int dev = 0, sms = 0, khz = 0, major = 0, minor = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, dev);
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
    cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev);
    const int cc = 10 * major + minor;
    const double fp32_per_sm = (cc == 75 || cc == 80) ? 128 : 256; // 2 x FMA lanes
    const double int8_per_sm = cc >= 90 ? 8192 : (cc == 80 || cc == 89) ? 4096 : 2048;
    p.fp32 = sms * (khz * 1e3) * fp32_per_sm;
    p.int8 = sms * (khz * 1e3) * int8_per_sm;
    p.description = "sm_" + std::to_string(cc) + ", " + std::to_string(sms) + " SMs at " +
                    std::to_string(khz / 1000) + " MHz";
#endif
    return p;
}

device_context::sptr cuda_or_skip(report& rep, const std::string& job)
{
    if (!cuda_available()) {
        rep.skip(job,
                 built_with_cuda() ? "GPU rows skipped: no CUDA device"
                                   : "GPU rows skipped: built without CUDA");
        return nullptr;
    }
    return device_context::get(backend_kind::cuda, 0);
}

double device_copy_bandwidth(std::size_t bytes, int iterations)
{
    if (!cuda_available())
        return 0;
    auto ctx = device_context::get(backend_kind::cuda, 0);
    device_memory a(ctx, bytes, "bench"), b(ctx, bytes, "bench");
    device_stream s(ctx, "bench");
    const double t = seconds_per_launch(
        ctx,
        s.get(),
        [&] {
            ctx->copy_async(
                b.get(), a.get(), bytes, copy_kind::device_to_device, s.get(), "bench");
        },
        4,
        iterations);
    return 2.0 * bytes / t;
}

double host_to_device_bandwidth(std::size_t bytes, int iterations)
{
    if (!cuda_available())
        return 0;
    auto ctx = device_context::get(backend_kind::cuda, 0);
    device_memory d(ctx, bytes, "bench");
    pinned_memory h(ctx, bytes, "bench");
    device_stream s(ctx, "bench");
    const double t = seconds_per_call(
        [&] {
            ctx->copy_async(
                d.get(), h.get(), bytes, copy_kind::host_to_device, s.get(), "bench");
        },
        [&] { s.synchronize(); },
        iterations);
    return bytes / t;
}

} // namespace bench
