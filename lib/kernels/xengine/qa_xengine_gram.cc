/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The X-engine's Gram form (xengine_gram.h) on the host: its pack map, its
// launch shapes and its combine, and the whole data flow of a call (pack
// blocks with their staged planes, cuBLASLt's column-major G = Y Y^T, the
// combine threads) against the int64 definition, with the full int8 range,
// odd input counts, split calls, small workspaces and poisoned partials.

#define BOOST_TEST_MODULE qa_xengine_gram
#include <boost/test/unit_test.hpp>

#include "kernels/xengine/qa_xengine_reference.h"
#include "kernels/xengine/xengine_gram.h"
#include "kernels/xengine/xengine_impl.h"
#include "kernels/xengine/xengine_tile.h"
#include "kernels/xengine/xengine_ws.h"
#include <type_traits>
#include <algorithm>
#include <cstring>
#include <random>
#include <set>
#include <vector>

using namespace gr::gpudsp::kernels;

namespace {


// The pack kernel of one launch as xengine_gram.cu runs it: nt spectra
// (from x, [t][channel][input][re, im]) of channels c0 .. c0 + nc - 1 into Y
// [lc][row][t_pad].
std::vector<int8_t>
pack_launch(const std::vector<int8_t>& x, int nt, int C, int c0, int nc, int A)
{
    const int R = xgr_rows(A), t_pad = (nt + xgr_k - 1) / xgr_k * xgr_k;
    std::vector<int8_t> y(std::size_t(nc) * R * t_pad, int8_t(0x5a)); // poisoned
    // Pack: grid (row groups, spectrum blocks, channels), 256 threads.
    const int groups = (R + 2 * xgr_pack_inputs - 1) / (2 * xgr_pack_inputs);
    for (int lc = 0; lc < nc; ++lc)
        for (int tb = 0; tb < t_pad / xgr_k; ++tb)
            for (int g = 0; g < groups; ++g) {
                std::vector<int8_t> s(2 * xgr_pack_inputs * xgr_pack_pitch, 0x33);
                std::vector<int> staged(2 * xgr_pack_inputs * xgr_k, 0);
                for (int e = 0; e < xgr_k * xgr_pack_inputs; ++e) {
                    int a_local, tt;
                    const long long from =
                        xgr_pack_load(e, g, tb, c0 + lc, nt, C, A, a_local, tt);
                    for (int part_ = 0; part_ < 2; ++part_) {
                        const int r = 2 * a_local + part_;
                        s[r * xgr_pack_pitch + tt] = from >= 0 ? x[2 * from + part_] : 0;
                        ++staged[r * xgr_k + tt];
                    }
                }
                for (int n : staged)
                    BOOST_REQUIRE_EQUAL(n, 1); // every staged byte written once
                for (int u = 0; u < 2 * xgr_pack_inputs * 4; ++u) {
                    int row_local, row, quarter;
                    xgr_pack_store(u, g, row_local, row, quarter);
                    if (row >= R)
                        continue;
                    const std::size_t at =
                        xgr_y_offset(lc, row, tb * xgr_k + 8 * quarter, R, t_pad);
                    BOOST_REQUIRE_EQUAL(at % 8, 0u); // the kernel's 8-byte store
                    std::copy_n(&s[row_local * xgr_pack_pitch + 8 * quarter], 8, &y[at]);
                }
            }
    return y;
}

// One launch of the cuBLASLt path.
void run_launch(const std::vector<int8_t>& x,
                int nt,
                int C,
                int c0,
                int nc,
                int A,
                std::vector<uint32_t>& part,
                std::vector<int>& writes)
{
    const int R = xgr_rows(A), t_pad = (nt + xgr_k - 1) / xgr_k * xgr_k;
    const std::vector<int8_t> y = pack_launch(x, nt, C, c0, nc, A);
    // cuBLASLt, TN: G(i, j) = sum_t Y[i][t] Y[j][t], column-major, int32,
    // after Y in the workspace. (The GEMM is emulated by its definition:
    // cuBLASLt's own layouts, transposes and strides are checked only on a
    // GPU, by qa_xengine_plan_cuda against the CPU plan.)
    BOOST_REQUIRE_EQUAL(xgr_g_bytes_offset(nc, R, t_pad), y.size());
    BOOST_REQUIRE_EQUAL(xgr_g_bytes_offset(nc, R, t_pad) % 512, 0u);
    std::vector<int32_t> g(std::size_t(nc) * R * R);
    for (int lc = 0; lc < nc; ++lc)
        for (int j = 0; j < R; ++j)
            for (int i = 0; i < R; ++i) {
                int64_t sum = 0;
                for (int t = 0; t < t_pad; ++t)
                    sum += int64_t(y[xgr_y_offset(lc, i, t, R, t_pad)]) *
                           y[xgr_y_offset(lc, j, t, R, t_pad)];
                BOOST_REQUIRE(sum >= INT32_MIN && sum <= INT32_MAX);
                g[xgr_g_offset(lc, i, j, R)] = int32_t(sum);
            }
    // Combine: a thread per pair of each launch channel.
    const long long pairs = (long long)A * (A + 1) / 2;
    for (int lc = 0; lc < nc; ++lc)
        for (long long k = 0; k < pairs; ++k) {
            int a, b;
            xgr_pair(k, a, b);
            const std::size_t cr = xgr_g_offset(lc, 2 * b, 2 * a, R),
                              ci = xgr_g_offset(lc, 2 * b, 2 * a + 1, R);
            BOOST_REQUIRE(cr % 2 == 0 && ci % 2 == 0); // 8-byte loads
            const std::size_t at = (std::size_t(c0 + lc) * pairs + k) * 2;
            int32_t v[2] = { int32_t(part[at]), int32_t(part[at + 1]) };
            xgr_combine(g[cr], g[cr + 1], g[ci], g[ci + 1], v);
            part[at] = uint32_t(v[0]);
            part[at + 1] = uint32_t(v[1]);
            ++writes[at / 2];
        }
}

} // namespace

BOOST_AUTO_TEST_CASE(pairs_decode_exactly)
{
    long long k = 0;
    for (int a = 0; a < 3000; ++a)
        for (int b = 0; b <= a; ++b, ++k) {
            int ga, gb;
            xgr_pair(k, ga, gb);
            BOOST_REQUIRE(ga == a && gb == b);
        }
    // Near the largest triangle the plan allows (65536 dual-pol stations).
    for (long long a : { 131071LL, 131072LL, 3037000000LL / 2 })
        for (long long b : { 0LL, 1LL, a / 2, a - 1, a }) {
            int ga, gb;
            xgr_pair(a * (a + 1) / 2 + b, ga, gb);
            BOOST_REQUIRE(ga == a && gb == b);
        }
}

BOOST_AUTO_TEST_CASE(combine_is_exact_at_the_int32_bound)
{
    // xengine_int32_spectra spectra of -128 + -128j against themselves:
    // re = 2 * 128^2 * T, the largest a launch or the partials can hold.
    const int64_t T = int64_t(xengine_int32_spectra);
    const int32_t sq = int32_t(16384 * T); // each G entry
    int32_t p[2] = { 0, 0 };
    xgr_combine(sq, sq, sq, sq, p);
    BOOST_CHECK_EQUAL(p[0], int32_t(2 * 16384 * T));
    BOOST_CHECK_EQUAL(p[1], 0);
    BOOST_CHECK_LT(2 * 16384 * T, int64_t(INT32_MAX));
    // im at its extremes: Ai Br = 127 * -128 T, Ar Bi = -128 * 127 T ...
    int32_t q[2] = { 5, -7 };
    xgr_combine(0, int32_t(-16256 * T), int32_t(16384 * T), 0, q);
    BOOST_CHECK_EQUAL(q[0], 5);
    BOOST_CHECK_EQUAL(int64_t(q[1]), -7 + 16384 * T + 16256 * T);
}

