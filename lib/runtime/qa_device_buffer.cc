/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The device buffer in real flowgraphs: host->device, device->device and
// device->host edges, history, runs much longer than the buffer (so the
// realignment callbacks fire), vlen > 1, tags, refused topologies, and
// teardown without leaks. On the emulated device in CI; on CUDA device 0
// when built with GPUDSP_TEST_CUDA.

#include "qa_common.h"
#include <gnuradio/blocks/copy.h>
#include <gnuradio/blocks/vector_sink.h>
#include <gnuradio/blocks/vector_source.h>
#include <gnuradio/buffer.h>
#include <gnuradio/gpudsp/device_copy.h>
#include <gnuradio/gpudsp/runtime/device_io.h>
#include <gnuradio/gpudsp/unpack10.h>
#include <gnuradio/io_signature.h>
#include <gnuradio/sync_block.h>
#include <gnuradio/top_block.h>
#include <pmt/pmt.h>
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <thread>

using namespace gr::gpudsp;

namespace {

// Blocks connected in a line, output 0 to input 0.
void connect_line(const gr::top_block_sptr& tb,
                  const std::vector<gr::basic_block_sptr>& blocks)
{
    for (std::size_t k = 1; k < blocks.size(); ++k)
        tb->connect(blocks[k - 1], 0, blocks[k], 0);
}

struct small_buffers : qa::skip_without_device {
    // Default-sized GNU Radio buffers (no 4 MiB floor), so a few hundred
    // thousand items wrap each buffer many times.
    small_buffers() { setenv("GPUDSP_MIN_BUFFER_BYTES", "0", 1); }
};

// A GPU block with history: out[i] = in[i - (history-1)], one device copy
// per call. It reads the zero preload before the stream starts.
class device_delay : public gr::sync_block, public runtime::device_block
{
public:
    device_delay(size_t itemsize, unsigned history, runtime::backend_choice where)
        : gr::sync_block(
              "device_delay",
              gr::io_signature::make(
                  1, 1, itemsize, runtime::device_buffer::type_for(where.kind)),
              gr::io_signature::make(
                  1, 1, itemsize, runtime::device_buffer::type_for(where.kind))),
          d_itemsize(itemsize),
          d_io(runtime::device_context::get(where.kind, where.device), "device_delay")
    {
        set_history(history);
    }
    int device_index() const override { return 0; }
    bool start() override
    {
        runtime::device_io::check_topology(*this);
        return true;
    }
    int work(int n, gr_vector_const_void_star& in, gr_vector_void_star& out) override
    {
        d_io.begin(*this);
        d_io.context()->copy_async(out[0],
                                   in[0],
                                   n * d_itemsize,
                                   runtime::copy_kind::device_to_device,
                                   d_io.stream(),
                                   "device_delay");
        d_io.end(*this);
        return n;
    }

private:
    size_t d_itemsize;
    runtime::device_io d_io;
};

std::shared_ptr<device_delay> make_delay(size_t itemsize, unsigned history)
{
    return gnuradio::make_block_sptr<device_delay>(itemsize, history, qa::test_device());
}

gr::gpudsp::device_copy::sptr make_copy(size_t itemsize)
{
    return device_copy::make(itemsize, qa::test_backend(), 0);
}

uint64_t total_realignments(const std::vector<gr::block_sptr>& blocks)
{
    uint64_t n = 0;
    for (auto& b : blocks)
        if (auto buf = runtime::device_io::output_buffer(*b, 0))
            n += buf->realignments();
    return n;
}

} // namespace

BOOST_TEST_GLOBAL_FIXTURE(small_buffers);

