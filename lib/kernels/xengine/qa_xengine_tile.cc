/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The CUDA X-engine kernels' arithmetic on the host (kernels/xengine/xengine_tile.h):
// the triangular tile schedule decodes every tile pair; every stage load and
// copy covers its tile once, coalesced and aligned; the MMA fragment maps
// agree with the PTX ISA's table (written out here independently) and hit
// 32 different banks; and the tensor path's data flow — the pack kernel's
// transposition and imaginary sums, the cp.async stage copies, each lane's
// fragment loads, the complex product on int8 MMAs with the complement
// trick (the MMAs emulated from the ISA's fragment table), the epilogue's
// pairs — gives the int64 definition exactly, for full-range values (-128
// included), odd input counts, idle warps on diagonal tiles, and launches
// split over spectra and channels. The same for the wgmma kernel: its
// stage copies put every operand element where its matrix descriptors
// address it (the ISA's canonical no-swizzle K-major layout, decoded from
// the descriptor bits), its D fragment follows the ISA, and its data flow
// (three-plane pack, ring of stages, four MMAs per warpgroup emulated from
// the descriptors) gives the int64 definition.

#include "qa_xengine_reference.h"
#include "xengine_impl.h"
#include "xengine_tile.h"
#include <boost/test/unit_test.hpp>
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <set>
#include <vector>

using namespace gr::gpudsp::kernels;

BOOST_AUTO_TEST_CASE(tile_pairs_decode_exactly)
{
    unsigned x = 0;
    for (int I = 0; I < 2100; ++I) // 64-input tiles of 131072 inputs: 2048
        for (int J = 0; J <= I; ++J, ++x) {
            int i, j;
            xengine_tile_pair(x, i, j);
            BOOST_REQUIRE(i == I && j == J);
        }
    BOOST_CHECK_EQUAL(x, xengine_tile_pairs(2100));
    for (unsigned big : { 2147483647u, 2147450879u, 2000000000u }) {
        int i, j;
        xengine_tile_pair(big, i, j);
        BOOST_REQUIRE(j >= 0 && j <= i);
        BOOST_REQUIRE_EQUAL((long long)i * (i + 1) / 2 + j, (long long)big);
    }
}

BOOST_AUTO_TEST_CASE(fp32_ci8_flushes_add_every_spectrum_once_and_stay_exact)
{
    // The kernel's loop over stages: every spectrum's products reach the
    // partials exactly once, never more than xfp_flush spectra are summed
    // in float between flushes (exact integers), and no flush adds only
    // zeros, for launches of 0 .. 3 flushes and a bit.
    for (int n_time = 0; n_time <= 3 * xfp_flush + 2 * xfp_stage + 3; ++n_time) {
        int pending = 0, added = 0, flushes = 0;
        auto flush = [&] {
            BOOST_REQUIRE_GT(pending, 0);
            BOOST_REQUIRE_LE(pending, xfp_flush);
            added += pending;
            pending = 0;
            ++flushes;
        };
        for (int t0 = 0; t0 < n_time; t0 += xfp_stage) {
            pending += std::min(xfp_stage, n_time - t0);
            if (xfp_flush_after(t0))
                flush();
        }
        if (xfp_flush_at_end(n_time))
            flush();
        BOOST_REQUIRE_EQUAL(pending, 0);
        BOOST_REQUIRE_EQUAL(added, n_time);
        BOOST_REQUIRE_EQUAL(flushes, (n_time + xfp_flush - 1) / xfp_flush);
    }
}

// The kernel's fetch plan, walked as the kernel walks it (a cursor a side
// from base, advanced by `stage` before each later stage's loads), gives
// every load of every stage the element and presence of the indexed
// definition: every thread and tile pair at small sizes, and indices past
// 2^31 (65536 inputs, 40000 channels) at the last tile and channel.
// The ci8 value kept as its two bytes in one 16-bit integer converts to
// the char2's re and im (signed, re first in memory) for every pattern.
BOOST_AUTO_TEST_CASE(fp32_ci8_value_from_its_two_bytes)
{
    for (unsigned v = 0; v < 65536; ++v) {
        const uint16_t word = uint16_t(v);
        int8_t bytes[2];
        std::memcpy(bytes, &word, 2); // (little-endian, as the GPU)
        float re, im;
        xfp_ci8_parts(word, re, im);
        BOOST_REQUIRE_EQUAL(re, float(bytes[0]));
        BOOST_REQUIRE_EQUAL(im, float(bytes[1]));
    }
}

namespace {
void check_fetch_plan(
    int tid, int I, int J, int c, int n_channels, int n_inputs, int n_time)
{
    const xfp_fetch_plan f = xfp_fetch_plan_of(tid, I, J, c, n_channels, n_inputs);
    long long cursor[2] = { f.base[0], f.base[1] };
    for (int t0 = 0; t0 < n_time; t0 += xfp_stage) {
        if (t0 > 0)
            for (auto& at : cursor)
                at += f.stage;
        for (int k = 0; k < xfp_loads; ++k) {
            const xfp_load l = xfp_load_of(tid, k);
            const int t = t0 + l.t, a = (l.side ? J : I) * xfp_tile + l.col;
            BOOST_REQUIRE_EQUAL(xfp_fetch_plan::side_of(k), l.side);
            BOOST_REQUIRE_EQUAL(f.present(k, t0, n_time), t < n_time && a < n_inputs);
            if (f.present(k, t0, n_time))
                BOOST_REQUIRE_EQUAL(cursor[l.side] + f.offset(k),
                                    ((long long)t * n_channels + c) * n_inputs + a);
        }
    }
}
} // namespace

