/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The DDC's tensor-core form on the host (its kernel needs a GPU): the FP16
// conversion of the taps, the fragment maps against mma.sync m16n8k16's
// documented register layout (written out here independently), every
// output meeting each of its taps exactly once, and the whole kernel
// emulated block by block and warp by warp — the decoded tile at its
// padded places, A fragments from it, B fragments from the taps image, the
// MMAs, the two parts combined and rotated — against the CPU plan.

#include "ddc_tensor.h"
#include "kernels/common/packed10.h"
#include "qa_ddc_common.h"
#include <boost/test/unit_test.hpp>
#include <array>
#include <cmath>
#include <complex>
#include <cstring>
#include <deque>
#include <memory>
#include <random>
#include <vector>

using namespace gr::gpudsp::kernels;
namespace dt = gr::gpudsp::kernels::ddc_tensor;

namespace {

// mma.sync.m16n8k16 with .f16 inputs (PTX ISA, "Matrix fragments for
// mma.m16n8k16"), lane l: g = l / 4, t = l % 4.
struct ptx_layout {
    static int a_row(int l, int i) { return l / 4 + 8 * ((i >> 1) & 1); }
    static int a_col(int l, int i) { return 2 * (l % 4) + (i & 1) + 8 * (i >> 2); }
    static int b_row(int l, int i) { return 2 * (l % 4) + (i & 1) + 8 * (i >> 1); }
    static int b_col(int l) { return l / 4; }
    static int c_row(int l, int i) { return l / 4 + 8 * (i >> 1); }
    static int c_col(int l, int i) { return 2 * (l % 4) + (i & 1); }
};

using cvec = std::vector<std::complex<float>>;

// The little-endian 32-bit word at byte offset b of v (as the kernel's
// aligned loads read it).
uint32_t word_at(const std::vector<uint8_t>& v, long long b)
{
    BOOST_REQUIRE(b >= 0 && b + 4 <= (long long)v.size());
    uint32_t w = 0;
    for (int k = 3; k >= 0; --k)
        w = w << 8 | v[std::size_t(b + k)];
    return w;
}

// The tensor form's kinds (column tiles nt: the tap block 4 nt D; row tiles
// mt: 16 mt rows a warp).
const std::pair<int, int> kinds[] = { { 1, 1 }, { 2, 1 }, { 1, 2 }, { 2, 2 } };

// The launcher and kernel on n outputs of 10-bit input (the caller's
// sample k at stream index first + k, zero from (n - 1) D + T on), output
// 0 at absolute index first_output, for a bank of outputs, each with its
// taps zrs[o] (reversed) and phase: the launch starts lead_of(first_output)
// outputs early, its samples before the caller's zero; the A fragments
// loaded once a chunk for all of them, as the kernel does.
std::vector<cvec> emulate_bank(const dt::shape& sh,
                               const std::vector<uint8_t>& in,
                               int64_t first_caller,
                               std::size_t n,
                               const std::vector<cvec>& zrs,
                               const std::vector<mixer_phase>& phases,
                               uint64_t first_output = 0,
                               int mis = 0)
{
    const std::size_t bank = zrs.size();
    std::vector<dt::taps_image> imgs;
    std::vector<float> unscales;
    for (const auto& zr : zrs) {
        imgs.push_back(dt::make_taps(zr, sh));
        float u;
        std::memcpy(
            &u, imgs.back().words.data(), 4); // the kernel reads it from the image
        BOOST_REQUIRE_EQUAL(u, imgs.back().unscale);
        unscales.push_back(u);
    }
    const int lead = dt::lead_of(sh, first_output);
    const long long back = (long long)lead * sh.D;
    const int64_t first = first_caller - back; // the launch's output 0's window
    const long long valid_from = back, valid_to = back + (long long)(n - 1) * sh.D + sh.T;
    // The bytes the decode may read words from (\p mis: the input's
    // emulated address mod 4).
    const ddc_ring_bytes readable = dt::launch_bytes(first, valid_from, valid_to);
    long long words_read = 0;
    const std::size_t count = n + std::size_t(lead); // the launch's outputs
    std::vector<cvec> y(bank, cvec(n, { NAN, NAN }));
    std::vector<std::vector<int>> written(bank, std::vector<int>(n, 0));
    const int words = int(sh.smem_bytes() / 4);
    for (std::size_t m_blk = 0; m_blk < count; m_blk += std::size_t(sh.outputs())) {
        // The block's samples at their padded places (zeros past `valid`),
        // by the kernel's decode, every thread of the block; each sample
        // once, where phys puts it.
        std::vector<float> tile(std::size_t(words) * 2, NAN);
        std::vector<int> put(tile.size(), 0);
        const long long a0 = first + (long long)m_blk * sh.D;
        const dt::block_words bw =
            dt::block_words_of(sh, first, valid_from, valid_to, a0, mis);
        for (int tid = 0; tid < sh.threads(); ++tid)
            dt::decode_block(
                sh,
                bw,
                a0,
                tid,
                sh.threads(),
                [&](int w) {
                    // Aligned words of the caller's bytes only (the lead's
                    // zeros are never read).
                    ++words_read;
                    const long long b = bw.byte_of(w, mis);
                    BOOST_REQUIRE_EQUAL((b + mis) % 4, 0);
                    BOOST_REQUIRE(b >= readable.lo && b + 4 <= readable.hi);
                    return word_at(in, b);
                },
                [&](long long g) {
                    BOOST_REQUIRE(g >= first + valid_from && g < first + valid_to);
                    return packed10_sample(in.data(), g);
                },
                [&](int at, const int(&x)[4]) {
                    BOOST_REQUIRE(at >= 0 && at / 2 + 1 < words);
                    BOOST_REQUIRE_EQUAL(at % 4, 0); // one 64-bit store
                    for (int e = 0; e < 4; ++e) {
                        tile[std::size_t(at + e)] = float(x[e]);
                        ++put[std::size_t(at + e)];
                    }
                });
        for (int s = 0; s < sh.span(); ++s) {
            const long long k = (long long)m_blk * sh.D + s;
            const int at = sh.phys(s);
            BOOST_REQUIRE_EQUAL(put[std::size_t(at)], 1);
            BOOST_REQUIRE_EQUAL(tile[std::size_t(at)],
                                k >= valid_from && k < valid_to
                                    ? float(packed10_sample(in.data(), first + k))
                                    : 0.0f);
        }
        for (int w = 0; w < sh.warps; ++w) {
            const int wo = w * sh.warp_outputs() * sh.D; // the warp's first sample
            // [output][row tile x column tile][part][lane][register]
            using part_acc = std::array<std::array<std::array<float, 4>, 32>, 2>;
            std::vector<std::vector<part_acc>> acc(bank,
                                                   std::vector<part_acc>(sh.mt * sh.nt));
            for (auto& a : acc)
                for (auto& tile_acc : a)
                    for (auto& part : tile_acc)
                        for (auto& lane : part)
                            lane.fill(0.0f);
            // The kernel's A addressing: four cursors where KD < 16, else
            // one walker a lane.
            dt::a_cursor cur[32][4];
            dt::a_walker walk[32];
            for (int l = 0; l < 32; ++l) {
                for (int q = 0; q < 4; ++q)
                    cur[l][q].start(sh, wo + dt::a_sample(sh, l, q, 0));
                walk[l].start(sh, wo + dt::a_sample(sh, l, 0, 0));
            }
            for (int chunk = 0; chunk < sh.chunks; ++chunk) {
                std::vector<std::array<std::array<float, 16>, 16>> A(sh.mt); // [row tile]
                for (int l = 0; l < 32; ++l) {
                    for (int rt = 0; rt < sh.mt; ++rt)
                        for (int q = 0; q < 4; ++q) {
                            const int s = wo + dt::a_sample(sh, l, q, chunk, rt);
                            BOOST_REQUIRE_EQUAL(s % 2, 0); // a 32-bit load
                            BOOST_REQUIRE_LT(s + 1, sh.span());
                            const int at = sh.phys(s);
                            if (rt == 0) { // (four cursors: small_d, mt = 1 only)
                                BOOST_REQUIRE_EQUAL(cur[l][q].s, s);
                                BOOST_REQUIRE_EQUAL(cur[l][q].at, at);
                                if (chunk + 1 < sh.chunks)
                                    cur[l][q].advance(sh);
                            }
                            if (!sh.small_d())
                                BOOST_REQUIRE_EQUAL(walk[l].place(sh, q, rt), at);
                            BOOST_REQUIRE_EQUAL(sh.phys(s + 1), at + 1);
                            for (int e = 0; e < 2; ++e) {
                                const int i = 2 * q + e;
                                A[std::size_t(rt)][std::size_t(ptx_layout::a_row(l, i))]
                                 [std::size_t(ptx_layout::a_col(l, i))] =
                                     tile[std::size_t(at + e)];
                            }
                        }
                    if (!sh.small_d())
                        walk[l].advance(sh);
                }
                for (std::size_t o = 0; o < bank; ++o)
                    for (int nt = 0; nt < sh.nt; ++nt) {
                        float B[2][16][8];
                        for (int l = 0; l < 32; ++l) {
                            const uint32_t* wd =
                                &imgs[o]
                                     .words[dt::header_words +
                                            ((std::size_t(chunk) * sh.nt + nt) * 32 + l) *
                                                4];
                            for (int part = 0; part < 2; ++part)
                                for (int i = 0; i < 4; ++i) {
                                    const uint32_t word = wd[2 * part + i / 2];
                                    const uint16_t h =
                                        uint16_t(i % 2 ? word >> 16 : word & 0xffff);
                                    B[part][ptx_layout::b_row(l, i)]
                                     [ptx_layout::b_col(l)] = dt::half_value(h);
                                }
                        }
                        // The MMAs, each B fragment for every row tile: FP32
                        // accumulation of exact FP16 products.
                        for (int rt = 0; rt < sh.mt; ++rt)
                            for (int part = 0; part < 2; ++part)
                                for (int l = 0; l < 32; ++l)
                                    for (int i = 0; i < 4; ++i) {
                                        double sum = 0;
                                        for (int k = 0; k < 16; ++k)
                                            sum +=
                                                double(A[std::size_t(rt)][std::size_t(
                                                    ptx_layout::c_row(l, i))]
                                                        [std::size_t(k)]) *
                                                double(
                                                    B[part][k][ptx_layout::c_col(l, i)]);
                                        float& a = acc[o][std::size_t(rt * sh.nt + nt)]
                                                      [std::size_t(part)][std::size_t(l)]
                                                      [std::size_t(i)];
                                        a = float(a + float(sum));
                                    }
                    }
            }
            for (std::size_t o = 0; o < bank; ++o)
                for (int tt = 0; tt < sh.mt * sh.nt; ++tt) // row tile x column tile
                    for (int l = 0; l < 32; ++l)
                        for (int half = 0; half < 2; ++half) {
                            const int nt = tt % sh.nt, rt = tt / sh.nt;
                            const std::size_t ml =
                                m_blk + std::size_t(w * sh.warp_outputs() +
                                                    dt::out_of(sh, l, half, nt, rt));
                            if (ml < std::size_t(lead) || ml >= count)
                                continue;
                            const std::size_t m = ml - std::size_t(lead); // the caller's
                            const auto& a = acc[o][std::size_t(tt)];
                            const ddc_cf v =
                                ddc_rotate_output(dt::combine(a[0][l][2 * half],
                                                              a[0][l][2 * half + 1],
                                                              a[1][l][2 * half],
                                                              a[1][l][2 * half + 1],
                                                              unscales[o]),
                                                  first_output + m,
                                                  sh.D,
                                                  phases[o].step,
                                                  phases[o].offset);
                            y[o][m] = std::complex<float>(v.re, v.im);
                            ++written[o][m];
                        }
        }
    }
    for (const auto& wo : written)
        for (int v : wo)
            BOOST_REQUIRE_EQUAL(v, 1);
    if (count >= std::size_t(sh.outputs())) // (the quads inside decode from words)
        BOOST_REQUIRE_GT(words_read, 0);
    return y;
}

} // namespace

