/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The X-engine plan on the test device (emulated, or CUDA when built with
// GPUDSP_TEST_CUDA, with both GPU kernels) against the CPU plan, which
// python/gpudsp/qa_xengine_kernels.py checks against an exact int64
// reference: ci8 bit-exact over the whole int8 range (-128 included),
// device-resident input accumulated over uneven calls, poisoned outputs,
// sizes that are not multiples of any tile, saturation, the int32 partials'
// promotion inside a call; cf32 within float rounding; format pairs.

#include "kernels/xengine/xengine_gram.h"
#include "runtime/qa_common.h"
#ifdef GPUDSP_TEST_CUDA_RUNTIME
#include <cuda_runtime.h>
#endif
#include <gnuradio/gpudsp/kernels/xengine.h>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <sstream>

using namespace gr::gpudsp;
using kernels::xengine_input;
using kernels::xengine_kernel;
using kernels::xengine_output;

using device_fixture = qa::skip_without_device;
BOOST_TEST_GLOBAL_FIXTURE(device_fixture);

namespace {

std::vector<uint8_t> random_ci8(std::size_t values, unsigned seed)
{
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> d(-128, 127); // the whole int8 range
    std::vector<uint8_t> v(2 * values);
    for (auto& b : v) {
        int x = d(rng);
        b = uint8_t(int8_t(x == 0 ? 1 : x));
    }
    return v;
}

std::vector<uint8_t>
run_on_device(const kernels::xengine_config& c,
              const std::vector<uint8_t>& in,
              std::size_t n_time,
              const std::vector<std::size_t>& calls,
              uint64_t& saturated,
              const std::function<void(const kernels::xengine_plan&)>& inspect = nullptr,
              std::vector<runtime::stage_time>* stages = nullptr)
{
    kernels::xengine_plan plan(c, qa::test_device(), "qa_device");
    if (inspect)
        inspect(plan);
    plan.time_stages(stages != nullptr); // (the last call's stages)
    auto ctx = runtime::device_context::get(plan.where().kind, plan.where().device);
    runtime::device_stream stream(ctx, "qa");
    runtime::device_memory d_in(ctx, in.size(), "qa");
    runtime::device_memory d_out(ctx, c.output_item_size(), "qa");
    runtime::device_memory d_sat(ctx, sizeof(uint64_t), "qa");
    ctx->copy_async(d_in.get(),
                    in.data(),
                    in.size(),
                    runtime::copy_kind::host_to_device,
                    stream.get(),
                    "qa");
    ctx->memset_async(d_out.get(), 0xA7, c.output_item_size(), stream.get(), "qa");
    std::size_t done = 0;
    for (std::size_t k = 0; done < n_time; ++k) {
        const std::size_t n = std::min(calls[k % calls.size()], n_time - done);
        plan.accumulate(d_in.get() + done * c.input_item_size(), n, stream.get());
        done += n;
    }
    if (stages)
        *stages = plan.stage_times();
    plan.dump(d_out.get(), reinterpret_cast<uint64_t*>(d_sat.get()), stream.get());
    std::vector<uint8_t> out(c.output_item_size());
    ctx->copy_async(out.data(),
                    d_out.get(),
                    out.size(),
                    runtime::copy_kind::device_to_host,
                    stream.get(),
                    "qa");
    ctx->copy_async(&saturated,
                    d_sat.get(),
                    sizeof(uint64_t),
                    runtime::copy_kind::device_to_host,
                    stream.get(),
                    "qa");
    stream.synchronize();
    return out;
}

std::vector<uint8_t> run_on_cpu(const kernels::xengine_config& c,
                                const std::vector<uint8_t>& in,
                                std::size_t n_time,
                                uint64_t& saturated)
{
    kernels::xengine_plan plan(c, runtime::backend_choice{}, "qa_cpu");
    std::vector<uint8_t> out(c.output_item_size());
    saturated = plan.correlate_host(in.data(), n_time, out.data());
    return out;
}

// Where two ci32 dumps differ, for a failing GPU run to say at once whether
// whole tiles, diagonals, the runs' ends or single pairs are wrong: how many
// visibilities differ and the first few (channel, stations, pols, values).
std::string describe_differences(const kernels::xengine_config& c,
                                 const std::vector<uint8_t>& got,
                                 const std::vector<uint8_t>& want)
{
    const int P = c.n_pols;
    const std::size_t baselines = std::size_t(c.n_stations) * (c.n_stations + 1) / 2;
    const std::size_t values = got.size() / 8;
    std::ostringstream o;
    std::size_t bad = 0;
    for (std::size_t v = 0; v < values && v < want.size() / 8; ++v) {
        int32_t g[2], w[2];
        std::memcpy(g, &got[8 * v], 8);
        std::memcpy(w, &want[8 * v], 8);
        if (g[0] == w[0] && g[1] == w[1])
            continue;
        if (bad++ < 4) {
            const std::size_t pq = v % (P * P), k = v / (P * P) % baselines,
                              ch = v / (P * P) / baselines;
            int i, j;
            kernels::xgr_pair((long long)k, i, j);
            o << "; channel " << ch << " stations (" << i << ", " << j << ") pols ("
              << pq / P << ", " << pq % P << "): (" << g[0] << ", " << g[1]
              << ") instead of (" << w[0] << ", " << w[1] << ")";
        }
    }
    return std::to_string(bad) + " of " + std::to_string(values) +
           " visibilities differ" + o.str();
}

kernels::xengine_config config(int S, int P, int C, xengine_kernel k)
{
    kernels::xengine_config c;
    c.n_stations = S;
    c.n_pols = P;
    c.n_channels = C;
    c.kernel = k;
    return c;
}

} // namespace

BOOST_AUTO_TEST_CASE(ci8_bit_exact_both_kernels)
{
    unsigned seed = 1;
    for (int S : { 1, 3, 4, 19, 33, 64, 80, 257, 1000 })
        for (int P : { 1, 2 })
            for (auto k : { xengine_kernel::fp32, xengine_kernel::tensor }) {
                const int C = S > 100 ? 2 : 5;
                // 700 > one FP32 flush of 512; 1000 stations: 8 (one pol) or
                // 16 (two) tensor tiles a side
                const std::size_t T = S > 300 ? 24 : S > 100 ? 40 : 700;
                auto c = config(S, P, C, k);
                const auto in = random_ci8(T * C * c.n_inputs(), seed++);
                uint64_t s_dev = 1, s_cpu = 1;
                const auto got = run_on_device(c, in, T, { 17, 300, 1 }, s_dev);
                const auto want = run_on_cpu(c, in, T, s_cpu);
                BOOST_CHECK_MESSAGE(got == want,
                                    "S=" << S << " P=" << P << " kernel " << int(k));
                BOOST_CHECK_EQUAL(s_dev, 0u);
                BOOST_CHECK_EQUAL(s_cpu, 0u);
            }
}

BOOST_AUTO_TEST_CASE(tuned_plans_are_bit_exact)
{
    // Every kernel and spectra per call the tuner may choose ran and dumped
    // the heuristic's sums bit for bit (or it was rejected); the chosen one
    // matches the CPU.
    const qa::tuning_forced tuning;
    unsigned seed = 61;
    for (int S : { 20, 70 }) // 40 inputs (the direct form) and 140
        for (auto k : { xengine_kernel::automatic, xengine_kernel::tensor }) {
            const auto c = config(S, 2, 3, k);
            const std::size_t T = 300;
            const auto in = random_ci8(T * c.n_channels * c.n_inputs(), seed++);
            uint64_t s_dev = 1, s_cpu = 1;
            const auto got = run_on_device(
                c, in, T, { 100, 3 }, s_dev, [](const kernels::xengine_plan& p) {
                    qa::check_tuned(p.tuning());
                });
            BOOST_CHECK_MESSAGE(got == run_on_cpu(c, in, T, s_cpu), "S=" << S);
            BOOST_CHECK_EQUAL(s_dev, s_cpu);
        }
}

namespace {

// The form the device must run under each cap: wgmma only on compute
// capability 9.0, mma.sync from 8.0, WMMA on 7.5.
std::string expected_form(const std::string& cap, int n_inputs)
{
#ifdef GPUDSP_TEST_CUDA_RUNTIME
    int major = 0, minor = 0;
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0);
    cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0);
    const bool few = n_inputs % 8 == 0 && n_inputs <= 256; // the direct path's
    if (cap == "cublaslt") // small plans: its workspace always fits
        return "cublaslt";
    // Our Gram kernel (sm_90a only): the best form elsewhere; its direct
    // variant needs a multiple of 8 inputs.
    if (cap == "wgmma gram" || cap == "wgmma gram n=128" ||
        (cap == "wgmma gram direct" && n_inputs % 8 == 0))
        return major == 9 && minor == 0 ? cap : expected_form("wgmma", n_inputs);
    if (cap == "wgmma gram direct")
        return expected_form("wgmma", n_inputs);
    // The channel kernel: a multiple of 8 inputs, at most 128.
    if (cap == "wgmma gram channel")
        return major == 9 && minor == 0 && n_inputs % 8 == 0 && n_inputs <= 128
                   ? cap
                   : expected_form("wgmma", n_inputs);
    if (cap == "mma.sync gram") // sm_80 on
        return major >= 8 ? cap : expected_form("wgmma", n_inputs);
    if (cap == "mma.sync direct s=6") { // 120 KiB a block: sm_80 and sm_90
        int optin = 0;
        cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0);
        if (major >= 8 && few && optin >= 120 * 1024 + 512)
            return "mma.sync direct s=6";
        return expected_form("mma.sync", n_inputs);
    }
    if (cap == "mma.sync packed")
        return major >= 8 ? "mma.sync" : "wmma";
    if (cap != "wmma" && major >= 8 && few)
        return "mma.sync direct";
    if (cap == "wgmma" && major == 9 && minor == 0)
        return "wgmma";
    if (cap != "wmma" && major >= 8)
        return "mma.sync";
    return "wmma";
