/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The CUDA pair kernel's arithmetic (ldpc5g_pair.h), run here on the CPU:
// each two-codeword operation against the scalar fixed-point one of
// ldpc5g_impl.h (exhaustively where the domain is small), and whole decodes
// written as the kernel runs them (a pair per thread block, rows in order,
// the Z lift indices of a row, the parity of both codewords after each
// iteration, a codeword frozen when it passes) against the CPU backend:
// bits, iterations and parity flag identical. The GPU suite then checks the
// kernel's SIMD instructions against the same CPU backend.

#include "ldpc5g_pair_bg.h"
#include "runtime/qa_common.h"
#include <gnuradio/gpudsp/kernels/ldpc5g.h>
#include <algorithm>
#include <cmath>

using namespace gr::gpudsp;
using namespace gr::gpudsp::kernels;

namespace {

ldpc_norm norm_of(int scale16, int offset_q)
{
    return { scale16 / 16.f, 0.f, scale16, offset_q };
}

} // namespace

BOOST_AUTO_TEST_CASE(scale_equals_the_scalar_rule_everywhere)
{
    long wrong = 0, checked = 0;
    for (int scale16 = 1; scale16 <= 16; ++scale16)
        for (int off = 0; off <= 140; ++off) {
            const auto n = norm_of(scale16, off);
            for (int a = 0; a <= ldpc_msg_max; ++a)
                for (int b : { 0, 1, 2, 63, 126, 127 }) {
                    const uint32_t s = ldpc_pair_scale(pk::make(a, b), n);
                    ++checked;
                    if (pk::lane(s, 0) != ldpc_scale(a, n) ||
                        pk::lane(s, 1) != ldpc_scale(b, n))
                        if (++wrong < 5)
                            BOOST_ERROR("scale16=" << scale16 << " offset=" << off
                                                   << " m=" << a << "," << b);
                }
        }
    BOOST_CHECK_EQUAL(wrong, 0);
    BOOST_CHECK_GT(checked, 1000000);
}

BOOST_AUTO_TEST_CASE(check_update_and_messages_equal_the_scalar_ones)
{
    std::mt19937 rng(5);
    // Magnitudes the decoder can produce: |app| <= 16383 less a message.
    std::uniform_int_distribution<int> wide(-16383 - 127, 16383 + 127), narrow(-4, 4);
    std::uniform_int_distribution<int> deg_of(3, ldpc_max_degree), s16(1, 16), off(0, 8);
    long wrong = 0;
    for (int trial = 0; trial < 200000; ++trial) {
        const int deg = deg_of(rng);
        const auto n = norm_of(s16(rng), off(rng));
        int32_t ta[ldpc_max_degree], tb[ldpc_max_degree];
        uint32_t t[ldpc_max_degree];
        const bool ties = trial % 2; // small values: equal minima, zeros
        for (int i = 0; i < deg; ++i) {
            ta[i] = ties ? narrow(rng) : wide(rng);
            tb[i] = ties ? narrow(rng) : wide(rng);
            t[i] = pk::make(ta[i], tb[i]);
        }
        const auto sa = ldpc_check_update(ta, deg, n), sb = ldpc_check_update(tb, deg, n);
        const auto msgs = ldpc_pair_unpack(ldpc_pair_update(t, deg, n));
        for (int i = 0; i < deg; ++i) {
            const uint32_t c = ldpc_pair_c2v(msgs, i);
            if (pk::lane(c, 0) != ldpc_c2v(sa, i) || pk::lane(c, 1) != ldpc_c2v(sb, i))
                if (++wrong < 5)
                    BOOST_ERROR("trial " << trial << " deg " << deg << " edge " << i);
        }
    }
    BOOST_CHECK_EQUAL(wrong, 0);
}

