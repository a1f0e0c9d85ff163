/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// CPU unpack of packed 10-bit samples. A 5-byte group is read as one
// 40-bit big-endian word; each sample is moved to the top of a 64-bit
// register and shifted back arithmetically, which sign-extends it with no
// branch per sample.

#include <gnuradio/gpudsp/kernels/unpack10.h>
#include <cstring>

namespace gr {
namespace gpudsp {
namespace kernels {

namespace {

inline uint64_t load_group(const uint8_t* p)
{
    return (uint64_t(p[0]) << 32) | (uint64_t(p[1]) << 24) | (uint64_t(p[2]) << 16) |
           (uint64_t(p[3]) << 8) | uint64_t(p[4]);
}

// Sample j (0..3) of a 40-bit group, sign-extended.
template <int j>
inline int32_t sample_of(uint64_t group)
{
    return static_cast<int32_t>(static_cast<int64_t>(group << (24 + 10 * j)) >> 54);
}

// Sample i of the stream from its two covering bytes (used for a tail that
// does not fill a group).
inline int32_t sample_at(const uint8_t* in, std::size_t i)
{
    const std::size_t bit = 10 * i;
    const unsigned pair = (unsigned(in[bit / 8]) << 8) | in[bit / 8 + 1];
    const unsigned raw = (pair >> (6 - bit % 8)) & 0x3FF;
    return static_cast<int32_t>(raw ^ 0x200) - 0x200;
}

template <typename T>
void unpack(const uint8_t* in, T* out, std::size_t n_samples)
{
    const std::size_t n_groups = n_samples / 4;
    for (std::size_t g = 0; g < n_groups; ++g) {
        const uint64_t word = load_group(in + 5 * g);
        out[4 * g + 0] = static_cast<T>(sample_of<0>(word));
        out[4 * g + 1] = static_cast<T>(sample_of<1>(word));
        out[4 * g + 2] = static_cast<T>(sample_of<2>(word));
        out[4 * g + 3] = static_cast<T>(sample_of<3>(word));
    }
    // Up to three samples of an incomplete group; the last one may end in
    // the last byte, so read a padded copy.
    const std::size_t done = 4 * n_groups;
    if (done < n_samples) {
        uint8_t tail[6] = { 0, 0, 0, 0, 0, 0 };
        const std::size_t bytes = packed10_bytes(n_samples) - 5 * n_groups;
        std::memcpy(tail, in + 5 * n_groups, bytes);
        for (std::size_t i = done; i < n_samples; ++i)
            out[i] = static_cast<T>(sample_at(tail, i - done));
    }
}

} // namespace

void unpack10_cpu(const uint8_t* in, float* out, std::size_t n_samples)
{
    unpack(in, out, n_samples);
}

void unpack10_cpu(const uint8_t* in, int16_t* out, std::size_t n_samples)
{
    unpack(in, out, n_samples);
}

} // namespace kernels
} // namespace gpudsp
} // namespace gr