#else
    (void)cap;
    (void)n_inputs;
    return ""; // the emulated device runs the CPU code: no form
#endif
}

} // namespace

BOOST_AUTO_TEST_CASE(every_tensor_form_the_device_runs_is_bit_exact)
{
    // wgmma (sm_90a), mma.sync (sm_80+; direct from the input where inputs
    // are few, a multiple of 8), WMMA (sm_75), the Gram form on cuBLASLt
    // (any) and on our persistent kernel (sm_90a, B tiles of 256 and 128
    // rows): GPUDSP_XENGINE_TENSOR caps the form, so that one GPU checks
    // each form it can run. One call of 400 spectra goes round the
    // pipelines' stage rings several times; 257 stations are 5 row blocks
    // of Y, so the persistent grid's blocks run several tiles each.
    unsigned seed = 500;
    for (const char* cap : { "wgmma",
                             "mma.sync",
                             "mma.sync packed",
                             "mma.sync direct s=6",
                             "wmma",
                             "cublaslt",
                             "wgmma gram",
                             "wgmma gram n=128",
                             "wgmma gram direct",
                             "wgmma gram channel",
                             "mma.sync gram" }) {
        const qa::env_setting guard("GPUDSP_XENGINE_TENSOR", cap);
        // 4 and 64: the direct path; 4, 32, 40 and 64 (one to four row
        // groups) the channel kernel's.
        for (int S : { 1, 4, 19, 32, 33, 40, 64, 257 }) {
            auto c = config(S, 2, 3, xengine_kernel::tensor);
            {
                kernels::xengine_plan plan(c, qa::test_device(), "qa_form");
                BOOST_CHECK_EQUAL(plan.kernel_variant(),
                                  expected_form(cap, c.n_inputs()));
#ifdef GPUDSP_TEST_CUDA_RUNTIME
                // Each form says how it launches (the benchmark's notes).
                const std::string shape = plan.launch_shape(400);
                BOOST_CHECK_MESSAGE(shape.find("blocks") != std::string::npos ||
                                        shape.find("cuBLASLt") != std::string::npos,
                                    cap << ": \"" << shape << "\"");
#endif
            }
            const std::size_t T = 500;
            const auto in = random_ci8(T * 3 * c.n_inputs(), seed++);
            uint64_t s_dev = 1, s_cpu = 1;
            const auto got = run_on_device(c, in, T, { 33, 7, 400, 60 }, s_dev);
            const auto want = run_on_cpu(c, in, T, s_cpu);
            BOOST_CHECK_MESSAGE(got == want,
                                "S=" << S << " tensor form capped at " << cap << ": "
                                     << describe_differences(c, got, want));
        }
    }
}