BOOST_AUTO_TEST_CASE(chain_host_device_device_host)
{
    const std::size_t n = 200003;
    const auto data = qa::random_floats(n, 1);
    auto tb = gr::make_top_block("chain");
    auto src = gr::blocks::vector_source_f::make(data);
    auto c1 = make_copy(sizeof(float));
    auto c2 = make_copy(sizeof(float));
    auto c3 = make_copy(sizeof(float));
    auto sink = gr::blocks::vector_sink_f::make();
    connect_line(tb, { src, c1, c2, c3, sink });
    tb->run();
    BOOST_REQUIRE_EQUAL(sink->data().size(), n);
    BOOST_CHECK(sink->data() == data);

    // The host->device edge uploads each item once; the device->device
    // edges copy nothing between host and device; the last edge downloads
    // each item once. (The host->device buffer is the one c1 reads.)
    const auto up = runtime::device_io::input_buffer(*c1, 0)->counters();
    BOOST_CHECK_EQUAL(up.h2d_bytes, n * sizeof(float));
    BOOST_CHECK_EQUAL(up.d2h_bytes, 0u);
    for (auto& b : { c1, c2 }) {
        const auto c = runtime::device_io::output_buffer(*b, 0)->counters();
        BOOST_CHECK_EQUAL(c.h2d_bytes + c.d2h_bytes + c.h2d_calls + c.d2h_calls, 0u);
    }
    const auto down = runtime::device_io::output_buffer(*c3, 0)->counters();
    BOOST_CHECK_EQUAL(down.d2h_bytes, n * sizeof(float));
    BOOST_CHECK_EQUAL(down.h2d_bytes, 0u);
}

BOOST_AUTO_TEST_CASE(history_on_device_edges_and_wraps)
{
    const std::size_t n = 300007;
    const unsigned history = 37;
    const auto data = qa::random_floats(n, 2);
    auto tb = gr::make_top_block("history");
    auto src = gr::blocks::vector_source_f::make(data);
    auto d1 = make_delay(sizeof(float), history); // history on the host->device edge
    auto c = make_copy(sizeof(float));
    auto d2 = make_delay(sizeof(float), 5); // history on a device->device edge
    auto sink = gr::blocks::vector_sink_f::make();
    connect_line(tb, { src, d1, c, d2, sink });
    tb->run();
    const std::size_t delay = (history - 1) + 4;
    const auto& out = sink->data();
    BOOST_REQUIRE_EQUAL(out.size(), n);
    for (std::size_t i = 0; i < n; ++i) {
        const float want = i < delay ? 0.0f : data[i - delay];
        BOOST_REQUIRE_MESSAGE(out[i] == want,
                              "item " << i << ": " << out[i] << " != " << want);
    }
    // Much longer than every buffer: the realignment callbacks had to run.
    auto buf = runtime::device_io::output_buffer(*c, 0);
    BOOST_CHECK_GT(n, 10 * buf->bufsize());
    BOOST_CHECK_GT(total_realignments({ src, d1, c }) +
                       runtime::device_io::input_buffer(*d1, 0)->realignments(),
                   0u);
}

BOOST_AUTO_TEST_CASE(vlen_three_with_history)
{
    const std::size_t vlen = 3, n = 100001;
    const auto data = qa::random_floats(n * vlen, 3);
    auto tb = gr::make_top_block("vlen");
    auto src = gr::blocks::vector_source_f::make(data, false, vlen);
    auto c = make_copy(vlen * sizeof(float));
    auto d = make_delay(vlen * sizeof(float), 4);
    auto sink = gr::blocks::vector_sink_f::make(vlen);
    connect_line(tb, { src, c, d, sink });
    tb->run();
    const auto& out = sink->data();
    BOOST_REQUIRE_EQUAL(out.size(), n * vlen);
    for (std::size_t i = 0; i < n * vlen; ++i) {
        const float want = i < 3 * vlen ? 0.0f : data[i - 3 * vlen];
        BOOST_REQUIRE_MESSAGE(out[i] == want, "value " << i);
    }
}

BOOST_AUTO_TEST_CASE(tags_pass_with_their_offsets)
{
    const std::size_t n = 150000;
    const auto data = qa::random_floats(n, 4);
    std::vector<gr::tag_t> tags;
    std::mt19937 rng(5);
    for (int k = 0; k < 200; ++k) {
        gr::tag_t t;
        t.offset = rng() % n;
        t.key = pmt::intern("qa");
        t.value = pmt::from_long(k);
        tags.push_back(t);
    }
    auto tb = gr::make_top_block("tags");
    auto src = gr::blocks::vector_source_f::make(data, false, 1, tags);
    auto c1 = make_copy(sizeof(float));
    auto c2 = make_copy(sizeof(float));
    auto sink = gr::blocks::vector_sink_f::make();
    connect_line(tb, { src, c1, c2, sink });
    tb->run();
    auto got = sink->tags();
    BOOST_REQUIRE_EQUAL(got.size(), tags.size());
    std::map<long, uint64_t> want;
    for (auto& t : tags)
        want[pmt::to_long(t.value)] = t.offset;
    for (auto& t : got)
        BOOST_CHECK_EQUAL(t.offset, want[pmt::to_long(t.value)]);
}

