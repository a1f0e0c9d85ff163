/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Internal: the fixed-point layered decoder's arithmetic for two codewords
// at once, each value of codeword a in the low 16 bits of a 32-bit word and
// codeword b's in the high 16 bits (a "pair"), as the CUDA pair kernel
// (ldpc5g_pair_cuda.cu) computes it with the GPU's 16x2 SIMD
// instructions. Every operation is the fixed-point decoder's
// (ldpc5g_impl.h) applied per lane, so a pair decodes bit for bit as two
// codewords on the CPU; qa_ldpc5g_pair checks each operation against its
// scalar form and whole decodes through these functions against the CPU
// backend.
//
// A check's compressed messages take 12 bytes per pair (6 per codeword,
// 16 in ldpc_check_state<int32_t>): both codewords' scaled minima as bytes
// (they are <= 127: scaling <= 1, magnitudes <= 127) and per codeword a tag
// holding the signs of the variable-to-check values (bits 0..18), the edge
// of the smallest magnitude (bits 24..28) and the signs' parity (bit 31).

#ifndef INCLUDED_GPUDSP_KERNELS_LDPC5G_PAIR_H
#define INCLUDED_GPUDSP_KERNELS_LDPC5G_PAIR_H

#include "ldpc5g_impl.h"

namespace gr {
namespace gpudsp {
namespace kernels {

// Two int16 lanes in a uint32_t. Device: one SIMD instruction each; host:
// the same per lane.
namespace pk {

LDPC_HD uint32_t make(int a, int b)
{
    return uint32_t(uint16_t(a)) | (uint32_t(uint16_t(b)) << 16);
}
LDPC_HD uint32_t splat(int v) { return make(v, v); }
LDPC_HD int lane(uint32_t x, int k) { return int16_t(uint16_t(x >> (16 * k))); }
LDPC_HD uint32_t sel(uint32_t mask, uint32_t if_set, uint32_t if_clear)
{
    return (if_set & mask) | (if_clear & ~mask);
}

#ifdef __CUDA_ARCH__
__device__ __forceinline__ uint32_t add(uint32_t a, uint32_t b) { return __vadd2(a, b); }
__device__ __forceinline__ uint32_t sub(uint32_t a, uint32_t b) { return __vsub2(a, b); }
__device__ __forceinline__ uint32_t min(uint32_t a, uint32_t b) { return __vmins2(a, b); }
__device__ __forceinline__ uint32_t max(uint32_t a, uint32_t b) { return __vmaxs2(a, b); }
// (__vneg2, not __vsub2(0, a): the compiler splits the latter into lanes)
__device__ __forceinline__ uint32_t neg(uint32_t a) { return __vneg2(a); }
#else
template <typename F>
inline uint32_t per_lane(uint32_t a, uint32_t b, F f)
{
    return make(f(lane(a, 0), lane(b, 0)), f(lane(a, 1), lane(b, 1)));
}
// add/sub wrap modulo 2^16 per lane (the decoder's values never reach it).
inline uint32_t add(uint32_t a, uint32_t b)
{
    return per_lane(a, b, [](int x, int y) { return x + y; });
}
inline uint32_t sub(uint32_t a, uint32_t b)
{
    return per_lane(a, b, [](int x, int y) { return x - y; });
}
inline uint32_t min(uint32_t a, uint32_t b)
{
    return per_lane(a, b, [](int x, int y) { return x < y ? x : y; });
}
inline uint32_t max(uint32_t a, uint32_t b)
{
    return per_lane(a, b, [](int x, int y) { return x > y ? x : y; });
}
inline uint32_t neg(uint32_t a) { return sub(0u, a); }
#endif

} // namespace pk

LDPC_HD uint32_t ldpc_pair_clamp_app(uint32_t v)
{
    return pk::min(pk::max(v, pk::splat(-ldpc_app_max)), pk::splat(ldpc_app_max));
}

/*! ldpc_scale(int32_t) per lane, for magnitudes 0..127 and scale16 <= 16
 *  (scaling <= 1: the plan's limit): the products stay below 2^11, so one
 *  32-bit multiply scales both lanes. */
LDPC_HD uint32_t ldpc_pair_scale(uint32_t m, const ldpc_norm& n)
{
    // An offset beyond the largest magnitude zeroes everything, as ldpc_scale.
    const int off = n.offset_q < ldpc_msg_max ? n.offset_q : ldpc_msg_max;
    const uint32_t v = pk::max(pk::sub(m, pk::splat(off)), 0u);
    const uint32_t s = ((v * uint32_t(n.scale16) + 0x00080008u) >> 4) & 0x0fff0fffu;
    return pk::max(s, pk::min(v, pk::splat(1))); // never 0 where v > 0
}

/*! A check's compressed messages for both codewords of a pair. */
struct ldpc_pair_state {
    uint32_t mins;   // bytes: m1 of a, m1 of b, m2 of a, m2 of b
    uint32_t tag[2]; // per codeword: signs (0..18), edge of m1 (24..28), parity (31)
};

/*! Per-edge bits of both codewords (bit i of codeword a's and b's 19-bit
 *  words) laid out so that one shift brings edge i's bits to bits 7 and 23:
 *  lo holds edges 0..15 (a in bits 0..15, b in 16..31), hi edges 16..18
 *  (a from bit 0, b from bit 16). */
struct ldpc_pair_bits {
    uint32_t lo, hi;
};
LDPC_HD ldpc_pair_bits ldpc_pair_interleave(uint32_t a, uint32_t b)
{
    return { (a & 0xffffu) | (b << 16), (a >> 16) | (b & 0xffff0000u) };
}

/*! 0xffff in lane a where bit 7 of y is set, in lane b where bit 23 is:
 *  one byte permutation replicating the sign of bytes 0 and 2. */
LDPC_HD uint32_t ldpc_pair_sign_lanes(uint32_t y)
{
#ifdef __CUDA_ARCH__
    uint32_t r;
    asm("prmt.b32 %0, %1, 0, 0xaa88;" : "=r"(r) : "r"(y));
    return r;
#else
    return (y & 0x80u ? 0xffffu : 0u) | (y & 0x800000u ? 0xffff0000u : 0u);
#endif
}

/*! 0xffff in each codeword's lane where its bit for edge i is set. */
LDPC_HD uint32_t ldpc_pair_edge_mask(const ldpc_pair_bits& b, int i)
{
    const uint32_t w = i < 16 ? b.lo : b.hi;
    const int k = i & 15;
    return ldpc_pair_sign_lanes(k <= 7 ? w << (7 - k) : w >> (k - 7));
}

/*! A state unpacked for reading its messages edge by edge. */
struct ldpc_pair_messages {
    uint32_t m1, m1_xor_m2;  // int16 pairs
    ldpc_pair_bits min_edge; // bit i set where edge i holds m1
    ldpc_pair_bits neg;      // bit i set where edge i's message is negative
};

LDPC_HD ldpc_pair_messages ldpc_pair_unpack(const ldpc_pair_state& s)
{
    ldpc_pair_messages m;
    m.m1 = (s.mins & 0xffu) | ((s.mins & 0xff00u) << 8);
    m.m1_xor_m2 = m.m1 ^ (((s.mins >> 16) & 0xffu) | ((s.mins >> 8) & 0xff0000u));
    m.min_edge = ldpc_pair_interleave(1u << ((s.tag[0] >> 24) & 31u),
                                      1u << ((s.tag[1] >> 24) & 31u));
    m.neg = ldpc_pair_interleave(s.tag[0] ^ (0u - (s.tag[0] >> 31)),
                                 s.tag[1] ^ (0u - (s.tag[1] >> 31)));
    return m;
}

/*! Edge i's check-to-variable message, both codewords (ldpc_c2v per lane). */
LDPC_HD uint32_t ldpc_pair_c2v(const ldpc_pair_messages& m, int i)
{
    const uint32_t v = m.m1 ^ (m.m1_xor_m2 & ldpc_pair_edge_mask(m.min_edge, i));
    const uint32_t neg = ldpc_pair_edge_mask(m.neg, i);
    return pk::sub(v ^ neg, neg); // -v where neg (two's complement per lane)
}

/*! ldpc_check_update per lane from the variable-to-check values t[0..deg)
 *  (deg >= 2: every row of both base graphs has degree >= 3; |t| <= 16383
 *  + 127, so -t does not wrap). The minima run over keys magnitude * 32 +
 *  edge (< 2^12 per lane): the smallest key is the first edge of the
 *  smallest magnitude, as the scalar form's strict comparison picks, the
 *  second smallest key carries the second smallest magnitude (equal to the
 *  first on a tie), and no per-lane comparison is needed. Starting at
 *  0x7fff (above any key) takes the first two values as the scalar form's
 *  first/second flags do. */
LDPC_HD ldpc_pair_state ldpc_pair_update(const uint32_t* t, int deg, const ldpc_norm& n)
{
    uint32_t m1 = pk::splat(0x7fff), m2 = m1, s0 = 0, s1 = 0;
    LDPC_UNROLL
    for (int i = 0; i < ldpc_max_degree; ++i) {
        if (i >= deg)
            break;
        const uint32_t a = pk::min(pk::max(t[i], pk::neg(t[i])), pk::splat(ldpc_msg_max));
        const uint32_t key = a * 32u + uint32_t(i) * 0x10001u;
        m2 = pk::min(m2, pk::max(m1, key));
        m1 = pk::min(m1, key);
        s0 |= ((t[i] >> 15) & 1u) << i; // the lanes' sign bits
        s1 |= (t[i] >> 31) << i;
    }
    const uint32_t idx = m1 & 0x001f001fu;
    m1 = (m1 >> 5) & 0x07ff07ffu;
    m2 = (m2 >> 5) & 0x07ff07ffu;
    m1 = ldpc_pair_scale(m1, n);
    m2 = ldpc_pair_scale(m2, n);
    ldpc_pair_state s;
    s.mins = (m1 & 0xffu) | ((m1 >> 8) & 0xff00u) | ((m2 & 0xffu) << 16) |
             ((m2 & 0xff0000u) << 8);
#ifdef __CUDA_ARCH__
    const uint32_t p0 = __popc(s0) & 1u, p1 = __popc(s1) & 1u;
#else
    const uint32_t p0 = __builtin_popcount(s0) & 1u, p1 = __builtin_popcount(s1) & 1u;
#endif
    s.tag[0] = s0 | ((idx & 31u) << 24) | (p0 << 31);
    s.tag[1] = s1 | (((idx >> 16) & 31u) << 24) | (p1 << 31);
    return s;
}

/*! Where codewords are frozen (bit 0: a, bit 1: b; early termination),
 *  their old state stays: their messages are then the ones the row's
 *  variable-to-check values were formed with, so their a-posteriori values
 *  come back unchanged. */
LDPC_HD ldpc_pair_state ldpc_pair_keep(uint32_t frozen,
                                       const ldpc_pair_state& old,
                                       const ldpc_pair_state& nw)
{
    const uint32_t bytes =
        (frozen & 1u ? 0x00ff00ffu : 0u) | (frozen & 2u ? 0xff00ff00u : 0u);
    ldpc_pair_state s;
    s.mins = pk::sel(bytes, old.mins, nw.mins);
    s.tag[0] = frozen & 1u ? old.tag[0] : nw.tag[0];
    s.tag[1] = frozen & 2u ? old.tag[1] : nw.tag[1];
    return s;
}

/*! Edge (column, shift) packed as column << 16 | shift: one load per edge. */
LDPC_HD int ldpc_pair_var(int32_t edge, int z, int Z)
{
    const int zz = z + (edge & 0xffff);
    return (edge >> 16) * Z + (zz >= Z ? zz - Z : zz);
}

/*! One layered row step of one lift index z for a pair: the
 *  variable-to-check values from the a-posteriori pairs \p app, the new
 *  compressed state, the a-posteriori values written back. \p edges: the
 *  row's packed edges. The Z steps of a row touch distinct variables, so
 *  running them in any order (threads, or a loop on the CPU) is the same. */
template <typename App>
LDPC_HD void ldpc_pair_row(App* app,
                           const int32_t* edges,
                           int deg,
                           int z,
                           int Z,
                           ldpc_pair_state& st,
                           uint32_t frozen,
                           const ldpc_norm& n)
{
    const ldpc_pair_messages old = ldpc_pair_unpack(st);
    uint32_t t[ldpc_max_degree];
    LDPC_UNROLL
    for (int i = 0; i < ldpc_max_degree; ++i)
        if (i < deg)
            t[i] = pk::sub(app[ldpc_pair_var(edges[i], z, Z)], ldpc_pair_c2v(old, i));
    st = ldpc_pair_keep(frozen, st, ldpc_pair_update(t, deg, n));
    const ldpc_pair_messages nw = ldpc_pair_unpack(st);
    LDPC_UNROLL
    for (int i = 0; i < ldpc_max_degree; ++i)
        if (i < deg)
            app[ldpc_pair_var(edges[i], z, Z)] =
                ldpc_pair_clamp_app(pk::add(t[i], ldpc_pair_c2v(nw, i)));
}

/*! Small lifts (Z <= ldpc_group_max_z): the group kernel puts
 *  ldpc_groups_per_warp(Z) pairs on each warp, pair g on lanes
 *  [g Z, (g + 1) Z), one lane per lift (the pair kernel would leave 32 - Z
 *  of 32 lanes idle). ldpc_group_warps warps per block. */
constexpr int ldpc_group_max_z = 16;
constexpr int ldpc_group_warps = 2;
LDPC_HD int ldpc_groups_per_warp(int Z) { return Z <= ldpc_group_max_z ? 32 / Z : 1; }

/*! Lane \p lane's pair within its warp, its lift, whether it has one, and
 *  the lanes of its pair (for the pair's votes among the warp's). */
struct ldpc_group_lane {
    int g, z;
    bool active;
    uint32_t mask;
};
LDPC_HD ldpc_group_lane ldpc_group_of(int lane, int Z)
{
    ldpc_group_lane r;
    r.g = lane / Z;
    r.z = lane % Z;
    r.active = r.g < ldpc_groups_per_warp(Z);
    const uint32_t lanes = Z >= 32 ? 0xffffffffu : (1u << Z) - 1u;
    r.mask = r.active ? lanes << (r.g * Z) : 0u;
    return r;
}

/*! Parity of row check (r, z) per codeword: bit 15 (a) and bit 31 (b) of
 *  the result are set where it fails. */
template <typename App>
LDPC_HD uint32_t
ldpc_pair_parity(const App* app, const int32_t* edges, int deg, int z, int Z)
{
    uint32_t x = 0;
    for (int i = 0; i < deg; ++i)
        x ^= app[ldpc_pair_var(edges[i], z, Z)];
    return x & 0x80008000u;
}

} // namespace kernels
} // namespace gpudsp
} // namespace gr

#endif
