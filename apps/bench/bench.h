/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// gpudsp_bench: the pieces every subcommand shares — options, timing, the
// result table and its JSON form.

#ifndef INCLUDED_GPUDSP_BENCH_H
#define INCLUDED_GPUDSP_BENCH_H

#include <gnuradio/gpudsp/runtime/device_context.h>
#include <gnuradio/top_block.h>
#include <chrono>
#include <cstddef>
#include <cstdlib>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace bench {

/*! \brief A command-line option a job takes: its kind (a whole number, a
 *  comma-separated list of them, a text or a flag) and its help, which
 *  states the default the job's code applies when it is absent. */
struct option_spec {
    enum kind_t { size, sizes, text, flag };
    std::string name;
    kind_t kind;
    std::string help;
};

/*! \brief A wrong command line: gpudsp_bench exits with status 2 and the
 *  message, which names the option or value at fault. */
struct usage_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/*! \brief A job's command line, parsed with Boost.Program_options against
 *  the options it declares (and --json, --help): anything else, a missing
 *  value or one of the wrong kind throws usage_error. A job reading an
 *  option it did not declare is a programming error (std::logic_error). */
class options
{
public:
    options(const std::string& job,
            const std::vector<option_spec>& specs,
            int argc,
            char** argv,
            int first);
    std::size_t size(const std::string& name, std::size_t fallback) const;
    std::vector<std::size_t> sizes(const std::string& name,
                                   const std::vector<std::size_t>& fallback) const;
    std::string text(const std::string& name, const std::string& fallback) const;
    bool flag(const std::string& name) const;
    bool help() const { return d_help; }
    /*! \brief "usage: gpudsp_bench JOB [options]" and the job's options. */
    std::string usage() const { return d_usage; }

private:
    const option_spec& declared(const std::string& name) const;

    std::vector<option_spec> d_specs;
    std::map<std::string, std::string> d_values; // given options (flags: "")
    bool d_help = false;
    std::string d_usage;
};

/*! \brief One measured figure. `roofline` is the bound it is compared with,
 *  in the same unit, measured in the same run (0: none). */
struct row {
    std::string job, name, backend;
    double value = 0;
    std::string unit;
    double roofline = 0;
    std::string roofline_name;
    std::string note;
};

class report
{
public:
    void add(const row& r) { d_rows.push_back(r); }
    void skip(const std::string& job, const std::string& why);
    void note(const std::string& job, const std::string& text);
    void print() const;
    void write_json(const std::string& path) const;

private:
    std::vector<row> d_rows;
    std::vector<std::string> d_skipped;
    std::vector<std::string> d_notes;
};

/*! \brief Best (shortest) seconds per call of \p fn over \p iterations
 *  timed calls after one warm-up; \p sync waits for asynchronous work. */
double seconds_per_call(const std::function<void()>& fn,
                        const std::function<void()>& sync,
                        int iterations);

/*! \brief Best (shortest) seconds per launch of \p launch, enqueued
 *  \p launches times back to back on \p stream between two timing events
 *  (no host synchronisation between them), over \p iterations such batches
 *  after one warm-up launch: the rate a stream of launches sustains, which a
 *  host-timed single call (seconds_per_call) understates by the launch and
 *  synchronisation latency. */
double seconds_per_launch(const gr::gpudsp::runtime::device_context::sptr& ctx,
                          gr::gpudsp::runtime::stream_handle stream,
                          const std::function<void()>& launch,
                          int launches,
                          int iterations);

/*! \brief Device seconds of what \p work enqueues on \p stream, between
 *  two timing events; waits for it. */
double device_seconds(const gr::gpudsp::runtime::device_context::sptr& ctx,
                      gr::gpudsp::runtime::stream_handle stream,
                      const std::function<void()>& work);