BOOST_AUTO_TEST_CASE(a_frozen_codeword_keeps_its_state_and_values)
{
    std::mt19937 rng(9);
    std::uniform_int_distribution<int> v(-300, 300);
    const auto n = norm_of(12, 1);
    // Two rows sharing columns 2..4: row 0, row 1, then row 0 again with
    // codewords frozen (a row pass right after itself changes nothing, so
    // the other row comes between).
    const int Z = 7, deg = 5;
    const int32_t edges[2][deg] = {
        { 0 << 16 | 3, 1 << 16 | 0, 2 << 16 | 6, 3 << 16 | 1, 4 << 16 | 5 },
        { 2 << 16 | 2, 3 << 16 | 4, 4 << 16 | 0, 5 << 16 | 1, 6 << 16 | 3 }
    };
    int changed[2] = { 0, 0 };
    for (uint32_t frozen : { 0u, 1u, 2u, 3u })
        for (int trial = 0; trial < 200; ++trial) {
            std::vector<uint32_t> app(7 * Z);
            for (auto& x : app)
                x = pk::make(v(rng), v(rng));
            std::vector<ldpc_pair_state> st(2 * Z, ldpc_pair_state{ 0, { 0, 0 } });
            for (int r = 0; r < 2; ++r)
                for (int z = 0; z < Z; ++z)
                    ldpc_pair_row(app.data(), edges[r], deg, z, Z, st[r * Z + z], 0u, n);
            const auto app0 = app;
            const auto st0 = st;
            for (int z = 0; z < Z; ++z)
                ldpc_pair_row(app.data(), edges[0], deg, z, Z, st[z], frozen, n);
            for (int k = 0; k < 2; ++k) {
                if (!(frozen >> k & 1)) {
                    changed[k] += app != app0 && [&] {
                        for (std::size_t i = 0; i < app.size(); ++i)
                            if (pk::lane(app[i], k) != pk::lane(app0[i], k))
                                return true;
                        return false;
                    }();
                    continue;
                }
                for (std::size_t i = 0; i < app.size(); ++i)
                    BOOST_REQUIRE_EQUAL(pk::lane(app[i], k), pk::lane(app0[i], k));
                for (int z = 0; z < Z; ++z) {
                    BOOST_REQUIRE_EQUAL(st[z].tag[k], st0[z].tag[k]);
                    const uint32_t bytes = k ? 0xff00ff00u : 0x00ff00ffu;
                    BOOST_REQUIRE_EQUAL(st[z].mins & bytes, st0[z].mins & bytes);
                }
            }
        }
    // Where not frozen, the second pass does change values (the test can fail).
    BOOST_CHECK_GT(changed[0], 100);
    BOOST_CHECK_GT(changed[1], 100);
}

// --- The base graph's first rows, specialised at compile time -------------

namespace {

// f(bg, row) with both as compile-time constants (std::integral_constant),
// for bg in {1, 2} and row < ldpc_bg_rows, as the kernels instantiate them.
template <typename F>
auto with_bg_row(int bg, int r, F f)
{
    auto in_bg = [&](auto BG) {
        switch (r) {
        case 0:
            return f(BG, std::integral_constant<int, 0>{});
        case 1:
            return f(BG, std::integral_constant<int, 1>{});
        case 2:
            return f(BG, std::integral_constant<int, 2>{});
        case 3:
            return f(BG, std::integral_constant<int, 3>{});
        case 4:
            return f(BG, std::integral_constant<int, 4>{});
        case 5:
            return f(BG, std::integral_constant<int, 5>{});
        case 6:
            return f(BG, std::integral_constant<int, 6>{});
        default:
            return f(BG, std::integral_constant<int, 7>{});
        }
    };
    return bg == 1 ? in_bg(std::integral_constant<int, 1>{})
                   : in_bg(std::integral_constant<int, 2>{});
}

// Row r (< ldpc_bg_rows) of base graph bg as the kernels run it, its
// variables where \p where finds them (two codewords or one in halves).
template <typename Where>
void bg_row(int bg,
            int r,
            uint32_t* app,
            Where where,
            ldpc_pair_bg_state& st,
            uint32_t frozen,
            const ldpc_norm& n)
{
    with_bg_row(bg, r, [&](auto BG, auto R) {
        ldpc_pair_row_bg<decltype(BG)::value, decltype(R)::value>(
            app, where, st, frozen, n);
    });
}

template <typename Where>
uint32_t bg_parity(int bg, int r, const uint32_t* app, Where where)
{
    return with_bg_row(bg, r, [&](auto BG, auto R) {
        return ldpc_pair_parity_bg<decltype(BG)::value, decltype(R)::value>(app, where);
    });
}

ldpc_bg_pairs pairs_at(const ldpc_bg_shifts& e, int z, int Z)
{
    return ldpc_bg_pairs{ e, uint32_t(z), uint32_t(Z) };
}

bool same(const ldpc_pair_state& a, const ldpc_pair_state& b)
{
    return a.mins == b.mins && a.tag[0] == b.tag[0] && a.tag[1] == b.tag[1];
}

} // namespace

