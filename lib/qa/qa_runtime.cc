/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Backend resolution, device discovery and the emulated device's checks.

#include "qa_common.h"
#include <gnuradio/gpudsp/runtime/device_context.h>
#include <cstring>

using namespace gr::gpudsp::runtime;

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

BOOST_AUTO_TEST_CASE(cpu_has_no_device_context)
{
    BOOST_CHECK_THROW(device_context::get(backend_kind::cpu, 0), std::invalid_argument);
    if (!cuda_available())
        BOOST_CHECK_THROW(device_context::get(backend_kind::cuda, 0), std::exception);
}