BOOST_AUTO_TEST_CASE(fp32_fetch_plan_is_the_indexed_load)
{
    for (int n_inputs : { 1, 63, 64, 65, 130 })
        for (int n_channels : { 1, 3 })
            for (int n_time : { 1, 15, 16, 17, 50 }) {
                const int tiles = (n_inputs + xfp_tile - 1) / xfp_tile;
                for (int I = 0; I < tiles; ++I)
                    for (int J = 0; J <= I; ++J)
                        for (int c = 0; c < n_channels; ++c)
                            for (int tid = 0; tid < xfp_threads; ++tid)
                                check_fetch_plan(
                                    tid, I, J, c, n_channels, n_inputs, n_time);
            }
    const int big_inputs = 65536, big_channels = 40000, last = big_inputs / xfp_tile - 1;
    for (int J : { 0, last })
        for (int tid : { 0, 63, 64, 255 })
            check_fetch_plan(
                tid, last, J, big_channels - 1, big_channels, big_inputs, 40);
}

BOOST_AUTO_TEST_CASE(fp32_stage_loads_cover_both_tiles_once_coalesced)
{
    std::vector<int> seen(2 * xfp_stage * xfp_tile, 0);
    for (int tid = 0; tid < xfp_threads; ++tid)
        for (int k = 0; k < xfp_loads; ++k) {
            const xfp_load l = xfp_load_of(tid, k);
            BOOST_REQUIRE(l.side >= 0 && l.side < 2 && l.t >= 0 && l.t < xfp_stage &&
                          l.col >= 0 && l.col < xfp_tile);
            ++seen[(l.side * xfp_stage + l.t) * xfp_tile + l.col];
            if (tid % 32) { // consecutive lanes: consecutive inputs of one spectrum
                const xfp_load p = xfp_load_of(tid - 1, k);
                BOOST_REQUIRE(p.side == l.side && p.t == l.t && p.col + 1 == l.col);
            }
        }
    for (int s : seen)
        BOOST_REQUIRE_EQUAL(s, 1);
    // Each pair of the 64 x 64 tile belongs to one thread's 4 x 4 registers.
    std::vector<int> owner(xfp_tile * xfp_tile, 0);
    for (int ty = 0; ty < xfp_side; ++ty)
        for (int tx = 0; tx < xfp_side; ++tx)
            for (int u = 0; u < xfp_regs; ++u)
                for (int v = 0; v < xfp_regs; ++v) {
                    const int r = xfp_row(ty, u), c = xfp_col(tx, v);
                    BOOST_REQUIRE(r >= 0 && r < xfp_tile && c >= 0 && c < xfp_tile);
                    ++owner[r * xfp_tile + c];
                }
    for (int o : owner)
        BOOST_REQUIRE_EQUAL(o, 1);
    // Row loads: 4 contiguous values from a 16-byte boundary (two 128-bit
    // loads). Column loads: a half warp (16 tx) reads 16 consecutive values
    // per v, 128 contiguous bytes: one wavefront, no bank conflict.
    for (int ty = 0; ty < xfp_side; ++ty) {
        BOOST_REQUIRE_EQUAL(xfp_row(ty, 0) % 2, 0);
        for (int u = 1; u < xfp_regs; ++u)
            BOOST_REQUIRE_EQUAL(xfp_row(ty, u), xfp_row(ty, 0) + u);
    }
    for (int v = 0; v < xfp_regs; ++v) {
        std::set<int> banks;
        for (int tx = 0; tx < xfp_side; ++tx)
            banks.insert((xfp_col(tx, v) * 8 / 4) % 32); // float2: 2 banks each
        BOOST_REQUIRE_EQUAL(banks.size(), std::size_t(xfp_side));
    }
}

BOOST_AUTO_TEST_CASE(tensor_stage_copies_cover_the_stage_once_aligned)
{
    std::vector<int> seen(xtc_stage_bytes, 0);
    for (int tid = 0; tid < xtc_threads; ++tid)
        for (int k = 0; k < xtc_copies_per_thread; ++k) {
            const xtc_copy q = xtc_copy_of(tid + k * xtc_threads);
            BOOST_REQUIRE(q.plane >= 0 && q.plane < 4 && q.row >= 0 && q.row < xtc_tile &&
                          (q.half == 0 || q.half == 1));
            const int o = xtc_smem_offset(q.plane, q.row, 16 * q.half);
            BOOST_REQUIRE_EQUAL(o % 16, 0); // cp.async 16-byte destination
            for (int b = 0; b < 16; ++b)
                ++seen[o + b];
            // Global source: 16-byte aligned, consecutive threads consecutive.
            const int a_pad = 3 * xtc_tile, tile = 1;
            const std::size_t g = xtc_packed_offset(
                2, 1, q.plane & 1, tile * xtc_tile + q.row, 16 * q.half, 4, a_pad);
            BOOST_REQUIRE_EQUAL(g % 16, 0u);
            if (tid % 32) {
                const xtc_copy p = xtc_copy_of(tid - 1 + k * xtc_threads);
                BOOST_REQUIRE_EQUAL(xtc_packed_offset(2,
                                                      1,
                                                      p.plane & 1,
                                                      tile * xtc_tile + p.row,
                                                      16 * p.half,
                                                      4,
                                                      a_pad) +
                                        16,
                                    g);
            }
        }
    // Every spectrum byte of every row once; the padding of each row never.
    for (int p = 0; p < 4; ++p)
        for (int r = 0; r < xtc_tile; ++r)
            for (int k = 0; k < xtc_row_bytes; ++k)
                BOOST_REQUIRE_EQUAL(seen[xtc_smem_offset(p, r, k)], k < xtc_k ? 1 : 0);
    BOOST_CHECK_LE(xtc_smem_bytes, 101376); // sm_86/sm_89 opt-in limit
}

