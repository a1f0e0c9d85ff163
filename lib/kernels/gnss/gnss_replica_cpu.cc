/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The code replicas without gathers and without 64-bit lane arithmetic.
// Each lane's 64-bit base phase qb + k step is carried in two 32-bit halves
// (k step precomputed per call, the carry from an unsigned compare) and
// read as its chip and its top 32 fractional bits u, once per group for all
// taps: a tap's offset lies on the 2^-32 chip grid, so the tap's u is u plus
// a constant (a wrap carries one chip) and its chip the base's plus whole
// chips. At most one chip per sample, so a tap's W chips lie within W
// consecutive table entries from its first sample's: one load and one lane
// permutation pick them (the sub-chip values likewise from the 16-entry
// subcarrier). The chip and the sub-phase are the bits gnss_chip and
// gnss_sub_phase take, so the values are the scalar path's exactly.

#include "gnss_replica_cpu.h"
#include "gnss_correlator_impl.h"
#include <array>
#include <immintrin.h>
#include <utility>

namespace gr {
namespace gpudsp {
namespace kernels {

void gnss_code_replicas_scalar(float* const* out, const uint64_t* rel, int n_taps, int n,
                               uint64_t qb, uint64_t step, int F, const gnss_code_table& t)
{
    for (int l = 0; l < n_taps; ++l) {
        float* o = out[l];
        uint64_t q = qb + rel[l]; // the phase advances by addition: exact, and cheaper
        if (t.S == 1) {
            for (int k = 0; k < n; ++k, q += step)
                o[k] = t.chips2[gnss_chip(q, F)];
        } else {
            for (int k = 0; k < n; ++k, q += step)
                o[k] = t.chips2[gnss_chip(q, F)] * t.sub[gnss_sub_phase(q, F, t.S)];
        }
    }
}

namespace {

// The W lanes' offsets from the group's first sample, s step for the
// sample s each holds (gnss_lane_sample), in 32-bit halves.
template <int W>
void lane_offsets(uint64_t step, uint32_t* lo, uint32_t* hi)
{
    for (int k = 0; k < W; ++k) {
        const uint64_t o = uint64_t(gnss_lane_sample(W, k)) * step;
        lo[k] = uint32_t(o);
        hi[k] = uint32_t(o >> 32);
    }
}

// A tap as the lanes use it: its offset from the base phase as d, added to
// the top 32 fractional bits u, whose sum wraps (carries one chip) where u >
// wrap_above = 2^32 - 1 - d (never for d = 0), each in W lanes so that a
// vector instruction takes it from memory; its whole chips; and where its
// replica goes. (Held locally: stores to out could alias the caller's
// arrays, which would then be read again for every group.)
template <int W>
struct alignas(4 * W) tap_shift {
    uint32_t d[W];
    uint32_t wrap_above[W]; // (AVX2 compares signed: biased by 2^31)
    uint64_t rel;
    float* out;
    uint32_t chips;
};

template <int W>
void tap_shifts(float* const* out,
                const uint64_t* rel,
                int n_taps,
                int F,
                uint32_t bias,
                tap_shift<W>* s)
{
    for (int l = 0; l < n_taps; ++l) {
        const uint32_t d = uint32_t(rel[l] >> (F - 32));
        for (int k = 0; k < W; ++k) {
            s[l].d[k] = d;
            s[l].wrap_above[k] = (~uint32_t(0) - d) ^ bias;
        }
        s[l].rel = rel[l];
        s[l].out = out[l];
        s[l].chips = uint32_t(rel[l] >> F);
    }
}

// NT > 0: exactly NT taps, the tap loop unrolled (its overhead is a fifth of
// a BPSK tap's instructions); 0: n_taps.
template <bool boc, int NT>
__attribute__((target("avx2"))) void replicas_avx2(float* const* out, const uint64_t* rel,
                                                   int n_taps, int n, uint64_t q,
                                                   uint64_t step, int F,
                                                   const gnss_code_table& t)
{
    if (NT)
        n_taps = NT;
    alignas(32) uint32_t off_lo[8], off_hi[8];
    lane_offsets<8>(step, off_lo, off_hi);
    tap_shift<8> ts[gnss_replica_max_taps];
    tap_shifts(out, rel, n_taps, F, 0x80000000u, ts);
    const __m256i bias = _mm256_set1_epi32(int(0x80000000u)); // unsigned compares
    // the lanes' phases q + (their sample) step, advanced by 8 step a group:
    // 64-bit sums in 32-bit halves, the carry from an unsigned compare
    const __m256i olo = _mm256_load_si256(reinterpret_cast<const __m256i*>(off_lo));
    const __m256i ohi = _mm256_load_si256(reinterpret_cast<const __m256i*>(off_hi));
    const __m256i add_lo = _mm256_set1_epi32(int(uint32_t(8 * step)));
    const __m256i add_hi = _mm256_set1_epi32(int(uint32_t((8 * step) >> 32)));
    const __m256i add_lo_biased = _mm256_xor_si256(add_lo, bias);
    __m256i lo = _mm256_add_epi32(_mm256_set1_epi32(int(uint32_t(q))), olo);
    __m256i hi = _mm256_sub_epi32( // (-1 where lo < olo: the low half wrapped)
        _mm256_add_epi32(_mm256_set1_epi32(int(uint32_t(q >> 32))), ohi),
        _mm256_cmpgt_epi32(_mm256_xor_si256(olo, bias), _mm256_xor_si256(lo, bias)));
    const __m128i down = _mm_cvtsi32_si128(F - 32), up = _mm_cvtsi32_si128(64 - F);
    const __m256i S = _mm256_set1_epi64x(t.S);
    const __m256 sub_lo = _mm256_loadu_ps(t.sub), sub_hi = _mm256_loadu_ps(t.sub + 8);
    const __m256i seven = _mm256_set1_epi32(7);
    const float* chips2 = t.chips2; // (a local: stores to out could alias t)
    for (int k = 0; k < n; k += 8, q += 8 * step) { // whole groups (see the header)
        // the base lanes' chips from lane 0's (sample 0's), top fractional bits
        const __m256i whole = _mm256_srl_epi32(hi, down);
        const __m256i chip = _mm256_sub_epi32(
            whole, _mm256_broadcastd_epi32(_mm256_castsi256_si128(whole)));
        const __m256i u =
            _mm256_or_si256(_mm256_sll_epi32(hi, up), _mm256_srl_epi32(lo, down));
        const __m256i u_biased = _mm256_xor_si256(u, bias);
        for (int l = 0; l < n_taps; ++l) {
            // -1 where u + d wraps: one chip further
            const __m256i wrap = _mm256_cmpgt_epi32(
                u_biased, _mm256_load_si256(reinterpret_cast<const __m256i*>(ts[l].wrap_above)));
            // the tap's chips from its first sample's, lane 0's (c0 + chips
            // + its wrap): at most one a sample, so within 8 entries
            // (chip - wrap) - (first lane's carry) = chip - wrap + wrap[0]
            const __m256i idx = _mm256_add_epi32(
                _mm256_sub_epi32(chip, wrap),
                _mm256_broadcastd_epi32(_mm256_castsi256_si128(wrap)));
            const uint64_t first = (q + ts[l].rel) >> F;
            __m256 v = _mm256_permutevar8x32_ps(_mm256_loadu_ps(chips2 + first), idx);
            if (boc) {
                // j = (ul S) >> 32 of the tap's top bits ul, even lanes from
                // the 64-bit products of the low words, odd lanes of the high
                const __m256i ul = _mm256_add_epi32(
                    u, _mm256_load_si256(reinterpret_cast<const __m256i*>(ts[l].d)));
                const __m256i even = _mm256_srli_epi64(_mm256_mul_epu32(ul, S), 32);
                const __m256i odd = _mm256_mul_epu32(_mm256_srli_epi64(ul, 32), S);
                const __m256i j = _mm256_blend_epi32(even, odd, 0xAA);
                // (the permutation reads the index's low 3 bits: j - 8 for sub_hi)
                const __m256 s = _mm256_blendv_ps(
                    _mm256_permutevar8x32_ps(sub_lo, j),
                    _mm256_permutevar8x32_ps(sub_hi, j),
                    _mm256_castsi256_ps(_mm256_cmpgt_epi32(j, seven)));
                v = _mm256_mul_ps(v, s);
            }
            _mm256_storeu_ps(ts[l].out + k, v);
        }
        lo = _mm256_add_epi32(lo, add_lo);
        hi = _mm256_sub_epi32(
            _mm256_add_epi32(hi, add_hi),
            _mm256_cmpgt_epi32(add_lo_biased, _mm256_xor_si256(lo, bias)));
    }
}

template <bool boc, int NT> // (as replicas_avx2)
__attribute__((target("avx512f,avx512bw,avx512dq,avx512vl"))) void
replicas_avx512(float* const* out, const uint64_t* rel, int n_taps, int n, uint64_t q,
                uint64_t step, int F, const gnss_code_table& t)
{
    if (NT)
        n_taps = NT;
    alignas(64) uint32_t off_lo[16], off_hi[16];
    lane_offsets<16>(step, off_lo, off_hi);
    tap_shift<16> ts[gnss_replica_max_taps];
    tap_shifts(out, rel, n_taps, F, 0, ts);
    const __m512i one = _mm512_set1_epi32(1);
    // the lanes' phases, advanced by 16 step a group (as in replicas_avx2)
    const __m512i olo = _mm512_load_si512(off_lo), ohi = _mm512_load_si512(off_hi);
    const __m512i add_lo = _mm512_set1_epi32(int(uint32_t(16 * step)));
    const __m512i add_hi = _mm512_set1_epi32(int(uint32_t((16 * step) >> 32)));
    __m512i lo = _mm512_add_epi32(_mm512_set1_epi32(int(uint32_t(q))), olo);
    __m512i hi = _mm512_add_epi32(_mm512_set1_epi32(int(uint32_t(q >> 32))), ohi);
    hi = _mm512_mask_add_epi32(hi, _mm512_cmplt_epu32_mask(lo, olo), hi, one);
    const __m128i down = _mm_cvtsi32_si128(F - 32), up = _mm_cvtsi32_si128(64 - F);
    const __m512i S = _mm512_set1_epi64(t.S);
    const __m512 sub = _mm512_loadu_ps(t.sub);
    const float* chips2 = t.chips2; // (a local: stores to out could alias t)
    for (int k = 0; k < n; k += 16, q += 16 * step) { // whole groups (see the header)
        const uint32_t c0 = gnss_chip(q, F);
        const __m512i chip = _mm512_sub_epi32(_mm512_srl_epi32(hi, down),
                                              _mm512_set1_epi32(int(c0)));
        const __m512i u =
            _mm512_or_si512(_mm512_sll_epi32(hi, up), _mm512_srl_epi32(lo, down));
        for (int l = 0; l < n_taps; ++l) {
            const __mmask16 wrap = _mm512_cmpgt_epu32_mask( // one chip further
                u, _mm512_load_si512(ts[l].wrap_above));
            // the tap's 16 chips lie within the 32 entries from c0 + its
            // whole chips: one two-source permutation
            const __m512i idx = _mm512_mask_add_epi32(chip, wrap, chip, one);
            const float* w = chips2 + c0 + ts[l].chips;
            __m512 v = _mm512_permutex2var_ps(_mm512_loadu_ps(w), idx, _mm512_loadu_ps(w + 16));
            if (boc) {
                const __m512i ul = _mm512_add_epi32(u, _mm512_load_si512(ts[l].d));
                const __m512i even = _mm512_srli_epi64(_mm512_mul_epu32(ul, S), 32);
                const __m512i odd = _mm512_mul_epu32(_mm512_srli_epi64(ul, 32), S);
                const __m512i j = _mm512_mask_blend_epi32(0xAAAA, even, odd);
                v = _mm512_mul_ps(v, _mm512_permutexvar_ps(j, sub));
            }
            _mm512_storeu_ps(ts[l].out + k, v);
        }
        lo = _mm512_add_epi32(lo, add_lo);
        hi = _mm512_add_epi32(hi, add_hi);
        hi = _mm512_mask_add_epi32(hi, _mm512_cmplt_epu32_mask(lo, add_lo), hi, one);
    }
}

// The variants for 0 (any), 1, .., 8 taps, BPSK and BOC.
constexpr int unrolled = 8;
template <template <bool, int> class V, bool boc, std::size_t... N>
constexpr std::array<gnss_replicas_fn, sizeof...(N)> variants(std::index_sequence<N...>)
{
    return { V<boc, int(N)>::run... };
}
template <template <bool, int> class V>
gnss_replicas_fn choose(int n_taps, int S)
{
    static constexpr auto bpsk = variants<V, false>(std::make_index_sequence<unrolled + 1>{});
    static constexpr auto boc = variants<V, true>(std::make_index_sequence<unrolled + 1>{});
    const int k = n_taps <= unrolled ? n_taps : 0;
    return S > 1 ? boc[k] : bpsk[k];
}
template <bool boc, int NT>
struct avx2 {
    static constexpr gnss_replicas_fn run = replicas_avx2<boc, NT>;
};
template <bool boc, int NT>
struct avx512 {
    static constexpr gnss_replicas_fn run = replicas_avx512<boc, NT>;
};

} // namespace

void gnss_code_replicas_avx2(float* const* out, const uint64_t* rel, int n_taps, int n,
                             uint64_t qb, uint64_t step, int F, const gnss_code_table& t)
{
    choose<avx2>(n_taps, t.S)(out, rel, n_taps, n, qb, step, F, t);
}

void gnss_code_replicas_avx512(float* const* out, const uint64_t* rel, int n_taps, int n,
                               uint64_t qb, uint64_t step, int F, const gnss_code_table& t)
{
    choose<avx512>(n_taps, t.S)(out, rel, n_taps, n, qb, step, F, t);
}

} // namespace kernels
} // namespace gpudsp
} // namespace gr
