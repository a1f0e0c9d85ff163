/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// gpudsp_bench buffer: items per second through a flowgraph
//   null_source -> head -> device_copy -> device_copy -> null_sink
// i.e. one host->device edge, one device->device edge and one device->host
// edge, per backend. The CPU row is the same chain with host buffers (two
// memcpy per item). The GPU row's roofline is the slower of the pinned
// host-to-device copy and the chain's host part alone (null_source -> head
// -> null_sink), both measured in the same run: on the first H100 run
// (2026-11-24) the host part, not PCIe, bounded it (230 MS/s against 6873
// of pinned H2D, the CPU row 264-291).

#include "bench.h"
#include <gnuradio/blocks/head.h>
#include <gnuradio/blocks/null_sink.h>
#include <gnuradio/blocks/null_source.h>
#include <gnuradio/gpudsp/device_copy.h>
#include <gnuradio/gpudsp/runtime/backend.h>
#include <gnuradio/top_block.h>
#include <algorithm>

namespace bench {

namespace {

// The chain with two device_copy blocks of \p backend, or none (backend "").
double chain_seconds(const std::string& backend, std::size_t items, std::size_t itemsize)
{
    auto tb = gr::make_top_block("bench_buffer");
    auto src = gr::blocks::null_source::make(itemsize);
    auto head = gr::blocks::head::make(itemsize, items);
    auto sink = gr::blocks::null_sink::make(itemsize);
    tb->connect(src, 0, head, 0);
    if (backend.empty()) {
        tb->connect(head, 0, sink, 0);
    } else {
        auto c1 = gr::gpudsp::device_copy::make(itemsize, backend);
        auto c2 = gr::gpudsp::device_copy::make(itemsize, backend);
        tb->connect(head, 0, c1, 0);
        tb->connect(c1, 0, c2, 0);
        tb->connect(c2, 0, sink, 0);
    }
    const auto t0 = std::chrono::steady_clock::now();
    tb->run();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

} // namespace

void run_buffer(const options& opt, report& rep)
{
    const std::size_t itemsize = 8; // complex float
    const std::size_t items = opt.size("items", std::size_t(1) << 27);
    const std::string what = std::to_string(items) + " x 8 B, H2D+D2D+D2H";
    chain_seconds("cpu", items / 16, itemsize); // warm-up
    const double t_cpu = chain_seconds("cpu", items, itemsize);
    const double cpu_bw = host_memcpy_bandwidth(std::size_t(1) << 24, 10);
    rep.add({ "buffer",
              what,
              "cpu",
              items / t_cpu / 1e6,
              "MS/s",
              cpu_bw / (2 * 2 * itemsize) / 1e6,
              "2x memcpy",
              "host buffers" });

    if (!cuda_or_skip(rep, "buffer"))
        return;
    chain_seconds("cuda", items / 16, itemsize);
    const double t_gpu = chain_seconds("cuda", items, itemsize);
    const double h2d = host_to_device_bandwidth(std::size_t(1) << 26, 10);
    const double host_part = items / chain_seconds("", items, itemsize);
    const bool pcie_bound = h2d / itemsize < host_part;
    rep.add({ "buffer",
              what,
              "cuda",
              items / t_gpu / 1e6,
              "MS/s",
              std::min(h2d / itemsize, host_part) / 1e6,
              pcie_bound ? "pinned H2D" : "host part of the chain alone",
              "" });
}

} // namespace bench
