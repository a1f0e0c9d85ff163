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
// tile[p][m + a]. A thread owns R consecutive outputs (R = 4, 8 or 16, a
// tuner candidate: the kernels' template parameter) and, per phase p,
// slides a register window of R + AC - 1 samples along its row: each sample
// loaded feeds up to AC multiply-adds, each tap (a broadcast) R of them.
// Rows are padded one element per R (q -> q + q / R), so that the 32 threads
// of a warp, R elements apart, hit 32 different banks. With few outputs per
// tile (large D), G thread groups split the phases and their partial sums
// are added in a fixed order.

#ifndef INCLUDED_GPUDSP_KERNELS_DDC_TILE_H
#define INCLUDED_GPUDSP_KERNELS_DDC_TILE_H

#include "kernels/common/host_device.h"
#include "kernels/common/packed10.h"
#include <type_traits>
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

constexpr int ddc_tile_outputs_per_thread = 8; // R of the heuristic's shape
constexpr int ddc_tile_max_threads = 256;

/*! The outputs per thread (R) the FFMA kernels are built for
 *  (ddc_tile_r_built: with \p AC taps a window step, in the ring kernel or
 *  the tile kernel) and, as log2,
 *  the heuristic's first: 8 and 4 for real input, and 16 in the ring kernel
 *  (its rotation by recurrence fits 16 outputs in 128 registers; the tile
 *  kernel's per-output sincospif at R = 16 spills at 128 registers, sm_90);
 *  complex input (memory-bound, and a complex window of 16 + 7 samples
 *  would take ~46 more registers) 8 only. R other than 8 only with 8 taps a
 *  window step (phases of 8 taps or more: where the FIR, not the load,
 *  dominates; with 4, R = 4 and 16 spilled a few bytes on sm_75..sm_89). */
GPUDSP_HD bool ddc_tile_r_built(int R, int AC, bool complex_in, bool ring)
{
    return R == 8 || (!complex_in && AC == 8 && (R == 4 || (ring && R == 16)));
}
inline std::vector<int> ddc_tile_r_log2s(bool complex_in, bool ring)
{
    // The heuristic's R first; AC = 8 is built for the most.
    std::vector<int> lg;
    for (const int lgR : { 3, 2, 4 })
        if (ddc_tile_r_built(1 << lgR, 8, complex_in, ring))
            lg.push_back(lgR);
    return lg;
}

/*! One tile launch's shape (host: ddc_tile_shape_for). */
struct ddc_tile_shape {
    int D = 1;          //!< decimation
    int T = 0;          //!< taps
    int A = 0;          //!< taps of the fullest phase, ceil(T / D) (0: no tile fits)
    int AC = 4;         //!< taps per register-window step (4 or 8)
    int TW = 32;        //!< threads per group (owning R outputs each)
    int G = 1;          //!< groups (splitting the phases)
    int lgR = 3;        //!< log2 of R, the outputs per thread
    int M = 0;          //!< outputs per tile, TW * R
    int row_stride = 0; //!< elements per phase row, padded
    int span = 0;       //!< tile samples: (M + A - 1) D
    GPUDSP_HD int threads() const { return TW * G; }
    GPUDSP_HD int R() const { return 1 << lgR; }
    /*! Row element q's place in its padded row: one pad element per R
     *  (q >= 0: a shift, not a division). */
    GPUDSP_HD int pad(int q) const { return q + int(unsigned(q) >> lgR); }
};

/*! Shared-memory element of tile sample s (phase s mod D, q = s / D). */
GPUDSP_HD int ddc_tile_addr(const ddc_tile_shape& sh, int s)
{
    const int p = s % sh.D, q = s / sh.D;
    return p * sh.row_stride + sh.pad(q);
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
        put(s, p * sh.row_stride + sh.pad(q));
        p += dp;
        q += dq;
        if (p >= sh.D) {
            p -= sh.D;
            ++q;
        }
    }
}

