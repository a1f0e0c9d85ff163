/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Internal: the X-engine's Gram form (docs/xengine.md, "Gram form"), the
// library candidate: index arithmetic shared by the CUDA kernels
// (xengine_gram.cu) and qa_xengine_gram, which emulates the form's data flow
// on the host against the int64 definition.
//
// Per channel, a matrix Y of R rows (R = 2A rounded up to 16, zero rows
// past 2A): row 2a holds the real parts of input a, row 2a + 1 its
// imaginary parts, over the launch's spectra (time contiguous, padded with
// zero spectra to a multiple of 32: cuBLASLt's int8 kernels want K and the
// leading dimension aligned). G = Y Y^T is a plain int8 GEMM with int32
// sums (cuBLASLt, batched over channels). For a >= b:
//   re = G(2a, 2b)     + G(2a+1, 2b+1)   = sum Ar Br + Ai Bi
//   im = G(2a+1, 2b)   - G(2a, 2b+1)     = sum Ai Br - Ar Bi
// Nothing is negated, so -128 is exact, with no complemented plane and no
// imaginary sums. Each G entry gains at most 128^2 per spectrum and (re, im)
// at most 2 * 128^2, so a launch of up to xengine_int32_spectra spectra is
// exact in int32, as the partials it adds to.
//
// G is symmetric (exact integer sums), so the combine reads columns 2a and
// 2a + 1 at rows 2b, 2b + 1: for consecutive b (consecutive pairs of the
// triangle) those are consecutive 8-byte words, and the partials' (re, im)
// words are consecutive too.

#ifndef INCLUDED_GPUDSP_KERNELS_XENGINE_GRAM_H
#define INCLUDED_GPUDSP_KERNELS_XENGINE_GRAM_H

#include "kernels/common/host_device.h"
#include "xengine_tile.h"
#include <cmath>
#include <cstddef>
#include <cstdint>