BOOST_AUTO_TEST_CASE(half_conversion_rounds_to_nearest_even)
{
    for (uint32_t h = 0; h < 0x10000u; ++h) {
        if ((h & 0x7c00u) == 0x7c00u)
            continue; // infinities and NaNs: never made
        const float v = dt::half_value(uint16_t(h));
        BOOST_REQUIRE_EQUAL(dt::half_bits(v), uint16_t(h)); // exact values stay
        // Halfway to the next: to the even one.
        if ((h & 0x7fffu) < 0x7bffu) {
            const float next = dt::half_value(uint16_t(h + 1));
            const float mid = float((double(v) + double(next)) / 2);
            const uint16_t even = (h & 1u) ? uint16_t(h + 1) : uint16_t(h);
            BOOST_REQUIRE_EQUAL(dt::half_bits(mid), even);
        }
    }
    BOOST_CHECK_EQUAL(dt::half_bits(1.0f), 0x3c00);
    BOOST_CHECK_EQUAL(dt::half_bits(-2.0f), 0xc000);
    BOOST_CHECK_EQUAL(dt::half_bits(1e-9f), 0);
}

// The taps in two FP16 parts (make_taps): every tap of every column
// fragment, scaled by the image's power of two, is hi + lo 2^-11 within
// 2^-22 of itself (plus FP16's subnormal step in lo), where hi alone is
// off by up to 2^-11 (~3e-4 of full scale at the output, the issue's
// reason for two parts); the unscale is exact (a power of two) and taps
// past T are zeros in both parts.
BOOST_AUTO_TEST_CASE(taps_in_two_halves_are_within_2_to_the_minus_22)
{
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> u(-1, 1);
    double worst_hi = 0;
    for (const auto& [nt, mt] : kinds)
        for (const auto& td : { std::make_pair(256, 16), std::make_pair(55, 5) })
            for (const float peak : { 1.0f, 3.7e-3f, 900.0f }) {
                const int T = td.first, D = td.second;
                const dt::shape sh = dt::make_shape(D, T, nt, mt);
                if (!sh.warps)
                    continue;
                cvec zr(static_cast<std::size_t>(T), { 0.0f, 0.0f });
                for (auto& z : zr) // (some taps tiny: lo then subnormal)
                    z = { peak * u(rng) * (rng() % 7 ? 1.0f : 1e-4f), peak * u(rng) };
                const dt::taps_image img = dt::make_taps(zr, sh);
                int e = 0;
                std::frexp(img.unscale, &e);
                BOOST_REQUIRE_EQUAL(img.unscale, std::ldexp(1.0f, e - 1));
                for (int chunk = 0; chunk < sh.chunks; ++chunk)
                    for (int n = 0; n < sh.nt; ++n)
                        for (int lane = 0; lane < 32; ++lane) {
                            const uint32_t* w =
                                &img.words[dt::header_words +
                                           ((std::size_t(chunk) * sh.nt + n) * 32 +
                                            lane) *
                                               4];
                            for (int h = 0; h < 4; ++h) {
                                const auto part = [&](int word) {
                                    return dt::half_value(
                                        uint16_t(w[word + h / 2] >> (16 * (h % 2))));
                                };
                                const double hi = part(0), lo = part(2);
                                const int j = dt::b_tap(sh, lane, h, chunk, n);
                                const double v =
                                    j >= 0 && j < T
                                        ? double(dt::b_imag(lane)
                                                     ? zr[std::size_t(j)].imag()
                                                     : zr[std::size_t(j)].real()) /
                                              img.unscale
                                        : 0.0;
                                const double two = hi + lo / dt::lo_scale;
                                BOOST_REQUIRE_LE(std::abs(two - v),
                                                 0x1p-22 * std::abs(v) + 0x1p-35);
                                worst_hi = std::max(worst_hi, std::abs(hi - v));
                            }
                        }
            }
    BOOST_CHECK_GT(worst_hi, 1e-4); // one part alone would not do
}

