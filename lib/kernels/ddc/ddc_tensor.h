/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Internal: the DDC's tensor-core form (docs/ddc.md, "Tensor cores"), as
// arithmetic its CUDA kernel (ddc_tensor.cu) and the host emulation that
// tests it (qa_ddc_tensor) share. 10-bit input only: its samples are exact
// in FP16.
//
// Output m of the launch is sum_j zr[j] x[mD + j] (zr: the reversed
// premultiplied taps, complex), rotated by the mixer's exact phase. With a
// tap block of K = 4 nt decimations (nt = 1 or 2 MMA column tiles), a warp
// computes 16 K consecutive outputs m0 + K r + s (r = 0..15 the MMA's rows,
// s = 0..K-1 a shift) as nt m16n8k16 GEMMs per chunk of 16 columns c,
// sharing one A fragment:
//   A[r][c] = x[(m0 + K r) D + c]           (a Hankel arrangement: rows KD apart)
//   B_n[c][2s' + part] = part(zr[c - (4n + s') D])   (tile n, s' = 0..3;
//                                           zero outside 0 .. T-1; part: re, im)
// so that (A B_n)[r][2s' + part] sums zr[j] x[(m0 + K r + 4n + s') D + j]
// over the chunk's j: every output meets each of its taps once, over the
// columns 0 .. T + (K - 1) D - 1, and a thread's accumulators hold the real
// and imaginary parts of whole outputs. K = 8 loads each A fragment (the
// shared-memory loads and their addressing, most of a chunk's issue slots)
// for twice the outputs, at (T + 7D) / (T + 3D) times the MMAs. With mt = 2
// row tiles a warp's rows are 32 (r = 0..31, two A fragments a chunk, the
// second 16 K D samples on), and each B fragment serves both: half the B
// loads an output. The taps are scaled by a
// power of two and split in two FP16 parts, hi = half(z) and lo = half((z - hi) 2^11),
// each with its own MMA and FP32 accumulators: y = (acc_hi + 2^-11 acc_lo)
// / scale, the taps to ~2^-22 relative (one FP16 part alone: ~3e-4).

#ifndef INCLUDED_GPUDSP_KERNELS_DDC_TENSOR_H
#define INCLUDED_GPUDSP_KERNELS_DDC_TENSOR_H

#include "ddc_ring.h"
#include "kernels/common/fast_div.h"
#include "kernels/common/host_device.h"
#include "kernels/common/packed10.h"
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <vector>

