/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Internal: the CUDA DDC's tile kernel arithmetic, compiled by g++ and nvcc
// so that qa_ddc_tile runs the kernel's own per-thread code on the host
// (docs/ddc.md, "GPU kernel").
//
// A block computes M = TW * R consecutive kept outputs from one tile of
// input in shared memory: the samples its windows need, each read from
// global memory once (decoded from 10-bit on the way) and stored by phase,
// tile[p][q] = x[q D + p], so that output m's tap j = a D + p reads
// tile[p][m + a]. A thread owns R consecutive outputs and, per phase p,
// slides a register window of R + AC - 1 samples along its row: each sample
// loaded feeds up to AC multiply-adds, each tap (a broadcast) R of them.
// Rows are padded one element per R (q -> q + q / R), so that the 32 threads
// of a warp, R elements apart, hit 32 different banks. With few outputs per
// tile (large D), G thread groups split the phases and their partial sums
// are added in a fixed order.

#ifndef INCLUDED_GPUDSP_KERNELS_DDC_TILE_H
#define INCLUDED_GPUDSP_KERNELS_DDC_TILE_H

#include "kernels/common/host_device.h"
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gr {
namespace gpudsp {
namespace kernels {

struct alignas(8) ddc_cf { // one 64-bit shared-memory access
    float re, im;
};

constexpr int ddc_tile_outputs_per_thread = 8; // R
constexpr int ddc_tile_max_threads = 256;

/*! One tile launch's shape (host: ddc_tile_shape_for). */
struct ddc_tile_shape {
    int D = 1;          //!< decimation
    int T = 0;          //!< taps
    int A = 0;          //!< taps of the fullest phase, ceil(T / D) (0: no tile fits)
    int AC = 4;         //!< taps per register-window step (4 or 8)
    int TW = 32;        //!< threads per group (owning R outputs each)
    int G = 1;          //!< groups (splitting the phases)
    int M = 0;          //!< outputs per tile, TW * R
    int row_stride = 0; //!< elements per phase row, padded
    int span = 0;       //!< tile samples: (M + A - 1) D
    GPUDSP_HD int threads() const { return TW * G; }
};

/*! Shared-memory element of tile sample s (phase s mod D, q = s / D). */
GPUDSP_HD int ddc_tile_addr(const ddc_tile_shape& sh, int s)
{
    const int p = s % sh.D, q = s / sh.D;
    return p * sh.row_stride + q + q / ddc_tile_outputs_per_thread;
}

/*! put(s, ddc_tile_addr(s)) for the tile samples s = first, first + stride,
 *  ... < span: the loader's loop, with the phase and row advanced by
 *  additions instead of a division by D per sample. */
template <class Put>
GPUDSP_HD void ddc_tile_for_samples(const ddc_tile_shape& sh, int first, int stride, Put put)
{
    int p = first % sh.D, q = first / sh.D;
    const int dp = stride % sh.D, dq = stride / sh.D;
    for (int s = first; s < sh.span; s += stride) {
        put(s, p * sh.row_stride + q + q / ddc_tile_outputs_per_thread);
        p += dp;
        q += dq;
        if (p >= sh.D) {
            p -= sh.D;
            ++q;
        }
    }
}

/*! Byte offsets in dynamic shared memory of the tile (after the T taps)
 *  and of the groups' partial sums (after the tile, 8-aligned). */
GPUDSP_HD std::size_t ddc_tile_tile_offset(const ddc_tile_shape& sh)
{
    return std::size_t(sh.T) * sizeof(ddc_cf);
}
GPUDSP_HD std::size_t ddc_tile_parts_offset(const ddc_tile_shape& sh, int sample_bytes)
{
    const std::size_t tile = std::size_t(sh.D) * sh.row_stride * sample_bytes;
    return ddc_tile_tile_offset(sh) + (tile + 7) / 8 * 8;
}

/*! Bytes of dynamic shared memory: the taps, the tile (D rows of
 *  \p sample_bytes elements) and the groups' partial sums (G > 1). */
GPUDSP_HD std::size_t ddc_tile_shared_bytes(const ddc_tile_shape& sh, int sample_bytes)
{
    const std::size_t parts = sh.G > 1 ? std::size_t(sh.G) * sh.M * sizeof(ddc_cf) : 0;
    return ddc_tile_parts_offset(sh, sample_bytes) + parts;
}

/*! The shape of \p tw threads per group, \p g phase groups and \p ac taps
 *  per register-window step for T taps and decimation D (whether it fits a
 *  block is the caller's check). */
inline ddc_tile_shape ddc_tile_shape_with(int D, int T, int tw, int g, int ac)
{
    constexpr int R = ddc_tile_outputs_per_thread;
    ddc_tile_shape sh;
    sh.D = D;
    sh.T = T;
    sh.A = (T + D - 1) / D;
    sh.AC = ac;
    sh.TW = tw;
    sh.G = g;
    sh.M = tw * R;
    const int q_len = sh.M + sh.A - 1;             // q of the tile's last sample + 1
    sh.row_stride = (q_len + (q_len - 1) / R) | 1; // odd: rows start on spread banks
    sh.span = q_len * D;
    return sh;
}

/*! The shape for T taps and decimation D with a shared-memory limit of
 *  \p smem_limit bytes per block: the most outputs per tile (up to
 *  256 threads x R) that let two blocks share an SM (each also costs the
 *  1 KiB the GPU reserves per block from sm_80 on; else within the limit),
 *  then as many phase groups as keep 256 threads busy. A = 0 where even 32
 *  threads do not fit (the launch then takes the simple kernel). */
inline ddc_tile_shape ddc_tile_shape_for(int D, int T, bool complex_in, std::size_t smem_limit)
{
    const int bytes = complex_in ? 8 : 4;
    const int ac = (T + D - 1) / D >= 8 ? 8 : 4;
    const std::size_t two_per_sm = smem_limit >= 2048 ? (smem_limit + 1024) / 2 - 1024 : 0;
    for (const std::size_t budget : { two_per_sm, smem_limit })
        for (int tw = ddc_tile_max_threads; tw >= 32; tw /= 2) {
            int g = 1;
            while (g * 2 <= D && tw * g * 2 <= ddc_tile_max_threads)
                g *= 2;
            // Fewer groups if their partial sums do not fit.
            while (g > 1 && ddc_tile_shared_bytes(ddc_tile_shape_with(D, T, tw, g, ac),
                                                  bytes) > budget)
                g /= 2;
            const ddc_tile_shape sh = ddc_tile_shape_with(D, T, tw, g, ac);
            if (ddc_tile_shared_bytes(sh, bytes) <= budget)
                return sh;
        }
    ddc_tile_shape none = ddc_tile_shape_with(D, T, 32, 1, ac);
    none.A = 0;
    return none;
}

/*! The shapes the plan's tuner may time, the heuristic's
 *  (ddc_tile_shape_for) first: every group width (32..256 threads) with
 *  every power-of-two number of phase groups up to D and 256 threads in
 *  all, with 4 and, where a phase has 8 taps or more, 8 taps per window
 *  step, that fits \p smem_limit. Empty where no tile fits. */
inline std::vector<ddc_tile_shape>
ddc_tile_shape_candidates(int D, int T, bool complex_in, std::size_t smem_limit)
{
    std::vector<ddc_tile_shape> out;
    const ddc_tile_shape first = ddc_tile_shape_for(D, T, complex_in, smem_limit);
    if (!first.A)
        return out;
    out.push_back(first);
    const int bytes = complex_in ? 8 : 4;
    for (int tw = ddc_tile_max_threads; tw >= 32; tw /= 2)
        for (int g = 1; g <= D && tw * g <= ddc_tile_max_threads; g *= 2)
            for (const int ac : { 8, 4 }) {
                if (ac == 8 && first.A < 8)
                    continue;
                const ddc_tile_shape sh = ddc_tile_shape_with(D, T, tw, g, ac);
                if (ddc_tile_shared_bytes(sh, bytes) > smem_limit)
                    continue;
                if (sh.TW == first.TW && sh.G == first.G && sh.AC == first.AC)
                    continue;
                out.push_back(sh);
            }
    return out;
}

/*! The tuner's name of a shape: "TW=128 G=2 AC=8". */
inline std::string ddc_tile_shape_id(const ddc_tile_shape& sh)
{
    return "TW=" + std::to_string(sh.TW) + " G=" + std::to_string(sh.G) +
           " AC=" + std::to_string(sh.AC);
}

GPUDSP_HD void ddc_mac(ddc_cf& acc, ddc_cf z, float x)
{
    acc.re = fmaf(z.re, x, acc.re);
    acc.im = fmaf(z.im, x, acc.im);
}
GPUDSP_HD void ddc_mac(ddc_cf& acc, ddc_cf z, ddc_cf x)
{
    acc.re = fmaf(z.re, x.re, fmaf(-z.im, x.im, acc.re));
    acc.im = fmaf(z.re, x.im, fmaf(z.im, x.re, acc.im));
}

/*!
 * Thread (t, g)'s partial sums for outputs t R .. t R + R - 1 of the tile
 * over the phases p = g, g + G, ...: tile in ddc_tile_addr order, taps the
 * reversed premultiplied taps zr[j], j < T. Phase p has ceil((T - p) / D)
 * taps: whole steps of AC with a sliding window, the rest one tap at a
 * time; no tap past T is used, so a sample outside an output's window never
 * reaches it (a NaN there would, times a zero tap).
 */
template <int AC, class X>
GPUDSP_HD void ddc_tile_partial(const ddc_tile_shape& sh,
                                const X* tile,
                                const ddc_cf* taps,
                                int t,
                                int g,
                                ddc_cf* acc)
{
    constexpr int R = ddc_tile_outputs_per_thread;
    for (int r = 0; r < R; ++r)
        acc[r] = ddc_cf{ 0.0f, 0.0f };
    for (int p = g; p < sh.D; p += sh.G) {
        const X* row = tile + p * sh.row_stride;
        const ddc_cf* zp = taps + p;
        const int taps_p = (sh.T - p + sh.D - 1) / sh.D;
        int a0 = 0;
        for (; a0 + AC <= taps_p; a0 += AC) {
            // Element q = t R + a0 + i sits at q + q / R = base + i + (a0 % R + i) / R
            // (base = t (R + 1) + a0 + a0 / R): offsets known at compile time
            // where AC is a multiple of R (a0 % R = 0).
            const X* base = row + t * (R + 1) + a0 + a0 / R;
            const int rem = AC % R == 0 ? 0 : a0 % R;
            X w[R + AC - 1];
            for (int i = 0; i < R + AC - 1; ++i)
                w[i] = base[i + (rem + i) / R];
            for (int a = 0; a < AC; ++a) {
                const ddc_cf z = zp[(a0 + a) * sh.D];
                for (int r = 0; r < R; ++r)
                    ddc_mac(acc[r], z, w[r + a]);
            }
        }
        for (; a0 < taps_p; ++a0) {
            const ddc_cf z = zp[a0 * sh.D];
            for (int r = 0; r < R; ++r) {
                const int q = t * R + a0 + r;
                ddc_mac(acc[r], z, row[q + q / R]);
            }
        }
    }
}

} // namespace kernels
} // namespace gpudsp
} // namespace gr

#endif
