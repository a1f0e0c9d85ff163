/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The GNSS correlator plan on the test device (emulated, or CUDA when built
// with GPUDSP_TEST_CUDA) against a float64 evaluation of the definition
// written here independently of the kernels (no fixed point), and against
// the CPU plan; and the block's integration schedule (gnss_schedule.h):
// integrations start at code epochs and continue each other exactly.

#include "gnss_correlator_impl.h"
#include "gnss_schedule.h"
#include "kernels/common/cpu_worker_pool.h"
#include "runtime/qa_common.h"
#include <gnuradio/gpudsp/kernels/gnss_correlator.h>
#include <cmath>
#include <complex>
#include <cstring>

using namespace gr::gpudsp;
using kernels::gnss_system;

using device_fixture = qa::skip_without_device;
BOOST_TEST_GLOBAL_FIXTURE(device_fixture);

namespace {

using cvec = std::vector<std::complex<float>>;

double code_value(gnss_system sys, int prn, double t)
{
    const auto& s = kernels::gnss_signal(sys);
    const double whole = std::floor(t);
    const long chip = long(whole - std::floor(whole / s.code_length) * s.code_length);
    const double c =
        kernels::gnss_codes(sys)[std::size_t(prn - 1) * s.code_length + chip];
    const int sub = std::min(s.sub_phases - 1, int((t - whole) * s.sub_phases));
    return c * kernels::gnss_subcarrier(sys, sub);
}

std::vector<std::complex<double>> reference(const cvec& x,
                                            int64_t n,
                                            int M,
                                            const std::vector<kernels::gnss_job>& jobs,
                                            const std::vector<double>& taps,
                                            double fs)
{
    std::vector<std::complex<double>> out;
    for (const auto& j : jobs)
        for (int m = 0; m < M; ++m)
            for (double tap : taps) {
                std::complex<double> acc = 0;
                for (int64_t i = 0; i < j.length; ++i) {
                    const double ph = j.carrier_phase + j.carrier_freq * double(i) / fs;
                    const double c = code_value(
                        j.system, j.prn, j.code_phase + tap + j.code_freq * i / fs);
                    acc += std::complex<double>(x[m * n + j.start + i]) *
                           std::polar(1.0, -2 * M_PI * ph) * c;
                }
                out.push_back(acc);
            }
    return out;
}

cvec noise(std::size_t n, unsigned seed)
{
    std::mt19937 rng(seed);
    std::normal_distribution<float> g;
    cvec v(n);
    for (auto& z : v)
        z = { g(rng), g(rng) };
    return v;
}

std::vector<kernels::gnss_job> mixed_jobs(int64_t n)
{
    std::vector<kernels::gnss_job> jobs;
    const int prns[] = { 1, 37, 12, 50, 5 };
    for (int k = 0; k < 5; ++k) {
        kernels::gnss_job j;
        j.system = k % 2 ? gnss_system::galileo_e1b : gnss_system::gps_l1ca;
        j.prn = j.system == gnss_system::gps_l1ca ? prns[k] % 37 + 1 : prns[k];
        j.carrier_freq = -4e5 + 2.1e5 * k + 0.37;
        j.carrier_phase = 0.1 * k - 0.23;
        j.code_freq = 1.023e6 + 0.61 * k - 1.3;
        // Near the end of the code, so negative taps wrap across the start.
        j.code_phase = k == 0 ? 0.2 : 1000.7 * k;
        j.start = 3 * k;
        j.length = n - 3 * k - (k == 4 ? 1001 : 0); // odd lengths
        jobs.push_back(j);
    }
    return jobs;
}

void check_close(const cvec& got,
                 const std::vector<std::complex<double>>& want,
                 double rel)
{
    BOOST_REQUIRE_EQUAL(got.size(), want.size());
    double peak = 0;
    for (const auto& w : want)
        peak = std::max(peak, std::abs(w));
    for (std::size_t r = 0; r < got.size(); ++r)
        BOOST_CHECK_SMALL(std::abs(std::complex<double>(got[r]) - want[r]) / peak, rel);
}

} // namespace

BOOST_AUTO_TEST_CASE(matches_float64_definition_on_the_test_device)
{
    const double fs = 4.092e6;
    const int M = 3;
    const int64_t n = 8191;
    const std::vector<double> taps = { 0.5, 0.0, -0.5, -1.25, 3.0 };
    const auto x = noise(std::size_t(n) * M, 1);
    const auto jobs = mixed_jobs(n);
    const auto want = reference(x, n, M, jobs, taps, fs);
    kernels::gnss_correlator_plan plan(
        M, taps, fs, kernels::gnss_input::complex64, qa::test_device(), "qa");
    check_close(plan.execute_host(x.data(), n, jobs), want, 2e-5);
}

BOOST_AUTO_TEST_CASE(tuned_plans_match_float64_definition)
{
    // Every grouping of antennas and taps the tuner may choose ran and
    // matched the heuristic's (or it was rejected); the chosen one matches
    // the definition.
    const qa::tuning_forced tuning;
    const double fs = 4.092e6;
    const int64_t n = 8191;
    const std::vector<double> taps = { 0.5, 0.0, -0.5, -1.25, 3.0, 1.0, -2.0 };
    for (int M : { 1, 5 }) {
        const auto x = noise(std::size_t(n) * M, 3);
        const auto jobs = mixed_jobs(n);
        kernels::gnss_correlator_plan plan(
            M, taps, fs, kernels::gnss_input::complex64, qa::test_device(), "qa tuned");
        qa::check_tuned(plan.tuning());
        check_close(plan.execute_host(x.data(), n, jobs),
                    reference(x, n, M, jobs, taps, fs),
                    2e-5);
    }
}

BOOST_AUTO_TEST_CASE(cpu_threads_never_change_results)
{
    // Short calls (one thread: waking the others costs more than they
    // save) and long ones (split), repeated so that the plan's estimate of
    // a call's time settles and its choice may change between calls: every
    // thread count gives the same bits every time.
    const double fs = 4.092e6;
    const std::vector<double> taps = { 0.5, 0.0, -0.5 };
    for (const int64_t n : { int64_t(5000), int64_t(60000) }) {
        const auto x = noise(std::size_t(n) * 2, 7);
        auto jobs = mixed_jobs(n);
        for (int k = 0; k < 3; ++k)
            jobs.insert(jobs.end(), jobs.begin(), jobs.begin() + 5);
        kernels::gnss_correlator_plan one(
            2, taps, fs, kernels::gnss_input::complex64, {}, "qa one");
        const auto want = one.execute_host(x.data(), n, jobs);
        for (const int threads : { 2, 3, 8 }) {
            kernels::gnss_correlator_plan many(
                2, taps, fs, kernels::gnss_input::complex64, {}, "qa many");
            many.set_cpu_threads(threads);
            for (int call = 0; call < 6; ++call) {
                const auto got = many.execute_host(x.data(), n, jobs);
                BOOST_REQUIRE(std::memcmp(got.data(),
                                          want.data(),
                                          want.size() * sizeof(want[0])) == 0);
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(threads_only_where_they_pay)
{
    kernels::cpu_worker_pool pool;
    const double w = pool.wake_seconds(2);
    BOOST_TEST_MESSAGE("waking a worker and waiting for it: " << w * 1e6 << " us");
    BOOST_CHECK_GT(w, 0);
    BOOST_CHECK_LT(w, 0.05);
    // Less work than a wake-up: one thread, whatever the noise in the other
    // round trips (a larger split is charged at least w).
    BOOST_CHECK_EQUAL(pool.threads_that_pay(4, 0.2 * w), 1u);
    BOOST_CHECK_EQUAL(pool.threads_that_pay(1, 1.0), 1u);
    BOOST_CHECK_GT(pool.threads_that_pay(2, 1.0), 1u); // a second of work
    const std::size_t n = pool.threads_that_pay(8, 1.0);
    BOOST_CHECK(n == 2 || n == 4 || n == 8);
}

BOOST_AUTO_TEST_CASE(more_taps_than_one_pass_match_float64_definition)
{
    // 13 taps: the CPU correlates taps in passes of 8, so the second pass
    // (and, on a GPU, several tap groups) is checked against the definition.
    const double fs = 5e6;
    const int M = 2;
    const int64_t n = 3001;
    const std::vector<double> taps = { 3.0,  2.5,  2.0,   1.5,   1.0,   0.5,  0.25,
                                       0.0, -0.25, -0.5, -1.0, -1.75, -2.5 };
    const auto x = noise(std::size_t(n) * M, 7);
    const auto jobs = mixed_jobs(n);
    kernels::gnss_correlator_plan plan(
        M, taps, fs, kernels::gnss_input::complex64, qa::test_device(), "qa");
    check_close(plan.execute_host(x.data(), n, jobs), reference(x, n, M, jobs, taps, fs), 2e-5);
}

BOOST_AUTO_TEST_CASE(taps_far_apart_unsorted_and_repeated_match_float64_definition)
{
    // The CPU replicas share a base phase among taps within 256 chips: these
    // taps make three groups (one at the 256-chip edge, negative and
    // positive bases), unsorted, with a repeated tap; the device too.
    const double fs = 5e6;
    const int M = 2;
    const int64_t n = 2600;
    const std::vector<double> taps = { 511.0, -500.0, 256.0, -250.3, 255.99, 0.0, 0.0 };
    const auto x = noise(std::size_t(n) * M, 8);
    const auto jobs = mixed_jobs(n);
    const auto want = reference(x, n, M, jobs, taps, fs);
    for (const auto& where : { runtime::backend_choice{}, qa::test_device() }) {
        kernels::gnss_correlator_plan plan(
            M, taps, fs, kernels::gnss_input::complex64, where, "qa");
        check_close(plan.execute_host(x.data(), n, jobs), want, 2e-5);
    }
}

BOOST_AUTO_TEST_CASE(chunks_cover_every_sample_once)
{
    // The GPU kernel's last block of a job sums gnss_chunks_of(length,
    // chunk) partials: every sample in exactly one, and one for an empty job.
    for (int64_t chunk : { 256, 1024, 4864 })
        for (int64_t length = 0; length < 20000; ++length) {
            const int64_t c = kernels::gnss_chunks_of(length, chunk);
            if (length == 0)
                BOOST_REQUIRE_EQUAL(c, 1);
            else
                BOOST_REQUIRE((c - 1) * chunk < length && length <= c * chunk);
        }
}

BOOST_AUTO_TEST_CASE(gpu_code_table_rows_hold_the_code_twice_in_16_byte_words)
{
    // The GPU kernel copies a PRN's row (the code twice) into shared memory
    // in 16-byte words: whole, aligned, no overlap with the next row.
    for (uint32_t L : { 1u, 7u, 8u, 9u, 1023u, 4092u, 10230u }) {
        const uint32_t s = kernels::gnss_code_row_bytes(L);
        BOOST_CHECK(s % 16 == 0 && s >= 2 * L && s < 2 * L + 16);
    }
}

BOOST_AUTO_TEST_CASE(gpu_code_values_equal_chip_times_subcarrier)
{
    // The GPU kernel's table rows (the code twice as sign bytes) and its
    // value by sign flip equal chip x subcarrier value bit for bit, for
    // phases over both copies, at every chip and sub-chip boundary met.
    namespace k = gr::gpudsp::kernels;
    std::mt19937_64 rng(5);
    for (int sy = 0; sy < k::gnss_n_systems; ++sy) {
        const auto sys = k::gnss_system(sy);
        const auto& spec = k::gnss_signal(sys);
        const auto& codes = k::gnss_codes(sys);
        const uint32_t L = spec.code_length;
        const int F = k::gnss_code_frac_bits(int(L)), S = spec.sub_phases;
        const uint64_t mod = uint64_t(L) << F;
        uint32_t sub_bits[12] = {};
        for (int j = 0; j < S; ++j) {
            const float v = float(k::gnss_subcarrier(sys, j));
            std::memcpy(&sub_bits[j], &v, 4);
        }
        std::vector<uint8_t> row(k::gnss_code_row_bytes(L), 0x55);
        for (int prn : { 1, spec.n_prns }) {
            const int8_t* chips = codes.data() + std::size_t(prn - 1) * L;
            k::gnss_code_row(chips, L, row.data());
            for (std::size_t c = 2 * L; c < row.size(); ++c)
                BOOST_REQUIRE_EQUAL(row[c], 0); // padding
            for (int trial = 0; trial < 20000; ++trial) {
                // random phases, and (odd trials) a chip's or sub-chip's
                // first phase or the one before it
                uint64_t q = rng() % (2 * mod);
                if (trial % 2) {
                    const uint64_t c = rng() % (2 * L), j = rng() % S; // (sub-)chip
                    const uint64_t u = ((j << 32) + S - 1) / S; // its first 2^-32 step
                    q = (c << F) + (u << (F - 32));
                    if (trial % 4 == 3 && q > 0)
                        --q;
                }
                const uint32_t chip = k::gnss_chip(q, F);
                float want = float(chips[chip % L]);
                if (S > 1)
                    want *= float(k::gnss_subcarrier(sys, int(k::gnss_sub_phase(q, F, S))));
                const uint32_t got =
                    k::gnss_code_value_bits(row.data(), sub_bits, S > 1, q, F, S);
                uint32_t want_bits;
                std::memcpy(&want_bits, &want, 4);
                BOOST_REQUIRE_EQUAL(got, want_bits);
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(repeated_calls_of_one_shape_follow_new_jobs_and_samples)
{
    // The per-millisecond call of a tracking loop: the same shape each time
    // (on CUDA one captured graph replayed), new jobs and samples each call;
    // and an empty job among them, whose sums are zero.
    const double fs = 5e6;
    const int M = 2;
    const int64_t n = 5000;
    const std::vector<double> taps = { 0.5, 0.0, -0.5 };
    kernels::gnss_correlator_plan dev(
        M, taps, fs, kernels::gnss_input::complex64, qa::test_device(), "qa");
    kernels::gnss_correlator_plan cpu(
        M, taps, fs, kernels::gnss_input::complex64, {}, "qa cpu");
    for (int call = 0; call < 4; ++call) {
        const auto x = noise(std::size_t(n) * M, 20 + call);
        auto jobs = mixed_jobs(n);
        for (auto& j : jobs) {
            j.carrier_freq += 37.0 * call;
            j.code_phase += 0.3 * call;
        }
        jobs[2].length = 0;
        const auto a = cpu.execute_host(x.data(), n, jobs);
        const auto b = dev.execute_host(x.data(), n, jobs);
        std::vector<std::complex<double>> ad(a.begin(), a.end());
        check_close(b, ad, 2e-6);
        for (std::size_t r = 0; r < std::size_t(M) * taps.size(); ++r)
            BOOST_CHECK(b[2 * M * taps.size() + r] == std::complex<float>(0.0f));
    }
}

BOOST_AUTO_TEST_CASE(host_work_given_to_execute_runs_once_and_changes_nothing)
{
    // The block makes its messages in execute's `meanwhile`, while the device
    // computes: it runs once per call (also for a call without jobs), the
    // sums are those of a call without it, and an exception it throws
    // reaches the caller after the device is done, the plan still usable.
    const double fs = 5e6;
    const int M = 2;
    const int64_t n = 5000;
    const std::vector<double> taps = { 0.5, 0.0, -0.5 };
    const std::size_t per = std::size_t(M) * taps.size();
    kernels::gnss_correlator_plan plan(
        M, taps, fs, kernels::gnss_input::complex64, qa::test_device(), "qa");
    const auto x = noise(std::size_t(n) * M, 31);
    const auto jobs = mixed_jobs(n);
    const auto want = plan.execute_host(x.data(), n, jobs);

    auto ctx = runtime::device_context::get(qa::test_device().kind, 0);
    runtime::device_stream stream(ctx, "qa");
    runtime::device_memory d_x(ctx, x.size() * sizeof(x[0]), "qa");
    ctx->copy_async(d_x.get(), x.data(), x.size() * sizeof(x[0]),
                    runtime::copy_kind::host_to_device, stream.get(), "qa");
    const std::vector<const void*> ants = { d_x.get(),
                                            d_x.get() + std::size_t(n) * sizeof(x[0]) };
    cvec out(jobs.size() * per, std::complex<float>(NAN, NAN));
    int calls = 0;
    plan.execute(ants, n, jobs, out.data(), stream.get(), [&] { ++calls; });
    BOOST_CHECK_EQUAL(calls, 1);
    for (std::size_t r = 0; r < out.size(); ++r)
        BOOST_REQUIRE(out[r] == want[r]);

    BOOST_CHECK_THROW(plan.execute(ants, n, jobs, out.data(), stream.get(),
                                   [] { throw std::runtime_error("host work failed"); }),
                      std::runtime_error);
    // (the emulated device's worker writes out itself: done before the throw)
    if (qa::test_device().kind == runtime::backend_kind::emulated)
        for (std::size_t r = 0; r < out.size(); ++r)
            BOOST_REQUIRE(out[r] == want[r]);
    std::fill(out.begin(), out.end(), std::complex<float>(NAN, NAN));
    plan.execute(ants, n, jobs, out.data(), stream.get(), [&] { ++calls; });
    BOOST_CHECK_EQUAL(calls, 2);
    for (std::size_t r = 0; r < out.size(); ++r)
        BOOST_REQUIRE(out[r] == want[r]);

    plan.execute(ants, n, {}, out.data(), stream.get(), [&] { ++calls; });
    BOOST_CHECK_EQUAL(calls, 3);

    // On the CPU it runs first; the sums are those of a call without it.
    kernels::gnss_correlator_plan cpu(
        M, taps, fs, kernels::gnss_input::complex64, {}, "qa cpu");
    const auto want_cpu = cpu.execute_host(x.data(), n, jobs);
    const std::vector<const void*> host = { x.data(), x.data() + n };
    cvec got(jobs.size() * per, std::complex<float>(NAN, NAN));
    cpu.execute(host, n, jobs, got.data(), nullptr, [&] { ++calls; });
    BOOST_CHECK_EQUAL(calls, 4);
    for (std::size_t r = 0; r < got.size(); ++r)
        BOOST_REQUIRE(got[r] == want_cpu[r]);
}

BOOST_AUTO_TEST_CASE(complex_int16_input)
{
    const double fs = 2.5e6;
    const int M = 2;
    const int64_t n = 5003;
    std::mt19937 rng(4);
    std::uniform_int_distribution<int> u(-2000, 2000);
    std::vector<int16_t> x16(std::size_t(n) * M * 2);
    for (auto& v : x16)
        v = int16_t(u(rng));
    cvec x(std::size_t(n) * M);
    for (std::size_t i = 0; i < x.size(); ++i)
        x[i] = { float(x16[2 * i]), float(x16[2 * i + 1]) };
    auto jobs = mixed_jobs(n);
    const std::vector<double> taps = { 0.25, -0.25 };
    kernels::gnss_correlator_plan plan(
        M, taps, fs, kernels::gnss_input::complex_int16, qa::test_device(), "qa");
    check_close(
        plan.execute_host(x16.data(), n, jobs), reference(x, n, M, jobs, taps, fs), 2e-5);
}

BOOST_AUTO_TEST_CASE(many_satellites_and_antennas_match_the_cpu_plan)
{
    // 9 antennas and 11 taps: several antenna and tap groups on the GPU.
    const double fs = 25e6;
    const int M = 9;
    const int64_t n = 25001;
    const std::vector<double> taps = {
        2, 1.5, 1, 0.6, 0.3, 0.15, 0, -0.15, -0.3, -0.6, -1
    };
    const auto x = noise(std::size_t(n) * M, 2);
    std::vector<kernels::gnss_job> jobs;
    for (int k = 0; k < 40; ++k) {
        kernels::gnss_job j;
        j.system = k % 3 ? gnss_system::gps_l1ca : gnss_system::galileo_e1b;
        j.prn = 1 + k % 37;
        j.carrier_freq = 1000 + 123.4 * k;
        j.code_freq = 1.023e6 * (1 + j.carrier_freq / 1575.42e6);
        j.code_phase = 10.5 + 97.1 * k;
        j.start = k;
        j.length = n - 2 * k;
        jobs.push_back(j);
    }
    kernels::gnss_correlator_plan cpu(
        M, taps, fs, kernels::gnss_input::complex64, {}, "qa cpu");
    kernels::gnss_correlator_plan dev(
        M, taps, fs, kernels::gnss_input::complex64, qa::test_device(), "qa");
    const auto a = cpu.execute_host(x.data(), n, jobs);
    const auto b = dev.execute_host(x.data(), n, jobs);
    std::vector<std::complex<double>> ad(a.begin(), a.end());
    check_close(b, ad, 2e-6);
}

BOOST_AUTO_TEST_CASE(noise_free_prompt_equals_the_sample_count)
{
    // A noise-free replica of the signal: the prompt is exactly N (all
    // products +1 up to float rounding), on every antenna.
    const double fs = 5e6;
    const int64_t n = 5000;
    kernels::gnss_job j;
    j.system = gnss_system::gps_l1ca;
    j.prn = 1;
    j.carrier_freq = 1000;
    j.code_phase = 10.5;
    j.length = n;
    cvec x(2 * n);
    for (int64_t i = 0; i < n; ++i) {
        const auto s = std::polar(1.0, 2 * M_PI * 1000.0 * i / fs) *
                       code_value(j.system, 1, 10.5 + 1.023e6 * i / fs);
        x[i] = std::complex<float>(s);
        x[n + i] = std::complex<float>(s * std::polar(1.0, 0.3)); // antenna 2 turned
    }
    kernels::gnss_correlator_plan plan(
        2, { 0.0 }, fs, kernels::gnss_input::complex64, qa::test_device(), "qa");
    const auto r = plan.execute_host(x.data(), n, { j });
    BOOST_CHECK_SMALL(std::abs(r[0] - std::complex<float>(n, 0)), 0.02f);
    BOOST_CHECK_SMALL(std::abs(r[1] - std::complex<float>(std::polar(double(n), 0.3))),
                      0.05f);
}

BOOST_AUTO_TEST_CASE(bad_jobs_and_plans_are_refused)
{
    const auto dev = qa::test_device();
    using kernels::gnss_correlator_plan;
    BOOST_CHECK_THROW(gnss_correlator_plan(
                          1, { 600.0 }, 1e6, kernels::gnss_input::complex64, dev, "qa"),
                      std::invalid_argument);
    BOOST_CHECK_THROW(
        gnss_correlator_plan(1, { 0.0 }, -1, kernels::gnss_input::complex64, dev, "qa"),
        std::invalid_argument);
    BOOST_CHECK_THROW(
        gnss_correlator_plan(0, { 0.0 }, 1e6, kernels::gnss_input::complex64, dev, "qa"),
        std::invalid_argument);
    gnss_correlator_plan plan(1, { 0.0 }, 2e6, kernels::gnss_input::complex64, dev, "qa");
    kernels::gnss_job j;
    j.length = 100;
    cvec x(100);
    auto bad = [&](auto change) {
        auto k = j;
        change(k);
        BOOST_CHECK_THROW(plan.execute_host(x.data(), 100, { k }), std::invalid_argument);
    };
    bad([](auto& k) { k.prn = 38; });
    bad([](auto& k) { k.prn = 0; });
    bad([](auto& k) { k.length = 101; });
    bad([](auto& k) { k.start = -1; });
    bad([](auto& k) { k.code_freq = 0; });
    bad([](auto& k) { k.code_freq = 3e6; }); // above samp_rate
    bad([](auto& k) { k.carrier_freq = NAN; });
    BOOST_CHECK_THROW(kernels::parse_gnss_system("glonass", "qa"), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(schedule_starts_at_epochs_and_continues_exactly)
{
    const double fs = 4e6;
    for (auto sys : { gnss_system::gps_l1ca, gnss_system::galileo_e1b }) {
        const double fc = 1.023e6 + 3.3, f = 1234.5;
        const double tau0 = 517.25, phi0 = 0.125; // at sample 1000
        gnss_tracker t(sys, 3, fs, 2, f, fc, phi0, tau0, 1000);
        const double L = kernels::gnss_signal(sys).code_length;
        // The code rate the fixed point runs at: chips per sample in
        // units of 2^-F (the documented quantisation).
        const int F = kernels::gnss_code_frac_bits(int(L));
        const double step = std::ldexp(double(kernels::gnss_code_step(fc, fs, F)), -F);
        uint64_t expect_start = t.next_start();
        for (int k = 0; k < 5; ++k) {
            const auto g = t.take();
            BOOST_CHECK_EQUAL(g.start, expect_start);
            // The code phase of the first sample is in [0, step).
            BOOST_CHECK(g.code_chips() >= 0 && g.code_chips() < step + 1e-9);
            // And it continues the replica given at sample 1000.
            const double elapsed = double(g.start) - 1000;
            double code = std::fmod(tau0 + step * elapsed, L);
            if (code > L - 2 * step)
                code -= L;
            BOOST_CHECK_SMALL(code - g.code_chips(), 1e-9);
            const double cyc = phi0 + f * elapsed / fs;
            const double d = cyc - g.carrier_cycles();
            BOOST_CHECK_SMALL(d - std::round(d), 1e-9);
            // Two code periods long.
            BOOST_CHECK(g.code_chips() + step * g.length >= 2 * L);
            BOOST_CHECK(g.code_chips() + step * (g.length - 1) < 2 * L);
            expect_start = g.start + uint64_t(g.length);
        }
        // Frequencies change from the next integration, phases continue.
        t.set_freqs(f + 100, fc);
        BOOST_CHECK_EQUAL(t.take().start, expect_start);
        // A code correction of -0.5 chip moves the start half a chip later.
        const uint64_t before = t.next_start();
        const double q = t.code_chips();
        t.correct(0.0, -0.5);
        BOOST_CHECK_EQUAL(t.next_start(), before + uint64_t(std::ceil((0.5 - q) / step)));
        BOOST_CHECK(t.code_chips() >= 0 && t.code_chips() < step);
    }
}

BOOST_AUTO_TEST_CASE(schedule_is_the_same_at_2_40_and_beyond)
{
    // The tracker's arithmetic is exact integer arithmetic on absolute
    // sample indices: started 2^40 (and 2^52) samples later, with the same
    // phases, every integration is the same one shifted by exactly that
    // many samples, through frequency changes, corrections and a skip.
    for (const uint64_t shift : { uint64_t(1) << 40, (uint64_t(1) << 52) + 12345 }) {
        for (auto sys : { gnss_system::gps_l1ca, gnss_system::galileo_e1b }) {
            gnss_tracker a(sys, 11, 4.092e6, 1, -2345.25, 1.023e6 - 2.1, 0.7, 1000.5, 77);
            gnss_tracker b(sys, 11, 4.092e6, 1, -2345.25, 1.023e6 - 2.1, 0.7, 1000.5, 77 + shift);
            auto same = [&](int n) {
                for (int k = 0; k < n; ++k) {
                    const auto ga = a.take(), gb = b.take();
                    BOOST_REQUIRE_EQUAL(gb.start, ga.start + shift);
                    BOOST_CHECK_EQUAL(gb.length, ga.length);
                    BOOST_CHECK_EQUAL(gb.index, ga.index);
                    BOOST_CHECK_EQUAL(gb.code_phase, ga.code_phase);
                    BOOST_CHECK_EQUAL(gb.carrier_phase, ga.carrier_phase);
                }
            };
            same(20);
            a.set_freqs(1500.0, 1.023e6 + 0.4);
            b.set_freqs(1500.0, 1.023e6 + 0.4);
            same(5);
            a.correct(0.125, -0.375);
            b.correct(0.125, -0.375);
            same(5);
            // Samples lost: both skip 3e9 samples ahead (beyond 2^31 at once).
            a.skip_to(a.next_start() + 3000000000ull);
            b.skip_to(b.next_start() + 3000000000ull);
            same(5);
        }
    }
}

// The code-phase arithmetic both backends run (gnss_correlator_impl.h):
// the fractional bits are the most that cannot overflow; the phase of
// sample i is the phase advanced i times by the step (exhaustive for small
// i, and at 2^40 against 128-bit arithmetic written out here); the chip
// and the sub-phase are those of the exact rational phase, the sub-phase
// edges within 2^-32 chip.
BOOST_AUTO_TEST_CASE(code_phase_arithmetic)
{
    namespace k = gr::gpudsp::kernels;
    BOOST_CHECK_EQUAL(k::gnss_code_frac_bits(1023), 53);
    BOOST_CHECK_EQUAL(k::gnss_code_frac_bits(4092), 51);
    BOOST_CHECK_EQUAL(k::gnss_code_frac_bits(10230), 49);
    for (int L : { 1, 2, 3, 127, 1023, 1024, 1025, 4092, 10230 }) {
        const int F = k::gnss_code_frac_bits(L);
        const unsigned __int128 mod = (unsigned __int128)L << F;
        BOOST_CHECK(2 * mod <= ((unsigned __int128)1 << 64)); // phase + step fits
        BOOST_CHECK(4 * mod > ((unsigned __int128)1 << 64));  // and F is the most
    }
    std::mt19937_64 rng(3);
    for (int L : { 1023, 4092 }) {
        const int F = k::gnss_code_frac_bits(L), S = 12;
        const uint64_t mod = uint64_t(L) << F;
        for (int trial = 0; trial < 20; ++trial) {
            const uint64_t q0 = rng() % mod, step = rng() % (uint64_t(1) << F) + 1;
            uint64_t q = q0;
            for (uint64_t i = 0; i < 3000; ++i) {
                BOOST_REQUIRE_EQUAL(k::gnss_code_phase_at(q0, step, mod, i), q);
                q += step;
                if (q >= mod)
                    q -= mod;
            }
            const uint64_t far = (uint64_t(1) << 40) + uint64_t(trial);
            unsigned __int128 want = q0;
            for (int b = 63; b >= 0; --b) // (q0 + far step) mod L 2^F, shift and add
                if ((far >> b) & 1)
                    want += (unsigned __int128)step << b;
            BOOST_CHECK(k::gnss_code_phase_at(q0, step, mod, far) == uint64_t(want % mod));
            // Chip and sub-phase of phases in [0, 2 L 2^F).
            for (int r = 0; r < 200; ++r) {
                const uint64_t v = rng() % (2 * mod);
                BOOST_CHECK_EQUAL(k::gnss_chip(v, F), uint32_t(v >> F));
                const double frac = std::ldexp(double(v & ((uint64_t(1) << F) - 1)), -F);
                const uint32_t j = k::gnss_sub_phase(v, F, S);
                BOOST_REQUIRE_LT(j, uint32_t(S));
                BOOST_CHECK_LE(double(j) / S, frac + 0x1p-32);
                BOOST_CHECK_GT(double(j + 1) / S, frac - 0x1p-32);
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(code_phase_without_128_bit_division_is_exact)
{
    // The GPU kernel's start phase (gnss_code_phase_near, a double
    // estimate of the chip count's quotient corrected once) equals the
    // 128-bit definition over the whole domain it is used on: every code
    // length, q0 < L 2^F, step <= 2^F, i < 2^32, at the corners and random.
    // (L = 49, no system's: there the estimate falls one short at some
    // multiples of L, which the correction must catch.)
    namespace k = gr::gpudsp::kernels;
    std::mt19937_64 rng(11);
    for (uint32_t L : { 49u, 1023u, 4092u, 10230u }) {
        const int F = k::gnss_code_frac_bits(int(L));
        const uint64_t mod = uint64_t(L) << F, one = uint64_t(1) << F;
        const double inv = 1.0 / L;
        const uint64_t q0s[] = { 0, 1, mod - 1, mod / 2, one - 1, one };
        const uint64_t steps[] = { 1, one, one - 1, one / 2 + 1, one / L };
        const uint32_t is[] = { 0, 1, 255, 256, 4091, 100000, (1u << 31) - 1, 0xffffffffu };
        for (uint64_t q0 : q0s)
            for (uint64_t step : steps)
                for (uint32_t i : is)
                    BOOST_REQUIRE_EQUAL(k::gnss_code_phase_near(q0, step, F, L, inv, i),
                                        k::gnss_code_phase_at(q0, step, mod, i));
        for (uint32_t m = 1; m < 100000; ++m) // chip counts h = m L
            BOOST_REQUIRE_EQUAL(k::gnss_code_phase_near(0, one, F, L, inv, m * L),
                                k::gnss_code_phase_at(0, one, mod, m * L));
        for (int trial = 0; trial < 200000; ++trial) {
            const uint64_t q0 = rng() % mod, step = rng() % one + 1;
            const uint32_t i = uint32_t(rng() >> 33);
            BOOST_REQUIRE_EQUAL(k::gnss_code_phase_near(q0, step, F, L, inv, i),
                                k::gnss_code_phase_at(q0, step, mod, i));
        }
    }
}

// A job's fixed-point code phase, when given, is used as it is (the
// tracker passes its exact state); out of [0, L 2^F) it is refused.
BOOST_AUTO_TEST_CASE(fixed_code_phase_is_used_exactly)
{
    kernels::gnss_correlator_plan plan(
        1, { 0.0 }, 4e6, kernels::gnss_input::complex64, qa::test_device(), "qa");
    kernels::gnss_job j;
    j.system = gnss_system::galileo_e1b;
    j.prn = 3;
    j.code_phase = 100.0;
    j.length = 10;
    const uint64_t mod = uint64_t(4092) << kernels::gnss_code_frac_bits(4092);
    j.code_phase_fixed = int64_t(mod - 1);
    BOOST_CHECK_EQUAL(plan.fix(j, 10).code_phase, mod - 1);
    j.code_phase_fixed = -1;
    BOOST_CHECK_EQUAL(plan.fix(j, 10).code_phase, kernels::gnss_code_phase_fixed(100.0, 4092));
    j.code_phase_fixed = int64_t(mod);
    BOOST_CHECK_THROW(plan.fix(j, 10), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(missing_runs_count_each_sample_once)
{
    gnss_missing_runs runs;
    runs.add(100, 200);
    runs.add(150, 250); // another antenna, overlapping
    runs.add(1000, 1001);
    BOOST_CHECK_EQUAL(runs.overlap(0, 100), 0u);
    BOOST_CHECK_EQUAL(runs.overlap(0, 1000), 150u);
    BOOST_CHECK_EQUAL(runs.overlap(240, 1001), 11u);
    runs.forget_before(260);
    BOOST_CHECK_EQUAL(runs.overlap(0, 2000), 1u);
}

// A near-full-period negative code correction in a satellite's first period
// numbers its first integration's period -1 (as its messages report it); a
// loop naming that period later must get period -1, not "the next one".
BOOST_AUTO_TEST_CASE(secondary_chip_of_period_minus_one)
{
    const double fs = 10.5e6;
    gnss_tracker t(gnss_system::gps_l5q, 7, fs, 1, 0.0, 10.23e6, 0.0, 0.0, 0);
    t.correct(0, -(10230 - 0.25)); // back across the start: period -1
    const auto first = t.take();
    BOOST_REQUIRE_EQUAL(first.epoch, -1);
    for (int k = 0; k < 3; ++k)
        t.take();
    t.set_secondary_chip(5, first.epoch); // period -1 carries chip 5
    const auto g = t.take();
    BOOST_CHECK_EQUAL(g.epoch, 3);
    BOOST_CHECK_EQUAL(g.secondary_chip, (5 + g.epoch + 1) % 20);
    t.set_secondary_chip(5); // the next period carries chip 5
    BOOST_CHECK_EQUAL(t.take().secondary_chip, 5);
}