BOOST_AUTO_TEST_CASE(unpack10_on_device_feeds_device_blocks)
{
    // 10-bit bytes uploaded once, unpacked on the device, copied on the
    // device, downloaded once; odd length so a partial group stays behind.
    const std::size_t n_bytes = 250003;
    const auto bytes = qa::random_bytes(n_bytes, 6);
    auto tb = gr::make_top_block("unpack10");
    auto src = gr::blocks::vector_source_b::make(bytes);
    auto up = unpack10::make("float", qa::test_backend(), 0);
    auto c = make_copy(sizeof(float));
    auto sink = gr::blocks::vector_sink_f::make();
    connect_line(tb, { src, up, c, sink });
    tb->run();
    const std::size_t n = n_bytes / 5 * 4;
    const auto& out = sink->data();
    BOOST_REQUIRE_EQUAL(out.size(), n);
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t bit = 10 * i;
        const unsigned pair = (unsigned(bytes[bit / 8]) << 8) | bytes[bit / 8 + 1];
        int v = (pair >> (6 - bit % 8)) & 0x3FF;
        v = v >= 512 ? v - 1024 : v;
        BOOST_REQUIRE_MESSAGE(out[i] == float(v), "sample " << i);
    }
    const auto edge = runtime::device_io::output_buffer(*up, 0)->counters();
    BOOST_CHECK_EQUAL(edge.h2d_bytes + edge.d2h_bytes, 0u);
}

namespace {

// start() must throw (not hang), with a message holding one of \p needles.
void expect_start_refused(gr::top_block_sptr tb, const std::vector<std::string>& needles)
{
    try {
        tb->start();
    } catch (const std::exception& e) {
        const std::string msg = e.what();
        bool found = false;
        for (auto& n : needles)
            found = found || msg.find(n) != std::string::npos;
        BOOST_CHECK_MESSAGE(found, "message: " << msg);
        return;
    }
    tb->stop();
    tb->wait();
    BOOST_FAIL("start() should have been refused");
}

} // namespace

BOOST_AUTO_TEST_CASE(host_output_to_two_device_blocks_is_refused)
{
    auto tb = gr::make_top_block("fanout");
    auto src = gr::blocks::vector_source_f::make(qa::random_floats(1000, 7));
    auto a = make_copy(sizeof(float));
    auto b = make_copy(sizeof(float));
    tb->connect(src, 0, a, 0);
    tb->connect(src, 0, b, 0);
    tb->connect(a, 0, gr::blocks::vector_sink_f::make(), 0);
    tb->connect(b, 0, gr::blocks::vector_sink_f::make(), 0);
    expect_start_refused(tb, { "read by several GPU blocks. GNU Radio 3.10.5.1" });
}

BOOST_AUTO_TEST_CASE(host_output_to_host_and_device_blocks_is_refused)
{
    auto tb = gr::make_top_block("mixed");
    auto src = gr::blocks::vector_source_f::make(qa::random_floats(1000, 8));
    auto host_sink = gr::blocks::vector_sink_f::make();
    auto a = make_copy(sizeof(float));
    tb->connect(src, 0, host_sink, 0);
    tb->connect(src, 0, a, 0);
    tb->connect(a, 0, gr::blocks::vector_sink_f::make(), 0);
    // Which of the two edges GNU Radio connects first decides who notices.
    expect_start_refused(
        tb, { "read by both host and GPU blocks", "Cannot change to transfer type" });
}

BOOST_AUTO_TEST_CASE(device_output_to_host_and_device_blocks_is_refused)
{
    auto tb = gr::make_top_block("mixed_device");
    auto src = gr::blocks::vector_source_f::make(qa::random_floats(1000, 9));
    auto a = make_copy(sizeof(float));
    auto b = make_copy(sizeof(float));
    tb->connect(src, 0, a, 0);
    tb->connect(a, 0, gr::blocks::vector_sink_f::make(), 0);
    tb->connect(a, 0, b, 0);
    tb->connect(b, 0, gr::blocks::vector_sink_f::make(), 0);
    expect_start_refused(tb, { "Cannot change to transfer type" });
}

