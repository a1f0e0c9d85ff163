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
 * sample: 1 real, 2 complex); the last vector ends at the window's end
 * (T - W/s), so that no load leaves the window, and its lanes that an
 * earlier vector covered hold zero taps. Real input: a = Re z, b = Im z per
 * lane; complex input (I/Q lane pairs): a = Re z and b = Im z on both lanes
 * of a pair. Needs T >= W/s.
 */
struct ddc_cpu_layout {
    int vectors = 0;
    std::vector<int> offset; //!< in floats from the window's start
    std::vector<float> a, b; //!< vectors * W lanes

    ddc_cpu_layout() = default;
    ddc_cpu_layout(const std::vector<std::complex<float>>& z, int W, bool complex_in)
    {
        const int T = int(z.size()), s = complex_in ? 2 : 1, S = W / s;
        vectors = (T + S - 1) / S;
        offset.resize(vectors);
        a.assign(std::size_t(vectors) * W, 0.0f);
        b.assign(std::size_t(vectors) * W, 0.0f);
        for (int k = 0; k < vectors; ++k) {
            const int first = k + 1 < vectors ? k * S : T - S; // sample
            const int covered = k * S; // samples before are in earlier vectors
            offset[k] = first * s;
            for (int l = 0; l < W; ++l) {
                const int j = first + l / s;
                if (j < covered)
                    continue;
                a[std::size_t(k) * W + l] = z[T - 1 - j].real();
                b[std::size_t(k) * W + l] = z[T - 1 - j].imag();
            }
        }
    }
};

} // namespace kernels
} // namespace gpudsp
} // namespace gr

#endif
