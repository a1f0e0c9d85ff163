/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Internal: division by an invariant divisor in a multiply-high, the same
// on the host and the GPU (kernels that divide per element by a size known
// at launch).

#ifndef INCLUDED_GPUDSP_KERNELS_FAST_DIV_H
#define INCLUDED_GPUDSP_KERNELS_FAST_DIV_H

#include "host_device.h"
#include <cstdint>

namespace gr {
namespace gpudsp {
namespace kernels {

/*!
 * Division of any 32-bit n by an invariant divisor d in [1, 2^31]
 * (Granlund and Montgomery's method: l = ceil(log2 d), m = floor(2^32
 * (2^l - d) / d) + 1, q = (t + ((n - t) >> 1)) >> (l - 1) with t the high
 * word of m n): one multiply-high, a subtraction, an add and two shifts
 * instead of the ~20-instruction software division a GPU runs for `/`.
 * The fused F-engine store callback divides every FFT output index by the
 * points per transform and the input count; the DDC's tensor form finds a
 * sample's padded place in shared memory with one.
 */
struct fast_div {
    uint32_t d = 1, m = 1;
    int s1 = 0, s2 = 0;
    static fast_div of(uint32_t divisor)
    {
        fast_div f;
        int l = 0;
        while ((uint64_t(1) << l) < divisor)
            ++l;
        f.d = divisor;
        f.m = uint32_t(((uint64_t(1) << 32) * ((uint64_t(1) << l) - divisor)) / divisor +
                       1);
        f.s1 = l > 0 ? 1 : 0;
        f.s2 = l > 0 ? l - 1 : 0;
        return f;
    }
    GPUDSP_HD uint32_t div(uint32_t n) const
    {
#ifdef __CUDA_ARCH__
        const uint32_t t = __umulhi(m, n);
#else
        const uint32_t t = uint32_t((uint64_t(m) * n) >> 32);
#endif
        return (t + ((n - t) >> s1)) >> s2;
    }
};

} // namespace kernels
} // namespace gpudsp
} // namespace gr

#endif
