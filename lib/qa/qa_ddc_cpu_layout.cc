/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The CPU DDC's non-SIMD arithmetic (kernels/ddc_cpu_layout.h), exhaustive
// on small sizes: every window sample's tap appears in exactly one lane
// (others zero), no vector reads outside the window, for T = 1..70 at every
// lane count and both input kinds; the mixer rotation equals float64
// exp(-2j pi p / 2^64) on random phases and on the table's boundaries.

#include "kernels/ddc_cpu_layout.h"
#include <boost/test/unit_test.hpp>
#include <random>

using namespace gr::gpudsp::kernels;

BOOST_AUTO_TEST_CASE(every_tap_once_and_loads_inside_the_window)
{
    for (bool cplx : { false, true })
        for (int W : { 4, 8, 16 }) {
            const int s = cplx ? 2 : 1, S = W / s;
            for (int T = S; T <= 70; ++T) {
                std::vector<std::complex<float>> z(T);
                for (int k = 0; k < T; ++k)
                    z[k] = { float(k + 1), float(-(k + 1000)) };
                const ddc_cpu_layout lay(z, W, cplx);
                BOOST_REQUIRE_EQUAL(lay.vectors, (T + S - 1) / S);
                std::vector<int> seen(T, 0);
                for (int v = 0; v < lay.vectors; ++v) {
                    const int off = lay.offset[v];
                    BOOST_REQUIRE(off % s == 0);
                    BOOST_REQUIRE(off >= 0 && off + W <= T * s); // inside the window
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
                    BOOST_REQUIRE_MESSAGE(seen[j] == 1,
                                          "W=" << W << " complex=" << cplx << " T=" << T
                                               << " sample " << j << " seen "
                                               << seen[j]);
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