BOOST_AUTO_TEST_CASE(launch_shapes_fit_the_workspace)
{
    for (int A : { 1, 7, 64, 128, 129, 2048, 4096 })
        for (int C : { 1, 3, 4096 })
            for (std::size_t n : { std::size_t(1),
                                   std::size_t(31),
                                   std::size_t(1024),
                                   std::size_t(8192),
                                   std::size_t(65535) }) {
                const std::size_t budget = xgr_workspace(C, A);
                const xgr_launch_shape sh = xgr_launch_shape_for(n, C, A, budget);
                BOOST_TEST_CONTEXT("A " << A << " C " << C << " n " << n)
                {
                    BOOST_REQUIRE(sh.spectra % xgr_k == 0 && sh.spectra >= xgr_k);
                    BOOST_REQUIRE(sh.channels >= 1 && sh.channels <= C);
                    BOOST_REQUIRE_LE(std::size_t(sh.channels) *
                                         xgr_channel_bytes(A, sh.spectra),
                                     budget);
                    BOOST_REQUIRE_LE(std::size_t(sh.spectra),
                                     std::max<std::size_t>((n + 31) / 32 * 32, 32));
                    // never fewer spectra than the call brings, up to 8192
                    BOOST_REQUIRE_GE(
                        std::size_t(sh.spectra),
                        std::min<std::size_t>((n + 31) / 32 * 32, xgr_launch_spectra));
                    // The whole call in one launch wherever one channel of
                    // it fits (the MeerKAT shape, A = 128: 113 channels of
                    // 8192 spectra per launch).
                    const std::size_t whole =
                        std::max<std::size_t>((n + 31) / 32 * 32, 32);
                    if (xgr_channel_bytes(A, int(whole)) <= budget)
                        BOOST_REQUIRE_EQUAL(std::size_t(sh.spectra), whole);
                }
            }
    // Too small for one channel of 32 spectra: no shape.
    BOOST_CHECK_EQUAL(xgr_launch_shape_for(64, 1, 64, 1000).spectra, 0);
    BOOST_CHECK_EQUAL(xgr_rows(1), 16);
    BOOST_CHECK_EQUAL(xgr_rows(8), 16);
    BOOST_CHECK_EQUAL(xgr_rows(9), 32);
}

BOOST_AUTO_TEST_CASE(gram_path_on_the_host_equals_the_int64_definition)
{
    struct size {
        int A, C;
        std::vector<int> calls; // spectra per call
        std::size_t budget;     // small ones split the launches
    };
    const size sizes[] = {
        { 1, 2, { 5 }, 1 << 20 },
        { 3, 1, { 33, 1 }, 1 << 20 },
        { 19, 3, { 64 }, 1 << 20 },
        { 66, 2, { 70, 31 }, 1 << 20 },
        { 64, 3, { 40 }, 1 << 20 },
        { 8, 5, { 100 }, xgr_channel_bytes(8, 32) }, // one channel, 32 spectra
        { 70, 4, { 90 }, 2 * xgr_channel_bytes(70, 64) + 1 },
    };
    for (const size& z : sizes) {
        const int A = z.A, C = z.C;
        int T = 0;
        for (int n : z.calls)
            T += n;
        BOOST_TEST_CONTEXT("inputs " << A << " channels " << C << " spectra " << T)
        {
            const auto x =
                qa::full_range(std::size_t(T) * C * A * 2, unsigned(A * 131 + T));
            const std::size_t pairs = std::size_t(A) * (A + 1) / 2;
            // Poisoned partials: a launch adds to whatever they hold.
            std::vector<uint32_t> part =
                qa::poisoned_partials(std::size_t(C) * pairs * 2);
            const std::vector<uint32_t> before = part;
            std::vector<int> writes(std::size_t(C) * pairs, 0);
            int expected_writes = 0, t0 = 0;
            for (int n : z.calls) {
                const xgr_launch_shape sh = xgr_launch_shape_for(n, C, A, z.budget);
                BOOST_REQUIRE(sh.spectra >= xgr_k && sh.channels >= 1);
                for (int u = 0; u < n; u += sh.spectra) {
                    const int nt = std::min(n - u, sh.spectra);
                    const std::vector<int8_t> chunk(
                        x.begin() + std::size_t(t0 + u) * C * A * 2,
                        x.begin() + std::size_t(t0 + u + nt) * C * A * 2);
                    for (int c0 = 0; c0 < C; c0 += sh.channels)
                        run_launch(chunk,
                                   nt,
                                   C,
                                   c0,
                                   std::min(sh.channels, C - c0),
                                   A,
                                   part,
                                   writes);
                    ++expected_writes;
                }
                t0 += n;
            }
            qa::check_partials_gained(x, T, C, A, part, before, writes, expected_writes);
        }
    }
}

// ---- The persistent wgmma Gram kernel (xengine_ws.h, xengine_ws.cu) ----

