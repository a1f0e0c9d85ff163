/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Internal: where unpack10's group kernel (unpack10_cuda.cu) reads a group
// of 4 samples, shared with the host emulation of its data flow in
// qa_unpack10_kernels. Group j is samples 4j .. 4j + 3, bytes 5j .. 5j + 4
// of the input: 40 bits, so every group starts on a byte. The kernel reads
// a group as the two aligned 32-bit words that hold its 5 bytes, counted
// from the input's address rounded down to 4 (the bytes before the input in
// that first word belong to the same allocation: an allocation starts
// aligned), and decodes them with packed10_group.

#ifndef INCLUDED_GPUDSP_KERNELS_UNPACK10_GROUPS_H
#define INCLUDED_GPUDSP_KERNELS_UNPACK10_GROUPS_H

#include "kernels/common/packed10.h"
#include <cstddef>
#include <cstdint>

namespace gr {
namespace gpudsp {
namespace kernels {

struct unpack10_group_fetch {
    std::size_t word; //!< its first word, counted from the input's aligned base
    int o;            //!< its first byte's place in that word (0 .. 3)
    /*! Both words end within the input (the last group's second word may
     *  not, and is never read: that group's 5 bytes are loaded one by one,
     *  unpack10_group_bytes). */
    bool whole;
};

/*! Group \p j of an input that starts \p mis bytes (0 .. 3) past a
 *  multiple of 4 and holds \p in_bytes bytes. */
GPUDSP_HD unpack10_group_fetch unpack10_group_at(int mis,
                                                 std::size_t in_bytes,
                                                 std::size_t j)
{
    const std::size_t b = std::size_t(mis) + 5 * j;
    return { b >> 2, int(b & 3), (b >> 2) + 2 <= (std::size_t(mis) + in_bytes) >> 2 };
}

/*! The words of a group loaded byte by byte from its first byte \p g: laid
 *  out as if the group started a word (o = 0). */
GPUDSP_HD void unpack10_group_bytes(const uint8_t* g, uint32_t& w0, uint32_t& w1)
{
    w0 = uint32_t(g[0]) | uint32_t(g[1]) << 8 | uint32_t(g[2]) << 16 |
         uint32_t(g[3]) << 24;
    w1 = g[4];
}

} // namespace kernels
} // namespace gpudsp
} // namespace gr

#endif /* INCLUDED_GPUDSP_KERNELS_UNPACK10_GROUPS_H */