// xengine_plan::time_stages: on CUDA a timed accumulate() names the kernels
// the form that runs launches (the Gram forms' pack, GEMM and combine, the
// packed forms' pack and correlation, one "correlate" for the others), each
// timed, and timing changes no sum; the emulated device times nothing.
BOOST_AUTO_TEST_CASE(stage_times_name_each_forms_kernels_and_change_no_sum)
{
    const auto stages_of = [](const std::string& variant) -> std::vector<std::string> {
        if (variant == "cublaslt")
            return { "Gram pack", "Gram GEMM (cuBLASLt)", "Gram combine" };
        if (variant == "wgmma gram" || variant == "wgmma gram n=128" ||
            variant == "mma.sync gram")
            return { "Gram pack", "Gram GEMM (ours)" };
        if (variant == "wgmma" || variant == "mma.sync")
            return { "pack", "correlate" };
        return { "correlate" };
    };
    const auto c = config(32, 2, 3, xengine_kernel::tensor);
    const std::size_t T = 300;
    const auto in = random_ci8(T * 3 * c.n_inputs(), 77);
    for (const char* cap : { "cublaslt",
                             "wgmma gram",
                             "mma.sync gram",
                             "wgmma",
                             "mma.sync packed",
                             "wgmma gram channel",
                             "wmma" }) {
        const qa::env_setting guard("GPUDSP_XENGINE_TENSOR", cap);
        std::string variant;
        std::vector<runtime::stage_time> stages;
        uint64_t s_untimed = 0, s_timed = 0;
        const auto untimed = run_on_device(c, in, T, { T }, s_untimed);
        const auto timed = run_on_device(
            c,
            in,
            T,
            { T },
            s_timed,
            [&](const kernels::xengine_plan& p) { variant = p.kernel_variant(); },
            &stages);
        BOOST_CHECK_MESSAGE(timed == untimed && s_timed == s_untimed,
                            cap << ": timing changed a sum");
#ifdef GPUDSP_TEST_CUDA_RUNTIME
        const auto want = stages_of(variant);
        BOOST_REQUIRE_EQUAL(stages.size(), want.size());
        for (std::size_t k = 0; k < want.size(); ++k) {
            BOOST_TEST_MESSAGE(cap << ": " << stages[k].stage << " "
                                   << stages[k].seconds * 1e6 << " us");
            BOOST_CHECK_EQUAL(stages[k].stage, want[k]);
            BOOST_CHECK_GT(stages[k].seconds, 0.0);
        }
#else
        (void)stages_of;
        BOOST_CHECK(stages.empty());
#endif
    }
}