namespace gr {
namespace gpudsp {
namespace kernels {

constexpr int xgr_k = 32;           // spectra padding (and the pack's block)
constexpr int xgr_row_align = 16;   // rows of Y padding
constexpr int xgr_pack_inputs = 64; // inputs per pack block (128 rows)
constexpr int xgr_pack_threads = 256;
constexpr int xgr_pack_pitch = xgr_k + 8; // bytes per row of a staged plane

/*! Rows of Y for \p n_inputs inputs. */
GPUDSP_HD int xgr_rows(int n_inputs)
{
    return (2 * n_inputs + xgr_row_align - 1) / xgr_row_align * xgr_row_align;
}

/*! Byte offset in the launch's Y of (launch channel lc, row, spectrum t),
 *  spectra padded to \p t_pad. */
GPUDSP_HD std::size_t xgr_y_offset(int lc, int row, int t, int n_rows, int t_pad)
{
    return ((std::size_t)lc * n_rows + row) * t_pad + t;
}

/*! Element offset in the launch's G of (launch channel lc, row i, column j),
 *  column-major as cuBLASLt writes it (ld = n_rows). */
GPUDSP_HD std::size_t xgr_g_offset(int lc, int i, int j, int n_rows)
{
    return ((std::size_t)lc * n_rows + j) * n_rows + i;
}

/*! The pack block (input group g, spectrum block tb)'s load e (0 ..
 *  xgr_k * xgr_pack_inputs - 1): consecutive e read consecutive inputs of
 *  one spectrum. Returns the input's char2 index in [t][channel][input], or
 *  -1 past the spectra or inputs (a zero is staged); \p a_local and \p tt
 *  say where it is staged. */
GPUDSP_HD long long xgr_pack_load(int e,
                                  int g,
                                  int tb,
                                  int c,
                                  int n_time,
                                  int n_channels,
                                  int n_inputs,
                                  int& a_local,
                                  int& tt)
{
    tt = e / xgr_pack_inputs;
    a_local = e % xgr_pack_inputs;
    const int t = tb * xgr_k + tt, a = g * xgr_pack_inputs + a_local;
    return (t < n_time && a < n_inputs) ? ((long long)t * n_channels + c) * n_inputs + a
                                        : -1;
}

/*! The pack block (input group g)'s store u (0 .. 2 * xgr_pack_inputs * 4
 *  - 1): its staged row (2 a_local + part), the row of Y it becomes, and
 *  which 8-byte quarter of the 32 spectra. */
GPUDSP_HD void xgr_pack_store(int u, int g, int& row_local, int& row, int& quarter)
{
    row_local = u / 4;
    row = 2 * xgr_pack_inputs * g + row_local;
    quarter = u % 4;
}

/*! Byte offset of the launch's G in the workspace: after the Y of its \p nc
 *  channels (a multiple of 512 bytes: R of 16, t_pad of 32). */
GPUDSP_HD std::size_t xgr_g_bytes_offset(int nc, int n_rows, int t_pad)
{
    return std::size_t(nc) * n_rows * t_pad;
}

/*! Pair k (0 .. A (A + 1) / 2 - 1) of the triangle back to (a, b), a >= b:
 *  exact for every k below 2^53 (a square-root estimate, then integer
 *  corrections). */
GPUDSP_HD void xgr_pair(long long k, int& a, int& b)
{
    long long i = (long long)((sqrt(8.0 * double(k) + 1.0) - 1.0) * 0.5);
    while (i * (i + 1) / 2 > k)
        --i;
    while ((i + 1) * (i + 2) / 2 <= k)
        ++i;
    a = int(i);
    b = int(k - i * (i + 1) / 2);
}

/*! Adds pair (a, b)'s visibility from G (columns 2a and 2a + 1, rows 2b and
 *  2b + 1: \p col_re = (G(2b, 2a), G(2b+1, 2a)), \p col_im = (G(2b, 2a+1),
 *  G(2b+1, 2a+1))) to its int32 partials (re, im), modulo 2^32 as the other
 *  forms' int32 adds. */
GPUDSP_HD void xgr_combine(
    int32_t g_b_a, int32_t g_b1_a, int32_t g_b_a1, int32_t g_b1_a1, int32_t (&p)[2])
{
    // By symmetry G(2b, 2a) = G(2a, 2b): Ar.Br; G(2b+1, 2a+1): Ai.Bi;
    // G(2b, 2a+1) = G(2a+1, 2b): Ai.Br; G(2b+1, 2a) = G(2a, 2b+1): Ar.Bi.
    const uint32_t re = uint32_t(g_b_a) + uint32_t(g_b1_a1);
    const uint32_t im = uint32_t(g_b_a1) - uint32_t(g_b1_a);
    p[0] = int32_t(uint32_t(p[0]) + re);
    p[1] = int32_t(uint32_t(p[1]) + im);
}

/*! Spectra (padded) and channels per launch of the Gram form within a
 *  workspace of \p budget bytes (Y, and G where \p with_g: cuBLASLt's path
 *  writes G; the persistent kernel, xengine_ws.h, adds its tiles straight
 *  to the partials): all the call's spectra if one channel fits with them,
 *  then as many channels as fit (at most 65535). spectra == 0: not even
 *  one channel of 32 spectra fits. */
struct xgr_launch_shape {
    int spectra;  // padded spectra per launch, a multiple of xgr_k
    int channels; // per launch
};
GPUDSP_HD std::size_t xgr_channel_bytes(int n_inputs, int t_pad, bool with_g = true)
{
    const std::size_t r = std::size_t(xgr_rows(n_inputs));
    return r * std::size_t(t_pad) + (with_g ? r * r * sizeof(int32_t) : 0);
}
inline xgr_launch_shape xgr_launch_shape_for(
    std::size_t n, int n_channels, int n_inputs, std::size_t budget, bool with_g = true)
{
    const std::size_t r = std::size_t(xgr_rows(n_inputs));
    const std::size_t g = with_g ? r * r * sizeof(int32_t) : 0;
    if (budget < g + r * xgr_k)
        return { 0, 0 };
    std::size_t s = (n + xgr_k - 1) / xgr_k * xgr_k;
    if (s < std::size_t(xgr_k))
        s = xgr_k;
    const std::size_t fit = (budget - g) / r / xgr_k * xgr_k;
    s = s < fit ? s : fit;
    std::size_t ch = budget / xgr_channel_bytes(n_inputs, int(s), with_g);
    ch = ch < std::size_t(n_channels) ? ch : std::size_t(n_channels);
    ch = ch < 65535 ? ch : 65535;
    return { int(s), int(ch) };
}

/*! The Gram form's workspace (Y, and G where \p with_g) for a plan: every
 *  channel's 8192 spectra within 256 MiB, and always one channel of 8192
 *  (so that a launch never holds fewer spectra than the call brings, up to
 *  8192: at 4096 inputs one channel's G alone is 256 MiB). */
constexpr int xgr_launch_spectra = 8192;
inline std::size_t xgr_workspace(int n_channels, int n_inputs, bool with_g = true)
{
    const std::size_t one = xgr_channel_bytes(n_inputs, xgr_launch_spectra, with_g);
    std::size_t want = one * std::size_t(n_channels);
    const std::size_t cap = std::size_t(256) << 20;
    want = want < cap ? want : cap;
    return want > one ? want : one;
}

// ---- The Gram form on mma.sync (sm_80 and later: "mma.sync gram") ----
//
// Our kernel for the GPUs before Hopper, with the persistent Hopper kernel's
// formulation and epilogue idea (xengine_ws.h): Y from the pack, tiles of
// 128 x 128 rows of the lower triangle (xws_tile_at's list with BN = 128),
// one block of 8 warps a tile; stages of 64 spectra of both sides copied by
// 16-byte cp.async into a 3-stage ring (rows padded to 80 bytes: a warp's
// fragment loads fall in 32 banks); warp w computes rows 64 (w / 4) .. of
// the tile by columns 32 (w % 4) .. as 4 x 4 mma.sync.m16n8k32 (s8, s32
// accumulators); the epilogue combines (re, im) with one shuffle (lane ^ 4
// holds the other row of the same input, as in wgmma's fragment) and adds
// each result to the partials with a fire-and-forget atomic (RED): no
// read-modify-write in the kernel.

constexpr int xgm_threads = 256;
constexpr int xgm_tile = 128;         // rows of Y a side
constexpr int xgm_k = 64;             // spectra a stage
constexpr int xgm_pitch = xgm_k + 16; // bytes a staged row
constexpr int xgm_stages = 3;
constexpr int xgm_side_bytes = xgm_tile * xgm_pitch;
constexpr int xgm_stage_bytes = 2 * xgm_side_bytes;
constexpr int xgm_smem_bytes = xgm_stages * xgm_stage_bytes; // 60 KiB
constexpr int xgm_regs = 64; // accumulators a thread: 4 x 4 tiles of 16 x 8

/*! Copy e (0 .. 2 * xgm_tile * xgm_k / 16 - 1) of a stage: side (0: A
 *  rows, 1: B rows), its row and 16-byte chunk; consecutive e take
 *  consecutive chunks of a row (coalesced reads of Y). */
struct xgm_copy {
    int side, row, chunk;
};
GPUDSP_HD xgm_copy xgm_copy_of(int e)
{
    constexpr int chunks = xgm_k / 16;
    return { e / (xgm_tile * chunks), e / chunks % xgm_tile, e % chunks };
}

/*! Byte offset in a stage of (side, row, spectrum byte k). */
GPUDSP_HD int xgm_smem_offset(int side, int row, int k)
{
    return side * xgm_side_bytes + row * xgm_pitch + k;
}

/*! Warp w's accumulator r = 4 (4 mi + nj) + i (m16 tile mi, n8 tile nj,
 *  register i of the m16n8k32 fragment: xengine_tile.h, xtc_c_row and
 *  xtc_c_col, the PTX ISA's table): its row and column in the tile (warp
 *  w's rows 64 (w / 4) .., columns 32 (w % 4) ..). */
GPUDSP_HD int xgm_row_of(int w, int lane, int r)
{
    return 64 * (w >> 2) + 16 * (r >> 4) + xtc_c_row(lane, r & 3);
}
GPUDSP_HD int xgm_col_of(int w, int lane, int r)
{
    return 32 * (w & 3) + 8 * ((r >> 2) & 3) + xtc_c_col(lane, r & 3);
}

} // namespace kernels
} // namespace gpudsp
} // namespace gr

#endif
