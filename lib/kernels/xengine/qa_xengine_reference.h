/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Internal, tests only (Boost.Test): the int64 definition the X-engine
// tests' host emulations are checked against, the full-range int8 input
// they use, and the check of partial sums against it.

#ifndef INCLUDED_GPUDSP_KERNELS_QA_XENGINE_REFERENCE_H
#define INCLUDED_GPUDSP_KERNELS_QA_XENGINE_REFERENCE_H

#include "kernels/xengine/xengine_impl.h"
#include <boost/test/unit_test.hpp>
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace gr {
namespace gpudsp {
namespace kernels {
namespace qa {

/*! Pair (a, b) of channel c over T spectra of x ([t][channel][input][re,
 *  im], C channels, A inputs): sum of x_a conj(x_b), exactly. */
inline void xengine_reference(const std::vector<int8_t>& x,
                              int T,
                              int C,
                              int A,
                              int c,
                              int a,
                              int b,
                              int64_t& re,
                              int64_t& im)
{
    re = im = 0;
    for (int t = 0; t < T; ++t) {
        const std::size_t ia = 2 * ((std::size_t(t) * C + c) * A + a),
                          ib = 2 * ((std::size_t(t) * C + c) * A + b);
        re += int64_t(x[ia]) * x[ib] + int64_t(x[ia + 1]) * x[ib + 1];
        im += int64_t(x[ia + 1]) * x[ib] - int64_t(x[ia]) * x[ib + 1];
    }
}

/*! n int8 values over the whole range, never zero, -128 often, the
 *  extremes first. */
inline std::vector<int8_t> full_range(std::size_t n, unsigned seed)
{
    std::mt19937 rng(seed);
    std::vector<int8_t> v(n);
    for (auto& b : v) {
        int x = int(rng() % 255) - 127; // -127 .. 127
        if (x == 0)
            x = -128; // never zero; -128 often
        b = int8_t(x);
    }
    v[0] = v[1] = -128;
    if (n > 3)
        v[2] = 127, v[3] = -128;
    return v;
}

/*! Every pair (c, a >= b) of \p part ([channel][pair][re, im]) gained its
 *  int64 sum over the T spectra of x, modulo 2^32, over \p before, and was
 *  written \p writes_each times (\p writes: per pair). */
inline void check_partials_gained(const std::vector<int8_t>& x,
                                  int T,
                                  int C,
                                  int A,
                                  const std::vector<uint32_t>& part,
                                  const std::vector<uint32_t>& before,
                                  const std::vector<int>& writes,
                                  int writes_each)
{
    const std::size_t pairs = std::size_t(A) * (A + 1) / 2;
    for (int c = 0; c < C; ++c)
        for (int a = 0; a < A; ++a)
            for (int b = 0; b <= a; ++b) {
                int64_t sr, si;
                xengine_reference(x, T, C, A, c, a, b, sr, si);
                const std::size_t k = (std::size_t(c) * pairs + xengine_tri(a, b)) * 2;
                BOOST_REQUIRE_EQUAL(writes[k / 2], writes_each);
                BOOST_REQUIRE_EQUAL(part[k] - before[k], uint32_t(int32_t(sr)));
                BOOST_REQUIRE_EQUAL(part[k + 1] - before[k + 1], uint32_t(int32_t(si)));
            }
}

/*! n random words: int32 partial sums a launch must add to, not set. */
inline std::vector<uint32_t> poisoned_partials(std::size_t n)
{
    std::mt19937 rng(5);
    std::vector<uint32_t> part(n);
    for (auto& p : part)
        p = rng();
    return part;
}

} // namespace qa
} // namespace kernels
} // namespace gpudsp
} // namespace gr

#endif