/*! \brief A plan's stage_times() for a row's note: "stages of one call:
 *  FIR 1.20 ms (41%) at 2.15 TB/s = 53% of the HBM copy, ...": each stage's
 *  share of the stages' time and, where it counts bytes, its bandwidth and
 *  its ratio to the copy bandwidth \p copy (bytes read + written per
 *  second; 0: no ratio). */
std::string describe_stages(const std::vector<gr::gpudsp::runtime::stage_time>& stages,
                            double copy);

/*! \brief One more call of \p call with \p plan's stage timing on (an
 *  F- or X-engine plan: time_stages, stage_times), described as
 *  describe_stages does: which kernel of the call binds. */
template <class Plan>
std::string stages_of_one_call(Plan& plan, const std::function<void()>& call, double copy)
{
    plan.time_stages(true);
    call();
    const std::string out = describe_stages(plan.stage_times(), copy);
    plan.time_stages(false);
    return out;
}

/*! \brief "2.51x <whom> (same run)": how many times faster \p ours ran
 *  than \p theirs (seconds each). */
std::string times_faster(double ours, double theirs, const std::string& whom);

/*! \brief Best (shortest) wall time over \p iterations runs of a flowgraph
 *  that \p make builds afresh each time. */
double best_flowgraph_seconds(const std::function<std::shared_ptr<gr::top_block>()>& make,
                              int iterations);

/*! \brief Host memcpy bandwidth (bytes read + written per second) for
 *  copies of \p bytes. */
double host_memcpy_bandwidth(std::size_t bytes, int iterations);

/*! \brief Device-to-device copy bandwidth (bytes read + written per
 *  second) for copies of \p bytes, 4 back to back between CUDA events (as
 *  the kernels' rows are timed); 0 without a CUDA device. */
double device_copy_bandwidth(std::size_t bytes, int iterations);

/*! \brief Pinned host-to-device copy bandwidth (bytes per second). */
double host_to_device_bandwidth(std::size_t bytes, int iterations);

/*! \brief Nominal peaks of CUDA device 0: SMs x clock x operations per SM
 *  per clock for its architecture (FP32 flops; dense INT8 tensor ops), and a
 *  description ("sm_90, 132 SMs at 1980 MHz"). Zeros without CUDA. */
struct device_peaks {
    double fp32 = 0, int8 = 0;
    std::string description;
};
device_peaks nominal_peaks();

/*! \brief The CUDA device, or nullptr (and a skip line) without one. */
gr::gpudsp::runtime::device_context::sptr cuda_or_skip(report& rep,
                                                       const std::string& job);

using subcommand = std::function<void(const options&, report&)>;
void run_unpack10(const options& opt, report& rep);
void run_buffer(const options& opt, report& rep);
void run_fengine(const options& opt, report& rep);
void run_xengine(const options& opt, report& rep);
void run_fx(const options& opt, report& rep);
void run_fx_flowgraph(const options& opt, report& rep);
void run_ddc(const options& opt, report& rep);
void run_gnss(const options& opt, report& rep);
void run_ldpc(const options& opt, report& rep);

/*! Environment variables set for a scope (a plan's construction, to force
 *  a form), then restored to what the user had. */
class scoped_env
{
public:
    explicit scoped_env(const std::vector<std::pair<const char*, const char*>>& vars)
    {
        for (const auto& v : vars) {
            const char* user = std::getenv(v.first);
            d_saved.push_back({ v.first, user != nullptr, user ? user : "" });
            setenv(v.first, v.second, 1);
        }
    }
    ~scoped_env()
    {
        for (const auto& s : d_saved) {
            if (s.had)
                setenv(s.name, s.value.c_str(), 1);
            else
                unsetenv(s.name);
        }
    }
    scoped_env(const scoped_env&) = delete;
    scoped_env& operator=(const scoped_env&) = delete;

private:
    struct saved {
        const char* name;
        bool had;
        std::string value;
    };
    std::vector<saved> d_saved;
};

} // namespace bench

#endif