// A quad of samples from three aligned words (packed10_quad, block_words)
// equals packed10_sample's four, at every stream sample mod 16 and every
// input address mod 4.
BOOST_AUTO_TEST_CASE(quad_decode_matches_samples)
{
    std::mt19937 rng(5);
    std::vector<uint8_t> bytes(4096 + 8);
    for (auto& b : bytes)
        b = uint8_t(rng());
    const dt::shape sh = dt::make_shape(16, 256);
    int checked = 0;
    for (int mis = 0; mis < 4; ++mis) {
        // The stream's byte 0 at bytes[4 + mis]: an aligned word starts mis
        // bytes before it.
        const std::vector<uint8_t> stream(bytes.begin() + 4 + mis, bytes.end());
        for (long long a0 = 0; a0 < 64; ++a0) {
            const dt::block_words bw = dt::block_words_of(sh, 0, 0, 3000, a0, mis);
            for (int s = 0; s < 64; s += 4) {
                const int bit = bw.o0 + 10 * s, w = bit >> 5;
                uint32_t words[3];
                for (int k = 0; k < 3; ++k) {
                    const long long b = bw.byte_of(w + k, mis);
                    BOOST_REQUIRE_EQUAL((b + mis) % 4, 0);
                    words[k] = word_at(bytes, b + 4 + mis);
                }
                int x[4];
                dt::packed10_quad(words[0], words[1], words[2], bit & 31, x);
                for (int k = 0; k < 4; ++k)
                    BOOST_REQUIRE_EQUAL(x[k], packed10_sample(stream.data(), a0 + s + k));
                ++checked;
            }
        }
    }
    BOOST_CHECK_EQUAL(checked, 4 * 64 * 16);
}

