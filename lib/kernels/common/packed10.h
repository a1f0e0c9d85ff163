/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Internal: one sample of a packed 10-bit stream (docs/formats.md), the same
// bits on the CPU and the GPU: the F-engine's and the DDC's decode of
// 10-bit input, on either side.

#ifndef INCLUDED_GPUDSP_KERNELS_PACKED10_H
#define INCLUDED_GPUDSP_KERNELS_PACKED10_H

#include "host_device.h"
#include <cstdint>

namespace gr {
namespace gpudsp {
namespace kernels {

/*! Sample \p i of a packed 10-bit stream (bits [10i, 10i+10), MSB first). */
GPUDSP_HD int packed10_sample(const uint8_t* p, int64_t i)
{
    const int64_t bit = 10 * i;
    const unsigned pair = (unsigned(p[bit >> 3]) << 8) | unsigned(p[(bit >> 3) + 1]);
    const int raw = int((pair >> (6 - (bit & 7))) & 0x3FF);
    return (raw ^ 0x200) - 0x200;
}

/*! The bits of samples i .. i + 3 of a packed 10-bit stream, as read: the
 *  5 or 6 bytes they span (6 only where they start mid-byte, so that the
 *  last group of a stream reads nothing past it) in a 48-bit word, and
 *  where the first sample starts in it. Fetching apart from decoding lets a
 *  kernel issue a round's reads before the work that hides their latency. */
struct packed10_bits {
    uint64_t v = 0; //!< the first sample's MSB at bit 47 - off
    int off = 0;    //!< 0, 2, 4 or 6
};

GPUDSP_HD packed10_bits packed10_fetch(const uint8_t* p, int64_t i)
{
    const int64_t bit = 10 * i;
    const uint8_t* b = p + (bit >> 3);
    packed10_bits r;
    r.off = int(bit & 7);
    for (int k = 0; k < 5; ++k)
        r.v = (r.v << 8) | b[k];
    r.v = (r.v << 8) | (r.off ? b[5] : 0u);
    return r;
}

/*! The four samples of fetched bits (all zero bits decode as zeros). */
GPUDSP_HD void packed10_decode(const packed10_bits& r, float* out)
{
    for (int m = 0; m < 4; ++m) {
        const int raw = int((r.v >> (38 - r.off - 10 * m)) & 0x3FF);
        out[m] = float((raw ^ 0x200) - 0x200);
    }
}

/*! Samples \p i .. i + 3 of a packed 10-bit stream into \p out: the 5 or
 *  6 bytes they span read once, then shifts: what packed10_sample does four
 *  times with two reads each. */
GPUDSP_HD void packed10_four(const uint8_t* p, int64_t i, float* out)
{
    packed10_decode(packed10_fetch(p, i), out);
}

} // namespace kernels
} // namespace gpudsp
} // namespace gr

#endif /* INCLUDED_GPUDSP_KERNELS_PACKED10_H */
