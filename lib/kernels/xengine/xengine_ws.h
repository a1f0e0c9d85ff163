/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Internal: the X-engine's persistent warp-specialized Gram kernel for
// Hopper (xengine_ws.cu, docs/xengine.md "wgmma gram"): the index arithmetic
// that the kernel and qa_xengine_gram (which emulates its data flow on the
// host) share.
//
// The kernel forms the lower triangle of G = Y Y^T (Y: the Gram form's rows,
// xengine_gram.h: row 2a the real parts of input a, row 2a + 1 its
// imaginary parts, spectra contiguous) tile by tile and adds each tile's
// (re, im) pairs straight into the int32 partials:
//  - a tile is 128 rows of Y (64 inputs, the A side) by BN rows (BN / 2
//    inputs, the B side), BN = 128 or 256; the tiles of every launch channel
//    on or below the diagonal form one list that a persistent grid walks
//    (tile t, t + gridDim.x, ...);
//  - one producer thread streams stages of 128 spectra of both sides with
//    the tensor-memory accelerator (TMA, 128-byte swizzle) into a ring of
//    shared memory, signalling each stage's arrival on an mbarrier; a
//    diagonal tile, whose A rows lie inside its B rows, loads B only;
//  - two MMA warpgroups (rows 0..63 and 64..127) issue four
//    wgmma.m64nBNk32 a stage from the swizzled operands and free each stage
//    when its MMAs are done;
//  - the epilogue combines (re, im) in registers (a thread holds G(r, 2b)
//    and G(r, 2b + 1) for one row r; the other row of the same input is in
//    lane ^ 4: one shuffle), stages them in shared memory as the runs of
//    consecutive pairs that the partials hold, and adds each run with one
//    bulk reduction copy (cp.reduce.async.bulk .add.s32), asynchronous: the
//    warpgroup goes on with its next tile while the copies run. A run's
//    first and last pair, where not 16-byte aligned, are added by atomics.

#ifndef INCLUDED_GPUDSP_KERNELS_XENGINE_WS_H
#define INCLUDED_GPUDSP_KERNELS_XENGINE_WS_H

#include "kernels/common/host_device.h"
#include "xengine_gram.h"
#include <cmath>
#include <cstddef>
#include <cstdint>

