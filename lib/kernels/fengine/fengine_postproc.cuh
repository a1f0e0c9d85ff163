/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Internal: the CUDA F-engine's post-processing of one FFT output value —
// gain and delay rotation, delay-tracking drift, dither, quantisation —
// shared by the post-processing kernel (pfb_fengine_cuda.cu) and the cuFFT
// store callback that fuses it into the FFT (fengine_store_callback.cu), so
// both forms apply the same arithmetic to a value (their FFTs are different
// cuFFT kernels, whose bits may differ: the tests compare within one step).

#ifndef INCLUDED_GPUDSP_KERNELS_FENGINE_POSTPROC_CUH
#define INCLUDED_GPUDSP_KERNELS_FENGINE_POSTPROC_CUH

#include "fengine_math.h"
#include <cuComplex.h>

namespace gr {
namespace gpudsp {
namespace kernels {

/*! Everything the post-processing of one chunk of spectra reads. The fused
 *  form also needs where to write (out, sat) and how to tell an output
 *  value's place from cuFFT's element offset (spec, layout). */
struct postproc_params {
    const cuFloatComplex* rot; // [channel][input]
    const float2* drift;       // [input] (delay rate, phase rate / pi); null: none
    long long drift_offset;    // first spectrum of the chunk - the reference
    int n_channels, n_inputs;
    fmath::channel_axis axis; // how channels map to signed frequencies
    bool dither;
    unsigned long long seed;
    unsigned long long first_spectrum; // absolute index of the chunk's spectrum 0
    fmath::postproc_tile tile;         // the kernel's tile
    // The fused form (store callback) only:
    const cuFloatComplex* spec;   // the chunk's spectra scratch, [s][input][points]
    fmath::scratch_layout layout; // its element -> (spectrum, input, point)
    void* out;                    // the chunk's output, [s][channel][input]
    unsigned* sat;                // the chunk's saturation counts, [s][input]; or null
};

/*! Value \p x of channel \p k, input \p i, spectrum \p s (of the chunk)
 *  rotated by \p rot, the input's gain and delay (p.rot's entry), and by
 *  its drift when the delay is tracked (\p r: p.drift[i], read by the
 *  caller with its other loads; unused without p.drift). */
__device__ __forceinline__ cuFloatComplex postproc_corrected(const postproc_params& p,
                                                             cuFloatComplex x,
                                                             cuFloatComplex rot,
                                                             float2 r,
                                                             int s,
                                                             int i,
                                                             int k)
{
    cuFloatComplex v = cuCmulf(x, rot);
    if (p.drift) { // delay tracking: the drift since the reference spectrum
        float sn, cs;
        sincospif(fmath::drift_halfturns<float>(
                      r.x, r.y, float(p.drift_offset + s), k, p.n_channels, p.axis),
                  &sn,
                  &cs);
        v = cuCmulf(v, make_cuFloatComplex(cs, sn));
    }
    return v;
}
//! The same, reading the rotation and drift of channel \p k, input \p i.
__device__ __forceinline__ cuFloatComplex
postproc_corrected(const postproc_params& p, cuFloatComplex x, int s, int i, int k)
{
    return postproc_corrected(p,
                              x,
                              p.rot[int64_t(k) * p.n_inputs + i],
                              p.drift ? p.drift[i] : make_float2(0.0f, 0.0f),
                              s,
                              i,
                              k);
}

/*! The ci8 output of corrected value \p v: dithered if asked, rounded and
 *  clamped; \p clamped is set when either part saturated. */
__device__ __forceinline__ char2 postproc_quantised(
    const postproc_params& p, cuFloatComplex v, int s, int i, int k, bool& clamped)
{
    float re = cuCrealf(v), im = cuCimagf(v);
    if (p.dither) {
        float dr, di;
        fmath::dither_pair(p.seed, p.first_spectrum + s, k, i, dr, di);
        re += dr;
        im += di;
    }
    char2 q;
    q.x = fmath::quantise(re, clamped);
    q.y = fmath::quantise(im, clamped);
    return q;
}

} // namespace kernels
} // namespace gpudsp
} // namespace gr

#endif
