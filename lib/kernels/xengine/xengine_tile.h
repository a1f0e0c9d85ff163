/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Internal: the CUDA X-engine kernels' index arithmetic, compiled by g++ and
// nvcc so that qa_xengine_tile checks it on the host, exhaustively for small
// sizes, and runs the tensor kernel's warp-level data flow (staging, MMA
// fragments, the complex product, the epilogue) against the int64
// definition (docs/xengine.md, "Kernels").
//
// Triangular scheduling: a launch covers only tiles I >= J of the
// input-by-input matrix; block x of the grid is tile pair x = I (I + 1) / 2 + J.
//
// The tensor kernel (sm_80 and later) reads a packed copy of the input that
// a pack kernel writes per launch: for each channel and block of 32 spectra,
// a real plane and an imaginary plane, each [input][32 spectra] of int8,
// inputs padded to the 128-input tile (zeros) and spectra to 32 (zeros).
// Time is then contiguous (the "K-major" order int8 MMAs require), every
// copy into shared memory is a 16-byte cp.async of contiguous bytes, and
// the pack kernel also sums each input's imaginary parts over the launch
// (for the complex product below).
//
// Complex product on real int8 MMAs (m16n8k32, int32 accumulation), for a
// row input a and a column input b (conjugated), without negating an int8
// (which would turn -128 into -128):
//   re = Ar Br + Ai Bi
//   im = Ai Br - Ar Bi = Ai Br + (~Ar) Bi + sum_t Bi
// since the bitwise complement ~x = -x - 1 exists for every int8. The
// kernel complements the Ar fragment in registers (one LOP per register)
// and adds the column's imaginary sum in the epilogue.

#ifndef INCLUDED_GPUDSP_KERNELS_XENGINE_TILE_H
#define INCLUDED_GPUDSP_KERNELS_XENGINE_TILE_H

