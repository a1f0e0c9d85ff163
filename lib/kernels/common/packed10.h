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

GPUDSP_HD int packed10_of_bytes(unsigned b0, unsigned b1, int phase);

/*! The sample of a packed 10-bit stream that starts at bit \p bit (a
 *  multiple of 10): a caller stepping through a stream keeps the bit
 *  offset and adds to it, instead of multiplying an index each time. */
GPUDSP_HD int packed10_at_bit(const uint8_t* p, int64_t bit)
{
    return packed10_of_bytes(p[bit >> 3], p[(bit >> 3) + 1], int(bit & 7));
}

/*! The sample whose first bit is bit \p phase (0 .. 7, from the most
 *  significant) of byte \p b0, \p b1 the byte after it: the decode apart
 *  from the loads, for a loop that loads ahead and decodes on use. */
GPUDSP_HD int packed10_of_bytes(unsigned b0, unsigned b1, int phase)
{
    const unsigned pair = (b0 << 8) | b1;
    const int raw = int((pair >> (6 - phase)) & 0x3FF);
    return (raw ^ 0x200) - 0x200;
}

/*! Every step-th sample of a packed 10-bit stream from sample n, loaded
 *  ahead and decoded on use: next_byte() gives the next sample's first
 *  byte (it and the byte after hold the sample) and moves on; decode()
 *  takes the samples' two bytes in the same order and keeps its own bit
 *  phase, so that nothing fetched is needed to decode but its bytes. */
struct packed10_walk {
    int64_t bit;      //!< the next fetched sample's first bit
    int64_t bit_step; //!< 10 x step
    int phase;        //!< the next decoded sample's first bit, mod 8
    GPUDSP_HD static packed10_walk from(int64_t n, int64_t step)
    {
        return { 10 * n, 10 * step, int((10 * n) & 7) };
    }
    GPUDSP_HD int64_t next_byte()
    {
        const int64_t b = bit >> 3;
        bit += bit_step;
        return b;
    }
    GPUDSP_HD int decode(unsigned b0, unsigned b1)
    {
        const int v = packed10_of_bytes(b0, b1, phase);
        phase = int((phase + bit_step) & 7);
        return v;
    }
};

/*! Sample \p i of a packed 10-bit stream (bits [10i, 10i+10), MSB first). */
GPUDSP_HD int packed10_sample(const uint8_t* p, int64_t i)
{
    return packed10_at_bit(p, 10 * i);
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

/*! CUDA's __funnelshift_l / __funnelshift_r (shift taken modulo 32) and
 *  __byte_perm(x, 0, 0x0123) (a byte swap), with the same results on the
 *  host. */
GPUDSP_HD uint32_t packed10_funnel_l(uint32_t lo, uint32_t hi, int shift)
{
#ifdef __CUDA_ARCH__
    return __funnelshift_l(lo, hi, unsigned(shift));
#else
    shift &= 31;
    return shift ? (hi << shift) | (lo >> (32 - shift)) : hi;
#endif
}
GPUDSP_HD uint32_t packed10_funnel_r(uint32_t lo, uint32_t hi, int shift)
{
#ifdef __CUDA_ARCH__
    return __funnelshift_r(lo, hi, unsigned(shift));
#else
    shift &= 31;
    return shift ? (lo >> shift) | (hi << (32 - shift)) : lo;
#endif
}
GPUDSP_HD uint32_t packed10_byte_swap(uint32_t x)
{
#ifdef __CUDA_ARCH__
    return __byte_perm(x, 0u, 0x0123u);
#else
    return (x >> 24) | ((x >> 8) & 0xff00u) | ((x << 8) & 0xff0000u) | (x << 24);
#endif
}

/*! Samples 4j .. 4j + 3 of a packed 10-bit stream (its bytes 5j .. 5j + 4:
 *  a group of 40 bits, which starts on a byte) from the two aligned
 *  little-endian words \p w0, \p w1 that hold them, starting \p o bytes
 *  (0 .. 3) into w0: both words swapped to big-endian (a byte permute
 *  each), the group brought to the top of 64 bits (a funnel shift and a
 *  shift), then each sample one shift or funnel shift and one arithmetic
 *  shift (its sign extended). unpack10's group kernel decodes every whole
 *  group this way. */
GPUDSP_HD void packed10_group(uint32_t w0, uint32_t w1, int o, int (&out)[4])
{
    const uint32_t hi = packed10_byte_swap(w0), lo = packed10_byte_swap(w1);
    const uint32_t top = packed10_funnel_l(lo, hi, 8 * o); // the group's bits 0 .. 31
    const uint32_t low = lo << (8 * o);                    // its bits 32 .. 39 on top
    out[0] = int32_t(top) >> 22;
    out[1] = int32_t(top << 10) >> 22;
    out[2] = int32_t(top << 20) >> 22;
    out[3] = int32_t(packed10_funnel_l(low, top, 30)) >> 22;
}

/*! Samples 16k .. 16k + 15 of a packed 10-bit stream (its bytes 20k ..
 *  20k + 19) from the aligned little-endian words \p w that hold them,
 *  starting \p mis bytes (0 .. 3) into w[0] (w[5] only read where mis > 0):
 *  the bytes realigned and swapped to big-endian words (a funnel shift and
 *  a byte permute each), then each sample one funnel shift and one
 *  arithmetic shift (its sign extended): what packed10_sample does with two
 *  byte loads and its index arithmetic per sample. */
GPUDSP_HD void packed10_sixteen(const uint32_t (&w)[6], int mis, int (&out)[16])
{
    uint32_t b[6];
    GPUDSP_UNROLL
    for (int j = 0; j < 5; ++j)
        b[j] = packed10_byte_swap(packed10_funnel_r(w[j], w[j + 1], 8 * mis));
    b[5] = 0; // sample 15 ends at bit 160: no bit of a sixth word is kept
    GPUDSP_UNROLL
    for (int i = 0; i < 16; ++i) {
        const int bit = 10 * i, j = bit >> 5, o = bit & 31;
        out[i] = int32_t(packed10_funnel_l(b[j + 1], b[j], o)) >> 22;
    }
}

} // namespace kernels
} // namespace gpudsp
} // namespace gr

#endif /* INCLUDED_GPUDSP_KERNELS_PACKED10_H */