/*! The packed 10-bit loader's bounds for a launch (byte offsets from the
 *  stream's sample 0): words are read only inside [lo, hi), the bytes of
 *  the launch's valid samples; \p mis is the stream's first byte's offset
 *  into its aligned word. */
struct ddc_packed10_span {
    long long first;  // global index (from sample 0) of tile sample 0
    long long valid;  // global index past the last valid sample
    long long lo, hi; // readable bytes
    int mis;          // (address of sample 0's byte) mod 4
};
GPUDSP_HD ddc_packed10_span ddc_packed10_span_of(long long first_sample,
                                                 long long valid,
                                                 long long tile_first,
                                                 int mis)
{
    const long long end = first_sample + valid;
    return {
        first_sample + tile_first, end, (10 * first_sample) >> 3, (10 * end + 7) >> 3, mis
    };
}

/*!
 * The tile's packed 10-bit samples, thread \p tid of \p n_threads: chunks
 * of 16 samples aligned in the stream (bytes 20k .. 20k + 19), each read as
 * 5 or 6 aligned words (word(b): the 32-bit word at byte offset b, a
 * multiple of 4 less mis) and decoded by packed10_sixteen, then stored
 * through put(addr, value) at ddc_tile_addr: at D >= 16 from one of two
 * bases plus the sample's index times the row step (the chunk wraps its
 * phase once at most), below it with the phase and row advanced by
 * additions: ~13 instructions a sample in the sm_90 SASS at D = 16, against
 * ~38 one sample at a time (two byte loads, 64-bit index arithmetic). A chunk
 * whose words would leave [lo, hi) (at a launch's ends) reads its samples
 * one at a time (slow(n): sample n); samples past the valid ones are zeros.
 */
