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
#include <algorithm>
#include <random>
#include <vector>

using namespace gr::gpudsp::kernels;

namespace {


// One launch as xengine_gram.cu runs it: nt spectra (from x, [t][channel]
// [input][re, im]) of channels c0 .. c0 + nc - 1.
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
            for (int c = 0; c < C; ++c)
                for (int a = 0; a < A; ++a)
                    for (int b = 0; b <= a; ++b) {
                        int64_t sr, si;
                        qa::xengine_reference(x, T, C, A, c, a, b, sr, si);
                        const std::size_t k =
                            (std::size_t(c) * pairs + xengine_tri(a, b)) * 2;
                        BOOST_REQUIRE_EQUAL(writes[k / 2], expected_writes);
                        BOOST_REQUIRE_EQUAL(part[k] - before[k], uint32_t(int32_t(sr)));
                        BOOST_REQUIRE_EQUAL(part[k + 1] - before[k + 1],
                                            uint32_t(int32_t(si)));
                    }
        }
    }
}
