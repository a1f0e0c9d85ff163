/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Backend resolution, device discovery and the emulated device's checks.

#include "qa_common.h"
#include "stage_clock.h"
#include <gnuradio/gpudsp/runtime/device_context.h>
#include <gnuradio/gpudsp/runtime/sync_costs.h>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

using namespace gr::gpudsp::runtime;

#ifdef GPUDSP_TEST_CUDA // qa_runtime_cuda: for sync_costs on a GPU; skipped without one
using device_fixture = qa::skip_without_device;
BOOST_TEST_GLOBAL_FIXTURE(device_fixture);
#endif

BOOST_AUTO_TEST_CASE(discovery_never_throws)
{
    const auto devs = devices();
    BOOST_CHECK_EQUAL(cuda_available(), !devs.empty());
    for (const auto& d : devs) {
        BOOST_CHECK(!d.name.empty());
        BOOST_CHECK_GE(d.compute_major, 7); // CUDA 13 supports sm_75 and up
        BOOST_CHECK_GT(d.total_memory, 0u);
    }
}

BOOST_AUTO_TEST_CASE(backend_strings)
{
    BOOST_CHECK(resolve_backend("cpu", 0, "t").kind == backend_kind::cpu);
    BOOST_CHECK(resolve_backend("emulated", 0, "t").kind == backend_kind::emulated);
    const auto autoc = resolve_backend("auto", 0, "t");
    BOOST_CHECK(autoc.kind ==
                (cuda_available() ? backend_kind::cuda : backend_kind::cpu));
    BOOST_CHECK_THROW(resolve_backend("gpu", 0, "t"), std::invalid_argument);
    BOOST_CHECK_THROW(resolve_backend("", 0, "t"), std::invalid_argument);
    BOOST_CHECK_THROW(resolve_backend("cpu", -1, "t"), std::invalid_argument);
    if (cuda_available()) {
        BOOST_CHECK(resolve_backend("cuda", 0, "t").kind == backend_kind::cuda);
        BOOST_CHECK_THROW(resolve_backend("cuda", 4096, "t"), std::invalid_argument);
    } else {
        try {
            resolve_backend("cuda", 0, "myblock");
            BOOST_FAIL("backend cuda without a device must throw");
        } catch (const std::runtime_error& e) {
            const std::string msg = e.what();
            BOOST_CHECK_MESSAGE(msg.find("myblock") == 0, msg);
            BOOST_CHECK_MESSAGE(msg.find("CUDA device") != std::string::npos, msg);
        }
    }
}

BOOST_AUTO_TEST_CASE(emulated_device_memory_is_poisoned_and_checked)
{
    auto ctx = device_context::get(backend_kind::emulated, 0);
    const auto before = ctx->usage();
    {
        device_memory dev(ctx, 64, "qa");
        pinned_memory host(ctx, 64, "qa");
        for (std::size_t i = 0; i < 64; ++i)
            BOOST_CHECK_EQUAL(static_cast<unsigned char>(dev.get()[i]), 0xA5);
        device_stream s(ctx, "qa");
        std::memset(host.get(), 7, 64);
        ctx->copy_async(
            dev.get(), host.get(), 64, copy_kind::host_to_device, s.get(), "qa");
        s.synchronize(); // the copy is asynchronous, as on a GPU
        BOOST_CHECK_EQUAL(dev.get()[63], 7);
        // Wrong sides and overlaps are refused.
        BOOST_CHECK_THROW(
            ctx->copy_async(
                host.get(), dev.get(), 64, copy_kind::host_to_device, s.get(), "qa"),
            device_error);
        BOOST_CHECK_THROW(
            ctx->copy_async(
                dev.get(), host.get(), 64, copy_kind::device_to_host, s.get(), "qa"),
            device_error);
        BOOST_CHECK_THROW(
            ctx->copy_async(
                dev.get() + 8, dev.get(), 16, copy_kind::device_to_device, s.get(), "qa"),
            device_error);
        BOOST_CHECK_THROW(
            ctx->copy_async(
                dev.get() + 60, host.get(), 8, copy_kind::host_to_device, s.get(), "qa"),
            device_error);
        const auto during = ctx->usage();
        BOOST_CHECK_EQUAL(during.device_bytes, before.device_bytes + 64);
        BOOST_CHECK_EQUAL(during.host_allocations, before.host_allocations + 1);
    }
    const auto after = ctx->usage();
    BOOST_CHECK_EQUAL(after.device_bytes, before.device_bytes);
    BOOST_CHECK_EQUAL(after.host_bytes, before.host_bytes);
}

