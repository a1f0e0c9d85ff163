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

} // namespace kernels
} // namespace gpudsp
} // namespace gr

#endif /* INCLUDED_GPUDSP_KERNELS_PACKED10_H */