// Every output of a warp meets each of its taps exactly once across the
// chunks, B's column tiles and columns and its row tiles and rows (the
// maps against PTX's layout), for both tap blocks (4D, 8D) and 16 or 32
// rows a warp; no column of A reaches a sample outside the block's span.
BOOST_AUTO_TEST_CASE(every_output_meets_each_tap_once)
{
    for (const auto& [nt, mt] : kinds)
        for (const auto& dt_ : { std::make_pair(1, 1),
                                 std::make_pair(16, 256),
                                 std::make_pair(5, 55),
                                 std::make_pair(7, 300),
                                 std::make_pair(64, 1024),
                                 std::make_pair(3, 37),
                                 std::make_pair(8, 3),
                                 std::make_pair(14, 100),
                                 std::make_pair(6, 50),
                                 std::make_pair(2, 9) }) {
            const int D = dt_.first, T = dt_.second;
            const dt::shape sh = dt::make_shape(D, T, nt, mt);
            if ((nt > 1 || mt > 1) && 4 * nt * D < 16) { // (not offered: four cursors)
                BOOST_REQUIRE_EQUAL(sh.warps, 0);
                continue;
            }
            BOOST_REQUIRE_GT(sh.warps, 0);
            BOOST_REQUIRE_EQUAL(sh.shifts(), 4 * nt);
            BOOST_REQUIRE_EQUAL(sh.warp_outputs(), 64 * nt * mt);
            BOOST_REQUIRE(!((nt > 1 || mt > 1) && sh.small_d())); // no SMALL_D kernel
            BOOST_REQUIRE_LE(sh.smem_bytes(), dt::smem_budget);
            for (int s = 0; s < sh.span(); ++s) // the multiply-high division
                BOOST_REQUIRE_EQUAL(sh.phys(s), s + sh.pad * (s / (sh.shifts() * D)));
            // A warp's A loads of a chunk: 32 words in 32 banks (rows KD apart).
            for (int rt = 0; rt < mt; ++rt)
                for (int chunk = 0; chunk < sh.chunks; ++chunk)
                    for (int q = 0; q < 4; ++q) {
                        std::vector<int> bank(32, 0);
                        for (int l = 0; l < 32; ++l)
                            ++bank[std::size_t(
                                sh.phys(dt::a_sample(sh, l, q, chunk, rt)) / 2 % 32)];
                        int worst = 0;
                        for (int b : bank)
                            worst = std::max(worst, b);
                        // A row's 4 words may straddle a padding (its 8 rows then
                        // meet one bank twice at most); where none does, 32 banks.
                        bool straddles = false;
                        for (int l = 0; l < 32; l += 4) // lanes t = 0 and 3 of row l / 4
                            straddles |=
                                dt::a_sample(sh, l, q, chunk, rt) / (sh.shifts() * D) !=
                                (dt::a_sample(sh, l + 3, q, chunk, rt) + 1) /
                                    (sh.shifts() * D);
                        BOOST_REQUIRE_LE(worst, straddles ? 2 : 1);
                    }
            const int K = sh.shifts();
            std::vector<int> met(std::size_t(sh.warp_outputs()) * T, 0);
            for (int chunk = 0; chunk < sh.chunks; ++chunk)
                for (int tile = 0; tile < nt; ++tile)
                    for (int l = 0; l < 32; ++l)      // B's lane: its column
                        for (int i = 0; i < 4; ++i) { // B's element: its row k
                            const int j = dt::b_tap(sh, l, i, chunk, tile);
                            if (j < 0 || j >= T)
                                continue;
                            const int k = ptx_layout::b_row(l, i),
                                      n = ptx_layout::b_col(l);
                            const int shift = 4 * tile + n / 2;
                            BOOST_REQUIRE_EQUAL(k, j + shift * D - chunk * dt::k_chunk);
                            for (int rt = 0; rt < mt; ++rt)
                                for (int r = 0; r < 16; ++r) {
                                    // Row r of row tile rt, column k of A is
                                    // a_sample's K (r + 16 rt) D + 16 chunk + k; with
                                    // tap j it belongs to output K (r + 16 rt) + shift.
                                    BOOST_REQUIRE_EQUAL(
                                        dt::a_sample(sh, 4 * (r % 8), (r / 8), chunk, rt),
                                        K * (r + 16 * rt) * D + 16 * chunk);
                                    const int out = K * (r + 16 * rt) + shift;
                                    if (n % 2 == 0)
                                        ++met[std::size_t(out) * T + j];
                                }
                        }
            for (int v : met)
                BOOST_REQUIRE_EQUAL(v, 1);
            // C's layout: tile n's (d0, d1) of lane (g, t) are output K g + 4n + t,
            // re then im, (d2, d3) output K (g + 8) + 4n + t; with K = 4 lane l
            // holds outputs l and l + 32. Every output once.
            std::vector<int> held(std::size_t(sh.warp_outputs()), 0);
            for (int rt = 0; rt < mt; ++rt)
                for (int tile = 0; tile < nt; ++tile)
                    for (int l = 0; l < 32; ++l)
                        for (int half = 0; half < 2; ++half) {
                            const int out = dt::out_of(sh, l, half, tile, rt);
                            if (nt == 1)
                                BOOST_REQUIRE_EQUAL(out, l + 32 * half + 64 * rt);
                            BOOST_REQUIRE_EQUAL(
                                4 * tile + ptx_layout::c_col(l, 2 * half) / 2, out % K);
                            BOOST_REQUIRE_EQUAL(ptx_layout::c_row(l, 2 * half) + 16 * rt,
                                                out / K);
                            ++held[std::size_t(out)];
                        }
            for (int v : held)
                BOOST_REQUIRE_EQUAL(v, 1);
        }
}