namespace {

// Runs run_once once (first-use allocations: contexts, CUDA state), then n
// times more: GNU Radio's buffers and the device's memory must be back
// where they were.
void check_cycles_leave_nothing(runtime::device_context& ctx,
                                const std::function<void()>& run_once,
                                int n)
{
    run_once();
    const long buffers_before = gr::buffer_ncurrently_allocated();
    const auto before = ctx.usage();
    for (int i = 0; i < n; ++i)
        run_once();
    const auto after = ctx.usage();
    BOOST_CHECK_EQUAL(gr::buffer_ncurrently_allocated(), buffers_before);
    BOOST_CHECK_EQUAL(after.device_bytes, before.device_bytes);
    BOOST_CHECK_EQUAL(after.device_allocations, before.device_allocations);
    BOOST_CHECK_EQUAL(after.host_bytes, before.host_bytes);
    BOOST_CHECK_EQUAL(after.host_allocations, before.host_allocations);
}

} // namespace

BOOST_AUTO_TEST_CASE(hundred_flowgraphs_leak_nothing)
{
    auto ctx = runtime::device_context::get(qa::test_device().kind, 0);
    const auto data = qa::random_floats(20000, 10);
    auto run_once = [&] {
        auto tb = gr::make_top_block("leak");
        auto src = gr::blocks::vector_source_f::make(data);
        auto c1 = make_copy(sizeof(float));
        auto d = make_delay(sizeof(float), 3);
        auto sink = gr::blocks::vector_sink_f::make();
        connect_line(tb, { src, c1, d, sink });
        tb->run();
        BOOST_REQUIRE_EQUAL(sink->data().size(), data.size());
    };
    check_cycles_leave_nothing(*ctx, run_once, 100);
}

BOOST_AUTO_TEST_CASE(buffer_floor_gives_large_batches)
{
    setenv("GPUDSP_MIN_BUFFER_BYTES", "1048576", 1);
    auto tb = gr::make_top_block("floor");
    auto src = gr::blocks::vector_source_f::make(qa::random_floats(1000, 11));
    auto c = make_copy(sizeof(float));
    auto sink = gr::blocks::vector_sink_f::make();
    tb->connect(src, 0, c, 0);
    tb->connect(c, 0, sink, 0);
    tb->run();
    setenv("GPUDSP_MIN_BUFFER_BYTES", "0", 1);
    BOOST_CHECK_GE(runtime::device_io::output_buffer(*c, 0)->bufsize() * sizeof(float),
                   1048576u);
    BOOST_CHECK_EQUAL(sink->data().size(), 1000u);
}

// A host writer overwrites pinned memory only after the uploads still
// reading it are done, and waits for nothing else: with one event per
// uploaded region (not one per buffer) it almost never blocks, where it
// used to wait for the last upload on every call. Its own waits are
// counted (writer_waits): the synchronisations of everything the block's
// buffers do (its device-to-host buffer's reader waiting for copies, the
// realignments) are not the writer's (on the H200 of 2026-11-27 they were
// 2080 for 2007 uploads).
BOOST_AUTO_TEST_CASE(host_writer_waits_only_for_uploads_it_overwrites)
{
    const std::size_t n = 200000;
    const auto data = qa::random_floats(n, 20);
    auto tb = gr::make_top_block("uploads");
    auto src = gr::blocks::vector_source_f::make(data);
    auto chop = gr::blocks::copy::make(sizeof(float)); // the host writer
    chop->set_max_noutput_items(100);
    auto c1 = make_copy(sizeof(float));
    auto sink = gr::blocks::vector_sink_f::make();
    connect_line(tb, { src, chop, c1, sink });
    tb->run();
    BOOST_CHECK(sink->data() == data);
    const auto in = runtime::device_io::input_buffer(*c1, 0);
    const auto uploads = in->counters().h2d_calls;
    const auto waits = in->writer_waits();
    BOOST_TEST_MESSAGE(uploads << " uploads, " << waits << " host waits");
    BOOST_CHECK_GE(uploads, 1000u);
    BOOST_CHECK_LT(waits * 10, uploads);
}