namespace {

// The PTX ISA's table for mma.m16n8k32 with .s8 operands, element i of a
// lane's fragment (groupID g = lane / 4, threadID_in_group t = lane % 4):
//   A: row = g for i < 4 or 8 <= i < 12, else g + 8;
//      col = 4 t + (i & 3), plus 16 for i >= 8
//   B: row (k) = 4 t + (i & 3), plus 16 for i >= 4; col = g
//   C: row = g for i < 2, else g + 8; col = 2 t + (i & 1)
int isa_a_row(int lane, int i)
{
    return (i < 4 || (i >= 8 && i < 12)) ? lane / 4 : lane / 4 + 8;
}
int isa_a_col(int lane, int i) { return 4 * (lane % 4) + (i & 3) + (i >= 8 ? 16 : 0); }
int isa_b_row(int lane, int i) { return 4 * (lane % 4) + (i & 3) + (i >= 4 ? 16 : 0); }
int isa_b_col(int lane) { return lane / 4; }
int isa_c_row(int lane, int i) { return i < 2 ? lane / 4 : lane / 4 + 8; }
int isa_c_col(int lane, int i) { return 2 * (lane % 4) + (i & 1); }

int8_t byte_of(uint32_t w, int b) { return int8_t(uint8_t(w >> (8 * b))); }

} // namespace

BOOST_AUTO_TEST_CASE(fragment_maps_follow_the_isa_and_avoid_bank_conflicts)
{
    for (int lane = 0; lane < 32; ++lane) {
        for (int i = 0; i < 16; ++i) {
            BOOST_REQUIRE_EQUAL(xtc_a_row(lane, i / 4), isa_a_row(lane, i));
            BOOST_REQUIRE_EQUAL(xtc_a_k(lane, i / 4) + i % 4, isa_a_col(lane, i));
        }
        for (int i = 0; i < 8; ++i) {
            BOOST_REQUIRE_EQUAL(xtc_b_col(lane), isa_b_col(lane));
            BOOST_REQUIRE_EQUAL(xtc_b_k(lane, i / 4) + i % 4, isa_b_row(lane, i));
        }
        for (int i = 0; i < 4; ++i) {
            BOOST_REQUIRE_EQUAL(xtc_c_row(lane, i), isa_c_row(lane, i));
            BOOST_REQUIRE_EQUAL(xtc_c_col(lane, i), isa_c_col(lane, i));
        }
    }
    // One 32-bit load per register: the warp's 32 words in 32 banks.
    for (int w = 0; w < xtc_warps; ++w) {
        for (int m = 0; m < 2; ++m)
            for (int r = 0; r < 4; ++r) {
                std::set<int> banks;
                for (int lane = 0; lane < 32; ++lane) {
                    const int o =
                        xtc_smem_offset(0,
                                        xtc_warp_row(w) + 16 * m + xtc_a_row(lane, r),
                                        xtc_a_k(lane, r));
                    BOOST_REQUIRE_EQUAL(o % 4, 0);
                    banks.insert((o / 4) % 32);
                }
                BOOST_REQUIRE_EQUAL(banks.size(), 32u);
            }
        for (int n = 0; n < 4; ++n)
            for (int r = 0; r < 2; ++r) {
                std::set<int> banks;
                for (int lane = 0; lane < 32; ++lane)
                    banks.insert(
                        (xtc_smem_offset(2,
                                         xtc_warp_col(w) + 8 * n + xtc_b_col(lane),
                                         xtc_b_k(lane, r)) /
                         4) %
                        32);
                BOOST_REQUIRE_EQUAL(banks.size(), 32u);
            }
    }
    // Diagonal tiles: the idle warps are exactly those with no pair a >= b.
    for (int w = 0; w < xtc_warps; ++w) {
        bool any = false;
        for (int r = 0; r < xtc_warp_tile; ++r)
            for (int c = 0; c < xtc_warp_tile; ++c)
                any |= xtc_warp_row(w) + r >= xtc_warp_col(w) + c;
        BOOST_REQUIRE_EQUAL(xtc_warp_idle(w, true), !any);
        BOOST_REQUIRE(!xtc_warp_idle(w, false));
    }
}

