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

/*! Samples \p i .. i + 3 of a packed 10-bit stream into \p out: the 5 or
 *  6 bytes they span read once (6 only where they start mid-byte, so that
 *  the last group of a stream reads nothing past it), then shifts: what
 *  packed10_sample does four times with two reads each. */
GPUDSP_HD void packed10_four(const uint8_t* p, int64_t i, float* out)
{
    const int64_t bit = 10 * i;
    const uint8_t* b = p + (bit >> 3);
    const int off = int(bit & 7); // 0, 2, 4 or 6
    uint64_t v = 0;
    for (int k = 0; k < 5; ++k)
        v = (v << 8) | b[k];
    v = (v << 8) | (off ? b[5] : 0u); // 48 bits, the first sample's MSB at bit 47 - off
    for (int m = 0; m < 4; ++m) {
        const int raw = int((v >> (38 - off - 10 * m)) & 0x3FF);
        out[m] = float((raw ^ 0x200) - 0x200);
    }
}

} // namespace kernels
} // namespace gpudsp
} // namespace gr

#endif /* INCLUDED_GPUDSP_KERNELS_PACKED10_H */