// Pinned host memory only where a host block writes or reads: a device to
// device edge has none (it had a mirror it never used).
BOOST_AUTO_TEST_CASE(pinned_mirror_only_on_host_edges)
{
    auto tb = gr::make_top_block("mirrors");
    auto src = gr::blocks::vector_source_f::make(qa::random_floats(50000, 21));
    auto c1 = make_copy(sizeof(float));
    auto c2 = make_copy(sizeof(float));
    auto c3 = make_copy(sizeof(float));
    auto sink = gr::blocks::vector_sink_f::make();
    connect_line(tb, { src, c1, c2, c3, sink });
    auto ctx = runtime::device_context::get(qa::test_device().kind, 0);
    auto allocations = [&](const gr::block_sptr& b) {
        return ctx->activity("device_buffer of " + b->identifier()).allocations;
    };
    tb->run();
    BOOST_CHECK_EQUAL(sink->data().size(), 50000u);
    // c1 owns the host->device buffer (device + pinned) and the c1->c2 one
    // (device); c2 owns c2->c3 (device); c3 owns c3->host (device + pinned).
    BOOST_CHECK_EQUAL(allocations(c1), 3u);
    BOOST_CHECK_EQUAL(allocations(c2), 1u);
    BOOST_CHECK_EQUAL(allocations(c3), 2u);
}

// Host -> GPU -> host with call sizes drawn at random on both host sides,
// on the asynchronous emulated device: every item arrives once, in order.
BOOST_AUTO_TEST_CASE(host_device_host_with_random_call_sizes)
{
    std::mt19937 rng(22);
    for (int round = 0; round < 6; ++round) {
        const std::size_t n = 20000 + rng() % 30000;
        const auto data = qa::random_floats(n, 30 + round);
        auto tb = gr::make_top_block("random");
        auto src = gr::blocks::vector_source_f::make(data);
        auto in = gr::blocks::copy::make(sizeof(float));
        in->set_max_noutput_items(1 + rng() % 3000);
        auto c1 = make_copy(sizeof(float));
        auto d = make_delay(sizeof(float), 1 + rng() % 5);
        auto out = gr::blocks::copy::make(sizeof(float));
        out->set_max_noutput_items(1 + rng() % 3000);
        auto sink = gr::blocks::vector_sink_f::make();
        connect_line(tb, { src, in, c1, d, out, sink });
        tb->run();
        const unsigned h = d->history() - 1;
        const auto got = sink->data();
        BOOST_REQUIRE_EQUAL(got.size(), n);
        for (std::size_t i = 0; i < n; ++i)
            if (got[i] != (i < h ? 0.0f : data[i - h])) {
                BOOST_ERROR("round " << round << ": item " << i << " is " << got[i]);
                break;
            }
    }
}

// One GPU writer, two GPU readers (device-to-device fan-out): each reader
// sees every item, and the writer reuses space only after both have read
// it (each reader records its own "read" event).
BOOST_AUTO_TEST_CASE(device_writer_fans_out_to_two_device_readers)
{
    const std::size_t n = 150001;
    const auto data = qa::random_floats(n, 40);
    auto tb = gr::make_top_block("fanout");
    auto src = gr::blocks::vector_source_f::make(data);
    auto c1 = make_copy(sizeof(float));
    auto a = make_delay(sizeof(float), 1);
    auto b = make_copy(sizeof(float));
    auto sink_a = gr::blocks::vector_sink_f::make();
    auto sink_b = gr::blocks::vector_sink_f::make();
    tb->connect(src, 0, c1, 0);
    tb->connect(c1, 0, a, 0);
    tb->connect(c1, 0, b, 0);
    tb->connect(a, 0, sink_a, 0);
    tb->connect(b, 0, sink_b, 0);
    tb->run();
    BOOST_CHECK(sink_a->data() == data);
    BOOST_CHECK(sink_b->data() == data);
}