// The emulated kernel against the CPU plan, 10-bit input: odd and even
// decimations, tap counts shorter and longer than a chunk, three blocks and
// a bit, an odd first sample.
BOOST_AUTO_TEST_CASE(emulated_kernel_matches_the_cpu_plan)
{
    unsigned seed = 71;
    for (const auto& [nt, mt] : kinds)
        for (const auto& td :
             { std::make_pair(256, 16),
               std::make_pair(55, 5),
               std::make_pair(1, 1),
               std::make_pair(3, 8),
               std::make_pair(300, 7),
               std::make_pair(1024, 64),
               std::make_pair(37, 3),
               std::make_pair(9, 2),      // KD = 16 (8D): a padding every chunk
               std::make_pair(40, 4) }) { // KD = 16 (4D)
            const int T = td.first, D = td.second;
            const auto c = qa::ddc_config(ddc_input::packed10, T, D, 0.21e6, seed++);
            const dt::shape sh = dt::make_shape(D, T, nt, mt);
            if (!sh.warps) { // (not offered below KD = 16)
                BOOST_REQUIRE((nt > 1 || mt > 1) && 4 * nt * D < 16);
                continue;
            }
            const std::size_t n = 2 * std::size_t(sh.outputs()) + 37;
            const int64_t first = 3;
            // outputs from 0, or past stream sample 2^40 (the exact phase)
            const uint64_t first_output = seed % 2 ? (uint64_t(1) << 40) / D + 3 : 0;
            const std::size_t samples = first + (n - 1) * D + T;
            ddc_plan plan(c, gr::gpudsp::runtime::backend_choice{}, "qa");
            const auto in = qa::ddc_random_input(ddc_input::packed10, samples, seed);
            cvec want(n);
            plan.execute(in.data(), first, first_output, n, want.data(), nullptr);
            const cvec z = qa::ddc_premultiplied(plan);
            cvec zr(z.rbegin(), z.rend());
            // (the input at every address mod 4 across the shapes)
            const cvec got = emulate_bank(sh,
                                          in,
                                          first,
                                          n,
                                          { zr },
                                          { plan.phase() },
                                          first_output,
                                          int(seed % 4))[0];
            const double err = qa::ddc_rel_err(got, want);
            const double err64 =
                qa::ddc_err64(got, qa::ddc_reference64(plan, in, first, first_output, n));
            BOOST_TEST_MESSAGE("T=" << T << " D=" << D << " K=" << sh.shifts()
                                    << " warps=" << sh.warps << " chunks=" << sh.chunks
                                    << " first output " << first_output << ": rel err "
                                    << err << ", against float64 " << err64);
            BOOST_CHECK_LT(err, 2e-5);
            BOOST_CHECK_LT(err64, 1e-5);
        }
}