namespace gr {
namespace gpudsp {
namespace kernels {

constexpr int xws_bm = 128;       // rows of Y on a tile's A side (64 inputs)
constexpr int xws_bk = 128;       // spectra a stage: one 128-byte swizzled row
constexpr int xws_box_rows = 128; // rows of one TMA box (16 KiB)
constexpr int xws_k_step = 32;    // spectra per wgmma (m64nBNk32)
constexpr int xws_threads = 384;  // a producer warpgroup, two MMA warpgroups
constexpr int xws_consumer_warps = 8;  // arrive on a stage's "empty" barrier
constexpr int xws_rows_per_wg = 64;    // rows of Y per MMA warpgroup
constexpr int xws_inputs_per_wg = 32;  // inputs: the rows of its staging
constexpr int xws_smem_limit = 232448; // 227 KiB: sm_90's opt-in maximum

/*! A staging row of a warpgroup's results with \p n B rows (n / 2 inputs):
 *  the run of pairs, shifted by one where the run starts on an odd pair (so
 *  that it and the partials agree modulo 16 bytes), rounded to 16 bytes. */
GPUDSP_HD constexpr int xws_staging_pitch(int n) { return (n / 2 + 2) * 8; }

/*! Shared memory of the kernel with BN-row B tiles: the stage ring, the two
 *  warpgroups' staging, the mbarriers. BN = 128: 6 stages of 32 KiB;
 *  BN = 256: 3 stages of 48 KiB (staging takes the rest). DIRECT (the
 *  producer warpgroup packs the F-engine's layout itself, BN = 128): 3
 *  operand stages and a ring of 3 raw stages (two stages' copies, up to
 *  64 KiB, in flight while one is transposed: the few-stations case is
 *  memory-bound, and bandwidth x latency asks ~25 KiB of each SM). */
template <int BN, bool DIRECT = false>
struct xws_shape {
    static_assert(BN == 128 || BN == 256, "B tiles of 128 or 256 rows");
    static_assert(!DIRECT || BN == 128, "the direct kernel has B tiles of 128 rows");
    static constexpr int stages = DIRECT ? 3 : BN == 256 ? 3 : 6;
    static constexpr int raw_stages = DIRECT ? 3 : 0;
    // setmaxnreg: the producer warpgroup gives registers to the MMA
    // warpgroups (the direct kernel's producer transposes a box's two
    // blocks with their 16 loads in flight: it keeps more).
    // The block's pool is its registers at entry (168, __launch_bounds__
    // (384, 1)) x 384 threads; the MMA warpgroups' increase waits for ever
    // on a smaller one.
    static constexpr int producer_regs = DIRECT ? 104 : 40;
    static constexpr int mma_regs = DIRECT ? 200 : 232;
    static constexpr int entry_regs =
        (128 * producer_regs + 256 * mma_regs) / xws_threads;
    static_assert(entry_regs * xws_threads == 128 * producer_regs + 256 * mma_regs &&
                      entry_regs == 168,
                  "the split uses the whole pool of 168 registers a thread");
    static constexpr int a_bytes = xws_bm * xws_bk;
    static constexpr int b_bytes = BN * xws_bk;
    static constexpr int stage_bytes = a_bytes + b_bytes;
    static constexpr int regs = BN / 2; // int32 accumulators a thread
    static constexpr int staging_pitch = xws_staging_pitch(BN);
    static constexpr int staging_bytes = xws_inputs_per_wg * staging_pitch;
    static constexpr int ring_bytes = (stages + raw_stages) * stage_bytes;
    static constexpr int barrier_bytes = (2 * stages + raw_stages) * 8;
    // 1024 bytes of slack to align the ring (the 128-byte swizzle's atom).
    static constexpr int smem_bytes =
        1024 + ring_bytes + 2 * staging_bytes + barrier_bytes;
    static_assert(smem_bytes <= xws_smem_limit, "fits sm_90's shared memory");
    static_assert(staging_pitch % 16 == 0, "bulk copies start 16-byte aligned");
    static_assert(a_bytes % 1024 == 0 && b_bytes % 1024 == 0, "swizzle atoms");
};

/*! Row blocks of xws_bm rows for \p rows rows of Y. */
GPUDSP_HD int xws_row_blocks(int rows) { return (rows + xws_bm - 1) / xws_bm; }

/*! Tiles of one channel in row blocks 0 .. I - 1: block i has the tiles
 *  J = 0 .. i * 128 / BN (those with a B row at or below an A row). */
GPUDSP_HD long long xws_tiles_before(long long I, int bn)
{
    const long long q = bn / xws_bm, m = I / q, r = I % q;
    return I + q * m * (m - 1) / 2 + r * m;
}

/*! Tiles a launch channel has with \p rows rows of Y. */
GPUDSP_HD long long xws_tiles_per_channel(int rows, int bn)
{
    return xws_tiles_before(xws_row_blocks(rows), bn);
}

struct xws_tile {
    int lc;     // launch channel
    int i;      // A row block (rows 128 i ..)
    int j;      // B tile (rows BN j ..)
    bool inner; // the A rows lie inside the B rows: load B only
    int a_in_b; // then: the A rows' first row within B
};

/*! Tile \p t of the launch's list: channel-major, then row block I, then J
 *  (tiles of a channel consecutive, so that a wave shares rows in L2). */
GPUDSP_HD xws_tile xws_tile_at(long long t, long long per_channel, int bn)
{
    xws_tile w;
    w.lc = int(t / per_channel);
    const long long u = t - (long long)w.lc * per_channel;
    // xws_tiles_before(I) ~ I^2 * 128 / (2 BN): an estimate, then exact
    // integer corrections.
    long long i = (long long)sqrt(2.0 * double(u) * double(bn) / xws_bm);
    while (i > 0 && xws_tiles_before(i, bn) > u)
        --i;
    while (xws_tiles_before(i + 1, bn) <= u)
        ++i;
    w.i = int(i);
    w.j = int(u - xws_tiles_before(i, bn));
    const int a0 = w.i * xws_bm, b0 = w.j * bn;
    w.inner = a0 >= b0 && a0 + xws_bm <= b0 + bn;
    w.a_in_b = w.inner ? a0 - b0 : 0;
    return w;
}

/*! Byte offset, in a TMA box or operand of 128-byte rows whose base is
 *  1024-byte aligned, of (row, spectrum byte k): the 128-byte swizzle moves
 *  16-byte chunk k / 16 to chunk (k / 16) ^ (row % 8) (CUTLASS's
 *  Swizzle<3, 4, 3>: address bits 4..6 XOR bits 7..9). Both what TMA's
 *  CU_TENSOR_MAP_SWIZZLE_128B writes and what wgmma reads through a
 *  128-byte-swizzle descriptor. */
GPUDSP_HD int xws_sw128(int row, int k)
{
    return row * 128 + ((((k >> 4) ^ row) & 7) << 4) + (k & 15);
}

/*! wgmma matrix descriptor of a K-major operand in the 128-byte swizzled
 *  layout at shared address \p addr (PTX ISA, "Matrix Descriptor"): start
 *  address >> 4 in bits 0-13, leading byte offset (unused for swizzled
 *  K-major operands; 1 by convention) in 16-29, stride byte offset (1024:
 *  between groups of 8 rows) >> 4 in 32-45, base offset 0 (bits 49-51: the
 *  operands are 1024-byte aligned), swizzle mode 1 (128 bytes) in 62-63.
 *  Each k32 step adds 32 bytes to the start address: 2 to the descriptor. */
GPUDSP_HD uint64_t xws_desc(uint32_t addr)
{
    return uint64_t((addr & 0x3ffff) >> 4) | (uint64_t(1) << 16) |
           (uint64_t(1024 >> 4) << 32) | (uint64_t(1) << 62);
}

/*! The shared-memory byte that a wgmma reads through descriptor \p desc for
 *  operand row \p row (0 .. 63 for A, 0 .. BN - 1 for B) and byte \p k of
 *  its 32 (the PTX ISA's canonical K-major SW128 layout: rows 128 bytes
 *  apart within groups of 8, groups SBO apart, then the address swizzle).
 *  The host emulation reads operands through it. */
GPUDSP_HD uint32_t xws_desc_element(uint64_t desc, int row, int k)
{
    const uint32_t start = uint32_t(desc & 0x3fff) << 4;
    const uint32_t sbo = uint32_t((desc >> 32) & 0x3fff) << 4;
    const uint32_t addr = start + uint32_t(row >> 3) * sbo + uint32_t(row & 7) * 128 + k;
    return addr ^ (((addr >> 7) & 7) << 4);
}

/*! Where accumulator \p i of (warp \p w of the warpgroup, \p lane) lands
 *  after the combine: a thread of an even row (2a: real parts) keeps re of
 *  the pair (a, b), one of an odd row im. \p a_local: the input within the
 *  warpgroup's 32 (its staging row); \p b_local: within the tile's BN / 2;
 *  \p part: 0 re, 1 im. Only even \p i carry a result (i + 1 is what the
 *  partner lane needs). */
struct xws_result_at {
    int a_local, b_local, part;
};
GPUDSP_HD xws_result_at xws_result(int w, int lane, int i)
{
    // The m64nN accumulator fragment: row 16 w + lane / 4 + 8 ((i / 2) % 2),
    // column 8 (i / 4) + 2 (lane % 4) + i % 2 (xwg_d_row, xwg_d_col).
    const int row = 16 * w + (lane >> 2) + 8 * ((i >> 1) & 1);
    const int col = 8 * (i >> 2) + 2 * (lane & 3);
    return { row >> 1, col >> 1, row & 1 };
}

/*! The combine of one thread's accumulators i (even) and i + 1 with the
 *  partner lane's (lane ^ 4) accumulator i + 1: an even row's thread holds
 *  G(re a, re b), G(re a, im b), an odd row's G(im a, re b), G(im a, im b):
 *    re = G(re a, re b) + G(im a, im b),  im = G(im a, re b) - G(re a, im b).
 *  Modulo 2^32, as every form's int32 adds. */
GPUDSP_HD int32_t xws_combine(int part, int32_t own0, int32_t partner1)
{
    return part == 0 ? int32_t(uint32_t(own0) + uint32_t(partner1))
                     : int32_t(uint32_t(own0) - uint32_t(partner1));
}

/*! The run of pairs that staging row a_local holds: pairs (a, b0 .. b0 +
 *  n - 1) of the launch channel's partials, consecutive there; split into
 *  a head pair (when the run starts on an odd pair: not 16-byte aligned),
 *  a body of whole 16-byte pairs of pairs (one bulk reduction copy) and a
 *  tail pair. \p pair0: the run's first pair index in the partials,
 *  counting every channel before (its parity decides the head). */
struct xws_run {
    int n;     // pairs in the run (0: none)
    int shift; // staging index of b_local is b_local + shift
    int head;  // 1: pair b0 by atomics
    int body;  // pairs from b0 + head by the bulk copy (even)
    int tail;  // 1: pair b0 + head + body by atomics
    long long pair0;
};
GPUDSP_HD xws_run
xws_row_run(int a, int b0, int bn, int n_inputs, long long channel_pairs0)
{
    xws_run r{};
    int end = b0 + bn / 2;
    end = end < a + 1 ? end : a + 1;
    r.n = a < n_inputs && end > b0 ? end - b0 : 0;
    r.pair0 = channel_pairs0 + (long long)a * (a + 1) / 2 + b0;
    r.shift = int(r.pair0 & 1);
    r.head = r.n > 0 ? r.shift : 0;
    r.body = (r.n - r.head) & ~1;
    r.tail = r.n - r.head - r.body;
    return r;
}

/*! Byte offset of (a_local, b_local, part) in a warpgroup's staging of
 *  results with \p N B rows. */
template <int N>
GPUDSP_HD int xws_staging_offset(int a_local, int b_local, int part, int shift)
{
    return a_local * xws_staging_pitch(N) + (b_local + shift) * 8 + part * 4;
}

/*! The tensor map of a launch's Y (uint8, 3-D): spectra (t_pad,
 *  contiguous), rows (R), channels (nc); boxes of 128 spectra x 128 rows x
 *  1 channel, 128-byte swizzle. Past the spectra and rows TMA fills zeros. */
struct xws_map_shape {
    uint64_t dims[3];
    uint64_t strides[2]; // bytes, of dims 1 and 2
    uint32_t box[3];
};
GPUDSP_HD xws_map_shape xws_map_for(int t_pad, int n_rows, int nc)
{
    return { { uint64_t(t_pad), uint64_t(n_rows), uint64_t(nc) },
             { uint64_t(t_pad), uint64_t(t_pad) * uint64_t(n_rows) },
             { uint32_t(xws_bk), uint32_t(xws_box_rows), 1u } };
}

/*! Stages (of xws_bk spectra) of a launch of \p t_pad spectra. */
GPUDSP_HD int xws_k_blocks(int t_pad) { return (t_pad + xws_bk - 1) / xws_bk; }

/*! Bytes that stage loads of tile \p w bring (the mbarrier's transaction
 *  count): its B boxes that start inside the rows (a box past them is not
 *  issued: its columns are inputs past the last, which no pair reads), and
 *  its A box unless the A rows lie inside B. */
GPUDSP_HD int xws_stage_tx(const xws_tile& w, int bn, int n_rows, int& b_boxes)
{
    b_boxes = 0;
    for (int q = 0; q < bn / xws_box_rows; ++q)
        if (w.j * bn + q * xws_box_rows < n_rows)
            ++b_boxes;
    return (b_boxes + (w.inner ? 0 : 1)) * xws_box_rows * xws_bk;
}

// ---- The direct variant: the producer warpgroup packs ----
//
// No pack pass through memory: TMA copies boxes of the input as the
// F-engine writes it ([spectrum][channel][input][re, im], int8) into a ring
// of raw stages, 128 spectra x 128 bytes (64 inputs) a box, zeros past the
// spectra and inputs; the producer warpgroup's 128 threads transpose each
// box into the operand's K-major swizzled layout (byte b of a spectrum's
// 128 is row b of Y's block: row 2a + part), 8 x 8 bytes at a time in
// registers, and signal the operand stage; the MMA warpgroups are the Gram
// kernel's. 2 bytes of DRAM traffic a complex sample, for any number of
// inputs (a multiple of 8: TMA's 16-byte strides).

/*! The tensor map of a call's input x (uint8, 3-D): bytes of a spectrum's
 *  channel (2A, contiguous), channels (C), spectra (n); boxes of 128 bytes
 *  x 1 channel x 128 spectra, no swizzle. */
GPUDSP_HD xws_map_shape xwd_map_for(int n_spectra, int n_channels, int n_inputs)
{
    const uint64_t row = 2 * uint64_t(n_inputs);
    return { { row, uint64_t(n_channels), uint64_t(n_spectra) },
             { row, row * uint64_t(n_channels) },
             { 128u, 1u, uint32_t(xws_bk) } };
}

/*! Byte offset in a raw box of (spectrum t, byte b). */
GPUDSP_HD int xwd_raw_offset(int t, int b) { return t * 128 + b; }

/*! The 8 x 8-byte block u (0 .. 255) of a box: spectra 8 tb .., bytes
 *  (rows of Y) 8 rb ... Consecutive u take distinct rb and tb (a diagonal),
 *  so that 16 lanes' 8-byte loads (rows t, bytes 8 rb: banks by rb) and
 *  stores (rows 8 rb + j, swizzled chunk (tb / 2) ^ j, half tb % 2) each
 *  fall in 32 different banks. */
GPUDSP_HD void xwd_block(int u, int& tb, int& rb)
{
    rb = u % 16;
    tb = (u % 16 + u / 16) % 16;
}

/*! A producer thread's two blocks of every box, xwd_block(ptid) and
 *  xwd_block(ptid + 128) (the same rb; tb and tb ^ 8): block k's raw rows
 *  at load[k] + 128 i (i = 0 .. 7) and its rows of Y at
 *  xwd_store_offset(store[k], j) (j = 0 .. 7). The same every stage and
 *  box, so the kernel computes them once, and a stage's addresses are
 *  immediates and one XOR a row. */
struct xwd_thread_blocks {
    int load[2];
    int store[2];
};

/*! Block u's raw rows at load + 128 i and its rows of Y at
 *  xwd_store_offset(store, j). */
struct xwd_block_at {
    int load;
    int store;
};
GPUDSP_HD xwd_block_at xwd_block_of(int u)
{
    int tb, rb;
    xwd_block(u, tb, rb);
    return { xwd_raw_offset(8 * tb, 8 * rb), xws_sw128(8 * rb, 8 * tb) };
}

GPUDSP_HD xwd_thread_blocks xwd_blocks_of(int ptid)
{
    xwd_thread_blocks b{};
    for (int k = 0; k < 2; ++k) {
        const xwd_block_at at = xwd_block_of(ptid + 128 * k);
        b.load[k] = at.load;
        b.store[k] = at.store;
    }
    return b;
}

/*! Offset of row 8 rb + j of a block whose row 8 rb is at \p base
 *  (xws_sw128(8 rb, 8 tb)): the swizzle XORs the 16-byte chunk with the
 *  row's low three bits, j, and the row adds 128 j. */
GPUDSP_HD int xwd_store_offset(int base, int j) { return (base ^ (j << 4)) + j * 128; }

/*! Iteration it of a block's walk over its tiles (k_blocks stages each) and
 *  a ring of \p ring slots, advanced by counters instead of divisions:
 *  tile = it / k_blocks, kb = it % k_blocks, slot = it % ring and
 *  phase = (it / ring) & 1. advance() says whether the tile changed. */
struct xwd_walk {
    long long tile = 0;
    int kb = 0;
    int slot = 0;
    uint32_t phase = 0;