namespace {

// The tensor path of one launch on the host: the pack kernel's blocks and
// threads, the correlation kernel's stages, warps and lanes, with the
// warp-wide MMAs emulated from the ISA table. Adds into \p part
// ([channel][pair][2], int32 wrap-around as on the GPU) and counts the
// writes per pair in \p writes.
// The wgmma operand model (PTX ISA, "Shared memory matrix layout", K-major,
// no swizzle), from the descriptor's own bits: element (row m, k) of an
// 8-bit operand at start + (m / 8) SBO + (k / 16) LBO + (m % 8) 16 + k % 16.
struct isa_operand {
    int start, lbo, sbo;
    explicit isa_operand(uint64_t desc)
        : start(int(desc & 0x3fff) << 4),
          lbo(int((desc >> 16) & 0x3fff) << 4),
          sbo(int((desc >> 32) & 0x3fff) << 4)
    {
        BOOST_REQUIRE_EQUAL(desc >> 62, 0u);       // no swizzle
        BOOST_REQUIRE_EQUAL((desc >> 49) & 7, 0u); // base offset 0
    }
    int address(int m, int k) const
    {
        return start + (m / 8) * sbo + (k / 16) * lbo + (m % 8) * 16 + k % 16;
    }
};

enum class kernel_kind { mma_sync, wgmma, direct, direct_deep };

// The wgmma kernel's stage, warpgroup h: every thread's xwg_products with
// each MMA emulated from the descriptors and the ISA's D fragment (per
// n8 chunk, the m16n8 C layout).
void wgmma_stage(const std::vector<unsigned char>& smem,
                 uint32_t stage,
                 int h,
                 int (&re)[2][128][xwg_regs],
                 int (&im)[2][128][xwg_regs])
{
    for (int t = 0; t < 128; ++t) {
        const int w = t / 32, lane = t % 32;
        xwg_products(
            stage, h, re[h][t], im[h][t], [&](int(&d)[xwg_regs], uint64_t a, uint64_t b) {
                const isa_operand A(a), B(b);
                for (int i = 0; i < xwg_regs; ++i) {
                    const int m = 16 * w + isa_c_row(lane, i % 4),
                              n = 8 * (i / 4) + isa_c_col(lane, i % 4);
                    int dot = 0;
                    for (int k = 0; k < 32; ++k)
                        dot += int(int8_t(smem[A.address(m, k)])) *
                               int(int8_t(smem[B.address(n, k)]));
                    d[i] += dot;
                }
            });
    }
}

void run_tensor_launch(kernel_kind kind,
                       const std::vector<int8_t>& x, // [t][c][a][re, im]
                       int n_time,
                       int n_channels,
                       int channel0,
                       int nc,
                       int A,
                       std::vector<uint32_t>& part,
                       std::vector<int>& writes)
{
    const int a_pad = xtc_padded_inputs(A), tiles = a_pad / xtc_tile;
    const int n_blocks = (n_time + xtc_k - 1) / xtc_k;
    const int parts = kind == kernel_kind::wgmma ? 3 : 2;
    std::vector<signed char> packed(
        xtc_packed_offset(nc, 0, 0, 0, 0, n_blocks, a_pad, parts), 77);
    std::vector<int> im_sum(std::size_t(nc) * a_pad, 0);
    // xtc_pack: block (g, tb, lc); its load loop, the barrier, its threads.
    std::vector<signed char> s(xtc_k * xtc_pack_row);
    for (int lc = 0; lc < nc; ++lc)
        for (int tb = 0; tb < n_blocks; ++tb)
            for (int g = 0; g < tiles; ++g) {
                std::fill(s.begin(), s.end(), 99); // padding is never read
                for (int e = 0; e < xtc_k * xtc_tile; ++e) {
                    const xtc_pack_load l =
                        xtc_pack_load_of(e, g, tb, channel0 + lc, n_time, n_channels, A);
                    s[l.smem] = l.from >= 0 ? x[2 * l.from] : 0;
                    s[l.smem + 1] = l.from >= 0 ? x[2 * l.from + 1] : 0;
                }
                int sums[xtc_pack_threads] = {};
                for (int tid = 0; tid < xtc_pack_threads; ++tid) {
                    const int col = tid / 2, half = tid % 2;
                    uint32_t w[3][4];
                    xtc_pack_thread(s.data(), tid, parts, w, sums[tid]);
                    for (int p = 0; p < parts; ++p)
                        std::memcpy(&packed[xtc_packed_offset(lc,
                                                              tb,
                                                              p,
                                                              g * xtc_tile + col,
                                                              16 * half,
                                                              n_blocks,
                                                              a_pad,
                                                              parts)],
                                    w[p],
                                    16);
                }
                for (int tid = 0; tid < xtc_pack_threads; tid += 2) {
                    const int a = g * xtc_tile + tid / 2;
                    if (a < A)
                        im_sum[std::size_t(lc) * a_pad + a] += sums[tid] + sums[tid + 1];
                }
            }
    if (kind == kernel_kind::wgmma) {
        // xcorr_wgmma: block (tile pair, lc), the stages at their ring slots.
        std::vector<unsigned char> smem(xwg_smem_bytes);
        for (int lc = 0; lc < nc; ++lc)
            for (unsigned tp = 0; tp < xengine_tile_pairs(tiles); ++tp) {
                int I, J;
                xengine_tile_pair(tp, I, J);
                static int re[2][128][xwg_regs], im[2][128][xwg_regs];
                std::memset(re, 0, sizeof re);
                std::memset(im, 0, sizeof im);
                for (int tb = 0; tb < n_blocks; ++tb) {
                    const uint32_t stage = (tb % xwg_stages) * xwg_stage_bytes;
                    std::fill(smem.begin() + stage,
                              smem.begin() + stage + xwg_stage_bytes,
                              0xa5);
                    for (int tid = 0; tid < xwg_threads; ++tid)
                        for (int k = 0; k < xwg_copies_per_thread; ++k) {
                            const xtc_copy_at at = xwg_copy_offsets(
                                tid + k * xwg_threads, I, J, lc, tb, n_blocks, a_pad);
                            std::memcpy(&smem[stage + at.smem], &packed[at.packed], 16);
                        }
                    for (int h = 0; h < 2; ++h)
                        wgmma_stage(smem, stage, h, re, im);
                }
                for (int h = 0; h < 2; ++h)
                    for (int t = 0; t < 128; ++t)
                        for (int i = 0; i < xwg_regs; ++i) {
                            const int a =
                                I * xtc_tile + 64 * h + xwg_d_row(t / 32, t % 32, i);
                            const int b = J * xtc_tile + xwg_d_col(t % 32, i);
                            if (a < A && b <= a) {
                                const xtc_pair_at at =
                                    xtc_pair_addresses(channel0, lc, a, b, A, a_pad);
                                part[at.partial] += uint32_t(re[h][t][i]);
                                part[at.partial + 1] +=
                                    uint32_t(im[h][t][i]) + uint32_t(im_sum[at.im_sum]);
                                ++writes[at.partial / 2];
                            }
                        }
            }
        return;
    }
    // xcorr_tc80 (or xcorr_direct): block (tile pair, lc).
    std::vector<unsigned char> stage(xtc_stage_bytes);
    const bool deep = kind == kernel_kind::direct_deep;
    const int raw_stages = deep ? xdr_deep_stages : xdr_stages;
    std::vector<unsigned char> raw(raw_stages * xdr_raw_bytes);
    for (int lc = 0; lc < nc; ++lc)
        for (unsigned tp = 0; tp < xengine_tile_pairs(tiles); ++tp) {
            int I, J;
            xengine_tile_pair(tp, I, J);
            int re[xtc_warps][32][2][4][4] = {}, im[xtc_warps][32][2][4][4] = {};
            int isum[xtc_threads] = {};
            for (int tb = 0; tb < n_blocks; ++tb) {
                std::fill(stage.begin(), stage.end(), 0xa5); // row padding: never read
                if (kind == kernel_kind::direct || deep) {
                    // Raw copies (zero-filled past the data; the deep form's
                    // diagonal tiles copy the row side only, the column side
                    // stays poisoned), then each thread's conversion into
                    // the planes.
                    unsigned char* r = raw.data() + (tb % raw_stages) * xdr_raw_bytes;
                    std::fill(r, r + xdr_raw_bytes, 0x5a);
                    for (int tid = 0; tid < xtc_threads; ++tid)
                        for (int k = 0; k < xdr_copies_per_thread; ++k) {
                            if (xdr_copy_skipped(tid + k * xtc_threads, I, J, deep))
                                continue;
                            const xdr_copy_at at = xdr_copy_offsets(tid + k * xtc_threads,
                                                                    I,
                                                                    J,
                                                                    channel0 + lc,
                                                                    tb,
                                                                    n_time,
                                                                    n_channels,
                                                                    A);
                            BOOST_REQUIRE(at.bytes >= 0 && at.bytes <= 16 &&
                                          at.smem % 16 == 0 && at.from % 16 == 0);
                            std::memcpy(r + at.smem, x.data() + at.from, at.bytes);
                            std::memset(r + at.smem + at.bytes, 0, 16 - at.bytes);
                        }
                    for (int tid = 0; tid < xtc_threads; ++tid)
                        isum[tid] += xdr_convert(r, stage.data(), tid, deep && I == J);
                } else {
                    for (int tid = 0; tid < xtc_threads; ++tid)
                        for (int k = 0; k < xtc_copies_per_thread; ++k) {
                            const xtc_copy_at at = xtc_copy_offsets(
                                tid + k * xtc_threads, I, J, lc, tb, n_blocks, a_pad);
                            std::memcpy(&stage[at.smem], &packed[at.packed], 16);
                        }
                }
                for (int w = 0; w < xtc_warps; ++w) {
                    if (xtc_warp_idle(w, I == J))
                        continue;
                    // Each lane's calls, then each warp-wide MMA from the
                    // lanes' registers (the calls' order is lane-independent).
                    struct call {
                        int* d;
                        uint32_t a[4], b[2];
                    };
                    std::vector<call> calls[32];
                    for (int lane = 0; lane < 32; ++lane) {
                        xtc_frags f;
                        xtc_load_frags(
                            stage.data(), xtc_warp_row(w), xtc_warp_col(w), lane, f);
                        xtc_products(
                            f,
                            re[w][lane],
                            im[w][lane],
                            [&](int(&d)[4],
                                const uint32_t(&a)[4],
                                const uint32_t(&b)[2]) {
                                calls[lane].push_back(
                                    { d, { a[0], a[1], a[2], a[3] }, { b[0], b[1] } });
                            });
                    }
                    for (std::size_t k = 0; k < calls[0].size(); ++k) {
                        int8_t Am[16][32], Bm[32][8];
                        for (int lane = 0; lane < 32; ++lane) {
                            const call& c = calls[lane][k];
                            // the same accumulator in every lane
                            BOOST_REQUIRE_EQUAL((char*)c.d - (char*)re[w][lane],
                                                (char*)calls[0][k].d - (char*)re[w][0]);
                            for (int i = 0; i < 16; ++i)
                                Am[isa_a_row(lane, i)][isa_a_col(lane, i)] =
                                    byte_of(c.a[i / 4], i % 4);
                            for (int i = 0; i < 8; ++i)
                                Bm[isa_b_row(lane, i)][isa_b_col(lane)] =
                                    byte_of(c.b[i / 4], i % 4);
                        }
                        for (int lane = 0; lane < 32; ++lane)
                            for (int i = 0; i < 4; ++i) {
                                int dot = 0;
                                for (int kk = 0; kk < 32; ++kk)
                                    dot += Am[isa_c_row(lane, i)][kk] *
                                           Bm[kk][isa_c_col(lane, i)];
                                calls[lane][k].d[i] += dot;
                            }
                    }
                }
            }
            int col_im[xtc_tile] = {}; // the direct kernel's column sums
            for (int tid = 0; tid < xtc_threads; ++tid)
                if (xdr_column_of(tid) >= 0)
                    col_im[xdr_column_of(tid)] += isum[tid];
            for (int w = 0; w < xtc_warps; ++w) {
                if (xtc_warp_idle(w, I == J))
                    continue;
                for (int lane = 0; lane < 32; ++lane)
                    for (int m = 0; m < 2; ++m)
                        for (int n = 0; n < 4; ++n)
                            for (int r = 0; r < 4; ++r) {
                                int a, b;
                                xtc_pair_of(I,
                                            J,
                                            xtc_warp_row(w),
                                            xtc_warp_col(w),
                                            m,
                                            n,
                                            lane,
                                            r,
                                            a,
                                            b);
                                if (a < A && b <= a) {
                                    const xtc_pair_at at =
                                        xtc_pair_addresses(channel0, lc, a, b, A, a_pad);
                                    part[at.partial] += uint32_t(re[w][lane][m][n][r]);
                                    part[at.partial + 1] +=
                                        uint32_t(im[w][lane][m][n][r]) +
                                        uint32_t(kind == kernel_kind::direct || deep
                                                     ? col_im[b - J * xtc_tile]
                                                     : im_sum[at.im_sum]);
                                    ++writes[at.partial / 2];
                                }
                            }
            }
        }
}


} // namespace