namespace {

// One wgmma.m64nNk32 as the hardware runs it: A (64 rows) and B (N rows)
// read through their descriptors from \p stage (at shared address st), and
// acc (64 x N, row-major) = A B^T + (accumulate ? acc : 0), modulo 2^32.
void emulate_wgmma(const std::vector<uint8_t>& stage,
                   uint32_t st,
                   uint64_t da,
                   uint64_t db,
                   int N,
                   bool accumulate,
                   int32_t* acc)
{
    auto operand = [&](uint64_t desc, int rows) {
        std::vector<int8_t> v(std::size_t(rows) * xws_k_step);
        for (int r = 0; r < rows; ++r)
            for (int k = 0; k < xws_k_step; ++k) {
                const uint32_t at = xws_desc_element(desc, r, k);
                BOOST_REQUIRE(at >= st && at - st < uint32_t(stage.size()));
                v[std::size_t(r) * xws_k_step + k] = int8_t(stage[at - st]);
            }
        return v;
    };
    const auto a = operand(da, 64), b = operand(db, N);
    for (int r = 0; r < 64; ++r)
        for (int c = 0; c < N; ++c) {
            int32_t sum = 0;
            for (int k = 0; k < xws_k_step; ++k)
                sum += int32_t(a[std::size_t(r) * xws_k_step + k]) *
                       b[std::size_t(c) * xws_k_step + k];
            int32_t& d = acc[std::size_t(r) * N + c];
            d = accumulate ? int32_t(uint32_t(d) + uint32_t(sum)) : sum;
        }
}

// One MMA warpgroup's epilogue as xengine_ws.cu's epilogue<N> runs it: its
// 64 x N accumulators (acc, row-major) through the wgmma fragments, the
// combine's shuffle (lane ^ 4), the staging (what earlier epilogues left
// there stays) and the row runs' atomics and bulk reduction copies, with
// their alignment.
template <int N>
void emulate_epilogue(const int32_t* acc,
                      int a0,
                      int b0,
                      int A,
                      long long cp0,
                      uint8_t* stg,
                      int staging_bytes,
                      std::vector<uint32_t>& part,
                      std::vector<int>& writes)
{
    auto d = [&](int warp, int lane, int i) {
        return acc[std::size_t(xwg_d_row(warp, lane, i)) * N + xwg_d_col(lane, i)];
    };
    for (int warp = 0; warp < 4; ++warp)
        for (int lane = 0; lane < 32; ++lane) {
            int shift[2];
            for (int r = 0; r < 2; ++r)
                shift[r] =
                    xws_row_run(a0 + xws_result(warp, lane, 2 * r).a_local, b0, N, A, cp0)
                        .shift;
            for (int i = 0; i < N / 2; i += 2) {
                const int32_t other = d(warp, lane ^ 4, i + 1);
                const xws_result_at at = xws_result(warp, lane, i);
                const int off = xws_staging_offset<N>(
                    at.a_local, at.b_local, at.part, shift[(i >> 1) & 1]);
                BOOST_REQUIRE(off >= 0 && off + 4 <= staging_bytes);
                const int32_t v = xws_combine(at.part, d(warp, lane, i), other);
                std::memcpy(stg + off, &v, 4);
            }
        }
    for (int lane = 0; lane < 32; ++lane) {
        const xws_run run = xws_row_run(a0 + lane, b0, N, A, cp0);
        BOOST_REQUIRE_EQUAL(run.head + run.body + run.tail, run.n);
        const int row_off = lane * xws_staging_pitch(N) + 8 * run.shift;
        BOOST_REQUIRE(run.n == 0 || row_off + 8 * run.n <= staging_bytes);
        auto add_pair = [&](int e) {
            int32_t v[2];
            std::memcpy(v, stg + row_off + 8 * e, 8);
            const std::size_t at = std::size_t(run.pair0 + e);
            part[2 * at] += uint32_t(v[0]);
            part[2 * at + 1] += uint32_t(v[1]);
            ++writes[at];
        };
        if (run.head)
            add_pair(0);
        if (run.body > 0) {
            // cp.reduce.async.bulk: 16-byte aligned both ends, a multiple
            // of 16 bytes.
            BOOST_REQUIRE_EQUAL((run.pair0 + run.head) * 8 % 16, 0);
            BOOST_REQUIRE_EQUAL((row_off + 8 * run.head) % 16, 0);
            BOOST_REQUIRE_EQUAL(run.body * 8 % 16, 0);
            for (int e = run.head; e < run.head + run.body; ++e)
                add_pair(e);
        }
        if (run.tail)
            add_pair(run.head + run.body);
    }
}

// TMA's raw box of the input (ci8 [t][channel][2A] bytes), as the direct
// and channel kernels copy it: spectra kb * bk .., bytes row0 .. 127 on of
// channel c, zeros past the spectra and inputs, at xwd_raw_offset in \p raw.
void fill_raw_box(const std::vector<int8_t>& x,
                  int nt,
                  int C,
                  int A,
                  int c,
                  int kb,
                  long long row0,
                  uint8_t* raw)
{
    for (int t = 0; t < xws_bk; ++t)
        for (int b = 0; b < 128; ++b) {
            const long long tt = (long long)kb * xws_bk + t, bb = row0 + b;
            raw[xwd_raw_offset(t, b)] = uint8_t(
                tt < nt && bb < 2 * A ? x[std::size_t((tt * C + c) * 2 * A + bb)] : 0);
        }
}

// A thread's 8 x 8 block of a box: 8 loads of 8 bytes from \p load (128
// apart) in \p raw, transposed (xwd_transpose8), 8 stores at
// xwd_store_offset(store, j) in \p op; every byte counted in \p read and
// \p written (box offsets, 16-byte aligned pieces inside the box).
void transpose_block(const uint8_t* raw,
                     int load,
                     uint8_t* op,
                     int store,
                     std::vector<int>& read,
                     std::vector<int>& written)
{
    const int box_bytes = xws_box_rows * xws_bk;
    uint32_t in[16], out[16];
    for (int i = 0; i < 8; ++i) {
        const int at = load + 128 * i;
        BOOST_REQUIRE(at % 8 == 0 && at + 8 <= box_bytes);
        std::memcpy(&in[2 * i], raw + at, 8);
        for (int e = 0; e < 8; ++e)
            ++read[std::size_t(at + e)];
    }
    xwd_transpose8(in, out);
    for (int j = 0; j < 8; ++j) {
        const int at = xwd_store_offset(store, j);
        BOOST_REQUIRE(at % 8 == 0 && at + 8 <= box_bytes);
        std::memcpy(op + at, &out[2 * j], 8);
        for (int e = 0; e < 8; ++e)
            ++written[std::size_t(at + e)];
    }
}

// One launch of xengine_ws.cu's kernel on a grid of \p grid blocks, as its
// threads run it: the producer's TMA boxes (swizzled, zeros past the rows
// and spectra) into a poisoned stage, the two warpgroups' wgmma through
// their descriptors, the accumulator fragments, the combine's shuffle, the
// staging (poisoned once per block: what a previous tile left stays there)
// and the row runs' atomics and bulk reduction copies, with their
// alignment.
//
// DIRECT (the producer warpgroup packs): no Y in memory; raw boxes of the
// input (zeros past the spectra and inputs) into a poisoned raw slot, then
// the 128 producer threads' 8 x 8 transposes into the stage.
template <int BN, bool DIRECT = false>
void run_ws_launch(const std::vector<int8_t>& x,
                   int nt,
                   int C,
                   int c0,
                   int nc,
                   int A,
                   int grid,
                   std::vector<uint32_t>& part,
                   std::vector<int>& writes)
{
    using S = xws_shape<BN, DIRECT>;
    const int R = xgr_rows(A);
    // The direct kernel's K: the call's spectra, rounded by TMA's zeros.
    const int t_pad = DIRECT ? nt : (nt + xgr_k - 1) / xgr_k * xgr_k;
    const std::vector<int8_t> y =
        DIRECT ? std::vector<int8_t>() : pack_launch(x, nt, C, c0, nc, A);
    if (DIRECT) {
        const xws_map_shape m = xwd_map_for(nt, C, A);
        BOOST_REQUIRE(m.dims[0] == uint64_t(2 * A) && m.dims[1] == uint64_t(C) &&
                      m.dims[2] == uint64_t(nt));
        BOOST_REQUIRE(m.strides[0] == uint64_t(2 * A) &&
                      m.strides[1] == uint64_t(2 * A) * C);
        BOOST_REQUIRE(m.strides[0] % 16 == 0); // TMA: A a multiple of 8
        BOOST_REQUIRE(m.box[0] * m.box[1] * m.box[2] == uint32_t(xws_box_rows * xws_bk));
    }
    if (!DIRECT) { // the tensor map describes Y as the pack wrote it
        const xws_map_shape map = xws_map_for(t_pad, R, nc);
        BOOST_REQUIRE_EQUAL(map.strides[0], xgr_y_offset(0, 1, 0, R, t_pad));
        BOOST_REQUIRE_EQUAL(map.strides[1], xgr_y_offset(1, 0, 0, R, t_pad));
        BOOST_REQUIRE(map.strides[0] % 16 == 0 && map.strides[1] % 16 == 0);
        BOOST_REQUIRE(map.dims[0] == uint64_t(t_pad) && map.dims[1] == uint64_t(R) &&
                      map.dims[2] == uint64_t(nc));
        BOOST_REQUIRE(map.box[0] == uint32_t(xws_bk) &&
                      map.box[1] == uint32_t(xws_box_rows));
        BOOST_REQUIRE_LE(map.box[0], 128u); // the 128-byte swizzle's span
    }
    auto y_at = [&](int lc, long long row, long long k) -> int8_t {
        return row < R && k < t_pad ? y[xgr_y_offset(lc, int(row), int(k), R, t_pad)] : 0;
    };
    const long long per_channel =
                        DIRECT ? xwd_tiles_per_channel(A) : xws_tiles_per_channel(R, BN),
                    tiles = per_channel * nc;
    BOOST_REQUIRE_EQUAL(per_channel, xws_tiles_per_channel(R, BN));
    const int k_blocks = xws_k_blocks(t_pad);
    const long long pairs = (long long)A * (A + 1) / 2;
    const uint32_t st = 5 * 1024; // a stage's (1024-aligned) shared address
    std::vector<int> tile_runs(std::size_t(tiles), 0);
    for (int cta = 0; cta < grid; ++cta) {
        std::vector<uint8_t> stage(S::stage_bytes);
        std::vector<uint8_t> staging(2 * S::staging_bytes, 0xc3);
        for (long long t = cta; t < tiles; t += grid) {
            const xws_tile w = xws_tile_at(t, per_channel, BN);
            ++tile_runs[std::size_t(t)];
            int b_boxes;
            const int tx = xws_stage_tx(w, BN, R, b_boxes);
            // The direct kernel transposes the A box (unless inner) and
            // one B box: BN = 128, and B starts at or below the A rows.
            if (DIRECT)
                BOOST_REQUIRE_EQUAL(b_boxes, 1);
            std::vector<int32_t> acc(std::size_t(2) * 64 * BN, 0x7b7b7b7b);
            for (int kb = 0; kb < k_blocks; ++kb) {
                // What no box writes holds garbage (a box past the rows is
                // not issued).
                std::fill(stage.begin(), stage.end(), uint8_t(0xa7));
                int landed = 0;
                auto box = [&](int dst, long long row0) {
                    landed += xws_box_rows * xws_bk;
                    if (!DIRECT) {
                        for (int r = 0; r < xws_box_rows; ++r)
                            for (int k = 0; k < xws_bk; ++k)
                                stage[std::size_t(dst + xws_sw128(r, k))] = uint8_t(
                                    y_at(w.lc, row0 + r, (long long)kb * xws_bk + k));
                        return;
                    }
                    // TMA: the raw box (spectra kb * 128 .., bytes row0 ..)
                    // into a poisoned slot; then the producer threads'
                    // blocks, each 8 x 8 bytes once.
                    constexpr int box_bytes = xws_box_rows * xws_bk;
                    std::vector<uint8_t> raw(box_bytes, 0x96);
                    fill_raw_box(x, nt, C, A, c0 + w.lc, kb, row0, raw.data());
                    // Each thread's two blocks from its offsets, every byte
                    // of the box read once and written once.
                    std::vector<int> read(box_bytes, 0), written(box_bytes, 0);
                    for (int ptid = 0; ptid < 128; ++ptid) {
                        const xwd_thread_blocks mine = xwd_blocks_of(ptid);
                        for (int k = 0; k < 2; ++k)
                            transpose_block(raw.data(),
                                            mine.load[k],
                                            &stage[std::size_t(dst)],
                                            mine.store[k],
                                            read,
                                            written);
                    }
                    for (int b = 0; b < box_bytes; ++b)
                        BOOST_REQUIRE(read[std::size_t(b)] == 1 &&
                                      written[std::size_t(b)] == 1);
                };
                if (!w.inner)
                    box(0, (long long)w.i * xws_bm);
                for (int q = 0; q < b_boxes; ++q)
                    box(S::a_bytes + q * xws_box_rows * xws_bk,
                        (long long)w.j * BN + q * xws_box_rows);
                BOOST_REQUIRE_EQUAL(landed, tx); // the mbarrier's byte count
                for (int h = 0; h < 2; ++h) {
                    const uint32_t a_off =
                        (w.inner ? S::a_bytes + w.a_in_b * xws_bk : 0) +
                        h * xws_rows_per_wg * xws_bk;
                    const uint64_t da = xws_desc(st + a_off),
                                   db = xws_desc(st + S::a_bytes);
                    for (int kk = 0; kk < xws_bk / xws_k_step; ++kk)
                        emulate_wgmma(stage,
                                      st,
                                      da + 2 * kk,
                                      db + 2 * kk,
                                      BN,
                                      (kb | kk) != 0,
                                      &acc[std::size_t(h) * 64 * BN]);
                }
            }
            // Epilogue: fragments, combine, staging, runs.
            for (int h = 0; h < 2; ++h)
                emulate_epilogue<BN>(&acc[std::size_t(h) * 64 * BN],
                                     w.i * (xws_bm / 2) + h * xws_inputs_per_wg,
                                     w.j * (BN / 2),
                                     A,
                                     (long long)(c0 + w.lc) * pairs,
                                     &staging[std::size_t(h) * S::staging_bytes],
                                     S::staging_bytes,
                                     part,
                                     writes);
        }
    }
    for (int n : tile_runs)
        BOOST_REQUIRE_EQUAL(n, 1); // the persistent grid runs each tile once
}

// One launch of xengine_ws.cu's channel kernel (xengine_ws.h, "The channel
// variant") on a grid of \p grid blocks, as its threads run it: thread 0's
// TMA copies of the channel's boxes into a ring of 3 poisoned raw slots and
// every thread's transposes of its block of each box into a poisoned
// operand stage, in the kernel's order (the walks advanced as it advances
// them: a slot refilled only once read, read only once its copies were
// issued); the two warpgroups' wgmmas of each row group through their
// descriptors; the epilogues through each warpgroup's staging.
void run_wc_launch(const std::vector<int8_t>& x,
                   int nt,
                   int C,
                   int A,
                   int grid,
                   std::vector<uint32_t>& part,
                   std::vector<int>& writes)
{
    using S = xwc_shape;
    const int R = xgr_rows(A), G = xwc_groups(R), boxes = xwc_boxes(R);
    BOOST_REQUIRE(A % 8 == 0 && A <= xwc_max_inputs && G >= 1 && G <= 4);
    const xws_map_shape m = xwd_map_for(nt, C, A);
    BOOST_REQUIRE(m.dims[0] == uint64_t(2 * A) && m.strides[0] % 16 == 0);
    const int k_blocks = xws_k_blocks(nt);
    const long long pairs = (long long)A * (A + 1) / 2;
    const uint32_t st = 5 * 1024; // an operand stage's (1024-aligned) shared address
    // Every stage of every channel formed once; the epilogues of a channel's
    // parts (blocks sharing it) each add to its partials.
    std::vector<int> stage_runs(std::size_t(C) * k_blocks, 0), parts(std::size_t(C), 0);
    std::vector<int> launch_writes(writes.size(), 0);
    // The plan's grid: at most a block a stage.
    grid = int(std::min<long long>(grid, (long long)C * k_blocks));
    long long next_begin = 0;
    for (int cta = 0; cta < grid; ++cta) {
        std::vector<uint8_t> raw(std::size_t(S::raw_stages) * S::stage_bytes, 0x96);
        std::vector<long long> holds(S::raw_stages, -1); // iteration in a raw slot
        std::vector<bool> read(S::raw_stages, true);     // transposed since
        std::vector<uint8_t> op[S::stages];
        std::vector<long long> op_holds(S::stages, -1);
        std::vector<uint8_t> staging[2] = { std::vector<uint8_t>(S::staging0_bytes, 0xc3),
                                            std::vector<uint8_t>(S::staging1_bytes,
                                                                 0xc3) };
        const xwc_share share = xwc_share_of((long long)C * k_blocks, cta, grid);
        const long long total = share.end - share.begin;
        BOOST_REQUIRE(total >= 1 && share.begin == next_begin); // shares in order
        next_begin = share.end;
        const long long c_first = share.begin / k_blocks;
        const int kb_first = int(share.begin - c_first * k_blocks);
        xwd_walk issued, next;
        issued.tile = c_first;
        issued.kb = kb_first;
        long long n_issued = 0, n_next = 0;
        auto issue = [&] {
            if (n_issued >= total)
                return;
            BOOST_REQUIRE(read[std::size_t(issued.slot)]); // its last copies were read
            uint8_t* slot = &raw[std::size_t(issued.slot) * S::stage_bytes];
            std::fill(slot, slot + S::stage_bytes, uint8_t(0x96));
            for (int q = 0; q < boxes; ++q)
                fill_raw_box(x,
                             nt,
                             C,
                             A,
                             int(issued.tile),
                             issued.kb,
                             (long long)q * xws_box_rows,
                             slot + q * S::box_bytes);
            holds[std::size_t(issued.slot)] = n_issued;
            read[std::size_t(issued.slot)] = false;
            issued.advance(k_blocks, S::raw_stages);
            ++n_issued;
        };
        auto transpose = [&](int o) {
            BOOST_REQUIRE_EQUAL(holds[std::size_t(next.slot)], n_next); // landed there
            const uint8_t* slot = &raw[std::size_t(next.slot) * S::stage_bytes];
            op[o].assign(S::stage_bytes, 0xa7); // what no box writes holds garbage
            // Every raw byte read once, every operand byte written once.
            const std::size_t box_bytes = S::box_bytes;
            for (int q = 0; q < boxes; ++q) {
                std::vector<int> r(box_bytes, 0), w(box_bytes, 0);
                for (int tid = 0; tid < xwc_threads; ++tid) {
                    const xwd_block_at mine = xwd_block_of(tid);
                    transpose_block(slot + q * box_bytes,
                                    mine.load,
                                    &op[o][q * box_bytes],
                                    mine.store,
                                    r,
                                    w);
                }
                for (std::size_t b = 0; b < box_bytes; ++b)
                    BOOST_REQUIRE(r[b] == 1 && w[b] == 1);
            }
            read[std::size_t(next.slot)] = true;
            op_holds[std::size_t(o)] = n_next;
            next.advance(k_blocks, S::raw_stages);
            ++n_next;
        };
        for (int j = 0; j < S::raw_stages; ++j)
            issue();
        if (total > 0)
            transpose(0);
        issue();
        long long it = 0;
        for (long long c = c_first; it < total; ++c) {
            // The channel's stages in this block's share.
            const int kb0 = c == c_first ? kb_first : 0;
            const int kb1 = int(std::min<long long>(k_blocks, kb0 + (total - it)));
            BOOST_REQUIRE(c < C && kb0 < kb1);
            ++parts[std::size_t(c)];
            // acc[h][s]: warpgroup h's row group in slot s, 64 x N.
            std::vector<int32_t> acc[2][2];
            for (int kb = kb0; kb < kb1; ++kb, ++it) {
                ++stage_runs[std::size_t(c) * k_blocks + kb];
                const int o = int(it & 1);
                BOOST_REQUIRE_EQUAL(op_holds[std::size_t(o)], it);
                for (int h = 0; h < 2; ++h)
                    for (int s = 0; s < 2; ++s) {
                        const int N = xwc_slot_n(G, h, s);
                        if (N == 0)
                            continue;
                        const int g = xwc_group(h, s);
                        BOOST_REQUIRE_EQUAL(N, xwc_group_n(g));
                        if (kb == kb0)
                            acc[h][s].assign(std::size_t(64) * N, 0x7b7b7b7b);
                        const uint64_t da = xws_desc(st + xwc_a_offset(g)),
                                       db = xws_desc(st);
                        for (int kk = 0; kk < xws_bk / xws_k_step; ++kk)
                            emulate_wgmma(op[o],
                                          st,
                                          da + 2 * kk,
                                          db + 2 * kk,
                                          N,
                                          kb != kb0 || kk != 0,
                                          acc[h][s].data());
                    }
                // Every warpgroup's wgmmas of it - 1 are done: the next
                // stage goes into their operand.
                if (it + 1 < total)
                    transpose(int((it + 1) & 1));
                if (kb + 1 < kb1)
                    issue();
            }
            for (int h = 0; h < 2; ++h)
                for (int s = 0; s < 2; ++s) {
                    const int N = xwc_slot_n(G, h, s);
                    if (N == 0)
                        continue;
                    const int g = xwc_group(h, s);
                    auto run = [&](auto n) {
                        emulate_epilogue<decltype(n)::value>(acc[h][s].data(),
                                                             g * xws_inputs_per_wg,
                                                             0,
                                                             A,
                                                             c * pairs,
                                                             staging[h].data(),
                                                             int(staging[h].size()),
                                                             part,
                                                             launch_writes);
                    };
                    if (N == 64)
                        run(std::integral_constant<int, 64>{});
                    else if (N == 128)
                        run(std::integral_constant<int, 128>{});
                    else if (N == 192)
                        run(std::integral_constant<int, 192>{});
                    else
                        run(std::integral_constant<int, 256>{});
                }
            issue();
        }
        BOOST_REQUIRE_EQUAL(n_issued, total);
        BOOST_REQUIRE_EQUAL(n_next, total);
    }
    for (int n : stage_runs)
        BOOST_REQUIRE_EQUAL(n, 1); // every stage of every channel once
    // Each pair added once by each part of its channel; the launch as a
    // whole counts as one write.
    for (int c = 0; c < C; ++c)
        for (long long k = 0; k < pairs; ++k) {
            BOOST_REQUIRE_EQUAL(launch_writes[std::size_t(c * pairs + k)],
                                parts[std::size_t(c)]);
            ++writes[std::size_t(c * pairs + k)];
        }
}

} // namespace