    GPUDSP_HD bool advance(int k_blocks, int ring)
    {
        if (++slot == ring) {
            slot = 0;
            phase ^= 1;
        }
        if (++kb < k_blocks)
            return false;
        kb = 0;
        ++tile;
        return true;
    }
};

/*! __byte_perm: byte k of the result is byte (s >> 4k) & 7 of {y, x}. */
GPUDSP_HD uint32_t xwd_prmt(uint32_t x, uint32_t y, uint32_t s)
{
#ifdef __CUDA_ARCH__
    return __byte_perm(x, y, s);
#else
    const uint64_t both = (uint64_t(y) << 32) | x;
    uint32_t r = 0;
    for (int k = 0; k < 4; ++k)
        r |= uint32_t((both >> (8 * ((s >> (4 * k)) & 7))) & 0xff) << (8 * k);
    return r;
#endif
}

/*! The 4 x 4 byte transpose of words w: byte i of v[j] is byte j of w[i]. */
GPUDSP_HD void xwd_transpose4(uint32_t w0,
                              uint32_t w1,
                              uint32_t w2,
                              uint32_t w3,
                              uint32_t& v0,
                              uint32_t& v1,
                              uint32_t& v2,
                              uint32_t& v3)
{
    const uint32_t a0 = xwd_prmt(w0, w1, 0x5140), a1 = xwd_prmt(w0, w1, 0x7362);
    const uint32_t b0 = xwd_prmt(w2, w3, 0x5140), b1 = xwd_prmt(w2, w3, 0x7362);
    v0 = xwd_prmt(a0, b0, 0x5410);
    v1 = xwd_prmt(a0, b0, 0x7632);
    v2 = xwd_prmt(a1, b1, 0x5410);
    v3 = xwd_prmt(a1, b1, 0x7632);
}

/*! The 8 x 8 byte transpose: in[2 i], in[2 i + 1] bytes 0-3 and 4-7 of raw
 *  row i (spectrum t0 + i, bytes b0 ..); out[2 j], out[2 j + 1] bytes 0-3
 *  and 4-7 of Y's row b0 + j (spectra t0 ..). 32 byte permutes. */
GPUDSP_HD void xwd_transpose8(const uint32_t (&in)[16], uint32_t (&out)[16])
{
    for (int h = 0; h < 2; ++h) {     // bytes 4 h .. of the raw rows
        for (int q = 0; q < 2; ++q) { // raw rows 4 q ..
            uint32_t v[4];
            xwd_transpose4(in[8 * q + h],
                           in[8 * q + 2 + h],
                           in[8 * q + 4 + h],
                           in[8 * q + 6 + h],
                           v[0],
                           v[1],
                           v[2],
                           v[3]);
            for (int j = 0; j < 4; ++j)
                out[2 * (4 * h + j) + q] = v[j];
        }
    }
}

/*! Tiles of a direct launch: the Gram kernel's list over Y's rows (2A,
 *  rounded to 16) with BN = 128, every channel of the call. */
GPUDSP_HD long long xwd_tiles_per_channel(int n_inputs)
{
    return xws_tiles_per_channel(xgr_rows(n_inputs), 128);
}

// ---- The channel variant: all of a channel's rows in one block ----
//
// With few inputs (at most 128: Y's 256 rows, MeerKAT's 64 dual-pol
// stations) the direct variant's tiles of a channel (three 128 x 128 tiles
// at 128 inputs) transpose each of its two boxes twice, on different SMs,
// and compute a third of their products above the diagonal. Here one block
// takes all of a channel's rows: its boxes (one or two a stage, TMA into a ring of
// 3 raw stages) are transposed once into one operand of 256 rows (box q at
// 16 KiB x q: Y's rows in order), and two warpgroups form the lower triangle
// in row groups of 64: group g is A rows 64 g .., B rows 0 .. 64 (g + 1) - 1,
// one wgmma m64n(64 (g + 1))k32 a k step. Warpgroup 0 takes groups 0 and 3
// (n64, n256), warpgroup 1 groups 1 and 2 (n128, n192): 160 accumulators
// each, 80% of the products useful at 128 inputs (67% for the direct
// variant's tiles). Each input byte crosses shared memory four times (TMA's
// write, the transpose's read and write, the MMAs' reads) once a channel,
// not twice, and L2 sends it to one SM.
//
// No warp specialization: 160 accumulators and a transpose's loads need
// ~250 registers, which ptxas gives a thread of a block of at most 8 warps
// (a block of 12 is held to 168 whatever setmaxnreg says). So the MMA
// warpgroups transpose themselves: they issue stage k's wgmmas, wait for
// their stage k - 1's, meet at a barrier (stage k - 1's operand is then
// free), transpose stage k + 1's raw boxes into it while stage k's MMAs
// run, and meet again (fence.proxy.async first) before stage k + 1's
// wgmmas read it; thread 0 then refills the raw slot just read. Two
// operand stages, three raw: two stages' copies (64 KiB) in flight.
//
// The blocks share the call's stages evenly (a "stream-K" split): the
// channels' stages in order, channel-major, block b taking stages
// [W b / grid, W (b + 1) / grid) of W = channels x stages. A channel split
// between two blocks is formed in two parts, each added to the partials by
// its own epilogue (the partials are sums), so no block waits for a last
// round of channels that only some SMs run.

constexpr int xwc_max_inputs = 128; // Y's 256 rows: four row groups
constexpr int xwc_group_rows =
    xws_rows_per_wg; // a warpgroup's wgmma M, as the Gram kernel's
static_assert(xwc_group_rows == 2 * xws_inputs_per_wg,
              "a row group's epilogue is the Gram kernel's: its inputs' two rows each");
constexpr int xwc_threads = 256;    // two warpgroups

/*! Row groups of 64 rows for \p n_rows rows of Y (1 .. 4). */
GPUDSP_HD constexpr int xwc_groups(int n_rows)
{
    return (n_rows + xwc_group_rows - 1) / xwc_group_rows;
}

/*! The row group that warpgroup \p h forms in its slot \p s (0, 1):
 *  warpgroup 0 groups 0 and 3, warpgroup 1 groups 1 and 2. */
GPUDSP_HD constexpr int xwc_group(int h, int s) { return h == 0 ? 3 * s : 1 + s; }

/*! B rows (the wgmma's N) of row group \p g: rows 0 .. 64 (g + 1) - 1. */
GPUDSP_HD constexpr int xwc_group_n(int g) { return xwc_group_rows * (g + 1); }

/*! Warpgroup \p h's N in slot \p s for a channel of \p groups row groups:
 *  0 where the rows do not reach that group. */
GPUDSP_HD constexpr int xwc_slot_n(int groups, int h, int s)
{
    return xwc_group(h, s) < groups ? xwc_group_n(xwc_group(h, s)) : 0;
}

/*! Boxes of 128 rows a stage brings for \p n_rows rows of Y. */
GPUDSP_HD constexpr int xwc_boxes(int n_rows) { return n_rows > xws_box_rows ? 2 : 1; }

/*! Shared-memory offset, in the operand stage, of row group \p g's A rows
 *  (B, rows 0 .., at 0). */
GPUDSP_HD constexpr int xwc_a_offset(int g) { return g * xwc_group_rows * xws_bk; }

/*! Block \p b's stages [begin, end) of the \p work = channels x stages of a
 *  launch of \p grid blocks: every stage once, the blocks' shares within
 *  one stage of each other. */
struct xwc_share {
    long long begin, end;
};
GPUDSP_HD xwc_share xwc_share_of(long long work, int b, int grid)
{
    return { work * b / grid, work * (b + 1) / grid };
}

/*! Shared memory of the channel kernel: 2 operand stages of 256 rows, 3 raw
 *  stages, the warpgroups' staging for their widest groups (n256, n192),
 *  the raw stages' mbarriers. */
struct xwc_shape {
    static constexpr int stages = 2; // (the kernel alternates them: it & 1)
    static constexpr int raw_stages = 3;
    static constexpr int box_bytes = xws_box_rows * xws_bk;
    static constexpr int stage_bytes = 2 * box_bytes; // 256 rows
    static constexpr int staging0_bytes = xws_inputs_per_wg * xws_staging_pitch(256);
    static constexpr int staging1_bytes = xws_inputs_per_wg * xws_staging_pitch(192);
    static constexpr int ring_bytes = (stages + raw_stages) * stage_bytes;
    static constexpr int barrier_bytes = raw_stages * 8;
    static constexpr int smem_bytes =
        1024 + ring_bytes + staging0_bytes + staging1_bytes + barrier_bytes;
    static_assert(smem_bytes <= xws_smem_limit, "fits sm_90's shared memory");
    static_assert(staging0_bytes % 16 == 0 && staging1_bytes % 16 == 0,
                  "the second staging and the barriers aligned");
    static_assert(xwc_slot_n(4, 0, 0) + xwc_slot_n(4, 0, 1) == 320 &&
                      xwc_slot_n(4, 1, 0) + xwc_slot_n(4, 1, 1) == 320,
                  "160 accumulators in each warpgroup");
};

} // namespace kernels
} // namespace gpudsp
} // namespace gr

#endif
