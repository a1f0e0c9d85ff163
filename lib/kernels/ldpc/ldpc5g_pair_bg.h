/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Internal: the pair kernel's first rows specialised per base graph at
// compile time. A row's columns and degree are constants of the base graph
// (TS 38.212 Tables 5.3.2-2/-3); only the shifts depend on the lift size,
// and they reach the kernel as launch parameters (constant bank, read as
// instruction operands). So a row step loads no edge table, carries no
// per-edge degree predicate, finds each variable without a compare
// (ldpc_bg_index), and gathers the variables' sign bits
// straight into the interleaved layout its messages are read from (one
// shift and one logic operation per edge for both codewords). The
// arithmetic is ldpc5g_pair.h's, so a row gives the same values and
// messages as ldpc_pair_row (qa_ldpc5g_pair checks it row by row and in
// whole decodes).
//
// The first ldpc_bg_rows rows are specialised: all rows of BG1 at rate
// ~0.79 (the throughput target) and the core rows of both graphs at any
// rate; the kernel takes further rows through the generic step.

#ifndef INCLUDED_GPUDSP_KERNELS_LDPC5G_PAIR_BG_H
#define INCLUDED_GPUDSP_KERNELS_LDPC5G_PAIR_BG_H

#include "ldpc5g_pair.h"
#include <stdexcept>
#include <utility>