BOOST_AUTO_TEST_CASE(bg_rows_are_the_standard_base_graphs)
{
    // ldpc_bg_shifts_of checks the compiled-in degrees and columns against
    // the standard's tables (data/ldpc) and throws where they differ.
    for (int bg : { 1, 2 })
        for (int Z : { 2, 13, 104, 384 }) {
            const auto& g = ldpc5g_graph::get(bg, Z);
            const auto e = ldpc_bg_shifts_of(bg, Z);
            for (int r = 0; r < ldpc_bg_rows; ++r) {
                BOOST_REQUIRE_EQUAL(int(g.rows[r].size()), ldpc_bg_degree(bg, r));
                for (int i = 0; i < ldpc_bg_degree(bg, r); ++i) {
                    BOOST_CHECK_EQUAL(ldpc_bg_column(bg, r, i), g.rows[r][i].first);
                    BOOST_CHECK_EQUAL(e.wrap[r][i], g.rows[r][i].second - Z);
                }
            }
        }
}

BOOST_AUTO_TEST_CASE(bg_index_is_the_rotation_for_every_shift)
{
    long wrong = 0;
    for (int Z : { 2, 3, 7, 15, 64, 208, 384 })
        for (int s = 0; s < Z; ++s)
            for (int z = 0; z < Z; ++z)
                for (int col : { 0, 5, 67 })
                    if (ldpc_bg_index(col, uint32_t(z), s - Z, uint32_t(Z)) !=
                        uint32_t(col * Z + (z + s) % Z))
                        if (++wrong < 5)
                            BOOST_ERROR("Z=" << Z << " s=" << s << " z=" << z);
    BOOST_CHECK_EQUAL(wrong, 0);
}

// One codeword in both lanes: lift z (lane a) and z + Z/2 (lane b) share a
// word; every shift of every even Z finds lift (z + s) mod Z's word, and
// swaps the lanes exactly where that lift is in the upper half.
BOOST_AUTO_TEST_CASE(bg_halves_index_is_the_rotation_for_every_shift)
{
    long wrong = 0, swaps = 0, keeps = 0;
    for (int Z : { 2, 4, 6, 14, 64, 208, 384 }) {
        const int H = Z / 2;
        for (int s = 0; s < Z; ++s) {
            int32_t wrap;
            uint32_t pc, pn, perm;
            ldpc_bg_halves_edge(s, Z, wrap, pc, pn);
            for (int z = 0; z < H; ++z)
                for (int col : { 0, 7, 67 }) {
                    const uint32_t w = ldpc_bg_halves_index(
                        col, uint32_t(z), wrap, uint32_t(H), pc, pn, perm);
                    // the lifts the lanes then read: word w - col H holds
                    // lift w - col H (low) and w - col H + H (high), lane a
                    // takes the low one unless swapped
                    const int low = int(w) - col * H;
                    const bool swapped = perm == ldpc_perm_swap;
                    swaps += swapped;
                    keeps += perm == ldpc_perm_keep;
                    const int lane_a = swapped ? low + H : low,
                              lane_b = swapped ? low : low + H;
                    if (low < 0 || low >= H || lane_a != (z + s) % Z ||
                        lane_b != (z + H + s) % Z)
                        if (++wrong < 5)
                            BOOST_ERROR("Z=" << Z << " s=" << s << " z=" << z);
                }
        }
    }
    BOOST_CHECK_EQUAL(wrong, 0);
    BOOST_CHECK_GT(swaps, 1000); // (both cases reached)
    BOOST_CHECK_GT(keeps, 1000);
    // the permutations, as the kernel applies them
    BOOST_CHECK_EQUAL(ldpc_permute(0x12345678u, ldpc_perm_keep), 0x12345678u);
    BOOST_CHECK_EQUAL(ldpc_permute(0x12345678u, ldpc_perm_swap), 0x56781234u);
}

BOOST_AUTO_TEST_CASE(bg_state_layouts_convert_both_ways)
{
    std::mt19937 rng(17);
    std::uniform_int_distribution<uint32_t> any;
    for (int trial = 0; trial < 100000; ++trial) {
        // a valid state: signs in bits 0..18, edge of m1 < 19, parity
        ldpc_pair_state s{ any(rng), { 0, 0 } };
        for (int k = 0; k < 2; ++k)
            s.tag[k] =
                (any(rng) & 0x7ffffu) | (any(rng) % 19u) << 24 | (any(rng) & 1u) << 31;
        BOOST_REQUIRE(same(ldpc_pair_bg_to_state(ldpc_pair_bg_from_state(s)), s));
        const auto a = ldpc_pair_unpack(s);
        const auto b = ldpc_pair_bg_messages(ldpc_pair_bg_from_state(s));
        for (int i = 0; i < ldpc_max_degree; ++i)
            BOOST_REQUIRE_EQUAL(ldpc_pair_c2v(a, i), ldpc_pair_c2v(b, i));
    }
}