void tensor_path_equals_definition(kernel_kind kind)
{
    struct size {
        int A, C, T;
        std::size_t budget; // workspace: small ones split the launch
    };
    const size sizes[] = {
        { 1, 2, 5, 1 << 20 },
        { 3, 1, 33, 1 << 20 },
        { 19, 3, 64, 1 << 20 },
        { 66, 2, 70, 1 << 20 },
        { 128, 1, 40, 1 << 20 },
        { 257, 2, 45, 1 << 20 },
        { 38, 5, 100, 2 * 128 * 32 }, // one block of one channel per launch
        { 200, 3, 90, 2 * 256 * 64 * 2 },
        { 8, 2, 40, 1 << 20 },
        { 24, 3, 77, 1 << 20 },
        { 256, 1, 33, 1 << 20 },
    };
    for (const size& z : sizes) {
        const int A = z.A, C = z.C, T = z.T;
        if ((kind == kernel_kind::direct || kind == kernel_kind::direct_deep) &&
            !xdr_applies(A))
            continue; // the packed path's
        BOOST_TEST_CONTEXT("inputs " << A << " channels " << C << " spectra " << T)
        {
            const auto x =
                qa::full_range(std::size_t(T) * C * A * 2, unsigned(A * 131 + T));
            const std::size_t pairs = std::size_t(A) * (A + 1) / 2;
            // Poisoned partials: the launch adds to whatever they hold.
            std::vector<uint32_t> part =
                qa::poisoned_partials(std::size_t(C) * pairs * 2);
            const std::vector<uint32_t> before = part;
            std::vector<int> writes(std::size_t(C) * pairs, 0);
            // Launches as the CUDA backend cuts them (xtc_launch_shape_for).
            const int parts = kind == kernel_kind::wgmma ? 3 : 2;
            const unsigned tile_pairs =
                kind == kernel_kind::direct || kind == kernel_kind::direct_deep
                    ? 0
                    : xengine_tile_pairs(unsigned(xtc_padded_inputs(A) / xtc_tile));
            const xtc_launch_shape sh =
                xtc_launch_shape_for(T, C, A, z.budget, parts, tile_pairs);
            BOOST_REQUIRE(sh.spectra % xtc_k == 0 && sh.spectra >= xtc_k &&
                          sh.channels >= 1);
            BOOST_REQUIRE_LE(
                std::size_t(parts) * xtc_padded_inputs(A) * sh.spectra * sh.channels,
                std::max<std::size_t>(z.budget,
                                      std::size_t(parts) * xtc_padded_inputs(A) * xtc_k));
            int launches = 0;
            for (int t0 = 0; t0 < T; t0 += sh.spectra) {
                const int nt = std::min(T - t0, sh.spectra);
                const std::vector<int8_t> chunk(x.begin() + std::size_t(t0) * C * A * 2,
                                                x.begin() +
                                                    std::size_t(t0 + nt) * C * A * 2);
                for (int c0 = 0; c0 < C; c0 += sh.channels, ++launches)
                    run_tensor_launch(kind,
                                      chunk,
                                      nt,
                                      C,
                                      c0,
                                      std::min(sh.channels, C - c0),
                                      A,
                                      part,
                                      writes);
            }
            for (int c = 0; c < C; ++c)
                for (int a = 0; a < A; ++a)
                    for (int b = 0; b <= a; ++b) {
                        int64_t sr, si;
                        qa::xengine_reference(x, T, C, A, c, a, b, sr, si);
                        const std::size_t k =
                            (std::size_t(c) * pairs + xengine_tri(a, b)) * 2;
                        BOOST_REQUIRE_EQUAL(writes[k / 2],
                                            launches /
                                                ((C + sh.channels - 1) / sh.channels));
                        BOOST_REQUIRE_EQUAL(part[k] - before[k], uint32_t(int32_t(sr)));
                        BOOST_REQUIRE_EQUAL(part[k + 1] - before[k + 1],
                                            uint32_t(int32_t(si)));
                    }
        }
    }
}

