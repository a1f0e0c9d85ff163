/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// gpudsp_bench fx --flowgraph: the F -> X work of `gpudsp_bench fx` through
// GNU Radio's scheduler on device-resident buffers, against the same work
// as a plan-level kernel chain, in one run. Both ends stay on the device so
// that the two compare like with like: a benchmark source fills its output
// buffers once with random bytes and then produces without copying (the
// F-engine reads device memory), and a device sink consumes the dumps
// without downloading them. The flowgraph is timed from the source's first
// call until the sink has the last dump and the device has finished it, so
// setting it up and tearing it down count on neither side. The ratio
// flowgraph / chain is what the
// scheduler, the buffers and the blocks' per-call work cost (target on a
// GPU: >= 0.8). Without a GPU it runs on the emulated device, small, and
// reports that cost per F-engine call.

#include "bench.h"
#include <gnuradio/gpudsp/kernels/pfb_fengine.h>
#include <gnuradio/gpudsp/kernels/unpack10.h>
#include <gnuradio/gpudsp/kernels/xengine.h>
#include <gnuradio/gpudsp/pfb_fengine.h>
#include <gnuradio/gpudsp/runtime/device_io.h>
#include <gnuradio/gpudsp/xengine.h>
#include <gnuradio/io_signature.h>
#include <gnuradio/sync_block.h>
#include <gnuradio/top_block.h>
#include <chrono>
#include <random>

