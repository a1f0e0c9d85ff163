/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <gnuradio/gpudsp/network/spead_corner_turn.h>

#include <algorithm>
#include <vector>

namespace gr {
namespace gpudsp {
namespace network {

void fengine_corner_turn(const std::uint32_t* chunk,
                         const std::uint8_t* present,
                         std::uint32_t* out,
                         std::size_t t0,
                         std::size_t n_times,
                         std::size_t n_fengines,
                         std::size_t n_channels,
                         std::size_t spectra_per_heap)
{
    const std::size_t F = n_fengines, C = n_channels, S = spectra_per_heap;
    // Blocks of channels x spectra small enough that the F input rows and
    // the output rows they feed stay in L1 (16 x 64 quartets: 4 KB read per
    // F-engine, 16 KB written at F = 4); the F-engines innermost, so each
    // output (spectrum, channel) is written as one run of F quartets. A lost
    // heap is read anyway (chunk memory) and masked to zero: no branch.
    constexpr std::size_t cb = 16, sb = 64;
    std::vector<std::uint32_t> mask(F);
    for (std::size_t t = t0; t < n_times; ++t) {
        const std::uint32_t* in_t = chunk + t * F * C * S;
        std::uint32_t* out_t = out + (t - t0) * S * C * F;
        for (std::size_t f = 0; f < F; ++f)
            mask[f] = present[t * F + f] ? 0xFFFFFFFFu : 0u;
        for (std::size_t c0 = 0; c0 < C; c0 += cb)
            for (std::size_t s0 = 0; s0 < S; s0 += sb) {
                const std::size_t c1 = std::min(C, c0 + cb), s1 = std::min(S, s0 + sb);
                for (std::size_t c = c0; c < c1; ++c)
                    for (std::size_t s = s0; s < s1; ++s) {
                        std::uint32_t* o = out_t + (s * C + c) * F;
                        const std::uint32_t* i = in_t + c * S + s;
                        for (std::size_t f = 0; f < F; ++f)
                            o[f] = i[f * C * S] & mask[f];
                    }
            }
    }
}

} // namespace network
} // namespace gpudsp
} // namespace gr