namespace {

// One launch of xengine_gram.cu's mma.sync Gram kernel (sm_80 on), as its
// threads run it: every block (tile, launch channel), its 16-byte copies
// into a poisoned 3-stage ring (zeros past the rows and spectra; a diagonal
// tile's A side not copied), every warp's fragment loads, the m16n8k32 MMAs
// from the PTX ISA's fragment table (xtc_*), the shuffle and an atomic add
// per result.
void run_mma_launch(const std::vector<int8_t>& x,
                    int nt,
                    int C,
                    int c0,
                    int nc,
                    int A,
                    std::vector<uint32_t>& part,
                    std::vector<int>& writes)
{
    const int R = xgr_rows(A), t_pad = (nt + xgr_k - 1) / xgr_k * xgr_k;
    const std::vector<int8_t> y = pack_launch(x, nt, C, c0, nc, A);
    const long long per_channel = xws_tiles_per_channel(R, xgm_tile);
    const long long pairs = (long long)A * (A + 1) / 2;
    const int n_stages = (t_pad + xgm_k - 1) / xgm_k;
    for (int lc = 0; lc < nc; ++lc)
        for (long long u = 0; u < per_channel; ++u) {
            const xws_tile w = xws_tile_at(u, per_channel, xgm_tile);
            const int a_side = w.inner ? 1 : 0;
            std::vector<uint8_t> ring(xgm_smem_bytes, 0xe5);
            std::vector<int32_t> acc(std::size_t(8) * 32 * xgm_regs,
                                     0); // [warp][lane][r]
            for (int st = 0; st < n_stages; ++st) {
                uint8_t* stage = &ring[std::size_t(st % xgm_stages) * xgm_stage_bytes];
                for (int e = 0; e < 2 * xgm_tile * (xgm_k / 16); ++e) {
                    const xgm_copy c = xgm_copy_of(e);
                    if (c.side == 0 && w.inner)
                        continue;
                    const int row = (c.side ? w.j : w.i) * xgm_tile + c.row;
                    const int k = st * xgm_k + 16 * c.chunk;
                    const int at = xgm_smem_offset(c.side, c.row, 16 * c.chunk);
                    BOOST_REQUIRE_EQUAL(at % 16, 0); // cp.async 16
                    for (int b = 0; b < 16; ++b)
                        stage[std::size_t(at + b)] =
                            row < R && k < t_pad
                                ? uint8_t(y[xgr_y_offset(lc, row, k + b, R, t_pad)])
                                : 0;
                }
                for (int warp = 0; warp < 8; ++warp)
                    for (int kk = 0; kk < xgm_k / 32; ++kk)
                        for (int mi = 0; mi < 4; ++mi)
                            for (int nj = 0; nj < 4; ++nj) {
                                // The warp's A (16 x 32) and B (32 x 8) from its
                                // lanes' fragment loads.
                                int8_t am[16][32], bm[32][8];
                                for (int lane = 0; lane < 32; ++lane) {
                                    for (int i = 0; i < 4; ++i) {
                                        const int at =
                                            xgm_smem_offset(a_side,
                                                            64 * (warp >> 2) + 16 * mi +
                                                                xtc_a_row(lane, i),
                                                            32 * kk + xtc_a_k(lane, i));
                                        BOOST_REQUIRE_EQUAL(at % 4, 0);
                                        for (int j = 0; j < 4; ++j)
                                            am[xtc_a_row(lane, i)][xtc_a_k(lane, i) + j] =
                                                int8_t(stage[std::size_t(at + j)]);
                                    }
                                    for (int i = 0; i < 2; ++i) {
                                        const int at = xgm_smem_offset(
                                            1,
                                            32 * (warp & 3) + 8 * nj + xtc_b_col(lane),
                                            32 * kk + xtc_b_k(lane, i));
                                        for (int j = 0; j < 4; ++j)
                                            bm[xtc_b_k(lane, i) + j][xtc_b_col(lane)] =
                                                int8_t(stage[std::size_t(at + j)]);
                                    }
                                }
                                for (int lane = 0; lane < 32; ++lane)
                                    for (int i = 0; i < 4; ++i) {
                                        int32_t sum = 0;
                                        for (int k = 0; k < 32; ++k)
                                            sum += int32_t(am[xtc_c_row(lane, i)][k]) *
                                                   bm[k][xtc_c_col(lane, i)];
                                        int32_t& d = acc[(std::size_t(warp) * 32 + lane) *
                                                             xgm_regs +
                                                         4 * (4 * mi + nj) + i];
                                        d = int32_t(uint32_t(d) + uint32_t(sum));
                                    }
                            }
            }
            const long long cp0 = (long long)(c0 + lc) * pairs;
            const int a0 = w.i * (xgm_tile / 2), b0 = w.j * (xgm_tile / 2);
            for (int warp = 0; warp < 8; ++warp)
                for (int lane = 0; lane < 32; ++lane)
                    for (int r = 0; r < xgm_regs; r += 2) {
                        auto d = [&](int l, int k) {
                            return acc[(std::size_t(warp) * 32 + l) * xgm_regs + k];
                        };
                        const int row = xgm_row_of(warp, lane, r),
                                  col = xgm_col_of(warp, lane, r);
                        BOOST_REQUIRE_EQUAL(col % 2, 0);
                        BOOST_REQUIRE_EQUAL(xgm_row_of(warp, lane ^ 4, r), row ^ 1);
                        BOOST_REQUIRE_EQUAL(xgm_col_of(warp, lane, r + 1), col + 1);
                        const int a = a0 + row / 2, b = b0 + col / 2, half = row & 1;
                        if (a < A && b <= a) {
                            const std::size_t at =
                                std::size_t(cp0 + (long long)a * (a + 1) / 2 + b);
                            part[2 * at + half] += uint32_t(
                                xws_combine(half, d(lane, r), d(lane ^ 4, r + 1)));
                            if (half == 0)
                                ++writes[at];
                        }
                    }
        }
}

} // namespace