BOOST_AUTO_TEST_CASE(counters_count_each_copy)
{
    auto ctx = device_context::get(backend_kind::emulated, 0);
    ctx->reset_counters();
    device_memory a(ctx, 100, "qa"), b(ctx, 100, "qa");
    std::vector<char> h(100, 1);
    device_stream s(ctx, "qa");
    ctx->copy_async(a.get(), h.data(), 100, copy_kind::host_to_device, s.get(), "qa");
    ctx->copy_async(b.get(), a.get(), 60, copy_kind::device_to_device, s.get(), "qa");
    ctx->copy_async(h.data(), b.get(), 40, copy_kind::device_to_host, s.get(), "qa");
    const auto c = ctx->counters();
    BOOST_CHECK_EQUAL(c.h2d_calls, 1u);
    BOOST_CHECK_EQUAL(c.h2d_bytes, 100u);
    BOOST_CHECK_EQUAL(c.d2d_bytes, 60u);
    BOOST_CHECK_EQUAL(c.d2h_bytes, 40u);
}

BOOST_AUTO_TEST_CASE(stage_clock_sums_each_stage_over_a_calls_chunks)
{
    auto ctx = device_context::get(backend_kind::emulated, 0);
    device_stream s(ctx, "qa");
    stage_clock clock(ctx, "qa");
    const auto busy = [&](int ms) {
        ctx->enqueue_host_work(
            s.get(),
            [ms] { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); },
            {},
            "qa");
    };
    // A call of chunks, each a stage "A" of 20 ms and 100 bytes, then "B"
    // of 5 ms and 10 bytes.
    const auto call = [&](int chunks) {
        clock.begin_call();
        for (int k = 0; k < chunks; ++k) {
            clock.start(s.get());
            busy(20);
            clock.stage("A", 100, s.get());
            busy(5);
            clock.stage("B", 10, s.get());
        }
        clock.end_call();
        clock.start(s.get()); // outside a call: nothing recorded
        clock.stage("C", 1, s.get());
    };
    call(2); // off: nothing recorded
    BOOST_CHECK(clock.times().empty());

    clock.enable(true);
    const auto t0 = std::chrono::steady_clock::now();
    call(3);
    const auto t = clock.times(); // waits for the call
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    BOOST_REQUIRE_EQUAL(t.size(), 2u);
    BOOST_CHECK_EQUAL(t[0].stage, "A"); // in the order they first ran
    BOOST_CHECK_EQUAL(t[1].stage, "B");
    BOOST_CHECK_GE(t[0].seconds, 0.060); // summed over the 3 chunks
    BOOST_CHECK_GE(t[1].seconds, 0.015);
    BOOST_CHECK_LE(t[0].seconds + t[1].seconds, wall);
    BOOST_CHECK_EQUAL(t[0].bytes, 300.0);
    BOOST_CHECK_EQUAL(t[1].bytes, 30.0);

    call(1); // the next timed call forgets the last one's (its events reused)
    const auto u = clock.times();
    BOOST_REQUIRE_EQUAL(u.size(), 2u);
    BOOST_CHECK_EQUAL(u[0].bytes, 100.0);
    BOOST_CHECK_GE(u[0].seconds, 0.020);

    clock.enable(false); // untimed calls leave the last timed call's
    call(2);
    BOOST_CHECK_EQUAL(clock.times()[0].bytes, 100.0);
}

