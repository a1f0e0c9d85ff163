/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Internal: the geometry of the F-engine's fused FFT and post-processing
// kernel (docs/fengine.md, "FFT and post-processing fused"), shared by the
// kernel (fengine_fftpost.cu) and the host emulation that tests it
// (qa_fengine_fftpost). Real input, N a power of two: the FIR kernel
// writes each (spectrum, input) as N complex pairs; a CTA takes `rows`
// consecutive inputs of one spectrum, loads their pairs into shared memory
// once, runs the one-pass kernel's FFT passes on them (fengine_onepass.h,
// fengine_fft.h), folds each channel of the 2N-point real FFT, corrects,
// quantises and writes it, the rows' values of a channel side by side as
// the output's [spectrum][channel][input] order has them. What cuFFT's
// store callback would fuse, with no run-time linking: 4 bytes read and 1
// written per sample after the FIR, against 8 and 5 for cuFFT and the
// post-processing kernel.

#ifndef INCLUDED_GPUDSP_KERNELS_FENGINE_FFTPOST_H
#define INCLUDED_GPUDSP_KERNELS_FENGINE_FFTPOST_H

#include "fengine_onepass.h"

namespace gr {
namespace gpudsp {
namespace kernels {
namespace fftpost {

constexpr int min_channels = 64;
constexpr int max_points = 8192; //!< rows x N a CTA transforms (16 per thread at 512)
constexpr int max_threads = 512;
//! Values whose epilogue loads a thread issues together (the kernel's
//! registers hold 4 of them within its 64).
constexpr int epilogue_group = 4;

struct shape {
    onepass::geometry fft; //!< the FFT passes' geometry: `rows` transforms of N points
    int rows = 1;          //!< consecutive inputs of one spectrum a CTA takes
    int log2rows = 0;

    GPUDSP_HD int n() const { return fft.n_channels; }
    GPUDSP_HD int threads() const { return fft.threads; }
    GPUDSP_HD int points() const { return rows * fft.n_channels; }
    /*! The load: thread t's k-th pair of points (k < pairs_per_thread())
     *  is logical points 2e, 2e + 1 with e = t + k P: row (2e) / N. One
     *  16-byte load and store each (onepass::geometry::phys keeps a pair
     *  whole and aligned). */
    GPUDSP_HD int pairs_per_thread() const { return points() / 2 / threads(); }
    GPUDSP_HD int pair(int t, int k) const { return t + k * threads(); }
    /*! The output: thread t's v-th value (v < values_per_thread()) is
     *  idx = t + v P, row idx mod rows of channel idx / rows: consecutive
     *  threads write a channel's rows side by side. */
    GPUDSP_HD int values_per_thread() const { return points() / threads(); }
    GPUDSP_HD int value(int t, int v) const { return t + v * threads(); }
    GPUDSP_HD int row_of(int idx) const { return idx & (rows - 1); }
    GPUDSP_HD int channel_of(int idx) const { return idx >> log2rows; }
    //! Shared memory: the rows' points, padded as the one-pass buffers.
    GPUDSP_HD int smem_bytes() const { return onepass::geometry::phys(points()) * 8; }
};

/*! Whether the kernel takes N channels, \p rows (1, 2 or 4) inputs a CTA:
 *  N a power of two, at least min_channels, rows x N at most max_points. */
GPUDSP_HD bool supported(int n_channels, int rows)
{
    return onepass::power_of_two(n_channels) && n_channels >= min_channels &&
           (rows == 1 || rows == 2 || rows == 4) && rows * n_channels <= max_points;
}

/*! The shape: P = rows N / 16 threads (16 points, two radix-8
 *  butterflies each: the FFT's registers are sized for 16 anyway, ~128 a
 *  thread, so fewer threads leave room for two CTAs an SM up to 256), at
 *  least a warp and at most 512. Call supported() first. */
GPUDSP_HD shape make_shape(int n_channels, int rows)
{
    shape sh;
    sh.rows = rows;
    sh.log2rows = fft::log2_of(rows);
    int threads = rows * n_channels / 16;
    threads = threads < 32 ? 32 : (threads > max_threads ? max_threads : threads);
    onepass::set_fft_geometry(sh.fft, n_channels, rows, threads);
    return sh;
}

} // namespace fftpost
} // namespace kernels
} // namespace gpudsp
} // namespace gr

#endif /* INCLUDED_GPUDSP_KERNELS_FENGINE_FFTPOST_H */
