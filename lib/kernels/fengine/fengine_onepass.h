/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Internal: the geometry of the one-pass F-engine kernel (docs/fengine.md,
// "One pass"), shared by the CUDA kernel and the host emulation that tests
// it. Real input, N = n_channels a power of two, T <= 16 taps.
//
// A thread-block cluster of C CTAs owns one input over a section of
// spectra. The 2N columns of the polyphase FIR are cut into C slices of at
// most 1024; each CTA's P threads own 4 adjacent columns each, with their
// taps and a window of their last 16 samples in registers, so that every
// input byte is read once (plus the T - 1 rows of warm-up per section) and
// every tap is loaded once per section. A round computes C x g spectra:
// every CTA computes its columns of all of them and writes each spectrum's
// FIR output (as the N complex pairs y[2m] + i y[2m+1]) into the shared
// memory of the CTA that owns that spectrum (distributed shared memory);
// after a cluster barrier each CTA transforms its g spectra (fengine_fft.h:
// Stockham passes in its shared memory), folds them into the 2N-point real
// FFT, corrects, quantises and writes each channel once. Buffers are double:
// one cluster barrier per round.

#ifndef INCLUDED_GPUDSP_KERNELS_FENGINE_ONEPASS_H
#define INCLUDED_GPUDSP_KERNELS_FENGINE_ONEPASS_H

#include "fengine_fft.h"
#include "kernels/common/host_device.h"
#include <cstdint>

namespace gr {
namespace gpudsp {
namespace kernels {
namespace onepass {

constexpr int cols_per_thread = 4; //!< adjacent FIR columns per thread
constexpr int max_taps = 16;       //!< taps held in registers (right-aligned)
constexpr int max_cols_per_cta = 1024;
constexpr int max_cluster = 8; //!< the portable cluster size
constexpr int max_values = 16; //!< most points a thread holds in an FFT pass: g N / P
constexpr int min_channels = 256, max_channels = max_cluster * max_cols_per_cta / 2;

struct geometry {
    int n_channels = 0;   //!< N: channels, and points of the complex FFT
    int taps = 0;         //!< T
    int cluster = 1;      //!< C: CTAs per cluster
    int cols_per_cta = 0; //!< 2N / C
    int threads = 0;      //!< P = cols_per_cta / 4
    int per_round = 1;    //!< g: spectra each CTA transforms per round
    int section = 0;      //!< spectra per cluster (a multiple of C g)
    int max_radix = 8;    //!< the FFT passes' largest radix (every thread busy)
    int log2n = 0;        //!< log2 N
    int log2c = 0;        //!< log2 C
    int log2p = 0;        //!< log2 P
    fft::radix_plan radices;

    GPUDSP_HD int spectra_per_round() const { return cluster * per_round; }
    //! The round's spectrum u (0 .. C g - 1) is transformed by CTA owner(u)
    //! in its buffer slot(u).
    GPUDSP_HD int owner(int u) const { return u & (cluster - 1); }
    GPUDSP_HD int slot(int u) const { return u >> log2c; }
    //! Thread t of CTA q: FIR columns first_column .. first_column + 3.
    GPUDSP_HD int first_column(int q, int t) const
    {
        return q * cols_per_cta + cols_per_thread * t;
    }
    //! Complex points of a spectrum buffer: column j (0 .. 2N - 1) is point
    //! j / 2, real part for even j: a thread's 4 columns are 2 whole points.
    GPUDSP_HD int point_of(int column) const { return column / 2; }
    //! Points of one buffer: g spectra of N points.
    GPUDSP_HD int buffer_points() const { return per_round * n_channels; }
    //! Where logical point m of the two buffers (buffer, slot, point in
    //! order) sits in shared memory: 2 points of padding after every 32,
    //! so that the FFT's strided stores (the first passes write 8 points
    //! apart) and the FIR's 16-byte stores spread over the banks, and a
    //! thread's pair of points (2t, 2t + 1) stays whole and 16-byte aligned.
    GPUDSP_HD static int phys(int m) { return m + 2 * (m >> 5); }
    //! Shared memory: the two buffers (padded), then the input's N rotations
    //! (gain x delay phasor, staged once per section).
    GPUDSP_HD int rotation_point() const { return phys(2 * buffer_points()); }
    GPUDSP_HD int smem_bytes() const { return (rotation_point() + n_channels) * 8; }
    //! FFT butterflies per thread in a pass of radix r (g N / r / P, >= 1).
    GPUDSP_HD int butterflies_per_thread(int r) const
    {
        const int total = (per_round << log2n) / r;
        return total >= threads ? total >> log2p : 1;
    }
    //! Channels per thread in the fold and post-processing (g N / P).
    GPUDSP_HD int channels_per_thread() const { return (per_round << log2n) >> log2p; }
};

GPUDSP_HD bool power_of_two(int n) { return n > 0 && (n & (n - 1)) == 0; }

/*! Whether the one-pass kernel computes this shape: real input, N a power
 *  of two in [min_channels, max_channels], 1 <= T <= 16. */
GPUDSP_HD bool supported(int n_channels, int taps, bool complex_input)
{
    return !complex_input && power_of_two(n_channels) && n_channels >= min_channels &&
           n_channels <= max_channels && taps >= 1 && taps <= max_taps;
}

/*! The FFT passes' part of a geometry (N a power of two; \p per_round
 *  transforms of N points in a CTA's buffer, \p threads a power of two,
 *  at most max_values points each): the largest radix that keeps every
 *  thread busy and its plan. The fused FFT and post-processing kernel
 *  (fengine_fftpost.h) runs the same passes on a geometry of this alone. */
GPUDSP_HD void set_fft_geometry(geometry& g, int n_channels, int per_round, int threads)
{
    g.n_channels = n_channels;
    g.per_round = per_round;
    g.threads = threads;
    g.max_radix = 2;
    for (int r = 8; r >= 2; r /= 2)
        if (per_round * n_channels / r >= threads) {
            g.max_radix = r;
            break;
        }
    g.radices = fft::plan_radices(n_channels, g.max_radix);
    g.log2n = fft::log2_of(n_channels);
    g.log2p = fft::log2_of(threads);
}

/*! The geometry for N channels, T taps, \p per_round spectra per CTA and
 *  round (1, 2 or 4; fewer where a thread would hold more than max_values
 *  points), and sections of about \p section_hint spectra (rounded up to
 *  whole rounds). Call supported() first. */
GPUDSP_HD geometry make_geometry(int n_channels,
                                 int taps,
                                 int per_round,
                                 int section_hint)
{
    geometry g;
    g.n_channels = n_channels;
    g.taps = taps;
    const int cols = 2 * n_channels;
    g.cluster = cols > max_cols_per_cta ? cols / max_cols_per_cta : 1;
    g.cols_per_cta = cols / g.cluster;
    g.threads = g.cols_per_cta / cols_per_thread;
    // g (1, 2 or 4), at most max_values points per thread in the FFT.
    const int most = max_values * g.threads / n_channels;
    g.per_round = per_round < 1 ? 1 : per_round;
    while (g.per_round > 1 && g.per_round > most)
        g.per_round /= 2;
    const int round = g.spectra_per_round();
    const int hint = section_hint < round ? round : section_hint;
    g.section = (hint + round - 1) / round * round;
    // The largest radix that keeps every thread busy in every pass.
    set_fft_geometry(g, n_channels, g.per_round, g.threads);
    g.log2c = fft::log2_of(g.cluster);
    return g;
}

/*! The heuristic's spectra per CTA and round for N channels: the fewest
 *  (1, 2, 4) whose g N / 8 radix-8 butterflies keep every thread busy. The
 *  tuner also times twice that. */
GPUDSP_HD int default_per_round(int n_channels)
{
    const int threads = make_geometry(n_channels, 1, 1, 1).threads;
    int g = 1;
    while (g < 4 && g * n_channels / 8 < threads)
        g *= 2;
    return g;
}

/*! A thread's FIR state: for each of its 4 columns, the taps right-aligned
 *  in MAXT slots (zeros in front; MAXT = 8 or 16 >= T) and the last MAXT
 *  samples of the column (x[c][MAXT - 1] the newest). */
template <int MAXT>
struct fir_state {
    float w[cols_per_thread][MAXT];
    float x[cols_per_thread][MAXT];
};

/*! The register window for T taps: 8 or 16 (the kernel is built for
 *  both; fewer taps add exact zeros). */
GPUDSP_HD int window_for(int taps) { return taps <= 8 ? 8 : 16; }

/*! Slot t of the window for spectrum s holds row s + T - MAXT + t of the
 *  column (a row: one spectrum's step of samples); rows before the
 *  input's first (< 0 from the call's first spectrum, which the caller's
 *  history covers from row 0 on) are never read: their taps are zero. */
GPUDSP_HD int window_row(int s, int taps, int maxt, int t) { return s + taps - maxt + t; }

/*! Before a section's first slide, window slot t (1 .. MAXT - 1) holds
 *  this row: the one the slide moves into slot t - 1 for spectrum s_begin. */
GPUDSP_HD int warm_row(int s_begin, int taps, int maxt, int t)
{
    return window_row(s_begin - 1, taps, maxt, t);
}

/*! Loads the taps of columns j0 .. j0 + 3 (weights[tap * 2N + j]). */
template <int MAXT>
GPUDSP_HD void
load_taps(fir_state<MAXT>& st, const float* weights, int step, int taps, int j0)
{
    GPUDSP_UNROLL
    for (int c = 0; c < cols_per_thread; ++c) {
        GPUDSP_UNROLL
        for (int t = 0; t < MAXT; ++t) {
            const int tap = t - (MAXT - taps);
            st.w[c][t] = tap >= 0 ? weights[int64_t(tap) * step + j0 + c] : 0.0f;
        }
    }
}

/*! The FIR output of one column: sum over the window in slot order, one
 *  fused multiply-add each (the same order on the host and the GPU). */
template <int MAXT>
GPUDSP_HD float fir_column(const fir_state<MAXT>& st, int c)
{
    float acc = 0.0f;
    GPUDSP_UNROLL
    for (int t = 0; t < MAXT; ++t)
        acc = fmaf(st.w[c][t], st.x[c][t], acc);
    return acc;
}

/*! Slides every column's window by one row, \p row[c] the new newest. */
template <int MAXT>
GPUDSP_HD void slide(fir_state<MAXT>& st, const float* row)
{
    GPUDSP_UNROLL
    for (int c = 0; c < cols_per_thread; ++c) {
        GPUDSP_UNROLL
        for (int t = 0; t < MAXT - 1; ++t)
            st.x[c][t] = st.x[c][t + 1];
        st.x[c][MAXT - 1] = row[c];
    }
}

/*! Where thread column j0's two points of the round's spectrum u go: the
 *  logical point index in its owner's buffers (buffer \p parity of 2,
 *  slot(u)); geometry::phys places it in shared memory. */
GPUDSP_HD int dest_point(const geometry& g, int u, int parity, int j0)
{
    return (parity * g.per_round + g.slot(u)) * g.n_channels + g.point_of(j0);
}

/*! Thread t's butterflies in a pass of radix R = 2^LR after sub-transforms
 *  of 2^lns points: f(k, slot, bf) for each, k its place in the thread's
 *  values (v[k R .. k R + R)). Butterfly beta = t + k P of the g N / R is
 *  butterfly beta mod (N / R) of spectrum slot beta / (N / R). */
template <int LR, class F>
GPUDSP_HD void for_my_butterflies(const geometry& g, int lns, int t, F&& f)
{
    constexpr int R = 1 << LR;
    const int lnb = g.log2n - LR, total = g.per_round << lnb;
    const int count = g.butterflies_per_thread(R);
    GPUDSP_UNROLL
    for (int k = 0; k < max_values / R; ++k) {
        const int beta = t + k * g.threads;
        if (k < count && beta < total)
            f(k,
              beta >> lnb,
              fft::butterfly{ g.log2n, LR, lns, beta & ((1 << lnb) - 1) });
    }
}

/*! A pass up to the barrier: thread t's butterflies' inputs read from the
 *  buffer at logical point \p lbase of \p buf (the padded buffers' base; g
 *  spectra of N points) and computed into v. */
template <int LR>
GPUDSP_HD void fft_pass_compute(const geometry& g,
                                int lns,
                                int t,
                                const fft::cpx* buf,
                                int lbase,
                                const fft::cpx* table,
                                fft::cpx* v)
{
    constexpr int R = 1 << LR;
    for_my_butterflies<LR>(g, lns, t, [&](int k, int slot, const fft::butterfly& bf) {
        const int base = lbase + (slot << g.log2n);
        fft::cpx w[R]; // the twiddles first: in flight with the values' loads
        const bool twiddled = fft::load_twiddles<R>(bf, table, w);
        GPUDSP_UNROLL
        for (int e = 0; e < R; ++e)
            v[k * R + e] = buf[geometry::phys(base + bf.in(e))];
        fft::twiddle_and_dft<R>(v + k * R, w, twiddled);
    });
}

/*! The same pass after the barrier: the results stored in place. */
template <int LR>
GPUDSP_HD void fft_pass_store(
    const geometry& g, int lns, int t, fft::cpx* buf, int lbase, const fft::cpx* v)
{
    constexpr int R = 1 << LR;
    for_my_butterflies<LR>(g, lns, t, [&](int k, int slot, const fft::butterfly& bf) {
        const int base = lbase + (slot << g.log2n);
        GPUDSP_UNROLL
        for (int e = 0; e < R; ++e)
            buf[geometry::phys(base + bf.out(e))] = v[k * R + e];
    });
}

/*! Pass \p p of the geometry's plan, either half (the radix as a template
 *  argument, so that v stays in registers). */
GPUDSP_HD void fft_pass_compute_at(const geometry& g,
                                   int p,
                                   int t,
                                   const fft::cpx* buf,
                                   int lbase,
                                   const fft::cpx* table,
                                   fft::cpx* v)
{
    const int lr = g.radices.radix_bits(p), lns = g.radices.stride_bits(p);
    if (lr == 3)
        fft_pass_compute<3>(g, lns, t, buf, lbase, table, v);
    else if (lr == 2)
        fft_pass_compute<2>(g, lns, t, buf, lbase, table, v);
    else
        fft_pass_compute<1>(g, lns, t, buf, lbase, table, v);
}
GPUDSP_HD void fft_pass_store_at(
    const geometry& g, int p, int t, fft::cpx* buf, int lbase, const fft::cpx* v)
{
    const int lr = g.radices.radix_bits(p), lns = g.radices.stride_bits(p);
    if (lr == 3)
        fft_pass_store<3>(g, lns, t, buf, lbase, v);
    else if (lr == 2)
        fft_pass_store<2>(g, lns, t, buf, lbase, v);
    else
        fft_pass_store<1>(g, lns, t, buf, lbase, v);
}

/*! Thread t's v-th channel of the round (v < channels_per_thread()):
 *  spectrum slot \p sigma, channel \p k, and its value of the 2N-point real
 *  FFT folded from the slot's transformed points (the buffer at logical
 *  point \p lbase of the padded buffers \p buf). */
GPUDSP_HD fft::cpx fold_at(const geometry& g,
                           const fft::cpx* buf,
                           int lbase,
                           const fft::cpx* fold,
                           int t,
                           int v,
                           int& sigma,
                           int& k)
{
    const int idx = t + v * g.threads, mask = g.n_channels - 1;
    sigma = idx >> g.log2n;
    k = idx & mask;
    const int base = lbase + (sigma << g.log2n);
    return fft::real_fold(buf[geometry::phys(base + k)],
                          buf[geometry::phys(base + ((g.n_channels - k) & mask))],
                          fold[k]);
}

/*! Bytes moved per input sample (10-bit input, ci8 output) for sections of
 *  S spectra: each byte once plus the T - 1 rows of warm-up, the output
 *  once (one ci8 channel, 2 bytes, per 2 samples). */
GPUDSP_HD double bytes_per_sample(int taps, int section)
{
    return 1.25 * (1.0 + double(taps - 1) / double(section)) + 1.0;
}

} // namespace onepass
} // namespace kernels
} // namespace gpudsp
} // namespace gr

#endif /* INCLUDED_GPUDSP_KERNELS_FENGINE_ONEPASS_H */