BOOST_AUTO_TEST_CASE(mma_path_on_the_host_equals_the_int64_definition)
{
    struct size {
        int A, C;
        std::vector<int> calls;
    };
    const size sizes[] = {
        { 1, 2, { 5 } },
        { 19, 1, { 33, 64 } },
        { 67, 2, { 100 } }, // two row blocks: an off-diagonal tile
        { 130, 1, { 40 } }, // three row blocks
    };
    for (const size& z : sizes) {
        const int A = z.A, C = z.C;
        int T = 0;
        for (int n : z.calls)
            T += n;
        BOOST_TEST_CONTEXT("mma.sync: inputs " << A << " channels " << C << " spectra "
                                               << T)
        {
            const auto x =
                qa::full_range(std::size_t(T) * C * A * 2, unsigned(A + 3 * T));
            const std::size_t pairs = std::size_t(A) * (A + 1) / 2;
            std::vector<uint32_t> part =
                qa::poisoned_partials(std::size_t(C) * pairs * 2);
            const std::vector<uint32_t> before = part;
            std::vector<int> writes(std::size_t(C) * pairs, 0);
            int t0 = 0;
            for (int n : z.calls) {
                const std::vector<int8_t> chunk(x.begin() + std::size_t(t0) * C * A * 2,
                                                x.begin() +
                                                    std::size_t(t0 + n) * C * A * 2);
                run_mma_launch(chunk, n, C, 0, C, A, part, writes);
                t0 += n;
            }
            qa::check_partials_gained(
                x, T, C, A, part, before, writes, int(z.calls.size()));
        }
    }
    // A warp's fragment loads (8 rows g, 4 words q) fall in 32 banks.
    for (int i = 0; i < 4; ++i) {
        std::set<int> banks;
        for (int lane = 0; lane < 32; ++lane)
            banks.insert(xgm_smem_offset(0, xtc_a_row(lane, i), xtc_a_k(lane, i)) / 4 %
                         32);
        BOOST_REQUIRE_EQUAL(banks.size(), 32u);
    }
}

