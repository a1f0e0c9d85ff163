/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Internal: how ddc_plan::execute_together runs outputs of different
// decimations and filter lengths from one read of their input. Each shape
// (decimation, taps count) is its own launch, so the input is read once
// from memory only if a later launch finds it still in the cache. The
// input is therefore cut into chunks small enough to stay there, and every
// output is computed in the chunk holding the last sample of its window:
// the first launch of a chunk brings the chunk's samples (and the T - 1
// before them) into the cache, the others read them from it.
// qa_ddc_tile checks the arithmetic on the CPU.

#ifndef INCLUDED_GPUDSP_KERNELS_DDC_SCHEDULE_H
#define INCLUDED_GPUDSP_KERNELS_DDC_SCHEDULE_H

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace gr {
namespace gpudsp {
namespace kernels {

/*! One plan's outputs in input-array positions: output k < n reads the
 *  window [first_sample + k D, + T). */
struct ddc_span {
    int64_t first_sample;
    std::size_t n;
    int64_t D, T;

    //! Position of output k's last window sample.
    int64_t window_end(std::size_t k) const { return first_sample + int64_t(k) * D + T - 1; }
};

/*! ceil(a / b) for b > 0 and any sign of a. */
inline int64_t ddc_ceil_div(int64_t a, int64_t b)
{
    return a >= 0 ? (a + b - 1) / b : -((-a) / b);
}

/*! The outputs [k0, k1) of \p s whose last window sample lies in
 *  [c0, c1) (k1 <= k0: none). */
inline void ddc_chunk_outputs(const ddc_span& s,
                              int64_t c0,
                              int64_t c1,
                              std::size_t& k0,
                              std::size_t& k1)
{
    // window_end(k) >= c0  <=>  k >= (c0 - first_sample - T + 1) / D
    const int64_t lead = s.first_sample + s.T - 1;
    const int64_t n = int64_t(s.n);
    k0 = std::size_t(std::clamp<int64_t>(ddc_ceil_div(c0 - lead, s.D), 0, n));
    k1 = std::size_t(std::clamp<int64_t>(ddc_ceil_div(c1 - lead, s.D), 0, n));
}

/*!
 * fn(i, k0, k1) for each span i and each chunk of \p chunk input positions
 * holding some of its outputs' last window samples, chunk by chunk (all
 * spans' outputs of a chunk before the next chunk), spans in their order
 * within a chunk; together the calls cover every output of every span
 * exactly once. chunk <= 0: one chunk.
 */
template <class Fn>
void ddc_for_chunks(const ddc_span* spans, std::size_t count, int64_t chunk, Fn fn)
{
    int64_t lo = INT64_MAX, hi = INT64_MIN; // window ends of all outputs
    for (std::size_t i = 0; i < count; ++i)
        if (spans[i].n) {
            lo = std::min(lo, spans[i].window_end(0));
            hi = std::max(hi, spans[i].window_end(spans[i].n - 1) + 1);
        }
    if (lo >= hi)
        return;
    if (chunk <= 0)
        chunk = hi - lo;
    for (int64_t c0 = lo; c0 < hi; c0 += chunk)
        for (std::size_t i = 0; i < count; ++i) {
            std::size_t k0, k1;
            ddc_chunk_outputs(spans[i], c0, c0 + chunk, k0, k1);
            if (k1 > k0)
                fn(i, k0, k1);
        }
}

} // namespace kernels
} // namespace gpudsp
} // namespace gr

#endif