// Stopped mid-stream and started again: the second run continues the
// stream where the first stopped (every item once, in order) on buffers
// made again, and the device is back where it started once all is gone.
BOOST_AUTO_TEST_CASE(flowgraph_stopped_and_restarted)
{
    auto ctx = runtime::device_context::get(qa::test_device().kind, 0);
    const auto mem_before = ctx->usage();
    {
        const std::size_t n = 300000;
        const auto data = qa::random_floats(n, 41);
        auto tb = gr::make_top_block("restart");
        auto src = gr::blocks::vector_source_f::make(data);
        auto c1 = make_copy(sizeof(float));
        auto d = make_delay(sizeof(float), 1);
        auto sink = gr::blocks::vector_sink_f::make();
        connect_line(tb, { src, c1, d, sink });
        tb->start();
        while (sink->data().size() < 1000)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        tb->stop();
        tb->wait();
        const std::size_t first = sink->data().size();
        BOOST_CHECK_LT(first, n);
        tb->start();
        tb->wait();
        const auto got = sink->data();
        // Items in the buffers when the first run stopped are lost (GNU
        // Radio discards buffers on stop); what arrives arrives in order,
        // each item once, and the run ends with the stream.
        BOOST_REQUIRE_GE(got.size(), first);
        BOOST_CHECK(std::equal(got.begin(), got.begin() + first, data.begin()));
        auto it = std::search(data.begin(),
                              data.end(),
                              got.begin() + first,
                              got.begin() + std::min(got.size(), first + 64));
        BOOST_REQUIRE(it != data.end());
        BOOST_CHECK(std::equal(got.begin() + first, got.end(), it));
        BOOST_CHECK(got.back() == data.back());
    }
    const auto mem_after = ctx->usage();
    BOOST_CHECK_EQUAL(mem_after.device_bytes, mem_before.device_bytes);
    BOOST_CHECK_EQUAL(mem_after.host_bytes, mem_before.host_bytes);
}

// A flowgraph on an endless source stopped mid-stream and destroyed leaks
// nothing, with work still enqueued on the asynchronous device.
BOOST_AUTO_TEST_CASE(stopped_mid_stream_and_destroyed_leaks_nothing)
{
    auto ctx = runtime::device_context::get(qa::test_device().kind, 0);
    const auto data = qa::random_floats(10007, 42);
    auto run_once = [&] {
        auto tb = gr::make_top_block("midstream");
        auto src = gr::blocks::vector_source_f::make(data, true);
        auto c1 = make_copy(sizeof(float));
        auto d = make_delay(sizeof(float), 3);
        auto c2 = make_copy(sizeof(float));
        auto sink = gr::blocks::vector_sink_f::make();
        connect_line(tb, { src, c1, d, c2, sink });
        tb->start();
        while (sink->data().size() < 20000)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        tb->stop();
        tb->wait();
    };
    check_cycles_leave_nothing(*ctx, run_once, 20);
}

#ifdef GPUDSP_TEST_CUDA
// An allocation the GPU cannot hold throws, and leaves no error behind for
// the next launch's check to read and blame on its kernel (the X-engine's
// Gram fallback and the tuner go on after one); the device still works.
// Not under compute-sanitizer (the GPU suite sets GPUDSP_QA_SANITIZER):
// memcheck reports the refused cudaMalloc this test makes on purpose as an
// API error (the H200 run of 2026-11-28: 2 errors, both here), and API
// errors elsewhere are worth its reporting them.
BOOST_AUTO_TEST_CASE(a_failed_allocation_leaves_no_error_behind)
{
    if (std::getenv("GPUDSP_QA_SANITIZER")) {
        BOOST_TEST_MESSAGE("skipped under compute-sanitizer: its failure is deliberate");
        return;
    }
    const auto where = qa::test_device();
    auto ctx = runtime::device_context::get(where.kind, where.device);
    BOOST_CHECK_THROW(runtime::device_memory(ctx, std::size_t(1) << 50, "qa"),
                      runtime::device_error);
    BOOST_CHECK_NO_THROW(ctx->check_last_error("the launch after it", "qa"));
    runtime::device_memory m(ctx, 4096, "qa");
    runtime::device_stream s(ctx, "qa");
    ctx->memset_async(m.get(), 0, 4096, s.get(), "qa");
    s.synchronize();
}
#endif
