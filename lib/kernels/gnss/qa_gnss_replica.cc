/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The CPU code replicas' SIMD variants (AVX2, AVX-512: 32-bit halves of
// the 64-bit phase shared by the taps, lane permutations) give the scalar
// path's values exactly, on random phases, rates and tap offsets (on the
// 2^-32 chip grid, whose top-bit sums wrap into the next chip) and on
// phases placed on and next to chip and sub-chip boundaries, for BPSK and
// for a 12-step subcarrier, each group in its lane order; and the scalar
// path takes the chip and sub-phase the shared arithmetic defines; and the
// lane order is a permutation with lane 0 holding sample 0. Variants the CPU lacks are
// skipped (and said so).

#include "gnss_correlator_impl.h"
#include "gnss_replica_cpu.h"
#include <boost/test/unit_test.hpp>
#include <algorithm>
#include <cstdio>
#include <random>
#include <vector>

using namespace gr::gpudsp::kernels;

namespace {

struct variant {
    const char* name;
    gnss_replicas_fn fn;
    bool available;
    int lanes;
};

std::vector<variant> simd_variants()
{
    const bool avx2 = __builtin_cpu_supports("avx2");
    const bool avx512 = __builtin_cpu_supports("avx512f") &&
                        __builtin_cpu_supports("avx512bw") &&
                        __builtin_cpu_supports("avx512dq") &&
                        __builtin_cpu_supports("avx512vl");
    std::vector<variant> v{ { "avx2", gnss_code_replicas_avx2, avx2, 8 },
                            { "avx512", gnss_code_replicas_avx512, avx512, 16 } };
    for (const auto& x : v)
        if (!x.available)
            std::printf("SKIPPED variant %s: the CPU lacks it\n", x.name);
    return v;
}

// A random +-1 code of L chips twice, then the 32 padding entries.
std::vector<float> random_code(int L, std::mt19937_64& rng)
{
    std::vector<float> c(2 * std::size_t(L) + 32, 0.0f);
    for (int i = 0; i < L; ++i)
        c[i] = c[L + i] = (rng() & 1) ? 1.0f : -1.0f;
    return c;
}

void check_variants(int L, int S, int trials, bool boundaries)
{
    std::mt19937_64 rng(L * 100 + S);
    const int F = gnss_code_frac_bits(L);
    const uint64_t one_chip = uint64_t(1) << F;
    const auto code = random_code(L, rng);
    float sub[16] = {};
    for (int j = 0; j < S; ++j)
        sub[j] = 0.25f + 0.5f * j * (j % 2 ? -1 : 1); // distinct values
    const gnss_code_table t{ code.data(), sub, S };
    const auto variants = simd_variants();
    for (int trial = 0; trial < trials; ++trial) {
        // rates from a tiny fraction of a chip to exactly one chip per sample
        const uint64_t step = trial % 7 == 0 ? one_chip
                              : trial % 7 == 1 ? 1 + rng() % 1000
                                               : 1 + rng() % one_chip;
        const int n = 1 + int(rng() % 512);
        uint64_t q0 = rng() % (uint64_t(L) * one_chip);
        if (boundaries) {
            // on or next to a chip or sub-chip boundary (the top 32
            // fractional bits decide the sub-phase)
            const uint64_t chip = rng() % uint64_t(L);
            const uint64_t sub_step = one_chip / uint64_t(S);
            const uint64_t on = chip * one_chip + (rng() % uint64_t(S)) * sub_step;
            const uint64_t delta = rng() % 5; // on - 2 .. on + 2
            q0 = on + delta >= 2 ? on + delta - 2 : on; // (kept in [0, L 2^F))
        }
        // 1..16 (now and then 64) taps within 256 chips, on the 2^-32 chip
        // grid (more than 8: the variant for any number of taps); their top
        // 32 fractional bits near 2^32 or random, so that sums wrap
        const int n_taps = trial % 50 == 0 ? 64 : trial % 5 == 0 ? 9 + int(rng() % 8)
                                                                 : 1 + int(rng() % 8);
        std::vector<uint64_t> rel(n_taps);
        const uint32_t u0 = uint32_t(q0 >> (F - 32)); // the base's top bits
        for (int l = 0; l < n_taps; ++l) {
            uint32_t top = trial % 3 == 0 ? ~uint32_t(0) - uint32_t(rng() % 4) : uint32_t(rng());
            if (boundaries && l % 2)
                top = uint32_t(0) - u0 + uint32_t(rng() % 5) - 2; // the tap near a chip edge
            rel[l] = (rng() % 257) * one_chip + uint64_t(top) * (one_chip >> 32);
        }
        rel[0] = trial % 2 ? 0 : rel[0];
        std::vector<std::vector<float>> ref(n_taps, std::vector<float>(n));
        std::vector<float*> ref_out;
        for (auto& r : ref)
            ref_out.push_back(r.data());
        gnss_code_replicas_scalar(ref_out.data(), rel.data(), n_taps, n, q0, step, F, t);
        // the scalar path against the shared arithmetic, sample by sample
        for (int l = 0; l < n_taps; ++l)
            for (int k = 0; k < n; ++k) {
                const uint64_t q = q0 + rel[l] + uint64_t(k) * step;
                const float want = code[gnss_chip(q, F)] *
                                   (S > 1 ? sub[gnss_sub_phase(q, F, S)] : 1.0f);
                BOOST_REQUIRE_EQUAL(ref[l][k], want);
            }
        for (const auto& v : variants) {
            if (!v.available)
                continue;
            const int groups = (n + v.lanes - 1) / v.lanes;
            std::vector<std::vector<float>> got(
                n_taps, std::vector<float>(std::size_t(groups) * v.lanes + 1, 99.0f));
            std::vector<float*> got_out;
            for (auto& g : got)
                got_out.push_back(g.data());
            v.fn(got_out.data(), rel.data(), n_taps, n, q0, step, F, t);
            for (int l = 0; l < n_taps; ++l) {
                for (int k = 0; k < groups * v.lanes; ++k) {
                    // lane k holds sample s (gnss_lane_sample's order)
                    const int s = k - k % v.lanes + gnss_lane_sample(v.lanes, k % v.lanes);
                    if (s < n && got[l][k] != ref[l][s])
                        BOOST_FAIL(v.name << ": L " << L << " S " << S << " q0 " << q0
                                          << " step " << step << " n " << n << " tap "
                                          << l << " rel " << rel[l] << ": sample " << s
                                          << " is " << got[l][k] << ", scalar "
                                          << ref[l][s]);
                }
                // whole groups written, nothing past them
                BOOST_CHECK_EQUAL(got[l][std::size_t(groups) * v.lanes], 99.0f);
            }
        }
    }
}

} // namespace