namespace gr {
namespace gpudsp {
namespace kernels {

constexpr int ldpc_bg_rows = 8;

LDPC_HD int ldpc_popcount(uint32_t x)
{
#ifdef __CUDA_ARCH__
    return __popc(x);
#else
    return __builtin_popcount(x);
#endif
}

/*! Degree of row r (< 8) of base graph bg. */
constexpr int ldpc_bg_degree(int bg, int r)
{
    constexpr int d1[ldpc_bg_rows] = { 19, 19, 19, 19, 3, 8, 9, 7 };
    constexpr int d2[ldpc_bg_rows] = { 8, 10, 8, 10, 4, 6, 6, 6 };
    return bg == 1 ? d1[r] : d2[r];
}

/*! Column of edge i of row r (< 8) of base graph bg, columns ascending as
 *  in the standard's tables (and ldpc5g_graph's rows). */
constexpr int ldpc_bg_column(int bg, int r, int i)
{
    constexpr int c1[ldpc_bg_rows][ldpc_max_degree] = {
        { 0, 1, 2, 3, 5, 6, 9, 10, 11, 12, 13, 15, 16, 18, 19, 20, 21, 22, 23 },
        { 0, 2, 3, 4, 5, 7, 8, 9, 11, 12, 14, 15, 16, 17, 19, 21, 22, 23, 24 },
        { 0, 1, 2, 4, 5, 6, 7, 8, 9, 10, 13, 14, 15, 17, 18, 19, 20, 24, 25 },
        { 0, 1, 3, 4, 6, 7, 8, 10, 11, 12, 13, 14, 16, 17, 18, 20, 21, 22, 25 },
        { 0, 1, 26 },
        { 0, 1, 3, 12, 16, 21, 22, 27 },
        { 0, 6, 10, 11, 13, 17, 18, 20, 28 },
        { 0, 1, 4, 7, 8, 14, 29 }
    };
    constexpr int c2[ldpc_bg_rows][ldpc_max_degree] = {
        { 0, 1, 2, 3, 6, 9, 10, 11 },
        { 0, 3, 4, 5, 6, 7, 8, 9, 11, 12 },
        { 0, 1, 3, 4, 8, 10, 12, 13 },
        { 1, 2, 4, 5, 6, 7, 8, 9, 10, 13 },
        { 0, 1, 11, 14 },
        { 0, 1, 5, 7, 11, 15 },
        { 0, 5, 7, 9, 11, 16 },
        { 1, 5, 7, 11, 13, 17 }
    };
    return bg == 1 ? c1[r][i] : c2[r][i];
}

/*! The first rows' shifts of one code, as a launch parameter (the kernel
 *  reads them as instruction operands): wrap = s - Z for edge i of row r
 *  with shift s = V mod Z. */
struct ldpc_bg_shifts {
    int32_t wrap[ldpc_bg_rows][ldpc_max_degree];
};

/*! Base graph bg's first rows lifted by Z (throws std::logic_error if the
 *  graph's columns are not the ones compiled in). */
inline ldpc_bg_shifts ldpc_bg_shifts_of(int bg, int Z)
{
    const auto& g = ldpc5g_graph::get(bg, Z);
    ldpc_bg_shifts e{};
    for (int r = 0; r < ldpc_bg_rows; ++r) {
        const auto& row = g.rows[r];
        if (int(row.size()) != ldpc_bg_degree(bg, r))
            throw std::logic_error(
                "ldpc5g: base graph row degree differs from the kernel's");
        for (std::size_t i = 0; i < row.size(); ++i) {
            if (row[i].first != ldpc_bg_column(bg, r, int(i)))
                throw std::logic_error(
                    "ldpc5g: base graph column differs from the kernel's");
            e.wrap[r][i] = row[i].second - Z;
        }
    }
    return e;
}

/*! Index of the variable that edge (column, wrap = s - Z) reaches from lift
 *  index z: column Z + (z + s) mod Z, the remainder as min(u, u + Z) with
 *  u = z + s - Z unsigned: u wraps below zero exactly when z + s < Z, and
 *  then u + Z = z + s is the smaller (two operations, no compare). */
LDPC_HD uint32_t ldpc_bg_index(int column, uint32_t z, int32_t wrap, uint32_t Z)
{
    const uint32_t u = z + uint32_t(wrap), v = u + Z;
    return uint32_t(column) * Z + (u < v ? u : v);
}

/*! One codeword in both lanes (the latency path): lift z in the low lane
 *  and lift z + H in the high lane of word z (H = Z / 2, Z even), so a
 *  codeword needs half the threads and every SIMD instruction does two
 *  lifts' work. Edge (column, shift s) takes lane a from lift x = (z + s)
 *  mod Z and lane b from (x + H) mod Z: word x mod H, its lanes swapped
 *  where x >= H. Per edge of the first rows: wrap = (s mod H) - H and the
 *  byte permutations that apply where z + (s mod H) reaches H (carry) and
 *  where not: swap exactly when carry differs from s >= H. */
struct ldpc_bg_halves {
    int32_t wrap[ldpc_bg_rows][ldpc_max_degree];
    uint32_t perm_carry[ldpc_bg_rows][ldpc_max_degree];
    uint32_t perm_no_carry[ldpc_bg_rows][ldpc_max_degree];
};

constexpr uint32_t ldpc_perm_keep = 0x3210u, ldpc_perm_swap = 0x1032u;

/*! The halves layout's parameters of an edge with shift s (< Z, Z even)
 *  and of base graph bg's first rows lifted by Z. */
inline void ldpc_bg_halves_edge(
    int s, int Z, int32_t& wrap, uint32_t& perm_carry, uint32_t& perm_no_carry)
{
    const int H = Z / 2;
    const bool high = s >= H;
    wrap = (high ? s - H : s) - H;
    perm_carry = high ? ldpc_perm_keep : ldpc_perm_swap;
    perm_no_carry = high ? ldpc_perm_swap : ldpc_perm_keep;
}

inline ldpc_bg_halves ldpc_bg_halves_of(int bg, int Z)
{
    const auto e = ldpc_bg_shifts_of(bg, Z);
    ldpc_bg_halves h{};
    for (int r = 0; r < ldpc_bg_rows; ++r)
        for (int i = 0; i < ldpc_bg_degree(bg, r); ++i)
            ldpc_bg_halves_edge(e.wrap[r][i] + Z,
                                Z,
                                h.wrap[r][i],
                                h.perm_carry[r][i],
                                h.perm_no_carry[r][i]);
    return h;
}

/*! Word of edge (column, wrap) from lift index z < H in the halves layout,
 *  and the byte permutation of its lanes (ldpc_bg_index's arithmetic on
 *  H; u < H is the carry). */
LDPC_HD uint32_t ldpc_bg_halves_index(int column,
                                      uint32_t z,
                                      int32_t wrap,
                                      uint32_t H,
                                      uint32_t perm_carry,
                                      uint32_t perm_no_carry,
                                      uint32_t& perm)
{
    perm = z + uint32_t(wrap) < H ? perm_carry : perm_no_carry;
    return ldpc_bg_index(column, z, wrap, H);
}

/*! v's bytes permuted (ldpc_perm_keep or ldpc_perm_swap: the lanes). */
LDPC_HD uint32_t ldpc_permute(uint32_t v, uint32_t perm)
{
#ifdef __CUDA_ARCH__
    return __byte_perm(v, 0u, perm);
#else
    return perm == ldpc_perm_keep ? v : (v >> 16) | (v << 16);
#endif
}

/*! How a thread of the pair kernel finds its variables: two codewords,
 *  one per lane, at lift z (word = lift). */
struct ldpc_bg_pairs {
    const ldpc_bg_shifts& e;
    uint32_t z, Z;

