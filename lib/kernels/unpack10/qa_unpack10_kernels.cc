/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// unpack10 compute core against a bit-by-bit reference: the CPU functions,
// and the plan on the test device (emulated, or CUDA when built with
// GPUDSP_TEST_CUDA), including device-resident runs with poisoned outputs.

#include "runtime/qa_common.h"
#include "unpack10_groups.h"
#include <gnuradio/gpudsp/kernels/unpack10.h>
#include <gnuradio/gpudsp/runtime/device_context.h>
#include <cstdlib>
#include <cstring>
#include <random>

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

BOOST_AUTO_TEST_CASE(group_decode_every_offset)
{
    // packed10_group against the definition: random word pairs and the
    // extremes, each group starting at every byte of the first word.
    std::mt19937 rng(11);
    std::vector<std::pair<uint32_t, uint32_t>> words = { { 0, 0 },
                                                         { 0xFFFFFFFFu, 0xFFFFFFFFu },
                                                         { 0x80808080u, 0x80808080u },
                                                         { 0x7F7F7F7Fu, 0x7F7F7F7Fu } };
    for (int k = 0; k < 100000; ++k)
        words.emplace_back(rng(), rng());
    for (const auto& w : words)
        for (int o = 0; o < 4; ++o) {
            std::vector<uint8_t> bytes(8);
            for (int b = 0; b < 4; ++b) { // little-endian words, as the GPU loads them
                bytes[b] = uint8_t(w.first >> (8 * b));
                bytes[4 + b] = uint8_t(w.second >> (8 * b));
            }
            const std::vector<uint8_t> group(bytes.begin() + o, bytes.begin() + o + 5);
            const auto want = reference_unpack(group);
            int got[4];
            kernels::packed10_group(w.first, w.second, o, got);
            for (int m = 0; m < 4; ++m)
                BOOST_REQUIRE_MESSAGE(got[m] == want[m],
                                      "o " << o << " sample " << m << ": " << got[m]
                                           << " != " << want[m]);
        }
}

BOOST_AUTO_TEST_CASE(group_kernel_data_flow_emulated)
{
    // The group kernel's reads, replayed on the host (unpack10_groups.h):
    // memory from the input's aligned base, mis bytes before the input;
    // whole groups as two words, which must end within the input; the
    // others byte by byte, within the input, at most one (the last); the
    // last n mod 4 samples alone. Every length 0 .. 200 samples and two long
    // ones, at every misalignment.
    std::vector<std::size_t> lengths;
    for (std::size_t n = 0; n <= 200; ++n)
        lengths.push_back(n);
    lengths.push_back(4099);
    lengths.push_back(100003);
    for (int mis = 0; mis < 4; ++mis)
        for (const std::size_t n : lengths) {
            const std::size_t in_bytes = kernels::packed10_bytes(n);
            auto memory = qa::random_bytes(mis + in_bytes, unsigned(7 * n + mis));
            const uint8_t* in = memory.data() + mis;
            const std::vector<uint8_t> input(in, in + in_bytes);
            const auto want = reference_unpack(input);
            std::vector<int> got(n, -9999);
            std::size_t by_bytes = 0;
            for (std::size_t j = 0; j < n / 4; ++j) {
                const auto f = kernels::unpack10_group_at(mis, in_bytes, j);
                uint32_t w0 = 0, w1 = 0;
                int o = f.o;
                if (f.whole) {
                    BOOST_REQUIRE_LE(4 * (f.word + 2), memory.size());
                    std::memcpy(
                        &w0, memory.data() + 4 * f.word, 4); // (a little-endian host)
                    std::memcpy(&w1, memory.data() + 4 * f.word + 4, 4);
                } else {
                    BOOST_REQUIRE_LE(5 * j + 5, in_bytes);
                    BOOST_REQUIRE_EQUAL(j, n / 4 - 1); // only the last group
                    kernels::unpack10_group_bytes(in + 5 * j, w0, w1);
                    o = 0;
                    ++by_bytes;
                }
                int v[4];
                kernels::packed10_group(w0, w1, o, v);
                for (int m = 0; m < 4; ++m) {
                    BOOST_REQUIRE_EQUAL(got[4 * j + m], -9999); // written once
                    got[4 * j + m] = v[m];
                }
            }
            BOOST_REQUIRE_LE(by_bytes, 1u);
            for (std::size_t i = n / 4 * 4; i < n; ++i)
                got[i] = kernels::packed10_sample(in, int64_t(i));
            BOOST_REQUIRE_EQUAL(want.size(), n);
            for (std::size_t i = 0; i < n; ++i)
                BOOST_REQUIRE_MESSAGE(got[i] == want[i],
                                      "mis " << mis << " n " << n << " sample " << i);
        }
}