// Each first row of both base graphs, specialised, against the generic row:
// random values and states (ties among small values too), both codewords
// or one frozen; a-posteriori values and messages identical at every z.
BOOST_AUTO_TEST_CASE(bg_rows_equal_the_generic_row)
{
    std::mt19937 rng(21);
    std::uniform_int_distribution<int> wide(-16383, 16383), narrow(-3, 3), s16(1, 16),
        off(0, 3);
    long rows = 0, changed = 0;
    for (int bg : { 1, 2 })
        for (int Z : { 13, 384 }) {
            const auto& g = ldpc5g_graph::get(bg, Z);
            const auto e = ldpc_bg_shifts_of(bg, Z);
            const int n_vars = (bg == 1 ? 30 : 18) * Z;
            for (int trial = 0; trial < (Z > 100 ? 6 : 40); ++trial) {
                const bool ties = trial % 2;
                const auto n = ldpc_norm{ 0.f, 0.f, s16(rng), off(rng) };
                std::vector<uint32_t> app(n_vars);
                for (auto& x : app)
                    x = ties ? pk::make(narrow(rng), narrow(rng))
                             : pk::make(wide(rng), wide(rng));
                for (int r = 0; r < ldpc_bg_rows; ++r) {
                    std::vector<int32_t> edges;
                    for (const auto& ed : g.rows[r])
                        edges.push_back(ed.first << 16 | ed.second);
                    const int deg = int(edges.size());
                    // states from a generic pass over other values (a pass
                    // right after itself would change nothing)
                    std::vector<ldpc_pair_state> st(Z, ldpc_pair_state{ 0, { 0, 0 } });
                    auto other = app;
                    std::shuffle(other.begin(), other.end(), rng);
                    for (int z = 0; z < Z; ++z)
                        ldpc_pair_row(
                            other.data(), edges.data(), deg, z, Z, st[z], 0u, n);
                    auto app_g = app, app_s = app;
                    const uint32_t frozen = uint32_t(trial % 3); // none, a, b
                    for (int z = 0; z < Z; ++z) {
                        ldpc_pair_state a = st[z];
                        ldpc_pair_bg_state b = ldpc_pair_bg_from_state(st[z]);
                        ldpc_pair_row(
                            app_g.data(), edges.data(), deg, z, Z, a, frozen, n);
                        bg_row(bg, r, app_s.data(), pairs_at(e, z, Z), b, frozen, n);
                        BOOST_REQUIRE_MESSAGE(same(ldpc_pair_bg_to_state(b), a),
                                              "bg " << bg << " Z " << Z << " row " << r
                                                    << " z " << z);
                    }
                    BOOST_REQUIRE_MESSAGE(app_g == app_s,
                                          "bg " << bg << " Z " << Z << " row " << r);
                    for (int z = 0; z < Z; ++z)
                        BOOST_REQUIRE_EQUAL(
                            bg_parity(bg, r, app_s.data(), pairs_at(e, z, Z)),
                            ldpc_pair_parity(app_s.data(), edges.data(), deg, z, Z));
                    changed += app_s != app;
                    app = app_s;
                    ++rows;
                }
            }
        }
    BOOST_TEST_MESSAGE(rows << " row passes, " << changed << " changed values");
    BOOST_CHECK_GT(changed, rows / 2); // (the rows do work: the test can fail)
}

// --- Whole decodes as the kernel runs them ---------------------------------

namespace {

struct pair_model {
    const ldpc5g_params& p;
    ldpc5g_decoder_config c;
    ldpc_norm norm;
    ldpc5g_encoder_core code;
    std::vector<int32_t> row_start, edges;
    int n_vars;

    pair_model(const ldpc5g_params& p_, const ldpc5g_decoder_config& c_)
        : p(p_), c(c_), code(p_)
    {
        norm = { c.scaling,
                 c.offset,
                 int32_t(std::lround(c.scaling * 16)),
                 int32_t(std::lround(c.offset * c.fixed_scale)) };
        const auto& g = ldpc5g_graph::get(p.bg, p.Z);
        row_start.push_back(0);
        for (int r = 0; r < p.rows_used; ++r) {
            for (const auto& e : g.rows[r])
                edges.push_back(e.first << 16 | e.second);
            row_start.push_back(int32_t(edges.size()));
        }
        n_vars = ((p.bg == 1 ? 22 : 10) + p.rows_used) * p.Z;
    }