// A stream cut anywhere gives the same bits: calls of 7, 130 and the
// rest (each output's absolute index given, as execute passes it) against
// one call, for both tap blocks and decimations where 16 does not divide D
// (the shift of an output in its row changes how its taps fall into
// chunks). Without the
// launch's lead these differ (the H200 of 2026-11-27 found it: banks and
// calls of 7 against one call at T = 55, D = 5).
BOOST_AUTO_TEST_CASE(emulated_calls_cut_anywhere_give_the_same_bits)
{
    unsigned seed = 91;
    for (const auto& [nt, mt] : kinds)
        for (const auto& td : { std::make_pair(55, 5),
                                std::make_pair(37, 3),
                                std::make_pair(300, 7),
                                std::make_pair(40, 6),
                                std::make_pair(9, 2),
                                std::make_pair(41, 4) }) {
            const int T = td.first, D = td.second;
            const auto c = qa::ddc_config(ddc_input::packed10, T, D, -0.17e6, seed++);
            const dt::shape sh = dt::make_shape(D, T, nt, mt);
            if (!sh.warps) { // (not offered below KD = 16)
                BOOST_REQUIRE((nt > 1 || mt > 1) && 4 * nt * D < 16);
                continue;
            }
            const std::size_t n = 2 * std::size_t(sh.outputs()) + 37;
            const int64_t first = 5;
            const auto in = qa::ddc_random_input(
                ddc_input::packed10, first + (n - 1) * D + T, seed++);
            ddc_plan plan(c, gr::gpudsp::runtime::backend_choice{}, "qa");
            const cvec z = qa::ddc_premultiplied(plan);
            const cvec zr(z.rbegin(), z.rend());
            const int mis = int(seed % 4);
            const cvec whole =
                emulate_bank(sh, in, first, n, { zr }, { plan.phase() }, 0, mis)[0];
            cvec cut;
            for (std::size_t done = 0; done < n;) {
                const std::size_t k = std::min<std::size_t>(
                    done == 0 ? 7 : (done == 7 ? 130 : n), n - done);
                const cvec part = emulate_bank(sh,
                                               in,
                                               first + int64_t(done) * D,
                                               k,
                                               { zr },
                                               { plan.phase() },
                                               done,
                                               mis)[0];
                cut.insert(cut.end(), part.begin(), part.end());
                done += k;
            }
            BOOST_REQUIRE_EQUAL(cut.size(), n);
            BOOST_CHECK_MESSAGE(
                std::memcmp(cut.data(), whole.data(), n * sizeof(cut[0])) == 0,
                "T=" << T << " D=" << D << " K=" << sh.shifts()
                     << ": calls of 7, 130, ... differ from one call");
        }
}