template <class Word, class Slow, class Put>
GPUDSP_HD void ddc_tile_for_packed10(const ddc_tile_shape& sh,
                                     const ddc_packed10_span& in,
                                     int tid,
                                     int n_threads,
                                     Word word,
                                     Slow slow,
                                     Put put)
{
    const long long k_first = in.first / 16, k_last = (in.first + sh.span - 1) / 16;
    const int words = in.mis ? 6 : 5;
    // The phase and row of this thread's chunks' first samples advance by
    // 16 n_threads samples a chunk: by additions after the first (whose
    // division is the thread's only one).
    const int stride = 16 * n_threads, dp = stride % sh.D, dq = stride / sh.D;
    int pb = -1, qb = 0;
    for (long long k = k_first + tid; k <= k_last; k += n_threads) {
        const long long b = 20 * k - in.mis;
        int v[16];
        if (b >= in.lo && b + 4 * words <= in.hi) {
            uint32_t w[6];
            GPUDSP_UNROLL
            for (int j = 0; j < 5; ++j)
                w[j] = word(b + 4 * j);
            w[5] = in.mis ? word(b + 20) : 0u;
            packed10_sixteen(w, in.mis, v);
        } else {
            GPUDSP_UNROLL
            for (int i = 0; i < 16; ++i) {
                const long long n = 16 * k + i;
                v[i] = n >= in.first && n < in.valid ? slow(n) : 0;
            }
        }
        // Tile samples s = 16k + i - first in [0, span): phase and row of
        // the first, then by additions. A chunk inside the tile and the
        // valid samples (all but a launch's and a tile's ends) stores its 16
        // without a check.
        const long long s_chunk = 16 * k - in.first;
        const int i0 = s_chunk < 0 ? int(-s_chunk) : 0;
        int s = int(s_chunk + i0);
        if (s_chunk >= 0) { // (only a launch's first chunk starts before the tile)
            if (pb < 0) {
                pb = s % sh.D;
                qb = s / sh.D;
            } else {
                pb += dp;
                qb += dq;
                if (pb >= sh.D) {
                    pb -= sh.D;
                    ++qb;
                }
            }
        }
        int p = s_chunk >= 0 ? pb : 0, q = s_chunk >= 0 ? qb : 0;
        int at = p * sh.row_stride + sh.pad(q);
        auto advance = [&] {
            if (++p == sh.D) {
                p = 0;
                ++q;
                at = sh.pad(q);
            } else {
                at += sh.row_stride;
            }
        };
        if (i0 == 0 && s + 16 <= sh.span && 16 * k + 16 <= in.valid) {
            if (sh.D >= 16) {
                // The 16 samples take phases p .. p + 15 (mod D) and wrap
                // once at most: before the wrap each steps a row down,
                // after it they start again at phase 0 of q + 1. A
                // select and a multiply-add a sample instead of the walk.
                const int wrap = sh.D - p;
                const int after = sh.pad(q + 1) - wrap * sh.row_stride;
                GPUDSP_UNROLL
                for (int i = 0; i < 16; ++i)
                    put((i < wrap ? at : after) + i * sh.row_stride, float(v[i]));
                continue;
            }
            GPUDSP_UNROLL
            for (int i = 0; i < 16; ++i) {
                put(at, float(v[i]));
                advance();
            }
            continue;
        }
        const int i_end = int(sh.span - s_chunk < 16 ? sh.span - s_chunk : 16);
        const long long valid_left = in.valid - 16 * k; // samples i < this are valid
        GPUDSP_UNROLL
        for (int i = 0; i < 16; ++i) {
            if (i < i0 || i >= i_end)
                continue;
            put(at, i < valid_left ? float(v[i]) : 0.0f);
            advance();
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

/*! The shape of \p tw threads per group, \p g phase groups, \p ac taps
 *  per register-window step and 2^\p lgR outputs per thread for T taps and
 *  decimation D (whether it fits a block is the caller's check). */
inline ddc_tile_shape
ddc_tile_shape_with(int D, int T, int tw, int g, int ac, int lgR = 3)
{
    ddc_tile_shape sh;
    sh.D = D;
    sh.T = T;
    sh.A = (T + D - 1) / D;
    sh.AC = ac;
    sh.TW = tw;
    sh.G = g;
    sh.lgR = lgR;
    sh.M = tw << lgR;
    const int q_len = sh.M + sh.A - 1;           // q of the tile's last sample + 1
    sh.row_stride = (sh.pad(q_len - 1) + 1) | 1; // odd: rows start on spread banks
    sh.span = q_len * D;
    return sh;
}

/*! The shape for T taps and decimation D with a shared-memory limit of
 *  \p smem_limit bytes per block and 2^\p lgR outputs per thread (the
 *  heuristic's 8 by default): the most outputs per tile (up to 256 threads
 *  x R) that let two blocks share an SM (each also costs the 1 KiB the GPU
 *  reserves per block from sm_80 on; else within the limit), then as many
 *  phase groups as keep 256 threads busy. A = 0 where even 32 threads do
 *  not fit (the launch then takes the simple kernel). */
inline ddc_tile_shape
ddc_tile_shape_for(int D, int T, bool complex_in, std::size_t smem_limit, int lgR = 3)
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
            while (g > 1 &&
                   ddc_tile_shared_bytes(ddc_tile_shape_with(D, T, tw, g, ac, lgR),
                                         bytes) > budget)
                g /= 2;
            const ddc_tile_shape sh = ddc_tile_shape_with(D, T, tw, g, ac, lgR);
            if (ddc_tile_shared_bytes(sh, bytes) <= budget)
                return sh;
        }
    ddc_tile_shape none = ddc_tile_shape_with(D, T, 32, 1, ac, lgR);
    none.A = 0;
    return none;
}

/*! The shapes the plan's tuner may time, the heuristic's
 *  (ddc_tile_shape_for) first: every group width (32..256 threads) with
 *  every power-of-two number of phase groups up to D and 256 threads in
 *  all, with 4 and, where a phase has 8 taps or more, 8 taps per window
 *  step, that fits \p smem_limit; then, for real input with phases of 8
 *  taps or more, the heuristic's choice of width and groups at R = 4
 *  outputs per thread (ddc_tile_r_log2s). Empty where no tile fits. */
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
    for (const int lgR : ddc_tile_r_log2s(complex_in, false)) {
        if (lgR == first.lgR || first.A < 8)
            continue;
        const ddc_tile_shape r = ddc_tile_shape_for(D, T, complex_in, smem_limit, lgR);
        if (r.A && ddc_tile_r_built(r.R(), r.AC, complex_in, false))
            out.push_back(r);
    }
    return out;
}

