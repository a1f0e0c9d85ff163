/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Internal: the length of a union of intervals, counting each point once
// however many intervals cover it. Used for the LDPC decoder's kernel time
// (chunks on two streams overlap and leave gaps) and for the GNSS
// correlator's lost samples (runs announced by several antennas overlap).

#ifndef INCLUDED_GPUDSP_KERNELS_INTERVAL_UNION_H
#define INCLUDED_GPUDSP_KERNELS_INTERVAL_UNION_H

#include <algorithm>
#include <limits>
#include <utility>
#include <vector>

namespace gr {
namespace gpudsp {
namespace kernels {

/*! The length of the union of [begin, end) intervals. An interval that
 *  ends before it begins is empty. Exact for integer T. */
template <typename T>
T interval_union_length(std::vector<std::pair<T, T>> intervals)
{
    // In order of begin, each interval adds what lies past the furthest
    // end counted so far.
    std::sort(intervals.begin(), intervals.end());
    T total = 0, reach = std::numeric_limits<T>::lowest();
    for (const auto& iv : intervals) {
        const T from = std::max(iv.first, reach);
        if (iv.second > from) {
            total += iv.second - from;
            reach = iv.second;
        }
    }
    return total;
}

} // namespace kernels
} // namespace gpudsp
} // namespace gr

#endif
