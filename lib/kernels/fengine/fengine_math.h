/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Internal: the F-engine arithmetic that must give the same bits on the CPU
// and on the GPU — the scratch layouts, the dither sequence and the int8
// quantiser (the packed 10-bit decode is kernels/common/packed10.h).
// Compiled by g++ and by nvcc.

#ifndef INCLUDED_GPUDSP_KERNELS_FENGINE_MATH_H
#define INCLUDED_GPUDSP_KERNELS_FENGINE_MATH_H

#include "kernels/common/fast_div.h"
#include "kernels/common/host_device.h"
#include <cmath>
#include <cstdint>
#include <vector>

namespace gr {
namespace gpudsp {
namespace kernels {
namespace fmath {

/*!
 * The CUDA F-engine's scratch layout for the FIR output and the spectra:
 * spectrum-major, [spectrum][input][point], so that any run of spectra is
 * one contiguous batch of transforms. Point \p j of input \p input in
 * spectrum \p s, with \p points per transform.
 */
GPUDSP_HD int64_t scratch_index(int64_t s, int input, int n_inputs, int points, int j)
{
    return (s * n_inputs + input) * int64_t(points) + j;
}

/*!
 * The CUDA post-processing's tile: one block handles postproc_elems
 * (channel, input) values of one spectrum, `inputs` inputs (the smallest
 * power of two >= n_inputs, at most 32) x `channels` = postproc_elems /
 * inputs channels, so that every thread has work with 2 inputs as with 64.
 * Element e is read (channel-contiguous, as the FFT wrote it) at
 * load_input(e), load_channel(e) and written (input-contiguous, the output
 * order) at store_channel(e), store_input(e); in shared memory both sit at
 * smem_index(input, channel) (rows padded by one).
 */
constexpr int postproc_elems = 1024;
struct postproc_tile {
    int inputs, channels;           //!< powers of two
    int inputs_log2, channels_log2; //!< (shifts: no division in the kernel)
    GPUDSP_HD int load_input(int e) const { return e >> channels_log2; }
    GPUDSP_HD int load_channel(int e) const { return e & (channels - 1); }
    GPUDSP_HD int store_channel(int e) const { return e >> inputs_log2; }
    GPUDSP_HD int store_input(int e) const { return e & (inputs - 1); }
    GPUDSP_HD int smem_index(int input, int channel) const
    {
        return input * (channels + 1) + channel;
    }
};
constexpr int postproc_smem_elems = postproc_elems + 32; // the padding of <= 32 rows
GPUDSP_HD postproc_tile postproc_tile_for(int n_inputs)
{
    int log2 = 0;
    while ((1 << log2) < n_inputs && log2 < 5)
        ++log2;
    constexpr int elems_log2 = 10; // postproc_elems
    static_assert(1 << elems_log2 == postproc_elems, "postproc_elems is 2^10");
    return postproc_tile{ 1 << log2, postproc_elems >> log2, log2, elems_log2 - log2 };
}

//! Division by an invariant divisor (kernels/common/fast_div.h).
using kernels::fast_div;

/*!
 * Element \p e of the spectra scratch ([spectrum][input][point], points
 * per transform = N + 1 for R2C, N for C2C) as (spectrum, input, point):
 * the inverse of scratch_index, for an element index below 2^32.
 */
struct scratch_element {
    uint32_t spectrum;
    int input, point;
};
struct scratch_layout {
    fast_div points, inputs;
    static scratch_layout of(int n_points, int n_inputs)
    {
        return { fast_div::of(uint32_t(n_points)), fast_div::of(uint32_t(n_inputs)) };
    }
    GPUDSP_HD scratch_element at(uint32_t e) const
    {
        const uint32_t row = points.div(e);
        const uint32_t s = inputs.div(row);
        return { s, int(row - s * inputs.d), int(e - row * points.d) };
    }
};

/*!
 * Where the fused store callback puts scratch element \p e (decoded into
 * \p at): its index in the chunk's [spectrum][channel][input] output, or
 * -1 for an R2C transform's point N (the Nyquist bin is not a channel).
 */
GPUDSP_HD int64_t fused_output_index(const scratch_layout& layout,
                                     int n_channels,
                                     uint32_t e,
                                     scratch_element& at)
{
    at = layout.at(e);
    if (at.point >= n_channels)
        return -1;
    return (int64_t(at.spectrum) * n_channels + at.point) * int64_t(layout.inputs.d) +
           at.input;
}

/*! A run of 2^log2_count spectra starting at spectrum \p begin. */
struct fft_run {
    int begin, log2_count;
};

/*!
 * The FFT of \p n spectra as runs of power-of-two spectra, largest first,
 * one per bit of \p n: the CUDA F-engine makes one cuFFT plan per power of
 * two up to its chunk once, so a call of any size plans nothing.
 */
inline std::vector<fft_run> fft_runs(int n)
{
    std::vector<fft_run> runs;
    int begin = 0;
    for (int k = 30; k >= 0; --k)
        if (n & (1 << k)) {
            runs.push_back({ begin, k });
            begin += 1 << k;
        }
    return runs;
}

GPUDSP_HD uint64_t splitmix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

/*!
 * Dither for one complex output value, uniform on (-0.5, 0.5) in steps of
 * 2^-24 for each part: a counter-based hash of (seed, absolute spectrum,
 * channel, input), so it does not depend on how a stream is cut into calls
 * or on the backend. Every step is exact in float32.
 */
GPUDSP_HD void dither_pair(uint64_t seed,
                           uint64_t spectrum,
                           uint32_t channel,
                           uint32_t input,
                           float& re,
                           float& im)
{
    const uint64_t h = splitmix64(seed ^ splitmix64(spectrum ^ (uint64_t(channel) << 40) ^
                                                    (uint64_t(input) << 20)));
    const float scale = 1.0f / 16777216.0f; // 2^-24
    re = (float(uint32_t(h >> 40)) + 0.5f) * scale - 0.5f;
    im = (float(uint32_t(h >> 16) & 0xFFFFFFu) + 0.5f) * scale - 0.5f;
}

/*! Round half to even and clamp to [-127, 127]; \p clamped is set when the
 *  value lay beyond +-127 (it saturated). */
GPUDSP_HD int8_t quantise(float v, bool& clamped)
{
    clamped = clamped || v > 127.0f || v < -127.0f;
    v = v < -127.0f ? -127.0f : (v > 127.0f ? 127.0f : v);
#ifdef __CUDA_ARCH__
    return int8_t(__float2int_rn(v));
#else
    // Adding and removing 1.5 * 2^23 leaves v rounded to an integer in the
    // FPU's default mode (to nearest, ties to even), exactly, for |v| < 2^22
    // (valid without -ffast-math, which this library never uses).
    return int8_t(int((v + 12582912.0f) - 12582912.0f));
#endif
}

/*!
 * Which frequency each output channel k (0..N-1) holds, as the delay
 * rotation needs it: the signed channel index k', in channels of the
 * transform. Real input: k (N channels of a 2N-point FFT, DC first).
 * Complex input in natural order: k for k < N/2, k - N above (the negative
 * frequencies). Complex input centred (katgpucbf's order, an fftshift: the
 * FIR's odd taps are negated, so channel k holds frequency k - N/2): k - N/2.
 */
enum class channel_axis : int { real = 0, complex_natural = 1, complex_centred = 2 };

GPUDSP_HD int signed_channel(int k, int n_channels, channel_axis axis)
{
    if (axis == channel_axis::complex_centred)
        return k - n_channels / 2;
    if (axis == channel_axis::complex_natural && k >= n_channels / 2)
        return k - n_channels;
    return k;
}

/*! The delay phase slope, in half turns per sample of delay and per
 *  signed channel: -1/N (real input, 2N-point FFT) or -2/N (complex). */
GPUDSP_HD int delay_slope_halfturns_numerator(channel_axis axis)
{
    return axis == channel_axis::real ? 1 : 2;
}

/*! The extra rotation phase, in half turns (radians / pi), of channel \p k
 *  in spectrum reference + \p d when an input's fine delay changes by
 *  delay_rate samples and its phase by phase_rate half turns per spectrum
 *  (fengine_corrections' rad per spectrum / pi): phase_rate d - s tau' k' / N
 *  with tau' = delay_rate d, k' = signed_channel(k) and s = 1 (real input)
 *  or 2 (complex). Half turns because the GPU then takes sincospif, whose
 *  argument reduction is exact and needs no local memory (sincosf's
 *  large-argument path does). double on the CPU, float on the GPU (the
 *  block keeps d below 2^16 + a chunk). */
template <typename R>
GPUDSP_HD R
drift_halfturns(R delay_rate, R phase_rate, R d, int k, int n_channels, channel_axis axis)
{
    const R kk = R(signed_channel(k, n_channels, axis));
    return phase_rate * d - R(delay_slope_halfturns_numerator(axis)) * (delay_rate * d) *
                                kk / R(n_channels);
}

} // namespace fmath
} // namespace kernels
} // namespace gpudsp
} // namespace gr

#endif