// A bank of 8 outputs of one input (other centre frequencies, same D and
// T; 4 with the tap block of 8D, ddc_tensor_bank_max), the samples'
// fragments loaded once for all: each equals its CPU plan.
BOOST_AUTO_TEST_CASE(emulated_bank_matches_each_cpu_plan)
{
    unsigned seed = 81;
    for (const auto& [nt, mt] : kinds) {
        const int T = 256, D = 16, bank = 8 / (nt * mt);
        const dt::shape sh = dt::make_shape(D, T, nt, mt);
        BOOST_REQUIRE_GT(sh.warps, 0);
        const std::size_t n = std::size_t(sh.outputs()) + 21;
        const int64_t first = 1;
        const auto in =
            qa::ddc_random_input(ddc_input::packed10, first + (n - 1) * D + T, seed++);
        std::vector<std::unique_ptr<ddc_plan>> plans;
        std::vector<cvec> zrs;
        std::vector<mixer_phase> phases;
        for (int o = 0; o < bank; ++o) {
            const auto c =
                qa::ddc_config(ddc_input::packed10, T, D, -0.4e6 + 0.1e6 * o, seed++);
            plans.push_back(std::make_unique<ddc_plan>(
                c, gr::gpudsp::runtime::backend_choice{}, "qa"));
            const cvec z = qa::ddc_premultiplied(*plans.back());
            zrs.emplace_back(z.rbegin(), z.rend());
            phases.push_back(plans.back()->phase());
        }
        const auto got = emulate_bank(sh, in, first, n, zrs, phases, 0, 3);
        for (int o = 0; o < bank; ++o) {
            cvec want(n);
            plans[std::size_t(o)]->execute(in.data(), first, 0, n, want.data(), nullptr);
            BOOST_CHECK_LT(qa::ddc_rel_err(got[std::size_t(o)], want), 2e-5);
        }
    }
}

