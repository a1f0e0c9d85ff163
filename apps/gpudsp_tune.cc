/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// gpudsp_tune: times every CUDA plan's candidate configurations on this GPU
// at the shapes the benchmark and the FX correlator use (or the ones asked
// for), writes the winners to the user's tuning cache and prints the sweep.
// --json writes a table in the format of share/gr-gpudsp/tuning/ (the GPU
// suite keeps it as tuning.json; docs/gpu.md, "Tuning").

#include "runtime/autotune.h"
#include "runtime/json.h"
#include <gnuradio/gpudsp/kernels/ddc.h>
#include <gnuradio/gpudsp/kernels/gnss_correlator.h>
#include <gnuradio/gpudsp/kernels/ldpc5g.h>
#include <gnuradio/gpudsp/kernels/pfb_fengine.h>
#include <gnuradio/gpudsp/kernels/unpack10.h>
#include <gnuradio/gpudsp/kernels/xengine.h>
#include <gnuradio/gpudsp/runtime/backend.h>
#include <boost/program_options.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <sstream>

using namespace gr::gpudsp;
namespace po = boost::program_options;

namespace {

using shape_spec = std::map<std::string, std::string>; // key=value

// A usage error: exit status 2, the message names what was wrong.
struct usage_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

long number(const shape_spec& s, const std::string& key, long fallback)
{
    const auto it = s.find(key);
    if (it == s.end())
        return fallback;
    std::size_t used = 0;
    long v = 0;
    try {
        v = std::stol(it->second, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used != it->second.size())
        throw usage_error("shape value " + key + "=" + it->second + " is not an integer");
    return v;
}

double real(const shape_spec& s, const std::string& key, double fallback)
{
    const auto it = s.find(key);
    if (it == s.end())
        return fallback;
    std::size_t used = 0;
    double v = 0;
    try {
        v = std::stod(it->second, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used != it->second.size())
        throw usage_error("shape value " + key + "=" + it->second + " is not a number");
    return v;
}

std::string text(const shape_spec& s, const std::string& key, const std::string& fallback)
{
    const auto it = s.find(key);
    return it == s.end() ? fallback : it->second;
}

// One job: the keys its shapes take, its built-in grid (the benchmark's and
// the FX correlator's shapes), and how to build its plan (which tunes).
struct job {
    std::vector<std::string> keys;
    std::vector<shape_spec> grid;
    std::function<runtime::tune_result(const shape_spec&, const runtime::backend_choice&)>
        tune;
};

const std::map<std::string, job>& jobs()
{
    static const std::map<std::string, job> table = {
        { "unpack10",
          { { "format" },
            { { { "format", "float" } }, { { "format", "short" } } },
            [](const shape_spec& s, const runtime::backend_choice& w) {
                const std::string f = text(s, "format", "float");
                if (f != "float" && f != "short")
                    throw usage_error("unpack10 format must be float or short, got " + f);
                kernels::unpack10_plan plan(f == "float" ? kernels::sample_format::float32
                                                         : kernels::sample_format::int16,
                                            w,
                                            "gpudsp_tune");
                return plan.tuning();
            } } },
        { "fengine",
          { { "N", "T", "I", "input", "output" },
            { { { "N", "1024" } },
              { { "N", "4096" } },
              { { "N", "32768" } },
              { { "N", "4096" },
                { "I", "128" } } }, // the FX correlator: 64 dual-pol dishes
            [](const shape_spec& s, const runtime::backend_choice& w) {
                kernels::fengine_config c;
                c.n_channels = int(number(s, "N", 4096));
                c.n_taps = int(number(s, "T", 16));
                c.n_inputs = int(number(s, "I", 2));
                c.input = kernels::parse_fengine_input(text(s, "input", "packed10"),
                                                       "gpudsp_tune fengine");
                c.output = kernels::parse_fengine_output(text(s, "output", "ci8"),
                                                         "gpudsp_tune fengine");
                kernels::fengine_plan plan(c, w, "gpudsp_tune");
                return plan.tuning();
            } } },
        { "xengine",
          { { "S", "P", "C", "input" },
            { { { "S", "64" }, { "C", "4096" } }, // the FX correlator
              { { "S", "256" } },
              { { "S", "512" } },
              { { "S", "1024" } },
              { { "S", "2048" } } },
            [](const shape_spec& s, const runtime::backend_choice& w) {
                kernels::xengine_config c;
                c.n_stations = int(number(s, "S", 64));
                c.n_pols = int(number(s, "P", 2));
                const long A = long(c.n_stations) * c.n_pols;
                // The benchmark's channels: 2^30 bytes of input in a call of
                // 8192 spectra, 16..4096.
                c.n_channels =
                    int(number(s, "C", std::clamp<long>((1L << 16) / A, 16, 4096)));
                const std::string in = text(s, "input", "ci8");
                if (in != "ci8" && in != "cf32")
                    throw usage_error("xengine input must be ci8 or cf32, got " + in);
                c.input = in == "ci8" ? kernels::xengine_input::ci8
                                      : kernels::xengine_input::cf32;
                c.output = in == "ci8" ? kernels::xengine_output::ci32
                                       : kernels::xengine_output::cf32;
                kernels::xengine_plan plan(c, w, "gpudsp_tune");
                return plan.tuning();
            } } },
        { "ddc",
          { { "D", "T", "input" },
            { { { "D", "16" }, { "T", "256" }, { "input", "packed10" } },
              { { "D", "16" }, { "T", "256" }, { "input", "complex" } },
              { { "D", "8" }, { "T", "128" }, { "input", "packed10" } },
              { { "D", "64" }, { "T", "1024" }, { "input", "packed10" } } },
            [](const shape_spec& s, const runtime::backend_choice& w) {
                kernels::ddc_config c;
                c.decimation = int(number(s, "D", 16));
                const int T = int(number(s, "T", 256));
                if (T < 1 || T > (1 << 20))
                    throw usage_error("ddc T must lie in 1..2^20");
                c.input = kernels::parse_ddc_input(text(s, "input", "packed10"),
                                                   "gpudsp_tune ddc");
                c.samp_rate = 1712e6;
                c.center_freq = c.complex_input() ? 100e6 : 300e6;
                for (int k = 0; k < T; ++k) // a Hann-windowed low pass
                    c.taps.emplace_back(
                        std::pow(std::sin(M_PI * (k + 0.5) / T), 2) *
                            (k == T / 2 ? 1.0
                                        : std::sin(M_PI * (k - T / 2) / c.decimation) /
                                              (M_PI * (k - T / 2) / c.decimation)),
                        0.0);
                kernels::ddc_plan plan(c, w, "gpudsp_tune");
                return plan.tuning();
            } } },
        { "gnss",
          { { "M", "L", "fs", "input" },
            { { { "M", "1" }, { "L", "3" }, { "fs", "5e6" } },
              { { "M", "1" }, { "L", "5" }, { "fs", "25e6" } },
              { { "M", "4" }, { "L", "5" }, { "fs", "25e6" } } },
            [](const shape_spec& s, const runtime::backend_choice& w) {
                const int L = int(number(s, "L", 3));
                std::vector<double> taps;
                for (int k = 0; k < L; ++k) // evenly from +0.5 to -0.5 chip
                    taps.push_back(L == 1 ? 0.0 : 0.5 - double(k) / (L - 1));
                const std::string in = text(s, "input", "cf32");
                if (in != "cf32" && in != "ci16")
                    throw usage_error("gnss input must be cf32 or ci16, got " + in);
                kernels::gnss_correlator_plan plan(
                    int(number(s, "M", 1)),
                    taps,
                    real(s, "fs", 5e6),
                    in == "cf32" ? kernels::gnss_input::complex64
                                 : kernels::gnss_input::complex_int16,
                    w,
                    "gpudsp_tune");
                return plan.tuning();
            } } },
        { "ldpc",
          { { "K", "E", "fixed", "layered" },
            { { { "K", "8448" }, { "E", "10752" } },
              { { "K", "8448" }, { "E", "10752" }, { "fixed", "1" } },
              { { "K", "3840" }, { "E", "19200" }, { "fixed", "1" } } },
            [](const shape_spec& s, const runtime::backend_choice& w) {
                const auto p = kernels::ldpc5g_params::make(int(number(s, "K", 8448)),
                                                            int(number(s, "E", 10752)),
                                                            0,
                                                            2,
                                                            0,
                                                            "gpudsp_tune");
                kernels::ldpc5g_decoder_config c;
                c.fixed_point = number(s, "fixed", 0) != 0;
                c.layered = number(s, "layered", 1) != 0;
                kernels::ldpc5g_decoder_plan plan(p, c, w, "gpudsp_tune");
                return plan.tuning();
            } } },
    };
    return table;
}

// "job:key=value,key=value" -> (job, spec), checked against the job's keys.
std::pair<std::string, shape_spec> parse_shape(const std::string& arg)
{
    const auto colon = arg.find(':');
    const std::string name = arg.substr(0, colon);
    if (!jobs().count(name))
        throw usage_error("--shape " + arg + ": unknown job \"" + name + "\"");
    shape_spec spec;
    if (colon == std::string::npos)
        return { name, spec };
    std::stringstream ss(arg.substr(colon + 1));
    std::string item;
    const auto& keys = jobs().at(name).keys;
    while (std::getline(ss, item, ',')) {
        const auto eq = item.find('=');
        if (eq == std::string::npos || eq == 0)
            throw usage_error("--shape " + arg + ": \"" + item + "\" is not key=value");
        const std::string key = item.substr(0, eq);
        if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
            std::string known;
            for (const auto& k : keys)
                known += (known.empty() ? "" : ", ") + k;
            throw usage_error("--shape " + arg + ": " + name + " has no key \"" + key +
                              "\" (keys: " + known + ")");
        }
        spec[key] = item.substr(eq + 1);
        if (key != "format" && key != "input" && key != "output")
            real(spec, key, 0); // a number, refused now rather than mid-sweep
    }
    return { name, spec };
}

std::string describe_spec(const shape_spec& s)
{
    std::string out;
    for (const auto& kv : s)
        out += (out.empty() ? "" : ",") + kv.first + "=" + kv.second;
    return out.empty() ? "(defaults)" : out;
}

void print_result(const runtime::tune_result& r)
{
    std::printf("%s\n", r.describe().c_str());
    for (const auto& c : r.candidates) {
        if (c.samples > 0)
            std::printf(
                "    %-28s %12.4g s/%s  (min %.4g, quartiles %.4g..%.4g, n=%d)%s\n",
                c.id.c_str(),
                c.median_s,
                r.unit.c_str(),
                c.min_s,
                c.q1_s,
                c.q3_s,
                c.samples,
                c.id == r.chosen ? "  <- runs" : "");
        else
            std::printf("    %-28s %s\n", c.id.c_str(), c.status.c_str());
    }
    for (const auto& n : r.notes)
        std::printf("    note: %s\n", n.c_str());
}

runtime::json::value result_json(const runtime::tune_result& r)
{
    using runtime::json::value;
    value v = value::object();
    v.set("kernel", r.kernel);
    v.set("shape", r.shape);
    v.set("chosen", r.chosen);
    v.set("heuristic", r.heuristic);
    v.set("source", runtime::to_string(r.source));
    v.set("unit", r.unit);
    v.set("seconds_spent", r.seconds_spent);
    v.set("saved", r.saved);
    value cs = value::array();
    for (const auto& c : r.candidates) {
        value e = value::object();
        e.set("id", c.id);
        e.set("status", c.status);
        if (c.samples > 0) {
            e.set("median_s", c.median_s);
            e.set("min_s", c.min_s);
            e.set("q1_s", c.q1_s);
            e.set("q3_s", c.q3_s);
            e.set("samples", c.samples);
        }
        cs.push(std::move(e));
    }
    v.set("candidates", std::move(cs));
    value notes = value::array();
    for (const auto& n : r.notes)
        notes.push(n);
    v.set("notes", std::move(notes));
    return v;
}

// The result as an entry of a shipped table: only what was timed now and
// was steady enough to save.
bool entry_json(const runtime::tune_result& r, runtime::json::value& out)
{
    if (r.source != runtime::tune_source::tuned || !r.saved || r.key.empty())
        return false;
    runtime::tune_entry e;
    e.key = runtime::tune_key::from_json(runtime::json::parse(r.key));
    e.winner = r.chosen;
    e.heuristic = r.heuristic;
    e.unit = r.unit;
    e.candidates = r.candidates;
    out = e.to_json();
    return true;
}

int run(int argc, char** argv)
{
    po::options_description opts("options");
    std::string backend, json_path, mode, cache_dir;
    int device = 0;
    double budget = 1.0;
    std::vector<std::string> shapes, names;
    opts.add_options()("help,h", "this help")(
        "backend", po::value(&backend)->default_value("cuda"), "cuda or emulated")(
        "device", po::value(&device)->default_value(0), "CUDA device index")(
        "mode",
        po::value(&mode)->default_value("force"),
        "force (time every problem again) or auto (only what the cache lacks)")(
        "budget",
        po::value(&budget)->default_value(1.0),
        "seconds of timing per problem (GPUDSP_AUTOTUNE_BUDGET)")(
        "cache-dir",
        po::value(&cache_dir),
        "tuning cache folder (default: $GPUDSP_AUTOTUNE_DIR, else "
        "$XDG_CACHE_HOME/gr-gpudsp)")(
        "shape",
        po::value(&shapes),
        "JOB:key=value,... a shape to tune instead of JOB's built-in grid (repeatable)")(
        "json", po::value(&json_path), "write the sweep and a tuning table to FILE")(
        "list", "print each job's built-in grid and exit");
    po::options_description hidden;
    hidden.add_options()("job", po::value(&names));
    po::options_description all;
    all.add(opts).add(hidden);
    po::positional_options_description pos;
    pos.add("job", -1);
    po::variables_map vm;
    try {
        po::store(po::command_line_parser(argc, argv).options(all).positional(pos).run(),
                  vm);
        po::notify(vm);
    } catch (const po::error& e) {
        throw usage_error(e.what());
    }
    if (vm.count("help")) {
        std::cout
            << "usage: gpudsp_tune [JOB ...] [options]\n\n"
               "Times every candidate configuration of the CUDA plans of each JOB\n"
               "(default: all of them) at its built-in shapes on this GPU, keeps the\n"
               "winners in the tuning cache and prints the sweep.\n\njobs:";
        for (const auto& j : jobs())
            std::cout << " " << j.first;
        std::cout << "\n\n" << opts << "\n";
        return 0;
    }
    for (const auto& n : names)
        if (!jobs().count(n))
            throw usage_error("unknown job \"" + n + "\"");
    if (mode != "force" && mode != "auto")
        throw usage_error("--mode must be force or auto, got \"" + mode + "\"");
    if (!(budget > 0) || budget > 3600)
        throw usage_error("--budget must be seconds in (0, 3600]");
    if (backend != "cuda" && backend != "emulated")
        throw usage_error("--backend must be cuda or emulated, got \"" + backend + "\"");
    std::map<std::string, std::vector<shape_spec>> asked;
    for (const auto& s : shapes) {
        auto [name, spec] = parse_shape(s);
        asked[name].push_back(spec);
    }
    if (vm.count("list")) {
        for (const auto& j : jobs())
            for (const auto& s : j.second.grid)
                std::cout << j.first << ":" << describe_spec(s) << "\n";
        return 0;
    }
    if (names.empty())
        for (const auto& j : jobs())
            if (shapes.empty() || asked.count(j.first))
                names.push_back(j.first);
    for (const auto& a : asked)
        if (std::find(names.begin(), names.end(), a.first) == names.end())
            names.push_back(a.first);

    if (backend == "cuda" && !runtime::cuda_available()) {
        std::cout << "gpudsp_tune: "
                  << (runtime::built_with_cuda() ? "no CUDA device"
                                                 : "gr-gpudsp was built without CUDA")
                  << ": nothing to tune\n";
        if (!json_path.empty()) {
            std::ofstream f(json_path);
            f << "{\"schema\": 1, \"device\": null, \"entries\": [], \"results\": []}\n";
        }
        return 0;
    }
    setenv("GPUDSP_AUTOTUNE", mode.c_str(), 1);
    setenv("GPUDSP_AUTOTUNE_BUDGET", std::to_string(budget).c_str(), 1);
    if (!cache_dir.empty())
        setenv("GPUDSP_AUTOTUNE_DIR", cache_dir.c_str(), 1);
    const auto where = runtime::resolve_backend(backend, device, "gpudsp_tune");
    const auto ctx = runtime::device_context::get(where.kind, where.device);
    const auto dev = ctx->info();
    std::printf("gpudsp_tune: %s, mode %s, %.2f s a problem\n\n",
                where.describe().c_str(),
                mode.c_str(),
                budget);

    using runtime::json::value;
    value entries = value::array(), results = value::array();
    int failed = 0;
    const auto t0 = std::chrono::steady_clock::now();
    auto seconds = [&t0] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
            .count();
    };
    // The table is rewritten after every problem (a temporary file renamed
    // into place), so that a sweep stopped part way (a time limit, say)
    // keeps what it measured: the GPU suite's first H200 run lost a whole
    // sweep to one kill.
    auto write_table = [&](bool complete) {
        if (json_path.empty())
            return;
        value doc = value::object();
        doc.set("schema", 1);
        value d = value::object();
        d.set("name", dev.name);
        d.set("compute_capability",
              std::to_string(dev.compute_major) + "." +
                  std::to_string(dev.compute_minor));
        d.set("multiprocessors", dev.multiprocessors);
        d.set("l2_bytes", dev.l2_bytes);
        d.set("driver", dev.driver_version);
        d.set("runtime", dev.runtime_version);
        doc.set("device", std::move(d));
        doc.set("seconds", seconds());
        if (!complete)
            doc.set("status", "incomplete");
        doc.set("entries", entries);
        doc.set("results", results);
        const std::string tmp = json_path + ".part";
        {
            std::ofstream f(tmp);
            f << runtime::json::dump(doc, 1) << "\n";
            if (!f)
                throw std::runtime_error("cannot write " + tmp);
        }
        if (std::rename(tmp.c_str(), json_path.c_str()) != 0)
            throw std::runtime_error("cannot write " + json_path);
    };
    write_table(false);
    for (const auto& name : names) {
        const job& j = jobs().at(name);
        for (const auto& s : asked.count(name) ? asked.at(name) : j.grid) {
            runtime::tune_result r;
            try {
                r = j.tune(s, where);
            } catch (const usage_error&) {
                throw;
            } catch (const std::exception& e) {
                // A plan the device cannot make (memory, a refused shape):
                // reported, the sweep goes on.
                std::printf("%s [%s]: failed: %s\n\n",
                            name.c_str(),
                            describe_spec(s).c_str(),
                            e.what());
                value v = value::object();
                v.set("kernel", name);
                v.set("shape", describe_spec(s));
                v.set("error", e.what());
                results.push(std::move(v));
                ++failed;
                write_table(false);
                continue;
            }
            print_result(r);
            std::printf("\n");
            std::fflush(stdout);
            results.push(result_json(r));
            value e;
            if (entry_json(r, e))
                entries.push(std::move(e));
            write_table(false);
        }
    }
    std::printf("gpudsp_tune: %zu problems in %.1f s, %zu saved, %d failed\n",
                results.as_array("results").size(),
                seconds(),
                entries.as_array("entries").size(),
                failed);
    write_table(true);
    return failed ? 1 : 0;
}

} // namespace

int main(int argc, char** argv)
{
    try {
        return run(argc, argv);
    } catch (const usage_error& e) {
        std::cerr << "gpudsp_tune: " << e.what()
                  << "\n(gpudsp_tune --help lists the options)\n";
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "gpudsp_tune: " << e.what() << "\n";
        return 1;
    }
}