BOOST_AUTO_TEST_CASE(ws_tiles_cover_the_triangle_once)
{
    for (int bn : { 128, 256 })
        for (int R = 16; R <= 4096; R += 16) {
            const int nI = xws_row_blocks(R), nc = R % 48 == 0 ? 3 : 1;
            const long long per = xws_tiles_per_channel(R, bn);
            std::vector<int> seen(std::size_t(nc) * nI * nI, 0);
            for (long long t = 0; t < per * nc; ++t) {
                const xws_tile w = xws_tile_at(t, per, bn);
                BOOST_REQUIRE(w.lc >= 0 && w.lc < nc && w.i >= 0 && w.i < nI && w.j >= 0);
                // some B row at or below some A row; B starts inside Y
                BOOST_REQUIRE_LT((long long)w.j * bn, (long long)(w.i + 1) * xws_bm);
                BOOST_REQUIRE_LT(w.j * bn, R);
                // inner: the A rows inside the B rows, at a 1024-byte
                // aligned offset (the swizzle atom)
                const bool inside =
                    w.i * xws_bm >= w.j * bn && (w.i + 1) * xws_bm <= (w.j + 1) * bn;
                BOOST_REQUIRE_EQUAL(w.inner, inside);
                BOOST_REQUIRE_EQUAL(w.a_in_b * xws_bk % 1024, 0);
                ++seen[(std::size_t(w.lc) * nI + w.i) * nI + w.j];
            }
            for (int lc = 0; lc < nc; ++lc)
                for (int i = 0; i < nI; ++i)
                    for (int j = 0; j < nI; ++j)
                        BOOST_REQUIRE_EQUAL(
                            seen[(std::size_t(lc) * nI + i) * nI + j],
                            (long long)j * bn < (long long)(i + 1) * xws_bm ? 1 : 0);
        }
    // The largest Y the plan allows (65536 dual-pol stations: 262144 rows):
    // the first and last tiles of a row block decode exactly.
    for (int bn : { 128, 256 }) {
        const int R = 262144, nI = xws_row_blocks(R);
        const long long per = xws_tiles_per_channel(R, bn);
        for (int i : { 0, 1, 2, 3, nI / 2, nI - 2, nI - 1 }) {
            const long long first = xws_tiles_before(i, bn),
                            last = xws_tiles_before(i + 1, bn) - 1;
            const xws_tile a = xws_tile_at(first + per, per, bn),
                           b = xws_tile_at(last + 2 * per, per, bn);
            BOOST_REQUIRE(a.lc == 1 && a.i == i && a.j == 0);
            BOOST_REQUIRE(b.lc == 2 && b.i == i && b.j == i * xws_bm / bn);
        }
    }
}

BOOST_AUTO_TEST_CASE(ws_descriptors_read_what_tma_wrote)
{
    // The PTX ISA's fields: start >> 4 in bits 0-13, SBO (1024) >> 4 in
    // 32-45, 128-byte swizzle (1) in 62-63, base offset 0.
    const uint64_t d = xws_desc(0x2c400);
    BOOST_CHECK_EQUAL(d & 0x3fff, uint64_t(0x2c400 >> 4));
    BOOST_CHECK_EQUAL((d >> 16) & 0x3fff, 1u);
    BOOST_CHECK_EQUAL((d >> 32) & 0x3fff, 64u);
    BOOST_CHECK_EQUAL((d >> 49) & 7, 0u);
    BOOST_CHECK_EQUAL(d >> 62, 1u);
    // What a descriptor at a 1024-aligned operand plus 32 kk bytes reads is
    // what TMA's swizzle wrote at (row, 32 kk + k); every byte of an
    // operand once per k step.
    for (uint32_t base : { 0u, 1024u, 17u * 1024u, 200u * 1024u })
        for (int rows : { 64, 128, 256 }) {
            std::vector<int> hits(std::size_t(rows) * 128, 0);
            for (int kk = 0; kk < 4; ++kk)
                for (int r = 0; r < rows; ++r)
                    for (int k = 0; k < 32; ++k) {
                        const uint32_t at =
                            xws_desc_element(xws_desc(base) + 2 * kk, r, k);
                        BOOST_REQUIRE_EQUAL(at,
                                            base + uint32_t(xws_sw128(r, 32 * kk + k)));
                        ++hits[at - base];
                    }
            for (int n : hits)
                BOOST_REQUIRE_EQUAL(n, 1);
        }
}

