/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Internal: the CPU DDC's taps laid out in vectors of W float lanes, here
// so that qa_ddc_cpu_layout checks the layout exhaustively on small sizes.

#ifndef INCLUDED_GPUDSP_KERNELS_DDC_CPU_LAYOUT_H
#define INCLUDED_GPUDSP_KERNELS_DDC_CPU_LAYOUT_H

#include <complex>
#include <cstdint>
#include <vector>

namespace gr {
namespace gpudsp {
namespace kernels {

/*!
 * The premultiplied taps z[0..T) as V vectors of W float lanes, reversed
 * (output m reads window sample j = x[mD - T + 1 + j] against z[T-1-j]).
 * Vector k holds window samples offset[k] / s .. + W/s (s floats per
 * sample: 1 real, 2 complex). \p phase is the window's first sample's
 * position within a vector of S = W/s samples (its absolute index mod S):
 * the vectors after the first start on multiples of S in absolute terms,
 * so where the input's addresses follow its sample indices (GNU Radio's
 * buffers, the decoded and mixed scratch) every load but the first and
 * last is aligned and crosses no cache line; the first vector starts at
 * the window's start and the last ends at its end (T - S), so that no load
 * leaves the window; lanes an earlier vector covered hold zero taps. Real
 * input: a = Re z, b = Im z per lane; complex input (I/Q lane pairs): a =
 * Re z and b = Im z on both lanes of a pair. Needs T >= S.
 */
struct ddc_cpu_layout {
    int vectors = 0;
    std::vector<int> offset; //!< in floats from the window's start
    std::vector<float> a, b; //!< vectors * W lanes

    ddc_cpu_layout() = default;
    ddc_cpu_layout(const std::vector<std::complex<float>>& z,
                   int W,
                   bool complex_in,
                   int phase = 0)
    {
        const int T = int(z.size()), s = complex_in ? 2 : 1, S = W / s;
        std::vector<int> first; // window sample each vector starts at
        if (phase % S != 0)
            first.push_back(0);
        for (int j = (S - phase % S) % S; j + S <= T; j += S)
            first.push_back(j);
        if (first.empty() || first.back() + S < T)
            first.push_back(T - S);
        vectors = int(first.size());
        offset.resize(vectors);
        a.assign(std::size_t(vectors) * W, 0.0f);
        b.assign(std::size_t(vectors) * W, 0.0f);
        int covered = 0; // window samples [0, covered) are in earlier vectors
        for (int k = 0; k < vectors; ++k) {
            offset[k] = first[k] * s;
            for (int l = 0; l < W; ++l) {
                const int j = first[k] + l / s;
                if (j < covered)
                    continue;
                a[std::size_t(k) * W + l] = z[T - 1 - j].real();
                b[std::size_t(k) * W + l] = z[T - 1 - j].imag();
            }
            covered = first[k] + S;
        }
    }
};

} // namespace kernels
} // namespace gpudsp
} // namespace gr

#endif
