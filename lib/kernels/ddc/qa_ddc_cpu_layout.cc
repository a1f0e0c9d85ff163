/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The CPU DDC's arithmetic besides its dot products: every window sample's
// tap appears in exactly one lane (others zero), no vector reads outside
// the window, and every vector but the first and last starts on a vector
// boundary of the window's phase, for T = 1..70 at every lane count, both
// input kinds and every phase (ddc_cpu_layout.h); the rotation equals
// exp(-2j pi p / 2^64) on random phases and on the table's boundaries; the
// mixer (ddc_cpu_mix.h, at the CPU's SIMD level; ctest runs it at each)
// follows the exact phase, across
// the wrap below sample 0 and near 2^40, gives the same bits cut anywhere,
// and rotates in place with the same arithmetic.

#include "ddc_cpu_layout.h"
#include "ddc_cpu_mix.h"
#include <boost/test/unit_test.hpp>
#include <random>

using namespace gr::gpudsp::kernels;

BOOST_AUTO_TEST_CASE(every_tap_once_and_loads_inside_the_window)
{
    for (bool cplx : { false, true })
        for (int W : { 4, 8, 16 }) {
            const int s = cplx ? 2 : 1, S = W / s;
            for (int T = S; T <= 70; ++T)
                for (int phase = 0; phase < S; ++phase) {
                    std::vector<std::complex<float>> z(T);
                    for (int k = 0; k < T; ++k)
                        z[k] = { float(k + 1), float(-(k + 1000)) };
                    const ddc_cpu_layout lay(z, W, cplx, phase);
                    if (phase == 0)
                        BOOST_REQUIRE_EQUAL(lay.vectors, (T + S - 1) / S);
                    BOOST_REQUIRE_LE(lay.vectors, (T + S - 1) / S + 1);
                    std::vector<int> seen(T, 0);
                    for (int v = 0; v < lay.vectors; ++v) {
                        const int off = lay.offset[v];
                        BOOST_REQUIRE(off % s == 0);
                        BOOST_REQUIRE(off >= 0 && off + W <= T * s); // inside the window
                        // Between the first and last: aligned (absolute index % S == 0).
                        if (v > 0 && v + 1 < lay.vectors)
                            BOOST_REQUIRE_EQUAL((phase + off / s) % S, 0);
                        if (v > 0)
                            BOOST_REQUIRE_GT(off, lay.offset[v - 1]);
                        for (int l = 0; l < W; ++l) {
                            const int j = off / s + l / s; // window sample of the lane
                            const float a = lay.a[v * W + l], b = lay.b[v * W + l];
                            if (a == 0 && b == 0)
                                continue;
                            // output m reads window sample j against z[T-1-j]
                            BOOST_REQUIRE_EQUAL(a, z[T - 1 - j].real());
                            BOOST_REQUIRE_EQUAL(b, z[T - 1 - j].imag());
                            if (!cplx || l % 2 == 0)
                                ++seen[j];
                        }
                    }
                    for (int j = 0; j < T; ++j)
                        BOOST_REQUIRE_MESSAGE(
                            seen[j] == 1,
                            "W=" << W << " complex=" << cplx << " T=" << T << " phase "
                                 << phase << " sample " << j << " seen " << seen[j]);
                }
        }
}

BOOST_AUTO_TEST_CASE(rotation_matches_float64)
{
    std::vector<uint64_t> phases = { 0, 1, ~uint64_t(0), uint64_t(1) << 63 };
    for (uint64_t k = 0; k < 1024; k += 37) // around the table points and midpoints
        for (int64_t d : { -2, -1, 0, 1, 2 }) {
            phases.push_back((k << 54) + uint64_t(d));
            phases.push_back((k << 54) + (uint64_t(1) << 53) + uint64_t(d));
        }
    std::mt19937_64 rng(5);
    for (int i = 0; i < 100000; ++i)
        phases.push_back(rng());
    double worst = 0;
    for (uint64_t p : phases) {
        // exact cycles in [-0.5, 0.5): the table and the series are tested, not
        // the reduction of a large angle
        const long double cyc = (long double)(int64_t(p)) * 0x1p-64L;
        const std::complex<long double> want =
            std::polar(1.0L, -2 * 3.141592653589793238462643383279502884L * cyc);
        const auto got = mixer_rotation(p);
        worst = std::max(worst,
                         double(std::abs(std::complex<long double>(got.real(), got.imag()) -
                                         want)));
    }
    BOOST_TEST_MESSAGE("worst |error| " << worst);
    BOOST_CHECK_LT(worst, 2e-15);
}

namespace {

// exp(-2j pi (step n + offset) / 2^64), the phase reduced exactly in integers.
std::complex<long double> carrier(uint64_t step, uint64_t offset, uint64_t n)
{
    const long double cyc = (long double)(int64_t(step * n + offset)) * 0x1p-64L;
    return std::polar(1.0L, -2 * 3.141592653589793238462643383279502884L * cyc);
}

} // namespace

BOOST_AUTO_TEST_CASE(mixer_exact_phase_and_cut_anywhere)
{
    std::mt19937_64 rng(6);
    std::uniform_real_distribution<float> u(-1, 1);
    const std::size_t N = 3000;
    std::vector<float> x(2 * N);
    for (auto& v : x)
        v = u(rng);
    for (int trial = 0; trial < 6; ++trial) {
        mixer_phase ph;
        ph.step = rng();
        ph.offset = rng();
        // absolute starts: 0, across the wrap below 0 (windows before the
        // stream's first sample), near 2^40, random
        const uint64_t n0s[] = { 0, ~uint64_t(0) - 700, (uint64_t(1) << 40) + 5, rng() };
        const ddc_mix_table table(ph.step);
        for (uint64_t n0 : n0s) {
            std::vector<float> wr(N), wi(N);
            ddc_mix(x.data(), N, n0, ph, table, wr.data(), wi.data());
            double worst = 0;
            for (std::size_t i = 0; i < N; ++i) {
                const auto want = std::complex<long double>(x[2 * i], x[2 * i + 1]) *
                                  carrier(ph.step, ph.offset, n0 + i);
                worst = std::max(
                    worst, double(std::abs(std::complex<long double>(wr[i], wi[i]) - want)));
            }
            BOOST_CHECK_LT(worst, 5e-7); // float rounding of |x| <= 1.5
            // cut anywhere: the same bits
            for (std::size_t cut : { std::size_t(1), std::size_t(17), std::size_t(511),
                                     std::size_t(512), std::size_t(1001) }) {
                std::vector<float> ar(N), ai(N);
                ddc_mix(x.data(), cut, n0, ph, table, ar.data(), ai.data());
                ddc_mix(x.data() + 2 * cut, N - cut, n0 + cut, ph, table, ar.data() + cut,
                        ai.data() + cut);
                BOOST_REQUIRE(ar == wr && ai == wi);
            }
            // the in-place rotation is the same arithmetic
            std::vector<float> y = x;
            ddc_rotate(y.data(), N, n0, ph, table);
            for (std::size_t i = 0; i < N; ++i)
                BOOST_REQUIRE(y[2 * i] == wr[i] && y[2 * i + 1] == wi[i]);
        }
    }
}