namespace gr {
namespace gpudsp {
namespace kernels {
namespace ddc_tensor {

constexpr int rows = 16;       //!< an MMA's rows: groups of shifts() outputs
constexpr int tile_shifts = 4; //!< outputs a row of a column tile (shift x re/im)
constexpr int max_nt = 2;      //!< column tiles (tap block 4D or 8D)
constexpr int max_mt = 2;      //!< row tiles a warp (16 or 32 rows)
constexpr int k_chunk = 16;    //!< the MMA's k
constexpr int max_warps = 8;
constexpr std::size_t smem_budget = 48 * 1024; //!< no opt-in needed on any GPU
constexpr float lo_scale = 2048.0f;            //!< 2^11: lo = half((z - hi) 2^11)

struct shape {
    int D = 1, T = 1;
    int nt = 1; //!< MMA column tiles a chunk: the tap block K = 4 nt decimations
    int mt = 1; //!< MMA row tiles a warp: 16 mt rows
    GPUDSP_HD int shifts() const { return tile_shifts * nt; } //!< K: outputs a row
    GPUDSP_HD int warp_outputs() const { return rows * mt * shifts(); } //!< 64 .. 256
    GPUDSP_HD bool small_d() const { return shifts() * D < k_chunk; }
    int chunks = 0; //!< ceil((T + (K - 1) D) / 16): the columns of every output's taps
    int warps = 0;  //!< per block (0: the form does not fit)
    int pad = 0;    //!< halves of padding after every KD samples (0, 4, 8 or 12)
    fast_div group; //!< by KD, the samples between padding
    GPUDSP_HD int outputs() const { return warps * warp_outputs(); } //!< per block
    GPUDSP_HD int threads() const { return warps * 32; }
    //! Samples a block reads from its first, (outputs - K) D + 16 chunks.
    GPUDSP_HD int span() const { return (outputs() - shifts()) * D + chunks * k_chunk; }
    /*! The shared-memory place (in halves) of the block's sample s: `pad`
     *  halves after every KD samples, so that a warp's A loads (8 rows KD
     *  apart, 4 words each) fall in 32 different banks: rows KD / 2 + pad / 2
     *  words apart, 4 (mod 8) for every D; a pair of samples starting at an
     *  even s stays whole (KD and pad are even). */
    GPUDSP_HD int phys(int s) const { return s + pad * int(group.div(uint32_t(s))); }
    GPUDSP_HD std::size_t smem_bytes() const
    {
        return (std::size_t(phys(span() - 1)) + 2) / 2 * 4; // whole 32-bit words
    }
};

/*! The shape for decimation D, T taps, a tap block of 4 nt decimations and
 *  mt row tiles a warp (nt, mt = 1 or 2; other than 1 only where KD >= 16,
 *  the shapes with one cursor, a_walker): the most warps a block (8, 4, 2,
 *  1) whose samples fit the shared-memory budget; warps = 0 if none. */
inline shape make_shape(int D, int T, int nt = 1, int mt = 1)
{
    shape sh;
    sh.D = D;
    sh.T = T;
    sh.nt = nt;
    sh.mt = mt;
    if (nt < 1 || nt > max_nt || mt < 1 || mt > max_mt ||
        ((nt > 1 || mt > 1) && sh.small_d()))
        return sh; // warps = 0
    const int K = sh.shifts();
    sh.group = fast_div::of(uint32_t(K * D));
    sh.pad = 2 * (((4 - K * D / 2) % 8 + 8) % 8);
    sh.chunks = (T + (K - 1) * D + k_chunk - 1) / k_chunk;
    for (int w = max_warps; w >= 1; w /= 2) {
        sh.warps = w;
        if (sh.smem_bytes() <= smem_budget)
            return sh;
    }
    sh.warps = 0;
    return sh;
}

/*! Lane (g = lane / 4, t = lane % 4)'s A element pair q (0..3) of chunk
 *  \p chunk and row tile \p rt: row g + 8 (q & 1) + 16 rt, columns
 *  2t + 8 (q >> 1) and the next: the first of the two samples, from the
 *  warp's first (m0 D). */
GPUDSP_HD int a_sample(const shape& sh, int lane, int q, int chunk, int rt = 0)
{
    const int g = lane >> 2, t = lane & 3;
    const int r = g + 8 * (q & 1) + 16 * rt, c = chunk * k_chunk + 2 * t + 8 * (q >> 1);
    return sh.shifts() * r * sh.D + c;
}

/*! A lane's place in shared memory of one A element pair, chunk after
 *  chunk (16 samples on), without a division per chunk: the padding
 *  comes every KD samples. */
struct a_cursor {
    int s = 0;    //!< the sample (from the block's first)
    int at = 0;   //!< its padded place, shape::phys(s)
    int next = 0; //!< the next multiple of KD above s
    GPUDSP_HD void start(const shape& sh, int s0)
    {
        s = s0;
        const int g = int(sh.group.div(uint32_t(s0)));
        at = s0 + sh.pad * g;
        next = (g + 1) * sh.shifts() * sh.D;
    }
    //! A chunk may pass several paddings where KD < 16 (the kernel's
    //! SMALL_D loop, the only one walking with four cursors: a_walker serves
    //! the others).
    GPUDSP_HD void advance(const shape& sh)
    {
        s += k_chunk;
        at += k_chunk;
        while (s >= next) {
            at += sh.pad;
            next += sh.shifts() * sh.D;
        }
    }
};

/*! The same four places with one cursor, where KD >= 16 (!small_d()):
 *  pair 2 is pair 0's sample plus 8 (one padding between them at most),
 *  and pairs 1 and 3 are pairs 0 and 2 eight rows on, exactly 8 groups of
 *  KD samples: phys(s + 8 KD) = phys(s) + 8 (KD + pad). A chunk's
 *  addressing is then a select and a few adds instead of four cursors'
 *  comparisons and updates (the main loop's integer work, docs/ddc.md). */
struct a_walker {
    int at = 0;    //!< pair 0's padded place
    int left = 0;  //!< samples from pair 0's sample to the next multiple of KD (1 .. KD)
    int rows8 = 0; //!< 8 (KD + pad): pairs 1 and 3 from pairs 0 and 2
    GPUDSP_HD void start(const shape& sh, int s0)
    {
        const int g = int(sh.group.div(uint32_t(s0)));
        const int kd = sh.shifts() * sh.D;
        at = s0 + sh.pad * g;
        left = (g + 1) * kd - s0;
        rows8 = 8 * (kd + sh.pad);
    }
    //! Pair 2's place (pair 0's sample + 8).
    GPUDSP_HD int at2(const shape& sh) const { return at + 8 + (left <= 8 ? sh.pad : 0); }
    //! Pair q's place from its cursor (at or at2): q & 1 eight rows on, row
    //! tile rt 16 rt rows on.
    GPUDSP_HD int row_offset(int q, int rt) const { return ((q & 1) + 2 * rt) * rows8; }
    //! Pair q's place (0..3) in row tile rt, as a_sample's.
    GPUDSP_HD int place(const shape& sh, int q, int rt = 0) const
    {
        return ((q >> 1) ? at2(sh) : at) + row_offset(q, rt);
    }
    GPUDSP_HD void advance(const shape& sh)
    {
        at += k_chunk;
        left -= k_chunk;
        if (left <= 0) { // one padding at most: KD >= 16
            at += sh.pad;
            left += sh.shifts() * sh.D;
        }
    }
};

/*! Outputs a launch computes before its caller's first, \p first_output
 *  (absolute): output m's shift in its row (m - the warp's first, mod K)
 *  sets which of its taps share a 16-column MMA chunk, and so how FP32
 *  rounds its sum; starting every launch at a multiple of K in the
 *  absolute count gives each output the same shift, and the same bits,
 *  whichever call computes it (a stream cut anywhere, a bank or alone).
 *  Where 16 divides D every shift sums the same chunks anyway. */
GPUDSP_HD int lead_of(const shape& sh, unsigned long long first_output)
{
    return int(first_output % (unsigned long long)sh.shifts());
}

/*! Samples g .. g + 3 of a packed 10-bit stream from the three aligned
 *  little-endian words \p w0, \p w1, \p w2 that hold them, their first
 *  bit \p o (0 .. 31) bits into w0 counted from its first byte's most
 *  significant bit: the words byte-swapped to big-endian (a permute each),
 *  two funnel shifts put the quad's 40 bits on top of two words, then
 *  shifts take each sample with its sign. */
GPUDSP_HD void packed10_quad(uint32_t w0, uint32_t w1, uint32_t w2, int o, int (&x)[4])
{
    const uint32_t b0 = packed10_byte_swap(w0), b1 = packed10_byte_swap(w1),
                   b2 = packed10_byte_swap(w2);
    const uint32_t t1 = packed10_funnel_l(b1, b0, o); // the quad's bits 0 .. 31
    const uint32_t t2 = packed10_funnel_l(b2, b1, o); // 32 .. 63
    x[0] = int32_t(t1) >> 22;
    x[1] = int32_t(t1 << 10) >> 22;
    x[2] = int32_t(t1 << 20) >> 22;
    x[3] = int32_t(packed10_funnel_l(t2, t1, 30)) >> 22; // bits 30 .. 39
}

/*! The readable bytes of a launch (from the stream's sample 0's byte):
 *  those of its valid samples [first_sample + valid_from, first_sample +
 *  valid_to). */
GPUDSP_HD ddc_ring_bytes launch_bytes(long long first_sample,
                                      long long valid_from,
                                      long long valid_to)
{
    return ddc_ring_readable(10, first_sample + valid_from, valid_to - valid_from);
}

/*! The aligned words of the block from stream sample \p a0, the stream's
 *  byte 0 being \p mis bytes (0 .. 3) into its aligned word: word 0 is the
 *  one holding a0's first bit (byte offset 4 word0 - mis from byte 0), bit
 *  o0 into it; block sample s starts at bit o0 + 10 s from there (32-bit
 *  arithmetic from here on: a block spans at most ~2^16 samples), and the
 *  words and samples a quad may read directly. */
struct block_words {
    long long word0; //!< the first word, counted from the aligned word below byte 0
    int o0;          //!< a0's first bit in it
    int s_lo, s_hi;  //!< valid block samples [s_lo, s_hi) (clamped)
    int w_lo, w_hi;  //!< words [w_lo, w_hi) wholly inside the launch's bytes (clamped)
    //! The byte offset of word w (from the stream's byte 0).
    GPUDSP_HD long long byte_of(int w, int mis) const { return 4 * (word0 + w) - mis; }
};
GPUDSP_HD block_words block_words_of(const shape& sh,
                                     long long first_sample,
                                     long long valid_from,
                                     long long valid_to,
                                     long long a0,
                                     int mis)
{
    const long long bit0 = 10 * a0 + 8 * mis;
    block_words bw;
    bw.word0 = bit0 >> 5; // (a floor, also below 0)
    bw.o0 = int(bit0 & 31);
    const long long span = sh.span(), words = (bw.o0 + 10 * span) / 32 + 4;
    auto clamp = [](long long v, long long lo, long long hi) {
        return int(v < lo ? lo : (v > hi ? hi : v));
    };
    bw.s_lo = clamp(first_sample + valid_from - a0, 0, span);
    bw.s_hi = clamp(first_sample + valid_to - a0, 0, span);
    const ddc_ring_bytes r = launch_bytes(first_sample, valid_from, valid_to);
    // Word w's bytes 4 (word0 + w) - mis .. + 3 inside [r.lo, r.hi).
    bw.w_lo = clamp(((r.lo + mis + 3) >> 2) - bw.word0, 0, words);
    bw.w_hi = clamp(((r.hi + mis) >> 2) - bw.word0, 0, words);
    return bw;
}

/*! The block's samples into shared memory, as the kernel's threads do it:
 *  thread \p tid of \p threads takes quads of block samples s .. s + 3
 *  (s = 4 tid, 4 (tid + threads), ...): a warp's lanes decode 128
 *  consecutive samples, each lane from three aligned 32-bit words
 *  (`word(w)`: word w of \p bw, from global memory or the ring's
 *  stage; packed10_quad), and store each quad as one 64-bit word at its
 *  padded place (KD, pad and s are multiples of 4: a quad never straddles
 *  a padding). The old groups of 4 took 5 byte loads and 4 half stores,
 *  2-way conflicted: 18 shared-memory wavefronts a warp for 128 samples
 *  from the ring's stage, now ~8. Samples outside the launch's valid ones
 *  (\p bw: block_words_of, computed once a block tile) are zeros (the lead's
 *  outputs reach before the caller's samples: nothing there is read); a
 *  quad not wholly valid or whose words leave the launch's bytes (at its
 *  two ends) reads its samples one at a time (`one(g)`). `put(place, x)`
 *  stores samples s .. s + 3 at phys(s) .. phys(s) + 3. \p a0: the block's
 *  first sample in the stream. */
template <class Word, class One, class Put>
GPUDSP_HD void decode_block(const shape& sh,
                            const block_words& bw,
                            long long a0,
                            int tid,
                            int threads,
                            Word word,
                            One one,
                            Put put)
{
    const int span = sh.span(); // (a multiple of 4)
    for (int s = 4 * tid; s < span; s += 4 * threads) {
        const int bit = bw.o0 + 10 * s, w = bit >> 5;
        int x[4];
        if (s >= bw.s_lo && s + 4 <= bw.s_hi && w >= bw.w_lo && w + 3 <= bw.w_hi) {
            packed10_quad(word(w), word(w + 1), word(w + 2), bit & 31, x);
        } else {
            GPUDSP_UNROLL
            for (int k = 0; k < 4; ++k)
                x[k] = s + k >= bw.s_lo && s + k < bw.s_hi ? one(a0 + s + k) : 0;
        }
        put(sh.phys(s), x);
    }
}

/*! Lane (g, t)'s B element h (0..3: rows 2t, 2t+1, 2t+8, 2t+9) of chunk
 *  \p chunk and column tile \p n, column g (shift 4n + g / 2, part g % 2):
 *  the tap index it holds, j = c - s D (outside 0 .. T-1: a zero). */
GPUDSP_HD int b_tap(const shape& sh, int lane, int h, int chunk, int n)
{
    const int g = lane >> 2, t = lane & 3;
    const int c = chunk * k_chunk + 2 * t + (h & 1) + 8 * (h >> 1);
    return c - (tile_shifts * n + (g >> 1)) * sh.D;
}
GPUDSP_HD bool b_imag(int lane) { return ((lane >> 2) & 1) != 0; }

/*! Lane (g, t)'s accumulators of column tile \p n and row tile \p rt:
 *  (d0, d1) are the real and imaginary parts of the warp's output
 *  K (g + 16 rt) + 4n + t, (d2, d3) of output K (g + 8 + 16 rt) + 4n + t
 *  (K = 4: lane l holds outputs l and l + 32 of a row tile; K = 8: a
 *  tile's 32 lanes write runs of 4 outputs). */
GPUDSP_HD int out_of(const shape& sh, int lane, int half, int n, int rt = 0)
{
    return sh.shifts() * ((lane >> 2) + 8 * half + 16 * rt) + tile_shifts * n +
           (lane & 3);
}

//! IEEE binary16 bits of a float, rounded to nearest even (host side).
inline uint16_t half_bits(float f)
{
    uint32_t x;
    std::memcpy(&x, &f, 4);
    const uint32_t sign = (x >> 16) & 0x8000u;
    const int exp = int((x >> 23) & 0xff) - 127;
    uint32_t mant = x & 0x7fffffu;
    if (exp > 15)
        return uint16_t(sign | 0x7c00u); // overflow: infinity (never for scaled taps)
    if (exp >= -14) {                    // normal
        uint32_t h = uint32_t(exp + 15) << 10 | (mant >> 13);
        const uint32_t rest = mant & 0x1fffu;
        if (rest > 0x1000u || (rest == 0x1000u && (h & 1u)))
            ++h; // may carry into the exponent: still right
        return uint16_t(sign | h);
    }
    if (exp < -25)
        return uint16_t(sign);  // below half the smallest subnormal
    mant |= 0x800000u;          // subnormal: 2^-24 units
    const int shift = -exp - 1; // 14 .. 24 bits dropped from the 24-bit significand
    uint32_t h = mant >> shift;
    const uint32_t rest = mant & ((1u << shift) - 1), halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (h & 1u)))
        ++h;
    return uint16_t(sign | h);
}
//! The float value of binary16 bits (host side).
inline float half_value(uint16_t h)
{
    const int exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
    float v = exp == 0 ? std::ldexp(float(mant), -24)
                       : std::ldexp(float(mant | 0x400), exp - 25);
    return (h & 0x8000u) ? -v : v;
}

/*! The taps for the kernel: zr (reversed premultiplied) scaled by a power
 *  of two (the largest part of any tap in [0.5, 1), within float's normal
 *  range), split into hi and lo FP16 parts. Words: a 16-byte header (word
 *  0: 1 / scale as a float, so that a kernel reading an image reads its
 *  own scale), then in fragment order [chunk][n][lane][4] = (hi of elements
 *  0,1; hi of 2,3; lo of 0,1; lo of 2,3), the lower element in the low
 *  half, as mma.sync reads a B fragment. */
constexpr int header_words = 4;
//! The words of a taps image for \p sh: the header and 16 bytes a lane,
//! column tile and chunk.
inline std::size_t image_words(const shape& sh)
{
    return header_words + std::size_t(sh.chunks) * std::size_t(sh.nt) * 32 * 4;
}
struct taps_image {
    std::vector<uint32_t> words;
    float unscale = 1.0f;
};

/*! An output's sum from its two accumulators (the products with the taps'
 *  hi and lo parts, re and im), times the image's unscale: the kernel's
 *  epilogue and its emulation's. */
GPUDSP_HD ddc_cf
combine(float hi_re, float hi_im, float lo_re, float lo_im, float unscale)
{
    return ddc_cf{ fmaf(lo_re, 1.0f / lo_scale, hi_re) * unscale,
                   fmaf(lo_im, 1.0f / lo_scale, hi_im) * unscale };
}
inline taps_image make_taps(const std::vector<std::complex<float>>& zr, const shape& sh)
{
    float peak = 0;
    for (const auto& z : zr)
        peak = std::fmax(peak, std::fmax(std::fabs(z.real()), std::fabs(z.imag())));
    int e = 0;
    if (peak > 0)
        std::frexp(peak, &e); // peak = f 2^e, f in [0.5, 1)
    e = e < -125 ? -125 : (e > 127 ? 127 : e); // both 2^e and 2^-e finite and normal
    const float scale = std::ldexp(1.0f, -e);
    taps_image img;
    img.unscale = std::ldexp(1.0f, e);
    img.words.assign(image_words(sh), 0u);
    std::memcpy(img.words.data(), &img.unscale, 4);
    for (int chunk = 0; chunk < sh.chunks; ++chunk)
        for (int n = 0; n < sh.nt; ++n)
            for (int lane = 0; lane < 32; ++lane) {
                uint16_t hi[4], lo[4];
                for (int h = 0; h < 4; ++h) {
                    const int j = b_tap(sh, lane, h, chunk, n);
                    float v = 0;
                    if (j >= 0 && j < int(zr.size()))
                        v = (b_imag(lane) ? zr[std::size_t(j)].imag()
                                          : zr[std::size_t(j)].real()) *
                            scale;
                    hi[h] = half_bits(v);
                    lo[h] = half_bits((v - half_value(hi[h])) * lo_scale);
                }
                uint32_t* w =
                    &img.words[header_words +
                               ((std::size_t(chunk) * sh.nt + n) * 32 + lane) * 4];
                w[0] = uint32_t(hi[0]) | uint32_t(hi[1]) << 16;
                w[1] = uint32_t(hi[2]) | uint32_t(hi[3]) << 16;
                w[2] = uint32_t(lo[0]) | uint32_t(lo[1]) << 16;
                w[3] = uint32_t(lo[2]) | uint32_t(lo[3]) << 16;
            }
    return img;
}

/*
 * The ring form ("tensor ring"; ddc_ring.h has the schedule): a
 * persistent grid whose blocks take block tiles b, b + grid, ...; a
 * tile's 10-bit bytes come by 16-byte asynchronous copies into one
 * shared-memory stage (after the FP16 tile, 16-byte aligned) while the
 * block computes the tile before, and decode_block reads its groups from
 * the stage instead of global memory: one memory round trip a tile,
 * overlapped, instead of a round trip for every group a thread decodes.
 */

/*! The bytes (offsets from the input pointer) that decode_block's quads
 *  of the block tile starting at stream sample \p a0 read through `word`,
 *  clipped to the launch's readable bytes (a quad whose words leave them
 *  reads its samples one at a time from global memory): the aligned words
 *  from the first quad's first to the last quad's third. */
GPUDSP_HD ddc_ring_bytes ring_needed(const shape& sh,
                                     long long first_sample,
                                     long long valid_from,
                                     long long valid_to,
                                     long long a0,
                                     int mis)
{
    const ddc_ring_bytes r = launch_bytes(first_sample, valid_from, valid_to);
    const block_words bw =
        block_words_of(sh, first_sample, valid_from, valid_to, a0, mis);
    const int w_last = (bw.o0 + 10 * (sh.span() - 4)) >> 5;
    const long long lo = bw.byte_of(0, mis), hi = bw.byte_of(w_last + 3, mis);
    return { lo > r.lo ? lo : r.lo, hi < r.hi ? hi : r.hi };
}

/*! Bytes of the stage: the most a block tile's words span (10 bits a
 *  sample and up to three words more), from the 16-byte aligned address
 *  below their first byte, in whole chunks. */
GPUDSP_HD int ring_stage_bytes(const shape& sh)
{
    const long long need = (10LL * sh.span() + 7) / 8 + 16;
    return int((need + 2 * (ddc_ring_chunk - 1)) / ddc_ring_chunk * ddc_ring_chunk);
}

/*! Where the stage starts (bytes, after the FP16 tile), and the block's
 *  shared memory in all. */
GPUDSP_HD std::size_t ring_stage_offset(const shape& sh)
{
    return (sh.smem_bytes() + ddc_ring_chunk - 1) / ddc_ring_chunk * ddc_ring_chunk;
}
GPUDSP_HD std::size_t ring_smem_bytes(const shape& sh)
{
    return ring_stage_offset(sh) + std::size_t(ring_stage_bytes(sh));
}

} // namespace ddc_tensor
} // namespace kernels
} // namespace gpudsp
} // namespace gr

#endif /* INCLUDED_GPUDSP_KERNELS_DDC_TENSOR_H */
