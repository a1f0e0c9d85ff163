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
//
// With many inputs a CTA's rows are a few bytes of each channel's run of
// inputs (4 bytes at 2 rows, the next channel's 2I bytes on), so a warp's
// stores are many small pieces. In the staged form (ci8, sm_90) a cluster
// of CTAs consecutive in the inputs trades its quantised values through
// distributed shared memory: the cluster's CTA of rank c writes channels
// [c N / cluster, (c + 1) N / cluster) of all its rows x cluster inputs,
// runs of 2 rows cluster bytes (a 32-byte sector at 2 rows and 8 CTAs), in
// 16-byte stores.

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
//! CTAs a cluster of the staged form (the portable cluster size).
constexpr int max_cluster = 8;

struct shape {
    onepass::geometry fft; //!< the FFT passes' geometry: `rows` transforms of N points
    int rows = 1;          //!< consecutive inputs of one spectrum a CTA takes
    int log2rows = 0;
    int cluster = 1; //!< CTAs that stage their outputs together (1: each writes its own)
    int log2cluster = 0;

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

    /*! The staged form (cluster > 1). A cluster's CTAs take inputs
     *  [i0, i0 + group()); the value of channel k and row r of the CTA of
     *  rank c goes into the staging buffer of CTA stage_owner(k), at
     *  stage_slot(k, r, c): its channels' runs of group() inputs, one after
     *  another. Each CTA then writes its buffer out in order: slot e is
     *  channel staged_channel(c, e), input i0 + staged_input(e). */
    GPUDSP_HD bool staged() const { return cluster > 1; }
    GPUDSP_HD int group() const { return rows << log2cluster; }
    GPUDSP_HD int staged_channels() const { return n() >> log2cluster; }
    GPUDSP_HD int stage_owner(int k) const { return k >> (fft.log2n - log2cluster); }
    GPUDSP_HD int stage_slot(int k, int r, int rank) const
    {
        return ((k & (staged_channels() - 1)) << (log2rows + log2cluster)) +
               (rank << log2rows) + r;
    }
    GPUDSP_HD int staged_channel(int rank, int e) const
    {
        return rank * staged_channels() + (e >> (log2rows + log2cluster));
    }
    GPUDSP_HD int staged_input(int e) const { return e & (group() - 1); }
    //! The write-out's 16-byte stores: 8 ci8 values of one channel.
    static constexpr int store_values = 8;
    //! The staging buffer: a ci8 value (2 bytes) per point.
    GPUDSP_HD int stage_bytes() const { return staged() ? points() * 2 : 0; }

    //! Shared memory: the rows' points, padded as the one-pass buffers,
    //! then the staging buffer.
    GPUDSP_HD int smem_bytes() const
    {
        return onepass::geometry::phys(points()) * 8 + stage_bytes();
    }
};

/*! Whether the kernel takes N channels, \p rows (1, 2 or 4) inputs a CTA
 *  and clusters of \p cluster (1, 2, 4 or 8) CTAs: N a power of two, at
 *  least min_channels, rows x N at most max_points. */
GPUDSP_HD bool supported(int n_channels, int rows, int cluster = 1)
{
    return onepass::power_of_two(n_channels) && n_channels >= min_channels &&
           (rows == 1 || rows == 2 || rows == 4) && rows * n_channels <= max_points &&
           onepass::power_of_two(cluster) && cluster <= max_cluster;
}

/*! The staged form's cluster for \p n_inputs inputs of \p rows a CTA: the
 *  CTAs the inputs take, rounded up to a power of two, at most max_cluster;
 *  1 (nothing to stage) where one CTA takes them all. */
GPUDSP_HD int cluster_for(int n_inputs, int rows)
{
    const int ctas = (n_inputs + rows - 1) / rows;
    int q = 1;
    while (q < ctas && q < max_cluster)
        q *= 2;
    return q;
}

/*! The shape: P = rows N / 16 threads (16 points, two radix-8
 *  butterflies each: the FFT's registers are sized for 16 anyway, ~128 a
 *  thread, so fewer threads leave room for two CTAs an SM up to 256), at
 *  least a warp and at most 512. Call supported() first. */
GPUDSP_HD shape make_shape(int n_channels, int rows, int cluster = 1)
{
    shape sh;
    sh.rows = rows;
    sh.log2rows = fft::log2_of(rows);
    sh.cluster = cluster;
    sh.log2cluster = fft::log2_of(cluster);
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