BOOST_AUTO_TEST_CASE(mma_sync_path_on_the_host_equals_the_int64_definition)
{
    tensor_path_equals_definition(kernel_kind::mma_sync);
}

BOOST_AUTO_TEST_CASE(direct_path_on_the_host_equals_the_int64_definition)
{
    tensor_path_equals_definition(kernel_kind::direct);
}

BOOST_AUTO_TEST_CASE(deep_direct_path_on_the_host_equals_the_int64_definition)
{
    // 6 stages; a diagonal tile's column side never copied (poisoned in the
    // emulation) and converted from its row side.
    tensor_path_equals_definition(kernel_kind::direct_deep);
    BOOST_CHECK_LE(xdr_smem_bytes_for(xdr_deep_stages), 166912); // sm_80's opt-in
    BOOST_CHECK_GT(xdr_smem_bytes_for(xdr_deep_stages), 101376); // not sm_86/89's
    for (int q = 0; q < 2 * xtc_k * xdr_raw_row / 16; ++q) {
        BOOST_CHECK(!xdr_copy_skipped(q, 1, 0, true)); // off the diagonal: every copy
        BOOST_CHECK(!xdr_copy_skipped(q, 2, 2, false));
        BOOST_CHECK_EQUAL(xdr_copy_skipped(q, 2, 2, true),
                          q >= xtc_k * xdr_raw_row / 16); // the column side
    }
}