/*! The tuner's name of a shape: "TW=128 G=2 AC=8", with " R=4" or " R=16"
 *  where a thread owns other than the heuristic's 8 outputs. */
inline std::string ddc_tile_shape_id(const ddc_tile_shape& sh)
{
    return "TW=" + std::to_string(sh.TW) + " G=" + std::to_string(sh.G) +
           " AC=" + std::to_string(sh.AC) +
           (sh.R() == ddc_tile_outputs_per_thread ? "" : " R=" + std::to_string(sh.R()));
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
// A real tap against a mixed complex sample (mix first): 2 multiply-adds.
GPUDSP_HD void ddc_mac(ddc_cf& acc, float h, ddc_cf x)
{
    acc.re = fmaf(h, x.re, acc.re);
    acc.im = fmaf(h, x.im, acc.im);
}

GPUDSP_HD ddc_cf ddc_cmul(ddc_cf a, ddc_cf b)
{
    return ddc_cf{ fmaf(a.re, b.re, -a.im * b.im), fmaf(a.re, b.im, a.im * b.re) };
}

/*! exp(-2j pi phase / 2^64): the mixer at a 64-bit fixed-point phase (the
 *  device's sincospif; the host's double, rounded). */
GPUDSP_HD ddc_cf ddc_mixer_at(uint64_t phase)
{
    const float cycles = float(int64_t(phase)) * 0x1p-64f; // in [-0.5, 0.5)
#ifdef __CUDA_ARCH__
    float sn, cs;
    sincospif(-2.0f * cycles, &sn, &cs);
    return ddc_cf{ cs, sn };
#else
    const double a = -2.0 * 3.14159265358979323846 * double(cycles);
    return ddc_cf{ float(std::cos(a)), float(std::sin(a)) };
#endif
}

/*! Output m's sum times exp(-2j pi phase(mD)), phase(n) = step n + offset
 *  exact in 64-bit fixed point: the tile, simple and tensor kernels' output
 *  rotation (one sincospif an output; the host's ddc_mixer_at in its
 *  emulations). */
GPUDSP_HD ddc_cf
ddc_rotate_output(ddc_cf acc, uint64_t m, int D, uint64_t step, uint64_t offset)
{
    return ddc_cmul(acc, ddc_mixer_at(step * (m * uint64_t(D)) + offset));
}

/*! The stream index of tile sample 0 of the tile whose first output is
 *  \p m0 in a launch starting at output \p first_output: output m's
 *  window ends at stream sample m D (its newest) and holds T samples. */
GPUDSP_HD uint64_t ddc_tile_stream_first(uint64_t first_output, uint64_t m0, int D, int T)
{
    return (first_output + m0) * uint64_t(D) - uint64_t(T - 1);
}

/*! Steps of the mix-first loader's mixer recurrence between exact seeds:
 *  each step multiplies by the stride's rotation (one float rounding), so
 *  the mixer drifts at most ~16 roundings (~1e-6) from the exact one. */
constexpr int ddc_mix_reseed = 16;

/*!
 * Mix first (complex input, real taps; docs/ddc.md): the tile's complex
 * samples times the mixer exp(-2j pi phi(n)) at their stream index n, for
 * thread \p tid of \p n_threads (its samples s = tid, tid + n_threads,
 * ...): the mixer advances by a multiplication by the stride's rotation and
 * is re-seeded from the exact 64-bit phase every ddc_mix_reseed samples, so
 * a sample costs two complex multiplications, not a sine and cosine.
 * \p n0: the stream index of tile sample 0; load(s) the sample (zero past
 * the valid ones); put(at, mixed) stores it at ddc_tile_addr(s).
 */
template <class Load, class Put>
GPUDSP_HD void ddc_tile_for_mixed(const ddc_tile_shape& sh,
                                  int tid,
                                  int n_threads,
                                  uint64_t n0,
                                  uint64_t step,
                                  uint64_t offset,
                                  Load load,
                                  Put put)
{
    const ddc_cf w = ddc_mixer_at(step * uint64_t(n_threads));
    ddc_cf mixer{ 1.0f, 0.0f };
    int k = 0;
    ddc_tile_for_samples(sh, tid, n_threads, [&](int s, int at) {
        if (k == 0)
            mixer = ddc_mixer_at(step * (n0 + uint64_t(s)) + offset);
        put(at, ddc_cmul(load(s), mixer));
        mixer = ddc_cmul(mixer, w);
        if (++k == ddc_mix_reseed)
            k = 0;
    });
}

/*!
 * Thread (t, g)'s partial sums for outputs t R .. t R + R - 1 of the tile
 * over the phases p = g, g + G, ...: tile in ddc_tile_addr order, taps the
 * reversed premultiplied taps zr[j], j < T (complex), or the reversed real
 * taps against a mixed tile (mix first). Phase p has ceil((T - p) / D)
 * taps: whole steps of AC with a sliding window, the rest one tap at a
 * time; no tap past T is used, so a sample outside an output's window never
 * reaches it (a NaN there would, times a zero tap). R = sh.R(), a
 * template parameter so that the window and sums are registers.
 */
template <int R, int AC, class X, class Z>
GPUDSP_HD void ddc_tile_partial(
    const ddc_tile_shape& sh, const X* tile, const Z* taps, int t, int g, ddc_cf* acc)
{
    for (int r = 0; r < R; ++r)
        acc[r] = ddc_cf{ 0.0f, 0.0f };
    // Phases p < full have A taps, the rest A - 1: ceil((T - p) / D)
    // without a division per phase.
    const int full = sh.T - (sh.A - 1) * sh.D;
    for (int p = g; p < sh.D; p += sh.G) {
        const X* row = tile + p * sh.row_stride;
        const Z* zp = taps + p;
        const int taps_p = p < full ? sh.A : sh.A - 1;
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
                const Z z = zp[(a0 + a) * sh.D];
                for (int r = 0; r < R; ++r)
                    ddc_mac(acc[r], z, w[r + a]);
            }
        }
        for (; a0 < taps_p; ++a0) {
            const Z z = zp[a0 * sh.D];
            for (int r = 0; r < R; ++r) {
                const int q = t * R + a0 + r;
                ddc_mac(acc[r], z, row[q + q / R]);
            }
        }
    }
}

/*! ddc_tile_partial at the shape's R and AC, for the host's emulations
 *  of the kernels (\p acc holds 16 sums, R of them written). */
template <class X, class Z>
inline void ddc_tile_partial_of(
    const ddc_tile_shape& sh, const X* tile, const Z* taps, int t, int g, ddc_cf* acc)
{
    auto at = [&](auto r) {
        constexpr int R = decltype(r)::value;
        if (sh.AC == 8)
            ddc_tile_partial<R, 8>(sh, tile, taps, t, g, acc);
        else
            ddc_tile_partial<R, 4>(sh, tile, taps, t, g, acc);
    };
    if (sh.R() == 4)
        at(std::integral_constant<int, 4>{});
    else if (sh.R() == 16)
        at(std::integral_constant<int, 16>{});
    else
        at(std::integral_constant<int, 8>{});
}

} // namespace kernels
} // namespace gpudsp
} // namespace gr

#endif