    LDPC_HD void opaque()
    {
#ifdef __CUDA_ARCH__
        // The indices are the same every iteration: without this the
        // compiler hoists all rows' indices out of the iteration loop and
        // spills them; before the write-back it keeps the gather's indices
        // (19 registers more) rather than computing them again.
        asm volatile("" : "+r"(z), "+r"(Z));
#endif
    }
    template <int BG, int R, int I, typename App>
    LDPC_HD App& at(App* app) const
    {
        return app[ldpc_bg_index(ldpc_bg_column(BG, R, I), z, e.wrap[R][I], Z)];
    }
    template <int BG, int R, int I, typename App>
    LDPC_HD uint32_t load(const App* app) const
    {
        return at<BG, R, I>(app);
    }
    template <int BG, int R, int I, typename App>
    LDPC_HD void store(App* app, uint32_t v) const
    {
        at<BG, R, I>(app) = v;
    }
};

/*! ... and of the latency kernel: one codeword, lifts z and z + H
 *  (ldpc_bg_halves). */
struct ldpc_bg_split {
    const ldpc_bg_halves& h;
    uint32_t z, H;

    LDPC_HD void opaque()
    {
#ifdef __CUDA_ARCH__
        asm volatile("" : "+r"(z), "+r"(H)); // (as ldpc_bg_pairs)
#endif
    }
    template <int BG, int R, int I, typename App>
    LDPC_HD App& at(App* app, uint32_t& perm) const
    {
        return app[ldpc_bg_halves_index(ldpc_bg_column(BG, R, I),
                                        z,
                                        h.wrap[R][I],
                                        H,
                                        h.perm_carry[R][I],
                                        h.perm_no_carry[R][I],
                                        perm)];
    }
    template <int BG, int R, int I, typename App>
    LDPC_HD uint32_t load(const App* app) const
    {
        uint32_t perm;
        const uint32_t v = at<BG, R, I>(app, perm);
        return ldpc_permute(v, perm);
    }
    template <int BG, int R, int I, typename App>
    LDPC_HD void store(App* app, uint32_t v) const
    {
        uint32_t perm;
        auto& x = at<BG, R, I>(app, perm);
        x = ldpc_permute(v, perm); // (a swap is its own inverse)
    }
};

/*! A specialised row's check state: the messages of ldpc_pair_state in the
 *  layout they are read in. mins as ldpc_pair_state; lo: the signs of the
 *  variable-to-check values of edges 0..15 (codeword a in bits 0..15, b in
 *  16..31, as ldpc_pair_bits); hi: per codeword (a: bits 0..15, b: 16..31)
 *  the signs of edges 16..18 (bits 0..2), the edge of the smallest
 *  magnitude (bits 8..12) and the signs' parity (bit 15). */
struct ldpc_pair_bg_state {
    uint32_t mins, lo, hi;
};

/*! The same state in ldpc_pair_state's layout (tests compare them). */
LDPC_HD ldpc_pair_state ldpc_pair_bg_to_state(const ldpc_pair_bg_state& s)
{
    ldpc_pair_state o;
    o.mins = s.mins;
    for (int k = 0; k < 2; ++k) {
        const uint32_t lo = (s.lo >> (16 * k)) & 0xffffu,
                       hi = (s.hi >> (16 * k)) & 0xffffu;
        o.tag[k] =
            lo | ((hi & 7u) << 16) | (((hi >> 8) & 31u) << 24) | ((hi >> 15) << 31);
    }
    return o;
}

LDPC_HD ldpc_pair_bg_state ldpc_pair_bg_from_state(const ldpc_pair_state& s)
{
    ldpc_pair_bg_state o{ s.mins, 0u, 0u };
    for (int k = 0; k < 2; ++k) {
        const uint32_t t = s.tag[k];
        o.lo |= (t & 0xffffu) << (16 * k);
        o.hi |= (((t >> 16) & 7u) | (((t >> 24) & 31u) << 8) | ((t >> 31) << 15))
                << (16 * k);
    }
    return o;
}

/*! The state unpacked for reading messages (ldpc_pair_c2v). */
LDPC_HD ldpc_pair_messages ldpc_pair_bg_messages(const ldpc_pair_bg_state& s)
{
    ldpc_pair_messages m;
    m.m1 = (s.mins & 0xffu) | ((s.mins & 0xff00u) << 8);
    m.m1_xor_m2 = m.m1 ^ (((s.mins >> 16) & 0xffu) | ((s.mins >> 8) & 0xff0000u));
    m.min_edge =
        ldpc_pair_interleave(1u << ((s.hi >> 8) & 31u), 1u << ((s.hi >> 24) & 31u));
    const uint32_t parity = ldpc_pair_sign_lanes(s.hi >> 8); // bits 15, 31 to 7, 23
    m.neg = { s.lo ^ parity, s.hi ^ parity };
    return m;
}

/*! Edge I's sign bits of t (bits 15 and 31) moved to bit I & 15 of each
 *  codeword's half. */
template <int I>
LDPC_HD uint32_t ldpc_pair_sign_bits(uint32_t t)
{
    constexpr int k = I & 15;
    return (t >> (15 - k)) & (0x10001u << k);
}

/*! ldpc_pair_update for a row of compile-time degree, in
 *  ldpc_pair_bg_state's layout (same minima, edge of the minimum, signs and parity). */
template <std::size_t... I>
LDPC_HD ldpc_pair_bg_state ldpc_pair_bg_update(const uint32_t* t,
                                               const ldpc_norm& n,
                                               std::index_sequence<I...>)
{
    uint32_t m1 = pk::splat(0x7fff), m2 = m1, lo = 0, hi = 0;
    auto edge = [&](uint32_t v, uint32_t i) {
        const uint32_t a = pk::min(pk::max(v, pk::neg(v)), pk::splat(ldpc_msg_max));
        const uint32_t key = a * 32u + i * 0x10001u;
        m2 = pk::min(m2, pk::max(m1, key));
        m1 = pk::min(m1, key);
    };
    (edge(t[I], uint32_t(I)), ...);
    (((I < 16 ? lo : hi) |= ldpc_pair_sign_bits<int(I)>(t[I])), ...);
    const uint32_t idx = m1 & 0x001f001fu;
    m1 = ldpc_pair_scale((m1 >> 5) & 0x07ff07ffu, n);
    m2 = ldpc_pair_scale((m2 >> 5) & 0x07ff07ffu, n);
    ldpc_pair_bg_state s;
    s.mins = (m1 & 0xffu) | ((m1 >> 8) & 0xff00u) | ((m2 & 0xffu) << 16) |
             ((m2 & 0xff0000u) << 8);
    // Parity of each half's signs: fold the halves' bits, then popcount.
    const uint32_t pa = uint32_t(ldpc_popcount((lo & 0xffffu) | ((hi & 7u) << 16))) & 1u;
    const uint32_t pb = uint32_t(ldpc_popcount((lo >> 16) | (hi & 0x70000u))) & 1u;
    s.lo = lo;
    s.hi = hi | (idx << 8) | (pa << 15) | (pb << 31);
    return s;
}

/*! ldpc_pair_keep in the specialised rows' layout. */
LDPC_HD ldpc_pair_bg_state ldpc_pair_bg_keep(uint32_t frozen,
                                             const ldpc_pair_bg_state& old,
                                             const ldpc_pair_bg_state& nw)
{
    if (!frozen) // (uniform across a pair's threads; the group kernel's
                 // pairs of one warp may differ: a divergent branch)
        return nw;
    const uint32_t bytes =
        (frozen & 1u ? 0x00ff00ffu : 0u) | (frozen & 2u ? 0xff00ff00u : 0u);
    const uint32_t halves =
        (frozen & 1u ? 0x0000ffffu : 0u) | (frozen & 2u ? 0xffff0000u : 0u);
    return { pk::sel(bytes, old.mins, nw.mins),
             pk::sel(halves, old.lo, nw.lo),
             pk::sel(halves, old.hi, nw.hi) };
}

template <int BG, int R, typename Where, typename App, std::size_t... I>
LDPC_HD void ldpc_pair_row_bg(App* app,
                              Where where,
                              ldpc_pair_bg_state& st,
                              uint32_t frozen,
                              const ldpc_norm& n,
                              std::index_sequence<I...> seq)
{
    constexpr int deg = int(sizeof...(I));
    where.opaque();
    const ldpc_pair_messages old = ldpc_pair_bg_messages(st);
    uint32_t t[deg];
    ((t[I] =
          pk::sub(where.template load<BG, R, int(I)>(app), ldpc_pair_c2v(old, int(I)))),
     ...);
    st = ldpc_pair_bg_keep(frozen, st, ldpc_pair_bg_update(t, n, seq));
    const ldpc_pair_messages nw = ldpc_pair_bg_messages(st);
    where.opaque();
    (where.template store<BG, R, int(I)>(
         app, ldpc_pair_clamp_app(pk::add(t[I], ldpc_pair_c2v(nw, int(I))))),
     ...);
}

/*! One layered step of row R (< ldpc_bg_rows) of base graph BG for the
 *  lane(s) \p where finds (ldpc_bg_pairs: two codewords at lift z;
 *  ldpc_bg_split: one codeword at lifts z and z + Z/2): ldpc_pair_row's
 *  values and messages, the state in ldpc_pair_bg_state's layout. */
template <int BG, int R, typename Where, typename App>
LDPC_HD void ldpc_pair_row_bg(
    App* app, Where where, ldpc_pair_bg_state& st, uint32_t frozen, const ldpc_norm& n)
{
    ldpc_pair_row_bg<BG, R>(
        app, where, st, frozen, n, std::make_index_sequence<ldpc_bg_degree(BG, R)>{});
}

template <int BG, int R, typename Where, typename App, std::size_t... I>
LDPC_HD uint32_t ldpc_pair_parity_bg(const App* app,
                                     Where where,
                                     std::index_sequence<I...>)
{
    where.opaque();
    return (where.template load<BG, R, int(I)>(app) ^ ...) & 0x80008000u;
}

/*! ldpc_pair_parity of row R (< ldpc_bg_rows) of base graph BG. */
template <int BG, int R, typename Where, typename App>
LDPC_HD uint32_t ldpc_pair_parity_bg(const App* app, Where where)
{
    return ldpc_pair_parity_bg<BG, R>(
        app, where, std::make_index_sequence<ldpc_bg_degree(BG, R)>{});
}

} // namespace kernels
} // namespace gpudsp
} // namespace gr

#endif