BOOST_AUTO_TEST_CASE(direct_copies_cover_the_raw_stage_and_split_exactly)
{
    // Every raw byte of a stage is copied (or zero-filled) once; a copy
    // never reads past the inputs or spectra; the re/im split of two
    // spectra is exact.
    const int A = 200, C = 3, n_time = 45;
    for (int tb = 0; tb < 2; ++tb) {
        std::vector<int> seen(xdr_raw_bytes, 0);
        for (int q = 0; q < xdr_copies_per_thread * xtc_threads; ++q) {
            const xdr_copy_at at = xdr_copy_offsets(q, 1, 0, 2, tb, n_time, C, A);
            for (int b = 0; b < 16; ++b)
                ++seen[at.smem + b];
            if (at.bytes)
                BOOST_REQUIRE_LE(at.from + at.bytes, (long long)n_time * C * A * 2);
            if (q % 32) // consecutive threads, consecutive bytes of a spectrum
                BOOST_REQUIRE_EQUAL(
                    xdr_copy_offsets(q - 1, 1, 0, 2, tb, n_time, C, A).smem + 16,
                    at.smem);
        }
        for (int s : seen)
            BOOST_REQUIRE_EQUAL(s, 1);
    }
    std::mt19937 rng(3);
    for (int i = 0; i < 1000; ++i) {
        const uint32_t w01 = rng(), w23 = rng();
        uint32_t re, im;
        xdr_split(w01, w23, re, im);
        const uint8_t in[8] = { uint8_t(w01),       uint8_t(w01 >> 8), uint8_t(w01 >> 16),
                                uint8_t(w01 >> 24), uint8_t(w23),      uint8_t(w23 >> 8),
                                uint8_t(w23 >> 16), uint8_t(w23 >> 24) };
        for (int t = 0; t < 4; ++t) {
            BOOST_REQUIRE_EQUAL(uint8_t(re >> (8 * t)), in[2 * t]);
            BOOST_REQUIRE_EQUAL(uint8_t(im >> (8 * t)), in[2 * t + 1]);
        }
        BOOST_REQUIRE_EQUAL(xdr_sum_s8x4(im),
                            int(int8_t(in[1])) + int8_t(in[3]) + int8_t(in[5]) +
                                int8_t(in[7]));
    }
    BOOST_CHECK_LE(xdr_smem_bytes + 512, 101376); // with col_im: fits sm_86/89
}

BOOST_AUTO_TEST_CASE(wgmma_path_on_the_host_equals_the_int64_definition)
{
    tensor_path_equals_definition(kernel_kind::wgmma);
}