    // The prologue of one codeword (null: the empty second codeword of an
    // odd batch), as ldpc5g_impl.h's quantiser and combining rule.
    int channel(const float* llr, int n) const
    {
        const int j = n - 2 * p.Z;
        int v = 0;
        if (!llr)
            return 0;
        if (n >= p.K && n < p.K_ldpc)
            v = ldpc_app_max;
        else if (j >= 0 && j < p.Ncb && code.first_read()[j] >= 0)
            for (int e = code.first_read()[j]; e < p.E; e += code.period()) {
                const float x =
                    ldpc_llr_in((c.positive_is_zero ? 1 : -1) * llr[code.interleaved(e)]);
                v += std::clamp<int>(
                    int(std::nearbyint(x * c.fixed_scale)), -ldpc_msg_max, ldpc_msg_max);
            }
        return ldpc_clamp_app(v);
    }

    // One pair's decode as the kernels hold it, step by step.
    struct run {
        std::vector<uint32_t> app;
        std::vector<ldpc_pair_state> st;     // generic rows
        std::vector<ldpc_pair_bg_state> rst; // the first rows, specialised
        uint32_t frozen = 0;
        bool pass[2] = { false, false };
        int32_t its[2] = { 0, 0 };
        bool two = false;
    };

    run start(const float* a, const float* b) const
    {
        run u;
        u.app.resize(n_vars);
        for (int n = 0; n < n_vars; ++n)
            u.app[n] = pk::make(channel(a, n), channel(b, n));
        u.st.assign(std::size_t(p.rows_used) * p.Z, ldpc_pair_state{ 0, { 0, 0 } });
        u.rst.assign(std::size_t(ldpc_bg_rows) * p.Z, ldpc_pair_bg_state{ 0, 0, 0 });
        u.frozen = b ? 0u : 2u;
        u.two = b != nullptr;
        return u;
    }

    // Iteration it (from 1) of every row for every lift, frozen lanes kept,
    // then the counts and, where checked, the verdicts.
    void iterate(run& u, int it) const
    {
        const int Z = p.Z;
        const auto e = ldpc_bg_shifts_of(p.bg, Z);
        for (int r = 0; r < p.rows_used; ++r)
            for (int z = 0; z < Z; ++z)
                if (r < ldpc_bg_rows)
                    bg_row(p.bg,
                           r,
                           u.app.data(),
                           pairs_at(e, z, Z),
                           u.rst[r * Z + z],
                           u.frozen,
                           norm);
                else
                    ldpc_pair_row(u.app.data(),
                                  &edges[row_start[r]],
                                  row_start[r + 1] - row_start[r],
                                  z,
                                  Z,
                                  u.st[std::size_t(r) * Z + z],
                                  u.frozen,
                                  norm);
        for (int k = 0; k < 2; ++k)
            if (!(u.frozen >> k & 1))
                u.its[k] = it;
        if (c.early_termination || it == c.max_iterations) {
            uint32_t bad = 0;
            for (int r = 0; r < p.rows_used; ++r)
                for (int z = 0; z < Z; ++z)
                    bad |= r < ldpc_bg_rows
                               ? bg_parity(p.bg, r, u.app.data(), pairs_at(e, z, Z))
                               : ldpc_pair_parity(u.app.data(),
                                                  &edges[row_start[r]],
                                                  row_start[r + 1] - row_start[r],
                                                  z,
                                                  Z);
            for (int k = 0; k < 2; ++k)
                if (!(u.frozen >> k & 1))
                    u.pass[k] = !(bad >> (15 + 16 * k) & 1);
            if (c.early_termination)
                u.frozen |= (u.pass[0] ? 1u : 0u) | (u.pass[1] ? 2u : 0u);
        }
    }

    void finish(const run& u, uint8_t* bits, int32_t* its, uint8_t* ok) const
    {
        for (int k = 0; k < (u.two ? 2 : 1); ++k) {
            for (int i = 0; i < p.K; ++i)
                bits[std::size_t(k) * p.K + i] = pk::lane(u.app[i], k) < 0;
            ok[k] = u.pass[k];
            its[k] = u.its[k];
        }
    }

    // Pairs as the pair kernel decodes them: each until both its codewords
    // are done.
    void decode(const float* a, const float* b, uint8_t* bits, int32_t* its, uint8_t* ok)
    {
        run u = start(a, b);
        for (int it = 0; it < c.max_iterations && u.frozen != 3u;)
            iterate(u, ++it);
        finish(u, bits, its, ok);
    }