BOOST_AUTO_TEST_CASE(differences_are_described_by_place)
{
    // The message a failing form prints: channel 1, stations (2, 1), pols
    // (1, 0) of S = 3, P = 2, C = 2.
    auto c = config(3, 2, 2, xengine_kernel::tensor);
    std::vector<uint8_t> want(c.output_item_size(), 0), got = want;
    const std::size_t v = ((std::size_t(1) * 6 + 4) * 4 + 2); // k = 4: (2, 1)
    got[8 * v] = 5;
    const std::string m = describe_differences(c, got, want);
    BOOST_CHECK_MESSAGE(m.find("1 of 48 visibilities differ; channel 1 stations (2, 1) "
                               "pols (1, 0): (5, 0) instead of (0, 0)") == 0,
                        m);
}

BOOST_AUTO_TEST_CASE(one_call_longer_than_a_tensor_launch)
{
    // 9000 spectra in one call: the tensor path cuts it into launches of at
    // most 8192 (its in-kernel int32 bound), the FP32 kernel flushes 17 times.
    // 5 stations: the packed path; 4 (8 inputs): the direct one; "cublaslt":
    // the Gram form, all 9000 in one GEMM ("wgmma gram": 71 stages of 128
    // spectra a tile, the last with zeros past the spectra).
    for (int S : { 5, 4 })
        for (const char* cap : { "",
                                 "cublaslt",
                                 "wgmma gram",
                                 "wgmma gram direct",
                                 "wgmma gram channel",
                                 "mma.sync gram" })
            for (auto k : { xengine_kernel::fp32, xengine_kernel::tensor }) {
                const qa::env_setting guard("GPUDSP_XENGINE_TENSOR", cap);
                auto c = config(S, 2, 3, k);
                const std::size_t T = 9000;
                const auto in = random_ci8(T * 3 * c.n_inputs(), 99);
                uint64_t s_dev = 1, s_cpu = 1;
                const auto got = run_on_device(c, in, T, { T }, s_dev);
                BOOST_CHECK(got == run_on_cpu(c, in, T, s_cpu));
                BOOST_CHECK_EQUAL(s_dev, s_cpu);
            }
}

