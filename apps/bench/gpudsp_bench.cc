/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// gpudsp_bench JOB [--size options] [--iterations N] [--json FILE]
// Throughput of each gr-gpudsp job, with the roofline measured in the same
// run. Without a GPU the CPU rows run and the GPU rows say they were skipped.

#include "bench.h"
#include <iostream>
#include <map>

namespace {

const std::map<std::string, std::pair<bench::subcommand, std::string>>& jobs()
{
    static const std::map<std::string, std::pair<bench::subcommand, std::string>>
        table = {
            { "unpack10", { bench::run_unpack10, "--samples N --iterations K" } },
            { "buffer", { bench::run_buffer, "--items N" } },
            { "fengine",
              { bench::run_fengine,
                "--channels 1024,4096,32768 --taps 16 --inputs 2 --samples PER_INPUT" } },
            { "xengine",
              { bench::run_xengine,
                "--stations 64,256,512,1024 --integrate 1024 --cpu-stations 16 "
                "--cpu-channels 8" } },
            { "fx",
              { bench::run_fx,
                "--antennas 1,2,4,...,64 --channels 4096 --spectra 256" } },
            { "ddc",
              { bench::run_ddc,
                "--decimations 16,8,64 --taps 256,128,1024 --samples 4194304" } },
            { "ldpc",
              { bench::run_ldpc,
                "[--batches 1,64,1024] [--cpu-frames 16] [--small | --only R=8/9] "
                "[--no-peer] "
                "[--peer-seconds 120]" } },
            { "gnss",
              { bench::run_gnss,
                "[--samples N (instead of the published sizes)] [--no-cpu] "
                "[--threads N (default: every core)] [--no-peer]" } },
        };
    return table;
}

int usage()
{
    std::cerr << "usage: gpudsp_bench JOB [options] [--json FILE]\n\njobs:\n";
    for (const auto& j : jobs())
        std::cerr << "  " << j.first << " " << j.second.second << "\n";
    return 2;
}

} // namespace

int main(int argc, char** argv)
{
    if (argc < 2 || jobs().count(argv[1]) == 0)
        return usage();
    try {
        const bench::options opt(argc, argv, 2);
        bench::report rep;
        jobs().at(argv[1]).first(opt, rep);
        rep.print();
        const std::string json = opt.text("json", "");
        if (!json.empty())
            rep.write_json(json);
    } catch (const std::exception& e) {
        std::cerr << "gpudsp_bench: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