BOOST_AUTO_TEST_CASE(ws_combine_map_pairs_lanes_and_fills_the_staging)
{
    // Lane ^ 4 holds the other row of the same input for the same columns;
    // the results of a warpgroup cover its 32 x BN/2 pairs, re and im, once.
    for (int bn : { 128, 256 }) {
        std::vector<int> seen(std::size_t(xws_inputs_per_wg) * (bn / 2) * 2, 0);
        for (int warp = 0; warp < 4; ++warp)
            for (int lane = 0; lane < 32; ++lane)
                for (int i = 0; i < bn / 2; i += 2) {
                    const xws_result_at a = xws_result(warp, lane, i),
                                        b = xws_result(warp, lane ^ 4, i);
                    BOOST_REQUIRE(a.a_local == b.a_local && a.b_local == b.b_local &&
                                  a.part != b.part);
                    // the fragment's rows and columns (xwg_d_row, xwg_d_col)
                    BOOST_REQUIRE_EQUAL(2 * a.a_local + a.part, xwg_d_row(warp, lane, i));
                    BOOST_REQUIRE_EQUAL(2 * a.b_local, xwg_d_col(lane, i));
                    BOOST_REQUIRE_EQUAL(xwg_d_col(lane, i + 1), 2 * a.b_local + 1);
                    BOOST_REQUIRE(a.a_local >= 0 && a.a_local < xws_inputs_per_wg &&
                                  a.b_local >= 0 && a.b_local < bn / 2);
                    ++seen[(std::size_t(a.a_local) * (bn / 2) + a.b_local) * 2 + a.part];
                }
        for (int n : seen)
            BOOST_REQUIRE_EQUAL(n, 1);
    }
    // The combine at the int32 bound (xengine_int32_spectra of -128 - 128j).
    const int64_t T = int64_t(xengine_int32_spectra);
    const int32_t sq = int32_t(16384 * T);
    BOOST_CHECK_EQUAL(int64_t(xws_combine(0, sq, sq)), 2 * 16384 * T);
    BOOST_CHECK_EQUAL(xws_combine(1, sq, sq), 0);
    BOOST_CHECK_EQUAL(int64_t(xws_combine(1, int32_t(16384 * T), int32_t(-16256 * T))),
                      16384 * T + 16256 * T);
    // Runs: head, even body, tail; the staging shift follows the parity.
    for (long long p0 : { 0LL, 1LL, 1000LL, 1001LL })
        for (int a : { 0, 1, 5, 63, 64, 127, 200 })
            for (int b0 : { 0, 64, 128 })
                for (int bn : { 128, 256 }) {
                    const xws_run r = xws_row_run(a, b0, bn, 150, p0);
                    const int expect =
                        a < 150 ? std::max(0, std::min(b0 + bn / 2, a + 1) - b0) : 0;
                    BOOST_REQUIRE_EQUAL(r.n, expect);
                    BOOST_REQUIRE_EQUAL(r.pair0, p0 + (long long)a * (a + 1) / 2 + b0);
                    BOOST_REQUIRE_EQUAL(r.shift, int(r.pair0 & 1));
                    BOOST_REQUIRE(r.body % 2 == 0 && r.head + r.body + r.tail == r.n);
                    BOOST_REQUIRE(r.n == 0 || (r.pair0 + r.head) % 2 == 0);
                }
    // Shared memory fits sm_90's 227 KiB, the ring 1024-aligned after the slack.
    BOOST_CHECK_LE(xws_shape<128>::smem_bytes, xws_smem_limit);
    BOOST_CHECK_LE(xws_shape<256>::smem_bytes, xws_smem_limit);
}

BOOST_AUTO_TEST_CASE(ws_direct_transposes_exactly_and_without_bank_conflicts)
{
    // xwd_transpose8 against its definition on random bytes.
    std::mt19937 rng(5);
    for (int trial = 0; trial < 200; ++trial) {
        uint32_t in[16], out[16];
        for (auto& v : in)
            v = uint32_t(rng());
        xwd_transpose8(in, out);
        for (int i = 0; i < 8; ++i)
            for (int j = 0; j < 8; ++j) {
                const uint8_t from = uint8_t(in[2 * i + j / 4] >> (8 * (j % 4)));
                const uint8_t to = uint8_t(out[2 * j + i / 4] >> (8 * (i % 4)));
                BOOST_REQUIRE_EQUAL(int(from), int(to));
            }
    }
    // 16 lanes' 8-byte loads (row 8 tb + i, bytes 8 rb) and stores (row
    // 8 rb + j, spectra 8 tb, swizzled) fall in 32 different banks.
    for (int base = 0; base < 256; base += 16)
        for (int i = 0; i < 8; ++i) {
            std::set<int> load_banks, store_banks;
            for (int lane = 0; lane < 16; ++lane) {
                int tb, rb;
                xwd_block(base + lane, tb, rb);
                const int l = xwd_raw_offset(8 * tb + i, 8 * rb) / 4,
                          st = xws_sw128(8 * rb + i, 8 * tb) / 4;
                load_banks.insert(l % 32);
                load_banks.insert((l + 1) % 32);
                store_banks.insert(st % 32);
                store_banks.insert((st + 1) % 32);
            }
            BOOST_REQUIRE_EQUAL(load_banks.size(), 32u);
            BOOST_REQUIRE_EQUAL(store_banks.size(), 32u);
        }
    // The producer's walk: counters equal the divisions they replace.
    for (int k_blocks : { 1, 2, 3, 5, 64 })
        for (int ring : { 1, 2, 3, 6 }) {
            xwd_walk v;
            for (long long it = 0; it < 1000; ++it) {
                BOOST_REQUIRE(v.tile == it / k_blocks && v.kb == it % k_blocks &&
                              v.slot == it % ring &&
                              v.phase == uint32_t((it / ring) & 1));
                BOOST_REQUIRE_EQUAL(v.advance(k_blocks, ring), (it + 1) % k_blocks == 0);
            }
        }
    // A thread's offsets (xwd_blocks_of, xwd_store_offset) are its blocks'
    // (xwd_block of ptid and ptid + 128) raw rows and swizzled rows of Y.
    for (int ptid = 0; ptid < 128; ++ptid) {
        const xwd_thread_blocks mine = xwd_blocks_of(ptid);
        for (int k = 0; k < 2; ++k) {
            int tb, rb;
            xwd_block(ptid + 128 * k, tb, rb);
            for (int i = 0; i < 8; ++i) {
                BOOST_REQUIRE_EQUAL(mine.load[k] + 128 * i,
                                    xwd_raw_offset(8 * tb + i, 8 * rb));
                BOOST_REQUIRE_EQUAL(xwd_store_offset(mine.store[k], i),
                                    xws_sw128(8 * rb + i, 8 * tb));
            }
        }
    }
    BOOST_CHECK_LE((xws_shape<128, true>::smem_bytes), xws_smem_limit);
    BOOST_CHECK_EQUAL(xwd_tiles_per_channel(64), 1);  // 128 rows: one diagonal tile
    BOOST_CHECK_EQUAL(xwd_tiles_per_channel(128), 3); // (0,0), (1,0), (1,1)
}

