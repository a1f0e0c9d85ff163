/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Internal, tests only: the int64 definition the X-engine tests' host
// emulations are checked against, and the full-range int8 input they use.

#ifndef INCLUDED_GPUDSP_KERNELS_QA_XENGINE_REFERENCE_H
#define INCLUDED_GPUDSP_KERNELS_QA_XENGINE_REFERENCE_H

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