BOOST_AUTO_TEST_CASE(lane_order_is_a_permutation_starting_at_sample_0)
{
    for (int W : { 4, 8, 16 }) {
        std::vector<int> seen(W, 0);
        for (int j = 0; j < W; ++j)
            ++seen.at(gnss_lane_sample(W, j));
        BOOST_CHECK(std::all_of(seen.begin(), seen.end(), [](int c) { return c == 1; }));
        BOOST_CHECK_EQUAL(gnss_lane_sample(W, 0), 0);
    }
    const int eight[] = { 0, 1, 4, 5, 2, 3, 6, 7 }; // what vshufps gives
    for (int j = 0; j < 8; ++j)
        BOOST_CHECK_EQUAL(gnss_lane_sample(8, j), eight[j]);
    const int sixteen[] = { 0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6, 7, 14, 15 };
    for (int j = 0; j < 16; ++j)
        BOOST_CHECK_EQUAL(gnss_lane_sample(16, j), sixteen[j]);
}

BOOST_AUTO_TEST_CASE(bpsk_codes_of_every_length_match_the_scalar_replica)
{
    for (int L : { 1023, 4092, 10230 }) {
        check_variants(L, 1, 3000, false);
        check_variants(L, 1, 3000, true);
    }
}

BOOST_AUTO_TEST_CASE(subcarrier_steps_match_the_scalar_replica)
{
    for (int L : { 1023, 4092 }) {
        check_variants(L, 12, 3000, false);
        check_variants(L, 12, 3000, true);
    }
}