    // Codewords [0, n) as the group kernel decodes them: pairs (2g, 2g + 1)
    // in warps of ldpc_groups_per_warp(Z) pairs, each warp's pairs in step
    // until all of them are done (a done pair's rows still run, frozen).
    void decode_groups(const std::vector<float>& llr,
                       int n,
                       uint8_t* bits,
                       int32_t* its,
                       uint8_t* ok)
    {
        const int G = ldpc_groups_per_warp(p.Z), pairs = (n + 1) / 2;
        for (int w0 = 0; w0 < pairs; w0 += G) {
            std::vector<run> warp;
            for (int q = w0; q < std::min(pairs, w0 + G); ++q)
                warp.push_back(start(&llr[std::size_t(2 * q) * p.E],
                                     2 * q + 1 < n ? &llr[std::size_t(2 * q + 1) * p.E]
                                                   : nullptr));
            auto all_done = [&] {
                return std::all_of(
                    warp.begin(), warp.end(), [](const run& u) { return u.frozen == 3u; });
            };
            for (int it = 0; it < c.max_iterations && !all_done();) {
                ++it;
                for (auto& u : warp)
                    iterate(u, it);
            }
            for (int q = w0; q < std::min(pairs, w0 + G); ++q)
                finish(warp[q - w0],
                       bits + std::size_t(2 * q) * p.K,
                       its + 2 * q,
                       ok + 2 * q);
        }
    }
};

std::vector<float>
noisy(const ldpc5g_params& p, int batch, double sigma, std::mt19937& rng)
{
    ldpc5g_encoder_core enc(p);
    std::normal_distribution<double> g;
    std::bernoulli_distribution coin;
    std::vector<float> llr(std::size_t(batch) * p.E);
    std::vector<uint8_t> info(p.K), tx(p.E);
    for (int b = 0; b < batch; ++b) {
        for (auto& x : info)
            x = coin(rng);
        enc.encode(info.data(), tx.data());
        for (int e = 0; e < p.E; ++e)
            llr[std::size_t(b) * p.E + e] =
                float(2 * ((tx[e] ? -1.0 : 1.0) + sigma * g(rng)) / (sigma * sigma));
    }
    return llr;
}

// A batch's decisions: K bits, iterations and verdict per codeword.
struct decoded {
    std::vector<uint8_t> bits, ok;
    std::vector<int32_t> its;
    decoded(const ldpc5g_params& p, int batch)
        : bits(std::size_t(batch) * p.K), ok(batch + 1), its(batch + 1)
    {
    }
};

// Checks \p model's decisions against the CPU backend's for the batch;
// returns how many codewords passed, their iterations appended to
// \p iterations.
int check_against_cpu(const ldpc5g_params& p,
                      const ldpc5g_decoder_config& dc,
                      const std::vector<float>& llr,
                      int batch,
                      const decoded& model,
                      const std::string& what,
                      std::string& iterations)
{
    ldpc5g_decoder_plan cpu(p, dc, {}, "qa cpu");
    decoded want(p, batch);
    cpu.decode(llr.data(), batch, want.bits.data(), want.its.data(), want.ok.data());
    int passed = 0;
    for (int b = 0; b < batch; ++b) {
        BOOST_CHECK_MESSAGE(std::equal(&want.bits[std::size_t(b) * p.K],
                                       &want.bits[std::size_t(b + 1) * p.K],
                                       &model.bits[std::size_t(b) * p.K]),
                            what << " codeword " << b);
        BOOST_CHECK_EQUAL(want.its[b], model.its[b]);
        BOOST_CHECK_EQUAL(want.ok[b], model.ok[b]);
        passed += want.ok[b];
        iterations += " " + std::to_string(want.its[b]);
    }
    return passed;
}

} // namespace

BOOST_AUTO_TEST_CASE(pair_decodes_equal_the_cpu_backend)
{
    std::mt19937 rng(33);
    struct case_t {
        int K, E, Qm;
        double sigma;
        bool early;
        float offset;
    };
    // High rate (few rows, the pair kernel's specialised rows only), low rate
    // (rows in memory too), BG2 with fillers, repetitions, no early stop,
    // an offset; noise near each code's waterfall, so some codewords fail
    // and the others stop at different iterations.
    for (const case_t& k : { case_t{ 8448, 10752, 2, 0.575, true, 0.375f },
                             case_t{ 1200, 1500, 2, 0.55, true, 0.f },
                             case_t{ 500, 1500, 2, 1.09, true, 0.25f },
                             case_t{ 300, 900, 4, 1.08, false, 0.f },
                             case_t{ 200, 4000, 2, 2.6, true, 0.f } }) {
        const auto p = ldpc5g_params::make(k.K, k.E, 0, k.Qm, 0, "qa");
        ldpc5g_decoder_config dc;
        dc.fixed_point = true;
        dc.max_iterations = 8;
        dc.scaling = 0.875f;
        dc.offset = k.offset;
        dc.early_termination = k.early;
        const int batch = 7; // odd: the last pair has one codeword
        const auto llr = noisy(p, batch, k.sigma, rng);
        pair_model model(p, dc);
        decoded m(p, batch);
        for (int b = 0; b < batch; b += 2)
            model.decode(&llr[std::size_t(b) * p.E],
                         b + 1 < batch ? &llr[std::size_t(b + 1) * p.E] : nullptr,
                         &m.bits[std::size_t(b) * p.K],
                         &m.its[b],
                         &m.ok[b]);
        std::string iterations;
        const int passed =
            check_against_cpu(p,
                              dc,
                              llr,
                              batch,
                              m,
                              "K=" + std::to_string(k.K) + " E=" + std::to_string(k.E),
                              iterations);
        BOOST_TEST_MESSAGE("K=" << k.K << " E=" << k.E << " rows=" << p.rows_used << ": "
                                << passed << " of " << batch << " passed, iterations"
                                << iterations);
    }
}