namespace {

// A stream of calls (spectra each) of A inputs and C channels, on a
// persistent grid of \p grid blocks.
struct stream_case {
    int A, C;
    std::vector<int> calls;
    int grid;
};

// A stream's calls (any length: zeros past the spectra) into poisoned
// partials, one launch of \p launch each, against the int64 definition.
template <typename Launch>
void check_calls(
    int A, int C, const std::vector<int>& calls, unsigned seed, Launch launch)
{
    int T = 0;
    for (int n : calls)
        T += n;
    const auto x = qa::full_range(std::size_t(T) * C * A * 2, seed);
    const std::size_t pairs = std::size_t(A) * (A + 1) / 2;
    std::vector<uint32_t> part = qa::poisoned_partials(std::size_t(C) * pairs * 2);
    const std::vector<uint32_t> before = part;
    std::vector<int> writes(std::size_t(C) * pairs, 0);
    int t0 = 0;
    for (int n : calls) {
        const std::vector<int8_t> chunk(x.begin() + std::size_t(t0) * C * A * 2,
                                        x.begin() + std::size_t(t0 + n) * C * A * 2);
        launch(chunk, n, part, writes);
        t0 += n;
    }
    qa::check_partials_gained(x, T, C, A, part, before, writes, int(calls.size()));
}

} // namespace

BOOST_AUTO_TEST_CASE(ws_direct_path_on_the_host_equals_the_int64_definition)
{
    // Inputs a multiple of 8 (TMA's 16-byte strides); calls of any length
    // (zeros past the spectra), poisoned partials, every channel a launch.
    const stream_case sizes[] = {
        { 8, 2, { 5, 40 }, 1 },
        { 64, 2, { 130 }, 3 },      // one row block: a diagonal tile
        { 128, 2, { 70, 200 }, 4 }, // MeerKAT's 64 dual-pol stations: three tiles
        { 200, 1, { 257 }, 5 },     // four row blocks, a box past the inputs
    };
    for (const stream_case& z : sizes) {
        BOOST_TEST_CONTEXT("direct: inputs " << z.A << " channels " << z.C)
        {
            check_calls(z.A,
                        z.C,
                        z.calls,
                        unsigned(z.A + z.calls[0]),
                        [&](const std::vector<int8_t>& chunk,
                            int n,
                            std::vector<uint32_t>& part,
                            std::vector<int>& writes) {
                            run_ws_launch<128, true>(
                                chunk, n, z.C, 0, z.C, z.A, z.grid, part, writes);
                        });
        }
    }
}

BOOST_AUTO_TEST_CASE(ws_channel_path_on_the_host_equals_the_int64_definition)
{
    // One to four row groups (one box up to 64 inputs, two from 72), calls
    // of any length (zeros past the spectra), poisoned partials, blocks of
    // several channels each and channels shared by two blocks.
    const stream_case sizes[] = {
        { 8, 3, { 5, 40 }, 2 },    // one group, rows 0..15 of 64
        { 40, 2, { 300 }, 3 },     // two groups, the second short; both channels split
        { 40, 1, { 640 }, 3 },     // one channel in three parts
        { 64, 2, { 129 }, 7 },     // two groups, one box; a block a stage
        { 72, 1, { 3 }, 1 },       // three groups, the second box begins
        { 96, 2, { 70, 131 }, 1 }, // three groups
        { 104, 1, { 257 }, 2 },    // four groups, the last short; a split channel
        { 128, 3, { 200, 1 }, 2 }, // MeerKAT's 64 dual-pol stations; channel 1 split
    };
    for (const stream_case& z : sizes) {
        BOOST_TEST_CONTEXT("channel: inputs " << z.A << " channels " << z.C << " grid "
                                              << z.grid)
        {
            check_calls(z.A,
                        z.C,
                        z.calls,
                        unsigned(3 * z.A + z.calls[0]),
                        [&](const std::vector<int8_t>& chunk,
                            int n,
                            std::vector<uint32_t>& part,
                            std::vector<int>& writes) {
                            run_wc_launch(chunk, n, z.C, z.A, z.grid, part, writes);
                        });
        }
    }
    // The row groups: the lower triangle of Y's rows once, 160 accumulators
    // a warpgroup at four groups; the shared memory fits.
    for (int G = 1; G <= 4; ++G) {
        std::vector<int> seen(std::size_t(4 * 64) * 4 * 64, 0);
        for (int h = 0; h < 2; ++h)
            for (int s = 0; s < 2; ++s)
                if (const int N = xwc_slot_n(G, h, s))
                    for (int r = 0; r < 64; ++r)
                        for (int col = 0; col < N; ++col)
                            ++seen[std::size_t(64 * xwc_group(h, s) + r) * 256 + col];
        for (int r = 0; r < 64 * G; ++r)
            for (int col = 0; col <= r; ++col)
                BOOST_REQUIRE_EQUAL(seen[std::size_t(r) * 256 + col], 1);
    }
    BOOST_CHECK_LE(xwc_shape::smem_bytes, xws_smem_limit);
    BOOST_CHECK_EQUAL(xwc_groups(xgr_rows(128)), 4);
    BOOST_CHECK_EQUAL(xwc_boxes(xgr_rows(64)), 1);
    BOOST_CHECK_EQUAL(xwc_boxes(xgr_rows(72)), 2);
}

BOOST_AUTO_TEST_CASE(ws_path_on_the_host_equals_the_int64_definition)

{
    struct size {
        int A, C;
        std::vector<int> calls; // spectra per call
        int grid;               // persistent blocks
    };
    const size sizes[] = {
        { 1, 2, { 5 }, 1 },
        { 3, 1, { 33, 1 }, 2 },
        { 40, 3, { 70 }, 2 },      // B's second box past the rows (n=256)
        { 67, 2, { 130, 31 }, 3 }, // two row blocks, two k blocks
        { 64, 2, { 128 }, 5 },
        { 133, 2, { 300 }, 7 }, // three row blocks, k blocks of zeros
        { 200, 1, { 40 }, 4 },  // inner tiles at 128 rows into B (n=256)
    };
    for (const size& z : sizes)
        for (int bn : { 128, 256 }) {
            const int A = z.A, C = z.C;
            int T = 0;
            for (int n : z.calls)
                T += n;
            BOOST_TEST_CONTEXT("n=" << bn << " inputs " << A << " channels " << C
                                    << " spectra " << T << " grid " << z.grid)
            {
                const auto x =
                    qa::full_range(std::size_t(T) * C * A * 2, unsigned(A * 71 + T + bn));
                const std::size_t pairs = std::size_t(A) * (A + 1) / 2;
                std::vector<uint32_t> part =
                    qa::poisoned_partials(std::size_t(C) * pairs * 2);
                const std::vector<uint32_t> before = part;
                std::vector<int> writes(std::size_t(C) * pairs, 0);
                int expected_writes = 0, t0 = 0;
                for (int n : z.calls) {
                    const xgr_launch_shape sh =
                        xgr_launch_shape_for(n, C, A, xgr_workspace(C, A, false), false);
                    BOOST_REQUIRE(sh.spectra >= xgr_k && sh.channels >= 1);
                    for (int u = 0; u < n; u += sh.spectra) {
                        const int nt = std::min(n - u, sh.spectra);
                        const std::vector<int8_t> chunk(
                            x.begin() + std::size_t(t0 + u) * C * A * 2,
                            x.begin() + std::size_t(t0 + u + nt) * C * A * 2);
                        for (int c0 = 0; c0 < C; c0 += sh.channels) {
                            const int nc = std::min(sh.channels, C - c0);
                            if (bn == 128)
                                run_ws_launch<128>(
                                    chunk, nt, C, c0, nc, A, z.grid, part, writes);
                            else
                                run_ws_launch<256>(
                                    chunk, nt, C, c0, nc, A, z.grid, part, writes);
                        }
                        ++expected_writes;
                    }
                    t0 += n;
                }
                qa::check_partials_gained(
                    x, T, C, A, part, before, writes, expected_writes);
            }
        }
}