#include "kernels/common/host_device.h"
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace gr {
namespace gpudsp {
namespace kernels {

/*! Tile pair x = I (I + 1) / 2 + J (0 <= J <= I) back to (I, J): exact for
 *  every x below 2^31 (a square-root estimate, then integer corrections). */
GPUDSP_HD void xengine_tile_pair(unsigned x, int& I, int& J)
{
    long long i = (long long)((sqrt(8.0 * double(x) + 1.0) - 1.0) * 0.5);
    while (i * (i + 1) / 2 > (long long)x)
        --i;
    while ((i + 1) * (i + 2) / 2 <= (long long)x)
        ++i;
    I = int(i);
    J = int((long long)x - i * (i + 1) / 2);
}

/*! Tiles on or below the diagonal of an n-tile square. */
GPUDSP_HD unsigned xengine_tile_pairs(unsigned n_tiles)
{
    return n_tiles * (n_tiles + 1) / 2;
}

// ---------------------------------------------------------------------------
// FP32 kernel: a block of 16 x 16 threads owns a 64 x 64 tile of input
// pairs; thread (ty, tx) holds rows 4 ty .. 4 ty + 3 and columns
// 4 tx .. 4 tx + 3 (16 complex accumulators). Per stage of 16 spectra the
// 256 threads load 16 x 64 values of each side, 8 each.

constexpr int xfp_tile = 64;   // inputs per tile side
constexpr int xfp_side = 16;   // threads per block side
constexpr int xfp_regs = 4;    // rows (and columns) per thread
constexpr int xfp_stage = 16;  // spectra per stage
constexpr int xfp_flush = 512; // ci8: spectra between moves to the int32 partials
constexpr int xfp_threads = xfp_side * xfp_side;
constexpr int xfp_loads = 2 * xfp_stage * xfp_tile / xfp_threads; // per thread

static_assert(xfp_flush % xfp_stage == 0, "flushes fall on stage boundaries");
static_assert(double(xfp_flush) * 32768 <= double(1 << 24),
              "ci8 float sums stay exact integers between flushes");

/*! ci8: the FP32 kernel adds its float sums to the int32 partials after the
 *  stage of spectra from \p t0 where that ends a run of xfp_flush, and once
 *  more after its last stage unless that one just did (it would add only
 *  zeros: 32 atomic adds a thread). */
GPUDSP_HD bool xfp_flush_after(int t0) { return (t0 + xfp_stage) % xfp_flush == 0; }
GPUDSP_HD bool xfp_flush_at_end(int n_time)
{
    return (n_time + xfp_stage - 1) / xfp_stage * xfp_stage % xfp_flush != 0;
}

/*! Thread (ty, tx)'s rows 4 ty + u (contiguous: two 128-bit loads, the same
 *  for the 16 threads of a half warp) and columns tx + 16 v (interleaved:
 *  a half warp's 64-bit loads cover 128 contiguous bytes, one wavefront,
 *  no bank conflict), u, v = 0 .. 3, of the block's 64 x 64 tile. */
GPUDSP_HD int xfp_row(int ty, int u) { return xfp_regs * ty + u; }
GPUDSP_HD int xfp_col(int tx, int v) { return tx + xfp_side * v; }

/*! Load k (0 .. xfp_loads - 1) of thread \p tid in a stage: which side
 *  (0: rows, tile I; 1: columns, tile J), spectrum and input of the tile.
 *  Consecutive threads read consecutive inputs of one spectrum. */
struct xfp_load {
    int side, t, col;
};
GPUDSP_HD xfp_load xfp_load_of(int tid, int k)
{
    const int per_side = xfp_loads / 2;
    const int e = tid + xfp_threads * (k % per_side);
    return { k / per_side, e / xfp_tile, e % xfp_tile };
}

/*! A ci8 value (re, im: two int8, re first in memory) from its two bytes
 *  loaded as one little-endian 16-bit integer, as the FP32 kernel keeps
 *  it until the stage's arithmetic is done. */
GPUDSP_HD void xfp_ci8_parts(unsigned short v, float& re, float& im)
{
    re = float(static_cast<signed char>(v & 0xff));
    im = float(static_cast<signed char>(v >> 8));
}

/*! Where thread \p tid's loads of every stage are, without index
 *  arithmetic per load: x is [spectrum][channel][input], so load k = 4 side
 *  + m (xfp_load_of: spectrum t_first + 4 m of the stage, column col of the
 *  side's tile) of the stage from spectrum t0 is element offset(k) from
 *  the side's cursor, which starts at base[side] and moves by `stage`
 *  elements a stage; present(k, t0, n_time) where its input exists (a
 *  side's column, fixed for the thread) and its spectrum does. The kernel
 *  keeps one pointer a side: the 64-bit index product per load and stage
 *  and the constants it reloaded were ~55 of a stage's ~1355 instructions
 *  (sm_90 SASS, 2026-11-28). */
struct xfp_fetch_plan {
    long long base[2]; //!< the side's cursor at t0 = 0: load (side, m = 0)'s element
    long long step4;   //!< elements from load m to m + 1: 4 spectra
    long long stage;   //!< elements a stage: xfp_stage spectra
    int t_first;       //!< load m = 0's spectrum in a stage
    bool exists[2];    //!< the side's input exists
    GPUDSP_HD static int side_of(int k) { return k / 4; }
    GPUDSP_HD long long offset(int k) const { return (k % 4) * step4; }
    GPUDSP_HD bool present(int k, int t0, int n_time) const
    {
        return exists[side_of(k)] && t0 + t_first + 4 * (k % 4) < n_time;
    }
};
static_assert(xfp_loads == 8 && xfp_threads == 4 * xfp_tile,
              "xfp_fetch_plan: 4 loads a side, 4 spectra apart");
GPUDSP_HD xfp_fetch_plan
xfp_fetch_plan_of(int tid, int I, int J, int c, int n_channels, int n_inputs)
{
    xfp_fetch_plan f;
    const long long S = (long long)n_channels * n_inputs;
    f.t_first = tid / xfp_tile;
    f.step4 = 4 * S;
    f.stage = xfp_stage * S;
    for (int side = 0; side < 2; ++side) {
        const int a = (side ? J : I) * xfp_tile + tid % xfp_tile;
        f.exists[side] = a < n_inputs;
        f.base[side] = f.t_first * S + (long long)c * n_inputs + a;
    }
    return f;
}

// ---------------------------------------------------------------------------
// Tensor kernel (sm_80+): a block of 16 warps owns a 128 x 128 tile of input
// pairs (64 x 64 dual-pol baselines); warp w owns rows 32 (w / 4) and
// columns 32 (w % 4) of it, as 2 x 4 MMA tiles of 16 x 8. Per stage, 32
// spectra of both tiles in shared memory: four planes (rows re, rows im,
// columns re, columns im), each 128 inputs x 32 bytes, rows padded to 48
// bytes so that a fragment load (8 rows x 4 words) hits 32 different banks.

constexpr int xtc_tile = 128;     // inputs per tile side
constexpr int xtc_k = 32;         // spectra per stage (one MMA's K)
constexpr int xtc_row_bytes = 48; // padded row of a plane
constexpr int xtc_plane_bytes = xtc_tile * xtc_row_bytes;
constexpr int xtc_stage_bytes = 4 * xtc_plane_bytes;
constexpr int xtc_stages = 3; // cp.async pipeline depth
constexpr int xtc_smem_bytes = xtc_stages * xtc_stage_bytes;
constexpr int xtc_warps = 16;
constexpr int xtc_threads = 32 * xtc_warps;
constexpr int xtc_warp_tile = 32;
// Spectra per launch at most: each MMA accumulator gains at most 32768 in
// magnitude per spectrum (re: ArBr + AiBi; im: AiBr + (~Ar)Bi, with ~Ar in
// -128 .. 127), so int32 would hold 65535; the launch is kept to 8192 so that
// its packed copy stays small beside the input.
constexpr int xtc_max_spectra = 8192;

/*! The packed input's byte offset of (channel c, block tb of 32 spectra,
 *  part 0 re / 1 im / 2 ~re, input a, spectrum tt of the block); blocks per
 *  channel \p n_blocks, inputs padded to \p a_pad, \p n_parts planes per
 *  block (2; 3 for the wgmma kernel, whose Ar operand comes from shared
 *  memory and so needs its complement written out). */
GPUDSP_HD std::size_t xtc_packed_offset(
    int c, int tb, int part, int a, int tt, int n_blocks, int a_pad, int n_parts = 2)
{
    return ((((std::size_t)c * n_blocks + tb) * n_parts + part) * a_pad + a) * xtc_k + tt;
}

// The pack kernel: a block of 256 threads transposes 32 spectra x 128
// inputs of one channel through shared memory, [spectrum][input][re, im]
// with rows padded to 260 bytes (the two halves of an input's spectra, 16
// rows apart, then fall in different banks). Thread tid then writes input
// tid / 2, spectra 16 (tid % 2) .. + 15, of both planes (16 bytes each).
constexpr int xtc_pack_threads = 256;
constexpr int xtc_pack_row = 2 * 128 + 4;

/*! Thread (col, half)'s 16 bytes of plane \p part (4 words, little-endian
 *  spectra), adding the imaginary values to \p im_sum. */
GPUDSP_HD void xtc_pack_gather(
    const signed char* s, int col, int half, int part, uint32_t (&w)[4], int& im_sum)
{
    for (int q = 0; q < 4; ++q) {
        uint32_t word = 0;
        for (int b = 0; b < 4; ++b) {
            const signed char v =
                s[(16 * half + 4 * q + b) * xtc_pack_row + 2 * col + part];
            word |= uint32_t(uint8_t(v)) << (8 * b);
            if (part)
                im_sum += v;
        }
        w[q] = word;
    }
}

/*! The pack kernel's load e (0 .. 32 * 128 - 1) of block (input group g,
 *  spectrum block tb, channel c): its place in the transposition buffer and
 *  the input value's index (in char2 units of [t][channel][input]), or -1
 *  past the spectra or inputs (a zero is stored). */
struct xtc_pack_load {
    int smem;       // byte offset of the value's re (im follows)
    long long from; // input index, -1: zero
};
GPUDSP_HD xtc_pack_load
xtc_pack_load_of(int e, int g, int tb, int c, int n_time, int n_channels, int n_inputs)
{
    const int tt = e / xtc_tile, col = e % xtc_tile;
    const int t = tb * xtc_k + tt, a = g * xtc_tile + col;
    const long long from = (t < n_time && a < n_inputs)
                               ? ((long long)t * n_channels + c) * n_inputs + a
                               : -1;
    return { tt * xtc_pack_row + 2 * col, from };
}

/*! Thread \p tid's 16 bytes of each of \p parts planes (re, im, and for 3
 *  the complement of re), adding its imaginary values to \p im_sum. */
GPUDSP_HD void xtc_pack_thread(
    const signed char* s, int tid, int parts, uint32_t (&w)[3][4], int& im_sum)
{
    const int col = tid / 2, half = tid % 2;
    xtc_pack_gather(s, col, half, 0, w[0], im_sum);
    xtc_pack_gather(s, col, half, 1, w[1], im_sum);
    if (parts == 3)
        for (int q = 0; q < 4; ++q)
            w[2][q] = ~w[0][q];
}

/*! Inputs padded to the tensor tile. */
GPUDSP_HD int xtc_padded_inputs(int n_inputs)
{
    return (n_inputs + xtc_tile - 1) / xtc_tile * xtc_tile;
}

/*! Copy q (0 .. 1023) of a stage's 16-byte copies: plane (0 rows re,
 *  1 rows im, 2 columns re, 3 columns im), row (input of the tile) and half
 *  (spectra 0-15 or 16-31). Thread tid does copies tid and tid + 512:
 *  consecutive threads copy consecutive bytes of one plane. */
struct xtc_copy {
    int plane, row, half;
};
GPUDSP_HD xtc_copy xtc_copy_of(int q)
{
    return { q / (2 * xtc_tile), (q % (2 * xtc_tile)) / 2, q % 2 };
}
constexpr int xtc_copies = 4 * xtc_tile * 2; // per stage
constexpr int xtc_copies_per_thread = xtc_copies / xtc_threads;

/*! Shared-memory byte offset, in a stage, of plane p's row r, spectrum k. */
GPUDSP_HD int xtc_smem_offset(int plane, int row, int k)
{
    return plane * xtc_plane_bytes + row * xtc_row_bytes + k;
}

/*! Where copy q of stage tb of tile pair (I, J), launch channel lc, goes in
 *  the stage and comes from in the packed input (2 parts). */
struct xtc_copy_at {
    int smem;
    std::size_t packed;
};
GPUDSP_HD xtc_copy_at
xtc_copy_offsets(int q, int I, int J, int lc, int tb, int n_blocks, int a_pad)
{
    const xtc_copy c = xtc_copy_of(q);
    const int tile = c.plane < 2 ? I : J;
    return {
        xtc_smem_offset(c.plane, c.row, 16 * c.half),
        xtc_packed_offset(
            lc, tb, c.plane & 1, tile * xtc_tile + c.row, 16 * c.half, n_blocks, a_pad)
    };
}

// mma.sync.m16n8k32 .s8 fragments (PTX ISA, "Matrix Fragments for
// mma.m16n8k32"): lane = 4 g + t. A (16 x 32, row-major: K contiguous):
// register r holds 4 consecutive k of one row. B (32 x 8, column-major: K
// contiguous per column): register r holds 4 consecutive k of column g.
// C (16 x 8, int32): register r is one element.
GPUDSP_HD int xtc_a_row(int lane, int r) { return (lane >> 2) + 8 * (r & 1); }
GPUDSP_HD int xtc_a_k(int lane, int r) { return 4 * (lane & 3) + 16 * (r >> 1); }
GPUDSP_HD int xtc_b_col(int lane) { return lane >> 2; }
GPUDSP_HD int xtc_b_k(int lane, int r) { return 4 * (lane & 3) + 16 * r; }
GPUDSP_HD int xtc_c_row(int lane, int r) { return (lane >> 2) + 8 * (r >> 1); }
GPUDSP_HD int xtc_c_col(int lane, int r) { return 2 * (lane & 3) + (r & 1); }

/*! Warp w's first row and column in the block's tile; on a diagonal tile
 *  (I == J) a warp whose 32 x 32 square lies above the diagonal has no pair
 *  a >= b and skips the arithmetic. */
GPUDSP_HD int xtc_warp_row(int w) { return xtc_warp_tile * (w / 4); }
GPUDSP_HD int xtc_warp_col(int w) { return xtc_warp_tile * (w % 4); }
GPUDSP_HD bool xtc_warp_idle(int w, bool diagonal)
{
    return diagonal && xtc_warp_row(w) < xtc_warp_col(w);
}

/*! Bitwise complement of four packed int8: -x - 1 in each byte. */
GPUDSP_HD uint32_t xtc_complement(uint32_t v) { return ~v; }

/*! A warp's operands for one stage: rows (tile I) re and im as 2 MMA tiles
 *  of 16 rows, columns (tile J) re and im as 4 MMA tiles of 8 columns. */
struct xtc_frags {
    uint32_t ar[2][4], ai[2][4], br[4][2], bi[4][2];
};

/*! Four bytes of a stage as one register (an aligned 32-bit shared load on
 *  the GPU; memcpy on the host, where the stage is a byte array). */
GPUDSP_HD uint32_t xtc_word(const unsigned char* p)
{
#ifdef __CUDA_ARCH__
    return *reinterpret_cast<const uint32_t*>(p);
#else
    uint32_t w;
    std::memcpy(&w, p, 4);
    return w;
#endif
}

/*! Lane \p lane's fragment registers of warp square (wr, wc) from a stage
 *  in shared memory: one aligned 32-bit load each. */
GPUDSP_HD void
xtc_load_frags(const unsigned char* stage, int wr, int wc, int lane, xtc_frags& f)
{
    for (int m = 0; m < 2; ++m)
        for (int r = 0; r < 4; ++r) {
            const int row = wr + 16 * m + xtc_a_row(lane, r), k = xtc_a_k(lane, r);
            f.ar[m][r] = xtc_word(stage + xtc_smem_offset(0, row, k));
            f.ai[m][r] = xtc_word(stage + xtc_smem_offset(1, row, k));
        }
    for (int n = 0; n < 4; ++n)
        for (int r = 0; r < 2; ++r) {
            const int col = wc + 8 * n + xtc_b_col(lane), k = xtc_b_k(lane, r);
            f.br[n][r] = xtc_word(stage + xtc_smem_offset(2, col, k));
            f.bi[n][r] = xtc_word(stage + xtc_smem_offset(3, col, k));
        }
}

/*! The stage's complex products into the warp's accumulators (2 x 4 MMA
 *  tiles, 4 int32 each): re += Ar Br + Ai Bi, im += Ai Br + (~Ar) Bi.
 *  \p mma(d, a, b) is one warp-wide m16n8k32 (d += a b) on this lane's
 *  registers: the kernel's mma.sync, or the test's emulation. */
template <class Mma>
GPUDSP_HD void
xtc_products(const xtc_frags& f, int (&re)[2][4][4], int (&im)[2][4][4], Mma&& mma)
{
    for (int m = 0; m < 2; ++m) {
        const uint32_t nar[4] = { xtc_complement(f.ar[m][0]),
                                  xtc_complement(f.ar[m][1]),
                                  xtc_complement(f.ar[m][2]),
                                  xtc_complement(f.ar[m][3]) };
        for (int n = 0; n < 4; ++n) {
            mma(re[m][n], f.ar[m], f.br[n]);
            mma(re[m][n], f.ai[m], f.bi[n]);
            mma(im[m][n], f.ai[m], f.br[n]);
            mma(im[m][n], nar, f.bi[n]);
        }
    }
}

/*! The pair (a, b) that accumulator register r of MMA tile (m, n) holds in
 *  lane \p lane of warp square (wr, wc) of tile pair (I, J); its imaginary
 *  part still lacks sum_t Bi[b] (the complement trick). */
GPUDSP_HD void
xtc_pair_of(int I, int J, int wr, int wc, int m, int n, int lane, int r, int& a, int& b)
{
    a = I * xtc_tile + wr + 16 * m + xtc_c_row(lane, r);
    b = J * xtc_tile + wc + 8 * n + xtc_c_col(lane, r);
}

// ---------------------------------------------------------------------------
// The direct path (mma.sync, few inputs: memory-bound, where the packed
// copy's extra bytes would cost most): no pack kernel. Stages of the input
// as the F-engine writes it, 32 spectra x 128 inputs of char2 per tile,
// 256 contiguous bytes per spectrum, are copied by cp.async (16 bytes =
// 8 inputs each, zero-filled past the spectra and inputs: so the inputs
// must be a multiple of 8 for 16-byte alignment) into a 3-stage ring; each
// stage is then converted in shared memory into the same four planes the
// packed path copies (the thread of input a and 16 spectra builds its 16
// bytes of each plane), with the column inputs' imaginary sums kept in
// registers. The MMAs and the epilogue are the packed path's.

constexpr int xdr_raw_row = 2 * xtc_tile;              // one spectrum of a tile
constexpr int xdr_raw_bytes = 2 * xtc_k * xdr_raw_row; // a stage: both tiles
constexpr int xdr_stages = 3;
/*! The deeper candidate (issue 51, "few stations"): a 6-stage ring whose
 *  diagonal tiles copy their one input tile once, not as both the row and
 *  the column side: five stages in flight, 40 KiB of distinct input a
 *  block at 64 dual-pol stations, against two stages of 16 KiB that are
 *  8 KiB twice; sm_80 and sm_90 (120 KiB a block). */
constexpr int xdr_deep_stages = 6;
constexpr int xdr_smem_bytes_for(int stages)
{
    return stages * xdr_raw_bytes + xtc_stage_bytes;
}
constexpr int xdr_smem_bytes = xdr_smem_bytes_for(xdr_stages);
constexpr int xdr_copies_per_thread = xdr_raw_bytes / 16 / xtc_threads;
constexpr int xdr_max_inputs = 256; // beyond: the packed path (compute-bound)

/*! Whether the direct path takes \p n_inputs inputs. */
GPUDSP_HD bool xdr_applies(int n_inputs)
{
    return n_inputs % 8 == 0 && n_inputs <= xdr_max_inputs;
}

/*! Copy q (0 .. 1023) of stage tb: where in the raw stage, from which byte
 *  of the launch's input ([t][channel][input] char2), how many bytes are
 *  real (0 .. 16; the rest is zero-filled). */
struct xdr_copy_at {
    int smem;
    long long from;
    int bytes;
};
GPUDSP_HD xdr_copy_at xdr_copy_offsets(
    int q, int I, int J, int c, int tb, int n_time, int n_channels, int n_inputs)
{
    const int per_side = xtc_k * xdr_raw_row / 16;
    const int side = q / per_side, t = (q % per_side) / 16, chunk = q % 16;
    const int a0 = (side ? J : I) * xtc_tile + 8 * chunk, ts = tb * xtc_k + t;
    int inputs = n_inputs - a0;
    inputs = inputs < 0 ? 0 : inputs > 8 ? 8 : inputs;
    const int bytes = ts < n_time ? 2 * inputs : 0;
    const long long from =
        bytes ? (((long long)ts * n_channels + c) * n_inputs + a0) * 2 : 0;
    return { side * xtc_k * xdr_raw_row + t * xdr_raw_row + 16 * chunk, from, bytes };
}

/*! Whether copy q of a stage is skipped: the column side of a diagonal
 *  tile (I == J) where \p diag_once (its row side holds the same bytes). */
GPUDSP_HD bool xdr_copy_skipped(int q, int I, int J, bool diag_once)
{
    return diag_once && I == J && q >= xtc_k * xdr_raw_row / 16;
}

/*! Two spectra of one input, (re0, im0, re1, im1) and (re2, im2, re3, im3),
 *  as the re word (re0 .. re3) and the im word. */
GPUDSP_HD void xdr_split(uint32_t w01, uint32_t w23, uint32_t& re, uint32_t& im)
{
#ifdef __CUDA_ARCH__
    re = __byte_perm(w01, w23, 0x6420);
    im = __byte_perm(w01, w23, 0x7531);
#else
    re = (w01 & 0xff) | ((w01 >> 8) & 0xff00) | ((w23 & 0xff) << 16) |
         ((w23 & 0xff0000) << 8);
    im = ((w01 >> 8) & 0xff) | ((w01 >> 16) & 0xff00) | ((w23 & 0xff00) << 8) |
         (w23 & 0xff000000);
#endif
}

/*! Sum of four packed int8. */
GPUDSP_HD int xdr_sum_s8x4(uint32_t w)
{
    return int(int8_t(w)) + int(int8_t(w >> 8)) + int(int8_t(w >> 16)) +
           int(int8_t(w >> 24));
}

/*! The column input (0 .. 127) whose imaginary sum thread tid's
 *  conversions hold, -1 for the row side's threads. */
GPUDSP_HD int xdr_column_of(int tid)
{
    return tid >= 2 * xtc_tile ? tid % xtc_tile : -1; // threads 256 .. 511: side 1
}

/*! Thread tid's conversion of a raw stage into the planes: side tid / 256
 *  (0 rows, 1 columns), spectra 16 ((tid / 128) % 2) .. + 15 of input
 *  tid % 128 (a warp reads 64 contiguous bytes per spectrum, conflict-
 *  free, and writes 32 consecutive plane rows, 16 bytes each), both sides
 *  from the row side's raw bytes where \p one_side (a diagonal tile copied
 *  once). Returns the imaginary values' sum. */
GPUDSP_HD int xdr_convert(const unsigned char* raw,
                          unsigned char* stage,
                          int tid,
                          bool one_side = false)
{
    const int side = tid / 256, half = (tid / 128) % 2, a = tid % 128;
    const int from_side = one_side ? 0 : side;
    uint32_t re[4], im[4];
    int sum = 0;
    for (int q = 0; q < 4; ++q) {
        uint32_t v[4];
        for (int j = 0; j < 4; ++j) {
            const unsigned char* p = raw + from_side * xtc_k * xdr_raw_row +
                                     (16 * half + 4 * q + j) * xdr_raw_row + 2 * a;
#ifdef __CUDA_ARCH__
            v[j] = *reinterpret_cast<const unsigned short*>(p);
#else
            v[j] = uint32_t(p[0]) | (uint32_t(p[1]) << 8);
#endif
        }
        xdr_split(v[0] | (v[1] << 16), v[2] | (v[3] << 16), re[q], im[q]);
        sum += xdr_sum_s8x4(im[q]);
    }
    for (int part = 0; part < 2; ++part) {
        unsigned char* d = stage + xtc_smem_offset(2 * side + part, a, 16 * half);
        const uint32_t* w = part ? im : re;
#ifdef __CUDA_ARCH__
        *reinterpret_cast<uint4*>(d) = make_uint4(w[0], w[1], w[2], w[3]);
#else
        std::memcpy(d, w, 16);
#endif
    }
    return sum;
}

// ---------------------------------------------------------------------------
// The wgmma kernel (sm_90a): a block of two warpgroups owns the same
// 128 x 128 tile of input pairs; warpgroup h the rows 64 h .. 64 h + 63 and
// all 128 columns, as wgmma.m64n128k32 (s8 in, s32 accumulators: 64
// registers per thread per accumulator). Both operands come from shared
// memory through matrix descriptors, K-major (the only order int8 wgmma
// takes), without swizzling: the canonical layout of 8-row x 16-byte "core
// matrices", each 128 contiguous bytes, the two 16-byte halves of a row's 32
// spectra (K) LBO = 128 bytes apart and consecutive groups of 8 rows (M or
// N) SBO = 256 bytes apart. A stage holds 5 planes of 128 rows x 32 spectra:
// rows re, im and ~re (the complement trick's operand, written by the pack
// kernel), columns re and im.

constexpr int xwg_threads = 256; // two warpgroups
constexpr int xwg_planes = 5;
constexpr int xwg_plane_bytes = xtc_tile * xtc_k;
constexpr int xwg_stage_bytes = xwg_planes * xwg_plane_bytes;
constexpr int xwg_stages = 4; // copies run two stages ahead of the MMAs
constexpr int xwg_smem_bytes = xwg_stages * xwg_stage_bytes;
constexpr int xwg_lbo = 128;        // bytes between the K halves of a core-matrix row
constexpr int xwg_sbo = 256;        // bytes between groups of 8 rows
constexpr int xwg_n = 128;          // columns per warpgroup MMA
constexpr int xwg_regs = xwg_n / 2; // accumulator registers per thread

/*! Shared-memory byte offset, in a stage, of plane p's row r, spectrum k. */
GPUDSP_HD int xwg_smem_offset(int plane, int row, int k)
{
    return plane * xwg_plane_bytes + ((row >> 3) * 2 + (k >> 4)) * 128 + (row & 7) * 16 +
           (k & 15);
}

/*! Copy q (0 .. 1279) of a stage: plane, row, half (as xtc_copy_of, over 5
 *  planes); the packed part it reads (0 re, 1 im, 2 ~re) and whether it is
 *  from the row tile I (else the column tile J). */
constexpr int xwg_copies = xwg_planes * xtc_tile * 2;
constexpr int xwg_copies_per_thread = xwg_copies / xwg_threads;
GPUDSP_HD int xwg_part_of(int plane) { return plane < 3 ? plane : plane - 3; }
GPUDSP_HD bool xwg_row_plane(int plane) { return plane < 3; }

/*! xtc_copy_offsets for the wgmma kernel's stage (5 planes, 3 parts). */
GPUDSP_HD xtc_copy_at
xwg_copy_offsets(int q, int I, int J, int lc, int tb, int n_blocks, int a_pad)
{
    const xtc_copy c = xtc_copy_of(q);
    const int tile = xwg_row_plane(c.plane) ? I : J;
    return { xwg_smem_offset(c.plane, c.row, 16 * c.half),
             xtc_packed_offset(lc,
                               tb,
                               xwg_part_of(c.plane),
                               tile * xtc_tile + c.row,
                               16 * c.half,
                               n_blocks,
                               a_pad,
                               3) };
}

/*! The wgmma matrix descriptor of an operand starting at shared-memory
 *  address \p addr (bits 0-13: address / 16; 16-29: LBO / 16; 32-45:
 *  SBO / 16; base offset 0; bits 62-63: 0, no swizzle). */
GPUDSP_HD uint64_t xwg_desc(uint32_t addr)
{
    return uint64_t((addr & 0x3ffff) >> 4) | (uint64_t(xwg_lbo >> 4) << 16) |
           (uint64_t(xwg_sbo >> 4) << 32);
}

/*! First byte, in a stage, of warpgroup h's row operand in plane p (rows
 *  64 h ..) and of the column operand in plane p (all 128 rows). */
GPUDSP_HD int xwg_operand_offset(int plane, int h)
{
    return xwg_smem_offset(plane, 64 * h, 0);
}

/*! One stage's products for warpgroup h, the stage at shared address
 *  \p stage: re += Ar Br + Ai Bi, im += Ai Br + (~Ar) Bi, each a
 *  wgmma.m64n128k32 \p mma(d, a_desc, b_desc) on this thread's 64
 *  accumulators (the kernel's wgmma, or the test's emulation). */
template <class Mma>
GPUDSP_HD void
xwg_products(uint32_t stage, int h, int (&re)[xwg_regs], int (&im)[xwg_regs], Mma&& mma)
{
    const uint64_t ar = xwg_desc(stage + xwg_operand_offset(0, h));
    const uint64_t ai = xwg_desc(stage + xwg_operand_offset(1, h));
    const uint64_t nar = xwg_desc(stage + xwg_operand_offset(2, h));
    const uint64_t br = xwg_desc(stage + xwg_operand_offset(3, 0));
    const uint64_t bi = xwg_desc(stage + xwg_operand_offset(4, 0));
    mma(re, ar, br);
    mma(re, ai, bi);
    mma(im, ai, br);
    mma(im, nar, bi);
}

/*! Accumulator register i (0 .. 63) of a thread of warpgroup h: warp w
 *  (0-3 within the warpgroup) holds rows 16 w .. 16 w + 15 of the 64, as
 *  m16n8 tiles along the columns (PTX ISA, "wgmma register fragment D"). */
GPUDSP_HD int xwg_d_row(int w, int lane, int i)
{
    return 16 * w + (lane >> 2) + 8 * ((i >> 1) & 1);
}
GPUDSP_HD int xwg_d_col(int lane, int i)
{
    return 8 * (i >> 2) + 2 * (lane & 3) + (i & 1);
}

/*! The epilogue's addresses for pair (a, b), a >= b, of channel
 *  channel0 + lc: the int32 partials' offset ([channel][pair][re, im]) and
 *  the column input's imaginary sum in the launch's [lc][a_pad] sums. */
struct xtc_pair_at {
    long long partial;
    long long im_sum;
};
GPUDSP_HD xtc_pair_at
xtc_pair_addresses(int channel0, int lc, int a, int b, int n_inputs, int a_pad)
{
    const long long pairs = (long long)n_inputs * (n_inputs + 1) / 2;
    return { ((long long)(channel0 + lc) * pairs + (long long)a * (a + 1) / 2 + b) * 2,
             (long long)lc * a_pad + b };
}

/*! Spectra per launch and channels per launch of the packed path, for a
 *  workspace of \p budget bytes (xengine_tc_workspace): the spectra a call
 *  brings, in blocks of 32, within xtc_max_spectra, and within what leaves
 *  room for enough channels that the launch has xtc_min_blocks blocks of
 *  \p tile_pairs each (0: spectra first, however few the channels); then
 *  as many channels as fit. A launch of s spectra does s / 2 operations per
 *  byte of partial sums it reads and writes: 1024 at the least here for
 *  S >= 128, above the H100's ridge (~590). */
struct xtc_launch_shape {
    int spectra;  // per launch, a multiple of 32
    int channels; // per launch
};
constexpr int xtc_min_blocks = 512; // ~4 waves of 132 SMs at one block each
constexpr int xtc_min_launch_spectra = 2048;
inline xtc_launch_shape xtc_launch_shape_for(std::size_t n,
                                             int n_channels,
                                             int n_inputs,
                                             std::size_t budget,
                                             int n_parts = 2,
                                             unsigned tile_pairs = 0)
{
    const std::size_t per_spectrum = n_parts * std::size_t(xtc_padded_inputs(n_inputs));
    std::size_t s = (n + xtc_k - 1) / xtc_k * xtc_k;
    s = s < std::size_t(xtc_max_spectra) ? s : std::size_t(xtc_max_spectra);
    if (tile_pairs > 0) {
        // Channels for xtc_min_blocks blocks, but never fewer spectra than
        // xtc_min_launch_spectra for them.
        std::size_t want_ch = (xtc_min_blocks + tile_pairs - 1) / tile_pairs;
        want_ch = want_ch < std::size_t(n_channels) ? want_ch : std::size_t(n_channels);
        std::size_t room = budget / (per_spectrum * want_ch) / xtc_k * xtc_k;
        room = room > std::size_t(xtc_min_launch_spectra)
                   ? room
                   : std::size_t(xtc_min_launch_spectra);
        s = s < room ? s : room;
    }
    const std::size_t fit = budget / per_spectrum / xtc_k * xtc_k;
    s = s < fit ? s : fit;
    if (s < std::size_t(xtc_k))
        s = xtc_k;
    std::size_t ch = budget / (per_spectrum * s);
    ch = ch < std::size_t(n_channels) ? ch : std::size_t(n_channels);
    ch = ch < 65535 ? ch : 65535;
    return { int(s), int(ch ? ch : 1) };
}

/*! The packed path's workspace: the packed copy (\p n_parts planes; 3, the
 *  wgmma kernel's, where the device is not known yet) of the longest launch
 *  (xtc_max_spectra) of every channel, within 256 MiB, at least one block
 *  of 32 spectra of one channel; plus the imaginary sums. */
inline std::size_t xengine_tc_workspace(int n_channels, int n_inputs, int n_parts = 3)
{
    const std::size_t per_spectrum = n_parts * std::size_t(xtc_padded_inputs(n_inputs));
    std::size_t want = per_spectrum * xtc_max_spectra * std::size_t(n_channels);
    const std::size_t cap = std::size_t(256) << 20;
    want = want < cap ? want : cap;
    const std::size_t least = per_spectrum * xtc_k;
    return want > least ? want : least;
}
inline std::size_t xengine_tc_sums_bytes(int n_channels, int n_inputs)
{
    return std::size_t(n_channels) * xtc_padded_inputs(n_inputs) * sizeof(int32_t);
}

} // namespace kernels
} // namespace gpudsp
} // namespace gr

#endif