// The group kernel's lanes (ldpc_group_of): for every lift size up to
// ldpc_group_max_z, each (pair, lift) of a warp on exactly one lane, each
// pair's mask exactly its lanes, the rest of the warp idle with no mask.
BOOST_AUTO_TEST_CASE(group_lanes_hold_each_lift_of_each_pair_once)
{
    for (int Z = 2; Z <= ldpc_group_max_z; ++Z) {
        const int G = ldpc_groups_per_warp(Z);
        BOOST_REQUIRE(G >= 2 && G * Z <= 32 && (G + 1) * Z > 32);
        std::vector<int> seen(G * Z, 0);
        for (int lane = 0; lane < 32; ++lane) {
            const auto me = ldpc_group_of(lane, Z);
            if (!me.active) {
                BOOST_CHECK_EQUAL(me.mask, 0u);
                BOOST_CHECK_GE(lane, G * Z);
                continue;
            }
            BOOST_REQUIRE(me.g < G && me.z >= 0 && me.z < Z);
            ++seen[me.g * Z + me.z];
            for (int other = 0; other < 32; ++other) {
                const auto them = ldpc_group_of(other, Z);
                BOOST_CHECK_EQUAL(bool(me.mask >> other & 1u),
                                  them.active && them.g == me.g);
            }
        }
        for (int k = 0; k < G * Z; ++k)
            BOOST_CHECK_EQUAL(seen[k], 1);
    }
}

// Codewords of small lifts as the group kernel decodes them (warps of
// several pairs in step, a done pair frozen until its warp is done) equal
// the CPU backend bit for bit, with their iteration counts and verdicts:
// BG2 at Z = 2, 4, 7, 11, 15 and BG1 at Z = 14, noise near each code's
// waterfall (some codewords fail, the others stop at different iterations),
// batches that end inside a warp and inside a pair.
BOOST_AUTO_TEST_CASE(group_decodes_equal_the_cpu_backend)
{
    std::mt19937 rng(34);
    struct case_t {
        int K, E, Qm;
        double sigma;
        bool early;
    };
    int passed_all = 0, failed_all = 0;
    for (const case_t& k : { case_t{ 12, 36, 2, 0.8, true },
                             case_t{ 24, 60, 2, 0.8, true },
                             case_t{ 40, 96, 2, 0.85, true },
                             case_t{ 64, 150, 2, 0.8, false },
                             case_t{ 90, 200, 4, 0.75, true },
                             case_t{ 308, 400, 2, 0.55, true } }) {
        const auto p = ldpc5g_params::make(k.K, k.E, 0, k.Qm, 0, "qa");
        BOOST_REQUIRE_LE(p.Z, ldpc_group_max_z);
        ldpc5g_decoder_config dc;
        dc.fixed_point = true;
        dc.max_iterations = 10;
        dc.scaling = 0.875f;
        dc.early_termination = k.early;
        const int G = ldpc_groups_per_warp(p.Z);
        const int batch = 2 * (2 * G + 1) + 1; // two warps and a part, an odd pair
        const auto llr = noisy(p, batch, k.sigma, rng);
        pair_model model(p, dc);
        decoded m(p, batch);
        model.decode_groups(llr, batch, m.bits.data(), m.its.data(), m.ok.data());
        std::string iterations;
        const int passed =
            check_against_cpu(p,
                              dc,
                              llr,
                              batch,
                              m,
                              "K=" + std::to_string(k.K) + " Z=" + std::to_string(p.Z),
                              iterations);
        passed_all += passed;
        failed_all += batch - passed;
        BOOST_TEST_MESSAGE("K=" << k.K << " BG" << p.bg << " Z=" << p.Z << " G=" << G
                                << ": " << passed << " of " << batch
                                << " passed, iterations" << iterations);
    }
    BOOST_CHECK_GT(passed_all, 0); // (both verdicts occur: the test can fail)
    BOOST_CHECK_GT(failed_all, 0);
}

