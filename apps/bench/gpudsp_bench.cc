/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// gpudsp_bench JOB [options] [--json FILE]; gpudsp_bench JOB --help
// Throughput of each gr-gpudsp job, with the roofline measured in the same
// run. Without a GPU the CPU rows run and the GPU rows say they were skipped.
// Exit status: 0 done, 1 a failure while measuring, 2 a wrong command line.

#include "bench.h"
#include <iostream>
#include <map>

namespace {

using bench::option_spec;

struct job {
    bench::subcommand run;
    std::string what;
    std::vector<option_spec> options; // each help states the default
};

const std::map<std::string, job>& jobs()
{
    constexpr auto size = option_spec::size, sizes = option_spec::sizes,
                   text = option_spec::text, flag = option_spec::flag;
    static const std::map<std::string, job> table = {
        { "unpack10",
          { bench::run_unpack10,
            "packed 10-bit to float and int16, CPU and GPU",
            { { "samples", size, "samples per call (default 2^26)" },
              { "launches", size, "GPU launches timed back to back (default 10)" },
              { "iterations", size, "timed calls (default 10)" } } } },
        { "buffer",
          { bench::run_buffer,
            "the device buffer: host -> device -> host through a flowgraph",
            { { "items", size, "items through the chain (default 2^27)" } } } },
        { "fengine",
          { bench::run_fengine,
            "the PFB F-engine, device-resident and host-fed, and in a flowgraph",
            { { "channels", sizes, "channels N (default 1024,4096,32768)" },
              { "taps", size, "taps T (default 16)" },
              { "inputs", size, "inputs (default 2)" },
              { "samples", size, "samples per input and call (default 2^23)" },
              { "iterations", size, "timed calls or batches of calls (default 3)" },
              { "launches",
                size,
                "device-resident calls back to back per timed batch (default 10)" },
              { "flowgraph-channels", sizes, "the flowgraph rows' N (default 64,256)" },
              { "flowgraph-spectra",
                size,
                "spectra through the flowgraph (default 2^17)" } } } },
        { "xengine",
          { bench::run_xengine,
            "the X-engine: FP32 and each tensor form, beside cuBLAS and cuBLASLt",
            { { "stations", sizes, "dual-pol stations S (default 64,256,512,1024,2048)" },
              { "integrate",
                size,
                "spectra per call of the headline rows (default 8192)" },
              { "short",
                size,
                "spectra per call of the short-call row (default 1024; 0: none)" },
              { "launches", size, "GPU calls timed back to back (default 2)" },
              { "iterations", size, "timed calls (default 3)" },
              { "cpu-stations", size, "the CPU row's stations (default 16)" },
              { "cpu-channels", size, "the CPU row's channels (default 8)" } } } },
        { "fx",
          { bench::run_fx,
            "F + X end to end: MeerKAT-like antennas sustained; --flowgraph: the F->X "
            "flowgraph beside its kernel chain",
            { { "antennas",
                sizes,
                "dual-pol antennas (default 1,2,4,8,16,24,32,48,64; --flowgraph: one "
                "number, default 16 on a GPU, 1 without)" },
              { "channels",
                size,
                "channels (default 4096; --flowgraph without a GPU 256)" },
              { "spectra", size, "spectra per call (default 256)" },
              { "iterations", size, "timed calls (default 3; --flowgraph 2)" },
              { "cpu-antennas", size, "the CPU row's antennas (default 2)" },
              { "flowgraph", flag, "time the F->X flowgraph and its kernel chain" },
              { "integrate",
                size,
                "--flowgraph: spectra per dump (default 1024 on a GPU, 128 without)" },
              { "dumps",
                size,
                "--flowgraph: dumps (default 8 on a GPU, 4 without)" } } } },
        { "ddc",
          { bench::run_ddc,
            "the DDC, 10-bit and complex input, beside GNU Radio's "
            "freq_xlating_fir_filter_ccf",
            { { "decimations",
                sizes,
                "decimations D, paired with --taps (default 16,8,64)" },
              { "taps", sizes, "taps T (default 256,128,1024)" },
              { "samples",
                size,
                "input samples per call of the CPU rows (default 2^22)" },
              { "gpu-samples",
                size,
                "input samples per launch of the GPU rows (default 2^26: several "
                "waves)" },
              { "launches", size, "GPU launches timed back to back (default 10)" },
              { "flowgraph-samples",
                size,
                "samples through the flowgraphs (default 2^25)" },
              { "iterations", size, "timed calls (default 3)" } } } },
        { "gnss",
          { bench::run_gnss,
            "the GNSS correlator on Tracking.jl's published cases, beside VOLK_GNSSSDR",
            { { "samples", size, "samples per call instead of the published sizes" },
              { "iterations", size, "timed calls (default 20)" },
              { "threads", size, "CPU threads, 1..256 (default: every core)" },
              { "no-cpu", flag, "no CPU rows" },
              { "no-peer", flag, "no VOLK_GNSSSDR peer rows" } } } },
        { "ldpc",
          { bench::run_ldpc,
            "the 5G LDPC decoder, CPU and GPU, beside gr-fec's LDPC decoder",
            { { "batches", sizes, "codewords per call (default 1,32,1024,8192)" },
              { "cpu-frames", size, "codewords of the CPU rows (default 16)" },
              { "iterations", size, "timed calls (default 3)" },
              { "peer-seconds", size, "time limit of the gr-fec peer (default 120)" },
              { "small", flag, "one small code instead of the 5G NR cases" },
              { "only", text, "only the case whose name contains TEXT (e.g. R=8/9)" },
              { "no-peer", flag, "no gr-fec peer rows" } } } },
    };
    return table;
}

int usage(std::ostream& out, int status)
{
    out << "usage: gpudsp_bench JOB [options] [--json FILE]\n"
           "       gpudsp_bench JOB --help      (that job's options)\n\njobs:\n";
    for (const auto& j : jobs())
        out << "  " << j.first
            << std::string(10 - std::min<std::size_t>(9, j.first.size()), ' ')
            << j.second.what << "\n";
    return status;
}

} // namespace

int main(int argc, char** argv)
{
    if (argc < 2)
        return usage(std::cerr, 2);
    const std::string name = argv[1];
    if (name == "--help" || name == "-h" || name == "help")
        return usage(std::cout, 0);
    const auto j = jobs().find(name);
    if (j == jobs().end()) {
        std::cerr << "gpudsp_bench: unknown job \"" << name << "\"\n";
        return usage(std::cerr, 2);
    }
    try {
        const bench::options opt(name, j->second.options, argc, argv, 2);
        if (opt.help()) {
            std::cout << j->second.what << "\n\n" << opt.usage();
            return 0;
        }
        bench::report rep;
        j->second.run(opt, rep);
        rep.print();
        const std::string json = opt.text("json", "");
        if (!json.empty())
            rep.write_json(json);
    } catch (const bench::usage_error& e) {
        std::cerr << "gpudsp_bench: " << e.what() << "\n";
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "gpudsp_bench: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