// The ring form (ddc_tensor.h, "tensor ring"): a persistent grid walking
// block tiles with ddc_ring.h's schedule, each tile's bytes copied into
// one stage (16-byte copies that land only when the emulated wait lets
// them; byte copies at the launch's ends) and decoded from there. Each
// block tile's FP16 tile equals the one decoded from global memory bit
// for bit, each place written once, and every byte read from the stage
// was copied for that tile and is readable: the MMAs that follow are the
// ones emulated above. Odd first samples, input addresses and leads.
BOOST_AUTO_TEST_CASE(ring_stage_decodes_as_global_memory)
{
    unsigned seed = 131;
    int tiles_checked = 0;
    for (const auto& [nt, mt] : kinds)
        for (const auto& td : { std::make_pair(55, 5),
                                std::make_pair(1, 1),
                                std::make_pair(256, 16),
                                std::make_pair(1024, 64),
                                std::make_pair(300, 7),
                                std::make_pair(9, 2),
                                std::make_pair(40, 4) })
            for (int addr16 : { 0, 3, 6, 13 }) { // (mis 0, 3, 2, 1)
                const int T = td.first, D = td.second;
                const dt::shape sh = dt::make_shape(D, T, nt, mt);
                if (!sh.warps && 4 * nt * D < 16)
                    continue; // (not offered)
                BOOST_REQUIRE_GT(sh.warps, 0);
                const uint64_t first_output = seed % 8; // every lead (K = 4: 0..3 twice)
                const std::size_t n = 3 * std::size_t(sh.outputs()) + 37;
                const int64_t first_caller = 1 + seed % 3;
                const auto in = qa::ddc_random_input(
                    ddc_input::packed10, first_caller + (n - 1) * D + T, seed++);
                const int lead = dt::lead_of(sh, first_output);
                const long long back = (long long)lead * sh.D;
                const long long first = first_caller - back;
                const long long valid_from = back,
                                valid_to = back + (long long)(n - 1) * D + T;
                const std::size_t count = n + std::size_t(lead);
                const long long tiles =
                    (long long)((count + sh.outputs() - 1) / sh.outputs());
                const ddc_ring_bytes readable =
                    ddc_ring_readable(10, first + valid_from, valid_to - valid_from);
                BOOST_REQUIRE_LE(readable.hi, (long long)in.size());
                const int stage_bytes = dt::ring_stage_bytes(sh);
                BOOST_REQUIRE_EQUAL(dt::ring_stage_offset(sh) % 16, 0u);
                const std::size_t halves = sh.smem_bytes() / 2;
                auto window_of = [&](long long i) {
                    return ddc_ring_window_of(
                        dt::ring_needed(sh,
                                        first,
                                        valid_from,
                                        valid_to,
                                        first + i * sh.outputs() * D,
                                        addr16 % 4),
                        addr16);
                };
                // Block tile i decoded by every thread, each word (its byte
                // offset b from the stream's byte 0) from word_of(b); each
                // place counted in put.
                auto decode_tile = [&](long long i, auto word_of, std::vector<int>& put) {
                    std::vector<float> tile(halves, NAN);
                    const long long a0 = first + i * sh.outputs() * D;
                    const dt::block_words bw = dt::block_words_of(
                        sh, first, valid_from, valid_to, a0, addr16 % 4);
                    for (int tid = 0; tid < sh.threads(); ++tid)
                        dt::decode_block(
                            sh,
                            bw,
                            a0,
                            tid,
                            sh.threads(),
                            [&](int w) { return word_of(bw.byte_of(w, addr16 % 4)); },
                            [&](long long g) { return packed10_sample(in.data(), g); },
                            [&](int at, const int(&x)[4]) {
                                for (int e = 0; e < 4; ++e) {
                                    tile[std::size_t(at + e)] = float(x[e]);
                                    ++put[std::size_t(at + e)];
                                }
                            });
                    return tile;
                };
                // The tile as the kernel without the ring decodes it.
                auto direct = [&](long long i) {
                    std::vector<int> put(halves, 0);
                    return decode_tile(
                        i, [&](long long b) { return word_at(in, b); }, put);
                };
                constexpr int stages = 1;
                const int grid = 2;
                for (int blk = 0; blk < grid; ++blk) {
                    std::vector<uint8_t> stage(stage_bytes);
                    std::vector<char> copied(stage_bytes);
                    struct copy {
                        int at;
                        uint8_t value;
                    };
                    std::deque<std::vector<copy>> pending;
                    auto issue = [&](int j) {
                        pending.emplace_back();
                        const long long i = ddc_ring_tile(blk, j, grid);
                        if (i >= tiles)
                            return;
                        std::fill(stage.begin(), stage.end(), 0xEE);
                        std::fill(copied.begin(), copied.end(), 0);
                        const ddc_ring_window w = window_of(i);
                        BOOST_REQUIRE_LE(w.chunks * ddc_ring_chunk, stage_bytes);
                        BOOST_REQUIRE_EQUAL((w.base + addr16) % ddc_ring_chunk, 0);
                        for (int tid = 0; tid < sh.threads(); ++tid)
                            ddc_ring_for_chunks(
                                w,
                                readable,
                                tid,
                                sh.threads(),
                                [&](int c, long long o) {
                                    BOOST_REQUIRE(o >= readable.lo &&
                                                  o + 16 <= readable.hi);
                                    for (int b = 0; b < 16; ++b)
                                        pending.back().push_back(
                                            { 16 * c + b, in[o + b] });
                                },
                                [&](int c, long long o) {
                                    for (int b = 0; b < 16; ++b) {
                                        const bool ok =
                                            o + b >= readable.lo && o + b < readable.hi;
                                        stage[16 * c + b] = ok ? in[o + b] : 0;
                                        copied[16 * c + b] = ok;
                                    }
                                });
                    };
                    for (int j = 0; j < stages; ++j)
                        issue(j);
                    for (int j = 0;; ++j) {
                        const long long i = ddc_ring_tile(blk, j, grid);
                        if (i >= tiles)
                            break;
                        while ((int)pending.size() > ddc_ring_in_flight(stages)) {
                            for (const copy& c : pending.front()) {
                                BOOST_REQUIRE(!copied[c.at]);
                                stage[c.at] = c.value;
                                copied[c.at] = 1;
                            }
                            pending.pop_front();
                        }
                        const long long base = window_of(i).base;
                        std::vector<int> put(halves, 0);
                        const std::vector<float> tile = decode_tile(
                            i,
                            [&](long long b) {
                                // An aligned word of the stage (the emulated
                                // address b + addr16), each of its bytes
                                // copied for this tile.
                                const long long off = b - base;
                                BOOST_REQUIRE_EQUAL((b + addr16) % 4, 0);
                                BOOST_REQUIRE(off >= 0 && off + 4 <= stage_bytes);
                                for (int k = 0; k < 4; ++k)
                                    BOOST_REQUIRE(copied[off + k]);
                                return word_at(stage, off);
                            },
                            put);
                        issue(ddc_ring_next(j, stages)); // into the stage just decoded
                        const std::vector<float> want = direct(i);
                        for (int s = 0; s < sh.span(); ++s)
                            BOOST_REQUIRE_EQUAL(put[std::size_t(sh.phys(s))], 1);
                        BOOST_REQUIRE(
                            std::memcmp(tile.data(), want.data(), halves * 4) == 0 ||
                            [&] {
                                for (std::size_t h = 0; h < halves; ++h)
                                    if (!(tile[h] == want[h] ||
                                          (std::isnan(tile[h]) && std::isnan(want[h]))))
                                        return false;
                                return true;
                            }());
                        ++tiles_checked;
                    }
                }
            }
    BOOST_CHECK_GE(tiles_checked, 100);
}