BOOST_AUTO_TEST_CASE(ci8_saturation_counts)
{
    for (auto k : { xengine_kernel::fp32, xengine_kernel::tensor }) {
        auto c = config(1, 2, 1, k);
        const std::size_t T = 70000;
        std::vector<uint8_t> in(T * 4);
        for (std::size_t t = 0; t < T; ++t) {
            const int8_t v[4] = { 127, 127, 127, -127 };
            std::memcpy(in.data() + 4 * t, v, 4);
        }
        uint64_t s_dev = 0, s_cpu = 0;
        const auto got = run_on_device(c, in, T, { 65000, 5000 }, s_dev);
        const auto want = run_on_cpu(c, in, T, s_cpu);
        BOOST_CHECK(got == want);
        BOOST_CHECK_EQUAL(s_dev, s_cpu);
        BOOST_CHECK_GT(s_cpu, 0u);
    }
}

BOOST_AUTO_TEST_CASE(cf32_within_rounding)
{
    for (int S : { 1, 5, 40 }) {
        auto c = config(S, 2, 3, xengine_kernel::automatic);
        c.input = xengine_input::cf32;
        c.output = xengine_output::cf32;
        const std::size_t T = 50, n = T * c.n_channels * c.n_inputs() * 2;
        std::mt19937 rng(S);
        std::normal_distribution<float> g;
        std::vector<uint8_t> in(n * 4);
        for (std::size_t i = 0; i < n; ++i) {
            const float v = g(rng);
            std::memcpy(in.data() + 4 * i, &v, 4);
        }
        uint64_t s = 0;
        const auto got = run_on_device(c, in, T, { 7, 40 }, s);
        const auto want = run_on_cpu(c, in, T, s);
        const auto* a = reinterpret_cast<const float*>(got.data());
        const auto* b = reinterpret_cast<const float*>(want.data());
        double scale = 0, err = 0;
        BOOST_REQUIRE_EQUAL(qa::first_non_finite(a, got.size() / 4), got.size() / 4);
        for (std::size_t i = 0; i < got.size() / 4; ++i) {
            scale = std::max(scale, double(std::fabs(b[i])));
            err = std::max(err, double(std::fabs(a[i] - b[i])));
        }
        BOOST_CHECK_LE(err, 1e-5 * scale);
    }
}

// -128 everywhere: every product is exactly 32768 + 0i, the most an int8
// pair can give, so 70000 spectra exceed int32 (the partials must be
// promoted inside a call, at 65535 spectra) and would expose a kernel that
// negates an int8 (-(-128) wraps). Checked against the exact value, not
// against the CPU plan.
BOOST_AUTO_TEST_CASE(ci8_minus_128_everywhere_is_exact)
{
    for (auto k : { xengine_kernel::fp32, xengine_kernel::tensor })
        for (auto out : { xengine_output::cf32, xengine_output::ci32 }) {
            auto c = config(3, 2, 2, k);
            c.output = out;
            const std::size_t T = 70000;
            const std::vector<uint8_t> in(T * c.n_channels * c.n_inputs() * 2, 0x80);
            uint64_t sat = 0;
            const auto got = run_on_device(c, in, T, { 1000, 30007, 17 }, sat);
            const double want = double(T) * 32768.0; // 2293760000 > 2^31
            const std::size_t n = c.dump_values();
            bool ok = true;
            if (out == xengine_output::cf32) {
                const auto* v = reinterpret_cast<const float*>(got.data());
                for (std::size_t i = 0; i < n && ok; ++i)
                    ok = v[2 * i] == float(want) && v[2 * i + 1] == 0.0f;
                BOOST_CHECK_EQUAL(sat, 0u);
            } else {
                const auto* v = reinterpret_cast<const int32_t*>(got.data());
                for (std::size_t i = 0; i < n && ok; ++i)
                    ok = v[2 * i] == 2147483647 && v[2 * i + 1] == 0;
                BOOST_CHECK_EQUAL(sat, n); // every visibility saturated
            }
            BOOST_CHECK_MESSAGE(ok, "kernel " << int(k) << " output " << int(out));
        }
}

BOOST_AUTO_TEST_CASE(format_pairs_are_checked_by_the_plan)
{
    auto c = config(2, 2, 1, xengine_kernel::automatic);
    c.input = xengine_input::cf32;
    c.output = xengine_output::ci32;
    try {
        kernels::xengine_plan plan(c, qa::test_device(), "qa");
        BOOST_FAIL("cf32 input with ci32 output must be refused");
    } catch (const std::invalid_argument& e) {
        BOOST_CHECK_MESSAGE(std::string(e.what()).find("ci32 output needs ci8 input") !=
                                std::string::npos,
                            e.what());
    }
}