// The benchmark's synchronisation costs: measured on a GPU (every case a
// positive time; the cluster cases on sm_90 and later), refused without one.
BOOST_AUTO_TEST_CASE(sync_costs_measure_each_case_or_refuse)
{
    if (!cuda_available()) {
        BOOST_CHECK_THROW(sync_costs(0, 16), device_error);
        return;
    }
    BOOST_CHECK_THROW(sync_costs(0, 0), std::invalid_argument);
    // Under compute-sanitizer (the GPU suite sets GPUDSP_QA_SANITIZER) a few
    // rounds: the tools check every access, not the timing.
    const auto costs = sync_costs(0, std::getenv("GPUDSP_QA_SANITIZER") ? 16 : 512);
    for (const auto& c : costs) {
        BOOST_TEST_MESSAGE(c.what << ": " << c.cycles << " cycles, " << c.ns << " ns");
        BOOST_CHECK_GT(c.cycles, 0.0);
        BOOST_CHECK_GT(c.ns, 0.0);
        BOOST_CHECK_LT(c.ns, 1e5); // a round is nanoseconds, not a hang
    }
    BOOST_CHECK_GE(costs.size(), 3u);
    const auto has = [&](const std::string& what) {
        return std::any_of(costs.begin(), costs.end(), [&](const sync_cost& c) {
            return c.what == what;
        });
    };
    BOOST_CHECK(has("block barrier, 192 threads"));
    if (devices().front().compute_major >= 9) {
        BOOST_CHECK(has("cluster barrier, 8 CTAs of 192 threads"));
        BOOST_CHECK(has("dependent shared-memory read, another CTA of a cluster of 2"));
    }
}

BOOST_AUTO_TEST_CASE(cpu_has_no_device_context)
{
    BOOST_CHECK_THROW(device_context::get(backend_kind::cpu, 0), std::invalid_argument);
    if (!cuda_available())
        BOOST_CHECK_THROW(device_context::get(backend_kind::cuda, 0), std::exception);
}

// ---------------------------------------------------------------------------
// The emulated device runs asynchronously, as a GPU does: these pin down the
// ordering rules every other emulated test relies on to find missing waits.

namespace {

// Work that poisons \p bytes at \p p when it starts, takes a while, then
// writes \p value: a slow kernel.
void slow_fill(const device_context::sptr& ctx,
               stream_handle s,
               char* p,
               std::size_t bytes,
               char value)
{
    ctx->enqueue_host_work(
        s,
        [p, bytes, value] {
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
            std::memset(p, value, bytes);
        },
        { { p, bytes } },
        "qa");
}

} // namespace

BOOST_AUTO_TEST_CASE(emulated_streams_run_in_order_and_events_order_them)
{
    auto ctx = device_context::get(backend_kind::emulated, 0);
    device_memory a(ctx, 4096, "qa"), b(ctx, 4096, "qa");
    pinned_memory h(ctx, 4096, "qa");
    device_stream s1(ctx, "qa"), s2(ctx, "qa");
    device_event e(ctx, "qa");

    // Without a wait, a copy on another stream reads the slow kernel's
    // output while it is still poison.
    slow_fill(ctx, s1.get(), a.get(), 4096, 3);
    ctx->copy_async(b.get(), a.get(), 4096, copy_kind::device_to_device, s2.get(), "qa");
    ctx->copy_async(h.get(), b.get(), 4096, copy_kind::device_to_host, s2.get(), "qa");
    s2.synchronize();
    BOOST_CHECK_EQUAL(static_cast<unsigned char>(h.get()[100]), 0xA5);
    s1.synchronize();

    // With the event, it reads what the kernel wrote.
    slow_fill(ctx, s1.get(), a.get(), 4096, 4);
    e.record(s1.get());
    e.wait_in(s2.get());
    ctx->copy_async(b.get(), a.get(), 4096, copy_kind::device_to_device, s2.get(), "qa");
    ctx->copy_async(h.get(), b.get(), 4096, copy_kind::device_to_host, s2.get(), "qa");
    s2.synchronize();
    BOOST_CHECK_EQUAL(h.get()[100], 4);
    BOOST_CHECK(ctx->event_query(e.get(), "qa"));

    // A wait takes the last record made before it: a later record does not
    // hold it back (CUDA's rule).
    slow_fill(ctx, s1.get(), a.get(), 4096, 5);
    e.record(s1.get());
    e.wait_in(s2.get());
    slow_fill(ctx, s1.get(), a.get(), 4096, 6);
    e.record(s1.get());
    BOOST_CHECK(!ctx->event_query(e.get(), "qa"));
    s2.synchronize(); // returns after the first fill, not the second
    BOOST_CHECK(!ctx->event_query(e.get(), "qa"));
    e.synchronize();
    BOOST_CHECK(ctx->event_query(e.get(), "qa"));
}

