/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The CPU code replica's SIMD variants (AVX2, AVX-512: 32-bit halves of the
// 64-bit phase, lane permutations) give the scalar path's values exactly,
// on random phases and rates and on phases placed on and next to chip and
// sub-chip boundaries, for BPSK and for a 12-step subcarrier; and the
// scalar path takes the chip and sub-phase the shared arithmetic defines.
// Variants the CPU lacks are skipped (and said so).

#include "kernels/gnss_correlator_impl.h"
#include "kernels/gnss_replica_cpu.h"
#include <boost/test/unit_test.hpp>
#include <cstdio>
#include <random>
#include <vector>

using namespace gr::gpudsp::kernels;

namespace {

typedef void (*replica_fn)(float*, int, uint64_t, uint64_t, int, const gnss_code_table&);

struct variant {
    const char* name;
    replica_fn fn;
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
    std::vector<variant> v{ { "avx2", gnss_code_replica_avx2, avx2, 8 },
                            { "avx512", gnss_code_replica_avx512, avx512, 16 } };
    for (const auto& x : v)
        if (!x.available)
            std::printf("SKIPPED variant %s: the CPU lacks it\n", x.name);
    return v;
}

// A random +-1 code of L chips twice, then the 16 padding entries.
std::vector<float> random_code(int L, std::mt19937_64& rng)
{
    std::vector<float> c(2 * std::size_t(L) + 16, 0.0f);
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
        std::vector<float> ref(n);
        gnss_code_replica_scalar(ref.data(), n, q0, step, F, t);
        // the scalar path against the shared arithmetic, sample by sample
        for (int k = 0; k < n; ++k) {
            const uint64_t q = q0 + uint64_t(k) * step;
            const float want = code[gnss_chip(q, F)] *
                               (S > 1 ? sub[gnss_sub_phase(q, F, S)] : 1.0f);
            BOOST_REQUIRE_EQUAL(ref[k], want);
        }
        for (const auto& v : variants) {
            if (!v.available)
                continue;
            const int groups = (n + v.lanes - 1) / v.lanes;
            std::vector<float> got(std::size_t(groups) * v.lanes + 1, 99.0f);
            v.fn(got.data(), n, q0, step, F, t);
            for (int k = 0; k < n; ++k)
                if (got[k] != ref[k])
                    BOOST_FAIL(v.name << ": L " << L << " S " << S << " q0 " << q0
                                      << " step " << step << " n " << n << ": sample "
                                      << k << " is " << got[k] << ", scalar "
                                      << ref[k]);
            // whole groups written, nothing past them
            BOOST_CHECK_EQUAL(got[std::size_t(groups) * v.lanes], 99.0f);
        }
    }
}

} // namespace

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