namespace bench {

using namespace gr::gpudsp;

namespace {

// n byte streams, device-resident: each output buffer is filled once with
// random bytes when the flowgraph starts; afterwards the block produces
// items without writing them (the buffers keep the bytes), until
// `total` items per output.
class device_pattern_source : public gr::sync_block, public runtime::device_block
{
public:
    device_pattern_source(int n, uint64_t total, runtime::backend_choice where)
        : gr::sync_block("device_pattern_source",
                         gr::io_signature::make(0, 0, 0),
                         gr::io_signature::make(
                             n, n, 1, runtime::device_buffer::type_for(where.kind))),
          d_total(total),
          d_io(runtime::device_context::get(where.kind, where.device),
               "device_pattern_source")
    {
    }
    int device_index() const override { return 0; }
    bool start() override
    {
        std::mt19937 rng(7);
        for (int o = 0; o < int(output_signature()->max_streams()); ++o) {
            auto buf = runtime::device_io::output_buffer(*this, o);
            std::vector<char> bytes(buf->bufsize());
            for (auto& b : bytes)
                b = char(rng());
            d_io.context()->copy_async(buf->device_base(),
                                       bytes.data(),
                                       bytes.size(),
                                       runtime::copy_kind::host_to_device,
                                       d_io.stream(),
                                       "device_pattern_source");
        }
        d_io.synchronize();
        return true;
    }
    int work(int n, gr_vector_const_void_star&, gr_vector_void_star&) override
    {
        const uint64_t done = nitems_written(0);
        if (done == 0 && d_calls == 0)
            d_first = std::chrono::steady_clock::now();
        if (done >= d_total)
            return WORK_DONE;
        n = int(std::min<uint64_t>(n, d_total - done));
        d_io.begin(*this);
        d_io.end(*this); // "written": the bytes are already there
        ++d_calls;
        return n;
    }
    uint64_t calls() const { return d_calls; }
    std::chrono::steady_clock::time_point first_call() const { return d_first; }

private:
    uint64_t d_total;
    runtime::device_io d_io;
    uint64_t d_calls = 0;
    std::chrono::steady_clock::time_point d_first;
};

// Consumes a device-resident stream without downloading it; notes when the
// device has finished the last of \p expected items.
class device_null_sink : public gr::sync_block, public runtime::device_block
{
public:
    device_null_sink(std::size_t itemsize,
                     uint64_t expected,
                     runtime::backend_choice where)
        : gr::sync_block(
              "device_null_sink",
              gr::io_signature::make(
                  1, 1, itemsize, runtime::device_buffer::type_for(where.kind)),
              gr::io_signature::make(0, 0, 0)),
          d_expected(expected),
          d_io(runtime::device_context::get(where.kind, where.device), "device_null_sink")
    {
    }
    int device_index() const override { return 0; }
    int work(int n, gr_vector_const_void_star&, gr_vector_void_star&) override
    {
        d_io.begin(*this);
        d_io.end(*this);
        if (nitems_read(0) + n >= d_expected) {
            d_io.synchronize(); // the device has finished everything upstream
            d_done = std::chrono::steady_clock::now();
        }
        return n;
    }
    std::chrono::steady_clock::time_point done() const { return d_done; }

private:
    uint64_t d_expected;
    runtime::device_io d_io;
    std::chrono::steady_clock::time_point d_done;
};

} // namespace

void run_fx_flowgraph(const options& opt, report& rep)
{
    const bool gpu = runtime::cuda_available();
    runtime::backend_choice where{ gpu ? runtime::backend_kind::cuda
                                       : runtime::backend_kind::emulated,
                                   0 };
    const std::string backend = runtime::to_string(where.kind);
    // On a GPU, MeerKAT-like: 16 antennas, 4096 channels; emulated, small.
    const int A = int(opt.size("antennas", gpu ? 16 : 1));
    const int N = int(opt.size("channels", gpu ? 4096 : 256));
    const int n_int = int(opt.size("integrate", gpu ? 1024 : 128));
    const int dumps = int(opt.size("dumps", gpu ? 8 : 4));
    const int T = 16;
    kernels::fengine_config fc;
    fc.n_inputs = 2 * A;
    fc.n_channels = N;
    fc.n_taps = T;
    fc.input = kernels::fengine_input::packed10;
    fc.output = kernels::fengine_output::ci8;
    kernels::xengine_config xc;
    xc.n_stations = A;
    xc.n_pols = 2;
    xc.n_channels = N;
    const std::size_t spectra = std::size_t(n_int) * dumps;
    // Every spectrum's window: (spectra + T - 1) steps of 2N samples.
    const std::size_t bytes = kernels::packed10_bytes(fc.samples_for(spectra));
    const double samples = double(spectra) * fc.step() * fc.n_inputs;
    const std::string what = std::to_string(A) + " ant x 2 pol, N=" + std::to_string(N) +
                             ", " + std::to_string(n_int) + " spectra per dump";

    // The flowgraph.
    auto tb = gr::make_top_block("fx_flowgraph");
    auto src =
        gnuradio::make_block_sptr<device_pattern_source>(fc.n_inputs, bytes, where);
    auto fe = gr::gpudsp::pfb_fengine::make(
        fc.n_inputs, N, T, "packed10", "ci8", 1.0, {}, false, backend, 0, 0);
    auto xe = gr::gpudsp::xengine::make(A, 2, N, n_int, "ci8", "auto", backend, 0);
    auto sink =
        gnuradio::make_block_sptr<device_null_sink>(xc.output_item_size(), dumps, where);
    for (int i = 0; i < fc.n_inputs; ++i)
        tb->connect(src, i, fe, i);
    tb->connect(fe, 0, xe, 0);
    tb->connect(xe, 0, sink, 0);
    tb->run();
    const double t_fg =
        std::chrono::duration<double>(sink->done() - src->first_call()).count();
    const uint64_t made = xe->nitems_written(0);

    // The same work as a kernel chain: F-engine and X-engine plans on
    // device-resident input, in the X-engine's preferred batches.
    auto ctx = runtime::device_context::get(where.kind, where.device);
    kernels::fengine_plan fplan(fc, where, "bench");
    kernels::xengine_plan xplan(xc, where, "bench");
    runtime::device_stream stream(ctx, "bench");
    std::vector<std::unique_ptr<runtime::device_memory>> d_in;
    std::vector<kernels::fengine_input_view> views;
    std::mt19937 rng(7);
    std::vector<char> host(bytes);
    for (int i = 0; i < fc.n_inputs; ++i) {
        for (auto& b : host)
            b = char(rng());
        d_in.push_back(std::make_unique<runtime::device_memory>(ctx, bytes, "bench"));
        ctx->copy_async(d_in.back()->get(),
                        host.data(),
                        bytes,
                        runtime::copy_kind::host_to_device,
                        stream.get(),
                        "bench");
        views.push_back({ d_in.back()->get(), 0 });
    }
    const std::size_t batch = xplan.preferred_spectra();
    runtime::device_memory spec(ctx, batch * fc.output_item_size(), "bench");
    runtime::device_memory vis(ctx, xc.output_item_size(), "bench");
    stream.synchronize();
    const double t_chain = seconds_per_call(
        [&] {
            std::size_t in_dump = 0;
            for (std::size_t s0 = 0; s0 < spectra; s0 += batch) {
                const std::size_t n = std::min(batch, spectra - s0);
                auto v = views;
                for (auto& x : v)
                    x.first_sample = int64_t(s0) * fc.step();
                fplan.execute(v, spec.get(), nullptr, n, s0, stream.get());
                xplan.accumulate(spec.get(), n, stream.get());
                if ((in_dump += n) >= std::size_t(n_int)) {
                    xplan.dump(vis.get(), nullptr, stream.get());
                    in_dump = 0;
                }
            }
        },
        [&] { stream.synchronize(); },
        int(opt.size("iterations", 2)));

    const double gs_fg = samples / t_fg / 1e9, gs_chain = samples / t_chain / 1e9;
    const double per_call_us = (t_fg - t_chain) / double(src->calls()) * 1e6;
    rep.add({ "fx",
              what + ", flowgraph (device-resident)",
              backend,
              gs_fg,
              "GS/s",
              gs_chain,
              "kernel chain, same run",
              std::to_string(made) + " dumps; " + std::to_string(src->calls()) +
                  " source calls; (flowgraph - chain) per call " +
                  std::to_string(per_call_us).substr(0, 7) +
                  " us: scheduler and buffers, less the overlap of the blocks' "
                  "streams" });
    rep.add({ "fx",
              what + ", kernel chain (plans)",
              backend,
              gs_chain,
              "GS/s",
              2.0 * A * 1712e6 / 1e9,
              "real time",
              "batches of " + std::to_string(batch) + " spectra" });
    if (made != std::size_t(dumps))
        rep.note("fx",
                 "the flowgraph made " + std::to_string(made) + " dumps, expected " +
                     std::to_string(dumps));
}

} // namespace bench