BOOST_AUTO_TEST_CASE(every_configuration_from_odd_addresses)
{
    // On CUDA, each configuration the tuner may choose (forced by
    // GPUDSP_UNPACK10_CONFIG), from inputs 0 .. 3 bytes past a word and into
    // outputs 0 .. 3 samples past a vector's alignment, with the samples
    // around the output poisoned and checked untouched; on the emulated
    // device, its one configuration the same way.
    const auto where = qa::test_device();
    auto ctx = runtime::device_context::get(where.kind, where.device);
    std::vector<std::string> configs = { "" };
    if (where.kind == runtime::backend_kind::cuda)
        configs = { "per_thread=1",  "per_thread=2", "per_thread=4", "per_thread=8",
                    "per_thread=16", "groups=1",     "groups=2",     "groups=4" };
    // Under compute-sanitizer (the GPU suite sets GPUDSP_QA_SANITIZER) the
    // lengths that reach every path: none, a tail alone, groups and a tail,
    // many blocks.
    std::vector<std::size_t> lengths = { 0, 1, 3, 4, 5, 7, 8, 63, 64, 67, 4099, 100003 };
    if (std::getenv("GPUDSP_QA_SANITIZER"))
        lengths = { 0, 3, 67, 100003 };
    for (const auto& config : configs) {
        const qa::env_setting force("GPUDSP_UNPACK10_CONFIG", config.c_str());
        for (auto format :
             { kernels::sample_format::float32, kernels::sample_format::int16 }) {
            kernels::unpack10_plan plan(format, where, "qa_unpack10_config");
            if (!config.empty())
                BOOST_REQUIRE_EQUAL(plan.tuning().chosen, config);
            const std::size_t size = plan.sample_size();
            const std::size_t most = 100003, out_items = most + 8;
            runtime::device_stream stream(ctx, "qa");
            runtime::device_memory d_in(ctx, kernels::packed10_bytes(most) + 4, "qa");
            runtime::device_memory d_out(ctx, out_items * size, "qa");
            std::vector<uint8_t> out(out_items * size);
            for (const std::size_t n : lengths)
                for (int in_off = 0; in_off < 4; ++in_off)
                    for (int out_off = 0; out_off < 4; ++out_off) {
                        const auto bytes = qa::random_bytes(kernels::packed10_bytes(n),
                                                            unsigned(n + 31 * in_off));
                        const auto want = reference_unpack(bytes);
                        ctx->memset_async(
                            d_out.get(), 0x7F, out.size(), stream.get(), "qa");
                        ctx->copy_async(d_in.get() + in_off,
                                        bytes.data(),
                                        bytes.size(),
                                        runtime::copy_kind::host_to_device,
                                        stream.get(),
                                        "qa");
                        plan.execute(d_in.get() + in_off,
                                     d_out.get() + out_off * size,
                                     n,
                                     stream.get());
                        ctx->copy_async(out.data(),
                                        d_out.get(),
                                        out.size(),
                                        runtime::copy_kind::device_to_host,
                                        stream.get(),
                                        "qa");
                        stream.synchronize();
                        // The first wrong item, if any (one assertion a run: a
                        // Boost assertion a value would take minutes).
                        std::size_t bad = out_items;
                        for (std::size_t i = 0; i < out_items && bad == out_items; ++i) {
                            const uint8_t* item = out.data() + i * size;
                            bool ok = true;
                            if (i < std::size_t(out_off) || i >= out_off + n) {
                                for (std::size_t b = 0; b < size; ++b) // untouched
                                    ok = ok && item[b] == 0x7F;
                            } else if (format == kernels::sample_format::float32) {
                                float f;
                                std::memcpy(&f, item, sizeof f);
                                ok = f == float(want[i - out_off]);
                            } else {
                                int16_t v;
                                std::memcpy(&v, item, sizeof v);
                                ok = v == want[i - out_off];
                            }
                            if (!ok)
                                bad = i;
                        }
                        BOOST_REQUIRE_MESSAGE(bad == out_items,
                                              (config.empty() ? "default" : config)
                                                  << " n " << n << " in+" << in_off
                                                  << " out+" << out_off << ": item "
                                                  << bad << " wrong or written");
                    }
        }
    }
}
