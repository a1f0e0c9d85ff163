/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// unpack10 compute core against a bit-by-bit reference: the CPU functions,
// and the plan on the test device (emulated, or CUDA when built with
// GPUDSP_TEST_CUDA), including device-resident runs with poisoned outputs.

#include "runtime/qa_common.h"
#include <gnuradio/gpudsp/kernels/unpack10.h>
#include <gnuradio/gpudsp/runtime/device_context.h>
#include <cstring>

using namespace gr::gpudsp;

using device_fixture = qa::skip_without_device;
BOOST_TEST_GLOBAL_FIXTURE(device_fixture);

namespace {

// Sample i of the packed stream, one bit at a time, MSB first.
std::vector<int> reference_unpack(const std::vector<uint8_t>& bytes)
{
    const std::size_t n = bytes.size() * 8 / 10;
    std::vector<int> out(n);
    for (std::size_t i = 0; i < n; ++i) {
        int v = 0;
        for (int k = 0; k < 10; ++k) {
            const std::size_t bit = 10 * i + k;
            v = (v << 1) | ((bytes[bit / 8] >> (7 - bit % 8)) & 1);
        }
        out[i] = v >= 512 ? v - 1024 : v;
    }
    return out;
}

template <typename T>
void check_equal(const std::vector<T>& got, const std::vector<int>& want, std::size_t n)
{
    for (std::size_t i = 0; i < n; ++i)
        BOOST_REQUIRE_MESSAGE(got[i] == static_cast<T>(want[i]),
                              "sample " << i << ": got " << got[i] << " want "
                                        << want[i]);
}

} // namespace

BOOST_AUTO_TEST_CASE(cpu_every_length_0_to_64_bytes)
{
    for (std::size_t len = 0; len <= 64; ++len) {
        const auto bytes = qa::random_bytes(len, 100 + len);
        const auto want = reference_unpack(bytes);
        const std::size_t n = want.size();
        std::vector<float> f(n + 4, -9999.0f);
        std::vector<int16_t> s(n + 4, -9999);
        kernels::unpack10_cpu(bytes.data(), f.data(), n);
        kernels::unpack10_cpu(bytes.data(), s.data(), n);
        check_equal(f, want, n);
        check_equal(s, want, n);
        for (std::size_t i = n; i < n + 4; ++i) { // nothing written past the end
            BOOST_CHECK_EQUAL(f[i], -9999.0f);
            BOOST_CHECK_EQUAL(s[i], -9999);
        }
    }
}

BOOST_AUTO_TEST_CASE(cpu_extremes)
{
    // -512, 511, -1, 0 packed by hand: 1000000000 0111111111 1111111111 0000000000
    const std::vector<uint8_t> bytes = { 0x80, 0x1F, 0xFF, 0xFC, 0x00 };
    std::vector<int16_t> s(4);
    kernels::unpack10_cpu(bytes.data(), s.data(), 4);
    BOOST_CHECK_EQUAL(s[0], -512);
    BOOST_CHECK_EQUAL(s[1], 511);
    BOOST_CHECK_EQUAL(s[2], -1);
    BOOST_CHECK_EQUAL(s[3], 0);
}

BOOST_AUTO_TEST_CASE(plan_on_test_device_every_length)
{
    for (auto format :
         { kernels::sample_format::float32, kernels::sample_format::int16 }) {
        kernels::unpack10_plan plan(format, qa::test_device(), "qa_unpack10");
        for (std::size_t len = 0; len <= 64; ++len) {
            const auto bytes = qa::random_bytes(len, 300 + len);
            const auto want = reference_unpack(bytes);
            const std::size_t n = want.size();
            if (format == kernels::sample_format::float32) {
                std::vector<float> out(n, -9999.0f);
                plan.execute_host(bytes.data(), out.data(), n);
                check_equal(out, want, n);
            } else {
                std::vector<int16_t> out(n, -9999);
                plan.execute_host(bytes.data(), out.data(), n);
                check_equal(out, want, n);
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(tuned_plan_every_length)
{
    // Every samples-per-thread the tuner may choose ran and matched the
    // heuristic's output (the tuner rejects one that differs); the chosen
    // one matches the definition.
    const qa::tuning_forced tuning;
    for (auto format :
         { kernels::sample_format::float32, kernels::sample_format::int16 }) {
        kernels::unpack10_plan plan(format, qa::test_device(), "qa_unpack10_tuned");
        qa::check_tuned(plan.tuning());
        for (std::size_t len : { std::size_t(0), std::size_t(7), std::size_t(4099) }) {
            const auto bytes = qa::random_bytes(len, 900 + len);
            const auto want = reference_unpack(bytes);
            const std::size_t n = want.size();
            std::vector<float> f(n, -9999.0f);
            std::vector<int16_t> s(n, -9999);
            if (format == kernels::sample_format::float32) {
                plan.execute_host(bytes.data(), f.data(), n);
                check_equal(f, want, n);
            } else {
                plan.execute_host(bytes.data(), s.data(), n);
                check_equal(s, want, n);
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(plan_large_stream_split_across_calls)
{
    // 1,000,003 samples in calls of uneven whole-group sizes, device
    // resident, output poisoned before the run.
    const std::size_t n = 1000003;
    const auto bytes = qa::random_bytes(kernels::packed10_bytes(n), 7);
    const auto want = reference_unpack(bytes);
    const auto where = qa::test_device();
    auto ctx = runtime::device_context::get(where.kind, where.device);
    kernels::unpack10_plan plan(kernels::sample_format::float32, where, "qa_unpack10");
    runtime::device_stream stream(ctx, "qa");
    runtime::device_memory d_in(ctx, bytes.size(), "qa");
    runtime::device_memory d_out(ctx, n * sizeof(float), "qa");
    ctx->memset_async(
        d_out.get(), 0xFF, n * sizeof(float), stream.get(), "qa"); // NaN poison
    ctx->copy_async(d_in.get(),
                    bytes.data(),
                    bytes.size(),
                    runtime::copy_kind::host_to_device,
                    stream.get(),
                    "qa");
    std::size_t done = 0;
    const std::size_t chunks[] = { 4, 40000, 12, 400004 };
    for (int c = 0; done < n; ++c) {
        std::size_t k = std::min(chunks[c % 4], n - done);
        plan.execute(d_in.get() + done / 4 * 5,
                     d_out.get() + done * sizeof(float),
                     k,
                     stream.get());
        done += k;
    }
    std::vector<float> out(n);
    ctx->copy_async(out.data(),
                    d_out.get(),
                    n * sizeof(float),
                    runtime::copy_kind::device_to_host,
                    stream.get(),
                    "qa");
    stream.synchronize();
    check_equal(out, want, n);
}