BOOST_AUTO_TEST_CASE(wgmma_stage_layout_matches_the_descriptors)
{
    // Copies cover the stage once, 16-byte aligned, consecutive threads
    // reading consecutive global bytes; every operand element the
    // descriptors address is the byte the copies put there.
    std::vector<int> seen(xwg_stage_bytes, 0);
    std::vector<int> plane_row_k(xwg_stage_bytes, -1);
    for (int tid = 0; tid < xwg_threads; ++tid)
        for (int k = 0; k < xwg_copies_per_thread; ++k) {
            const xtc_copy q = xtc_copy_of(tid + k * xwg_threads);
            BOOST_REQUIRE(q.plane >= 0 && q.plane < xwg_planes);
            const int o = xwg_smem_offset(q.plane, q.row, 16 * q.half);
            BOOST_REQUIRE_EQUAL(o % 16, 0);
            for (int b = 0; b < 16; ++b) {
                ++seen[o + b];
                plane_row_k[o + b] = (q.plane * 128 + q.row) * 32 + 16 * q.half + b;
            }
        }
    for (int v : seen)
        BOOST_REQUIRE_EQUAL(v, 1);
    int unused_re[xwg_regs], unused_im[xwg_regs];
    for (uint32_t stage :
         { 0u, uint32_t(xwg_stage_bytes), uint32_t(3 * xwg_stage_bytes) })
        for (int h = 0; h < 2; ++h)
            xwg_products(stage,
                         h,
                         unused_re,
                         unused_im,
                         [&](int(&)[xwg_regs], uint64_t a, uint64_t b) {
                             const isa_operand A(a), B(b);
                             for (int m = 0; m < 128; ++m)
                                 for (int k = 0; k < 32; ++k) {
                                     if (m < 64) { // A: warpgroup h's 64 rows
                                         const int o = A.address(m, k) - int(stage);
                                         const int e = plane_row_k[o];
                                         BOOST_REQUIRE(e / 32 % 128 == 64 * h + m &&
                                                       e % 32 == k && e / 32 / 128 < 3);
                                     }
                                     const int o = B.address(m, k) - int(stage);
                                     const int e = plane_row_k[o];
                                     BOOST_REQUIRE(e / 32 % 128 == m && e % 32 == k &&
                                                   e / 32 / 128 >= 3);
                                 }
                         });
    // The D fragment: register i of warp w is the ISA's m16n8 C element
    // i % 4 of column chunk i / 4.
    for (int w = 0; w < 4; ++w)
        for (int lane = 0; lane < 32; ++lane)
            for (int i = 0; i < xwg_regs; ++i) {
                BOOST_REQUIRE_EQUAL(xwg_d_row(w, lane, i),
                                    16 * w + isa_c_row(lane, i % 4));
                BOOST_REQUIRE_EQUAL(xwg_d_col(lane, i),
                                    8 * (i / 4) + isa_c_col(lane, i % 4));
            }
    BOOST_CHECK_LE(xwg_smem_bytes, 232448); // sm_90's opt-in limit
}

BOOST_AUTO_TEST_CASE(launch_shapes_respect_the_workspace_and_the_int32_bound)
{
    for (int parts : { 2, 3 })
        for (int A : { 1, 64, 129, 512, 2048, 131072 })
            for (int C : { 1, 7, 128, 4096 })
                for (std::size_t n : { std::size_t(1),
                                       std::size_t(31),
                                       std::size_t(1024),
                                       std::size_t(8192),
                                       std::size_t(65535) })
                    for (unsigned tile_pairs : { 0u, 1u, 10u, 136u }) {
                        const std::size_t budget = xengine_tc_workspace(C, A, parts);
                        const xtc_launch_shape sh =
                            xtc_launch_shape_for(n, C, A, budget, parts, tile_pairs);
                        const std::size_t per = parts * std::size_t(xtc_padded_inputs(A));
                        const std::size_t whole =
                            std::max<std::size_t>((n + 31) / 32 * 32, 32);
                        BOOST_TEST_CONTEXT("parts " << parts << " A " << A << " C " << C
                                                    << " n " << n << " tile pairs "
                                                    << tile_pairs)
                        {
                            BOOST_REQUIRE(sh.spectra % xtc_k == 0 &&
                                          sh.spectra <= xtc_max_spectra);
                            BOOST_REQUIRE(sh.channels >= 1 &&
                                          sh.channels <= std::min(C, 65535));
                            BOOST_REQUIRE_LE(per * sh.spectra * sh.channels, budget);
                            // no launch larger than needed
                            BOOST_REQUIRE_LE(std::size_t(sh.spectra), whole);
                            // Spectra given up only for channels: the launch
                            // then has its blocks, or its floor of spectra.
                            const std::size_t fit = budget / per / xtc_k * xtc_k;
                            if (tile_pairs > 0 &&
                                std::size_t(sh.spectra) <
                                    std::min<std::size_t>(
                                        { whole, std::size_t(xtc_max_spectra), fit }))
                                BOOST_REQUIRE(std::size_t(sh.channels) * tile_pairs >=
                                                  std::min<std::size_t>(xtc_min_blocks,
                                                                        std::size_t(C) *
                                                                            tile_pairs) ||
                                              sh.spectra == xtc_min_launch_spectra);
                        }
                    }
    // The X-engine benchmark's S = 256 dual-pol shape (512 inputs, 128
    // channels, wgmma's 3 planes): 8192 spectra a call, launches of 3360
    // spectra x 52 channels (520 blocks of 10 tile pairs), not 8192 x 21.
    const xtc_launch_shape sh =
        xtc_launch_shape_for(8192, 128, 512, xengine_tc_workspace(128, 512, 3), 3, 10);
    BOOST_CHECK_EQUAL(sh.spectra, 3360);
    BOOST_CHECK_EQUAL(sh.channels, 52);
    // int32 inside a launch: each accumulator gains at most 32768 per
    // spectrum (re: 2 * 128^2; im with the complement: 128^2 + 128^2).
    BOOST_CHECK_LT(int64_t(xtc_max_spectra) * 32768, int64_t(1) << 31);
}