namespace {

// One codeword as the latency kernel decodes it (decode_split_kernel): its
// lifts z and z + Z/2 in the two lanes of word z, every row specialised.
void split_decode(
    const pair_model& m, const float* llr, uint8_t* bits, int32_t& its, uint8_t& ok)
{
    const auto& p = m.p;
    const int Z = p.Z, H = Z / 2, n_words = m.n_vars / 2;
    std::vector<uint32_t> app(n_words);
    for (int n = 0; n < n_words; ++n) {
        const int v = n / H * Z + n % H;
        app[n] = pk::make(m.channel(llr, v), m.channel(llr, v + H));
    }
    const auto h = ldpc_bg_halves_of(p.bg, Z);
    std::vector<ldpc_pair_bg_state> st(std::size_t(p.rows_used) * H,
                                       ldpc_pair_bg_state{ 0, 0, 0 });
    bool pass = false;
    its = 0;
    for (int it = 0; it < m.c.max_iterations;) {
        for (int r = 0; r < p.rows_used; ++r)
            for (int z = 0; z < H; ++z)
                bg_row(p.bg,
                       r,
                       app.data(),
                       ldpc_bg_split{ h, uint32_t(z), uint32_t(H) },
                       st[std::size_t(r) * H + z],
                       0u,
                       m.norm);
        its = ++it;
        if (m.c.early_termination || it == m.c.max_iterations) {
            uint32_t bad = 0;
            for (int r = 0; r < p.rows_used; ++r)
                for (int z = 0; z < H; ++z)
                    bad |= bg_parity(p.bg,
                                     r,
                                     app.data(),
                                     ldpc_bg_split{ h, uint32_t(z), uint32_t(H) });
            pass = !bad;
            if (m.c.early_termination && pass)
                break;
        }
    }
    for (int i = 0; i < p.K; ++i) {
        const int l = i % Z;
        bits[i] = pk::lane(app[i / Z * H + l % H], l / H) < 0;
    }
    ok = pass;
}

} // namespace

BOOST_AUTO_TEST_CASE(split_decodes_equal_the_cpu_backend)
{
    std::mt19937 rng(34);
    struct case_t {
        int K, E;
        double sigma;
        bool early;
    };
    // Codes whose rows are all specialised, even Z: the target code, a
    // short BG1 code, a BG2 code; noise near the waterfall.
    int bg2 = 0;
    for (const case_t& k : { case_t{ 8448, 10752, 0.575, true },
                             case_t{ 8448, 10752, 0.55, false },
                             case_t{ 1200, 1500, 0.55, true },
                             case_t{ 240, 300, 0.52, true } }) {
        const auto p = ldpc5g_params::make(k.K, k.E, 0, 2, 0, "qa");
        BOOST_REQUIRE_LE(p.rows_used, ldpc_bg_rows);
        BOOST_REQUIRE_EQUAL(p.Z % 2, 0);
        bg2 += p.bg == 2;
        ldpc5g_decoder_config dc;
        dc.fixed_point = true;
        dc.max_iterations = 8;
        dc.scaling = 0.875f;
        dc.offset = 0.375f;
        dc.early_termination = k.early;
        const int batch = 6;
        const auto llr = noisy(p, batch, k.sigma, rng);
        ldpc5g_decoder_plan cpu(p, dc, {}, "qa cpu");
        std::vector<uint8_t> bits(std::size_t(batch) * p.K), ok(batch);
        std::vector<int32_t> its(batch);
        cpu.decode(llr.data(), batch, bits.data(), its.data(), ok.data());
        pair_model model(p, dc);
        int passed = 0;
        for (int b = 0; b < batch; ++b) {
            std::vector<uint8_t> mbits(p.K);
            int32_t mits;
            uint8_t mok;
            split_decode(model, &llr[std::size_t(b) * p.E], mbits.data(), mits, mok);
            BOOST_CHECK_MESSAGE(
                std::equal(mbits.begin(), mbits.end(), &bits[std::size_t(b) * p.K]),
                "K=" << k.K << " E=" << k.E << " codeword " << b);
            BOOST_CHECK_EQUAL(its[b], mits);
            BOOST_CHECK_EQUAL(ok[b], mok);
            passed += ok[b];
        }
        BOOST_TEST_MESSAGE("split K=" << k.K << " E=" << k.E << " BG" << p.bg
                                      << " Z=" << p.Z << " rows=" << p.rows_used << ": "
                                      << passed << " of " << batch << " passed");
    }
    BOOST_CHECK_GT(bg2, 0);
}