BOOST_AUTO_TEST_CASE(emulated_event_never_recorded_is_no_wait)
{
    auto ctx = device_context::get(backend_kind::emulated, 0);
    device_stream s(ctx, "qa");
    device_event e(ctx, "qa");
    BOOST_CHECK(ctx->event_query(e.get(), "qa"));
    e.wait_in(s.get());
    s.synchronize(); // would hang if the wait waited
    e.synchronize();
}

BOOST_AUTO_TEST_CASE(emulated_pageable_memory_behaves_as_cuda)
{
    auto ctx = device_context::get(backend_kind::emulated, 0);
    device_memory d(ctx, 256, "qa");
    device_stream s(ctx, "qa");
    // Host to device from pageable memory: staged before the call returns,
    // so the source may change at once.
    std::vector<char> src(256, 1), dst(256, 0);
    ctx->copy_async(d.get(), src.data(), 256, copy_kind::host_to_device, s.get(), "qa");
    std::fill(src.begin(), src.end(), 2);
    // Device to host into pageable memory: done when the call returns.
    ctx->copy_async(dst.data(), d.get(), 256, copy_kind::device_to_host, s.get(), "qa");
    BOOST_CHECK_EQUAL(dst[255], 1);
}

BOOST_AUTO_TEST_CASE(emulated_work_errors_surface_at_the_next_synchronisation)
{
    auto ctx = device_context::get(backend_kind::emulated, 0);
    device_stream s(ctx, "qa");
    ctx->enqueue_host_work(
        s.get(), [] { throw std::runtime_error("bad kernel"); }, {}, "qa");
    try {
        s.synchronize();
        BOOST_FAIL("the error must surface");
    } catch (const device_error& e) {
        BOOST_CHECK(std::string(e.what()).find("bad kernel") != std::string::npos);
    }
    s.synchronize(); // reported once
    // Work may write only device or pinned memory it names.
    std::vector<char> pageable(16);
    BOOST_CHECK_THROW(ctx->enqueue_host_work(
                          s.get(), [] {}, { { pageable.data(), 16 } }, "qa"),
                      device_error);
}

BOOST_AUTO_TEST_CASE(emulated_free_waits_for_the_device)
{
    auto ctx = device_context::get(backend_kind::emulated, 0);
    device_stream s(ctx, "qa");
    device_memory a(ctx, 64, "qa");
    std::atomic<bool> done{ false };
    ctx->enqueue_host_work(
        s.get(),
        [&done] {
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
            done = true;
        },
        {},
        "qa");
    {
        device_memory b(ctx, 64, "qa");
    } // freeing b waits, as cudaFree does
    BOOST_CHECK(done.load());
}

BOOST_AUTO_TEST_CASE(activity_is_counted_per_caller)
{
    auto ctx = device_context::get(backend_kind::emulated, 0);
    const auto before = ctx->activity("qa-activity");
    {
        device_memory d(ctx, 64, "qa-activity");
        pinned_memory h(ctx, 64, "qa-activity");
        device_stream s(ctx, "qa-activity");
        ctx->copy_async(
            h.get(), d.get(), 64, copy_kind::device_to_host, s.get(), "qa-activity");
        s.synchronize();
        ctx->note_plan("qa-activity");
    }
    const auto after = ctx->activity("qa-activity");
    BOOST_CHECK_EQUAL(after.allocations - before.allocations, 2u);
    BOOST_CHECK_EQUAL(after.frees - before.frees, 2u);
    // One stream synchronisation, and the two frees (they wait for the device).
    BOOST_CHECK_EQUAL(after.synchronizations - before.synchronizations, 3u);
    BOOST_CHECK_EQUAL(after.plans - before.plans, 1u);
    BOOST_CHECK_GE(ctx->activity().allocations, after.allocations);
}
