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
#include <immintrin.h>

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

// A tap's offset from the base phase as the lanes use it: d, added to the
// top 32 fractional bits (a wrap carries into the chip), and whole chips.
struct tap_shift {
    uint32_t d;
    uint32_t chips;
};

void tap_shifts(const uint64_t* rel, int n_taps, int F, tap_shift* s)
{
    for (int l = 0; l < n_taps; ++l)
        s[l] = { uint32_t(rel[l] >> (F - 32)), uint32_t(rel[l] >> F) };
}

template <bool boc>
__attribute__((target("avx2"))) void replicas_avx2(float* const* out, const uint64_t* rel,
                                                   int n_taps, int n, uint64_t q,
                                                   uint64_t step, int F,
                                                   const gnss_code_table& t)
{
    alignas(32) uint32_t off_lo[8], off_hi[8];
    lane_offsets<8>(step, off_lo, off_hi);
    tap_shift ts[gnss_replica_max_taps];
    tap_shifts(rel, n_taps, F, ts);
    const __m256i olo = _mm256_load_si256(reinterpret_cast<const __m256i*>(off_lo));
    const __m256i ohi = _mm256_load_si256(reinterpret_cast<const __m256i*>(off_hi));
    const __m256i bias = _mm256_set1_epi32(int(0x80000000u)); // unsigned compares
    const __m256i olo_biased = _mm256_xor_si256(olo, bias);
    const __m128i down = _mm_cvtsi32_si128(F - 32), up = _mm_cvtsi32_si128(64 - F);
    const __m256i S = _mm256_set1_epi64x(t.S);
    const __m256 sub_lo = _mm256_loadu_ps(t.sub), sub_hi = _mm256_loadu_ps(t.sub + 8);
    const __m256i seven = _mm256_set1_epi32(7);
    const float* chips2 = t.chips2; // (a local: stores to out could alias t)
    for (int k = 0; k < n; k += 8, q += 8 * step) { // whole groups (see the header)
        // the base lanes: 64-bit phase in halves, chip, top fractional bits
        const __m256i lo = _mm256_add_epi32(_mm256_set1_epi32(int(uint32_t(q))), olo);
        // -1 where the low half wrapped (lo < olo, unsigned)
        const __m256i carry =
            _mm256_cmpgt_epi32(olo_biased, _mm256_xor_si256(lo, bias));
        const __m256i hi = _mm256_sub_epi32(
            _mm256_add_epi32(_mm256_set1_epi32(int(uint32_t(q >> 32))), ohi), carry);
        const uint32_t c0 = gnss_chip(q, F);
        const __m256i chip = _mm256_sub_epi32(_mm256_srl_epi32(hi, down),
                                              _mm256_set1_epi32(int(c0)));
        const __m256i u =
            _mm256_or_si256(_mm256_sll_epi32(hi, up), _mm256_srl_epi32(lo, down));
        for (int l = 0; l < n_taps; ++l) {
            const __m256i d = _mm256_set1_epi32(int(ts[l].d));
            const __m256i ul = _mm256_add_epi32(u, d);
            // -1 where u + d wrapped (ul < d, unsigned): one chip further
            const __m256i wrap = _mm256_cmpgt_epi32(
                _mm256_xor_si256(d, bias), _mm256_xor_si256(ul, bias));
            // the tap's chips from its first sample's, lane 0's (c0 + chips
            // + its wrap): at most one a sample, so within 8 entries
            // (chip - wrap) - (first lane's carry) = chip - wrap + wrap[0]
            const __m256i idx = _mm256_add_epi32(
                _mm256_sub_epi32(chip, wrap),
                _mm256_broadcastd_epi32(_mm256_castsi256_si128(wrap)));
            const uint32_t first = uint32_t((q + rel[l]) >> F);
            __m256 v = _mm256_permutevar8x32_ps(_mm256_loadu_ps(chips2 + first), idx);
            if (boc) {
                // j = (ul S) >> 32, even lanes from the 64-bit products of
                // the low words, odd lanes of the high
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
            _mm256_storeu_ps(out[l] + k, v);
        }
    }
}

template <bool boc>
__attribute__((target("avx512f,avx512bw,avx512dq,avx512vl"))) void
replicas_avx512(float* const* out, const uint64_t* rel, int n_taps, int n, uint64_t q,
                uint64_t step, int F, const gnss_code_table& t)
{
    alignas(64) uint32_t off_lo[16], off_hi[16];
    lane_offsets<16>(step, off_lo, off_hi);
    tap_shift ts[gnss_replica_max_taps];
    tap_shifts(rel, n_taps, F, ts);
    const __m512i olo = _mm512_load_si512(off_lo), ohi = _mm512_load_si512(off_hi);
    const __m128i down = _mm_cvtsi32_si128(F - 32), up = _mm_cvtsi32_si128(64 - F);
    const __m512i S = _mm512_set1_epi64(t.S);
    const __m512i one = _mm512_set1_epi32(1);
    const __m512 sub = _mm512_loadu_ps(t.sub);
    const float* chips2 = t.chips2; // (a local: stores to out could alias t)
    for (int k = 0; k < n; k += 16, q += 16 * step) { // whole groups (see the header)
        const __m512i lo = _mm512_add_epi32(_mm512_set1_epi32(int(uint32_t(q))), olo);
        const __mmask16 carry = _mm512_cmplt_epu32_mask(lo, olo);
        __m512i hi = _mm512_add_epi32(_mm512_set1_epi32(int(uint32_t(q >> 32))), ohi);
        hi = _mm512_mask_add_epi32(hi, carry, hi, one);
        const uint32_t c0 = gnss_chip(q, F);
        const __m512i chip = _mm512_sub_epi32(_mm512_srl_epi32(hi, down),
                                              _mm512_set1_epi32(int(c0)));
        const __m512i u =
            _mm512_or_si512(_mm512_sll_epi32(hi, up), _mm512_srl_epi32(lo, down));
        for (int l = 0; l < n_taps; ++l) {
            const __m512i d = _mm512_set1_epi32(int(ts[l].d));
            const __m512i ul = _mm512_add_epi32(u, d);
            const __mmask16 wrap = _mm512_cmplt_epu32_mask(ul, d); // one chip further
            // the tap's 16 chips lie within the 32 entries from c0 + its
            // whole chips: one two-source permutation
            const __m512i idx = _mm512_mask_add_epi32(chip, wrap, chip, one);
            const float* w = chips2 + c0 + ts[l].chips;
            __m512 v = _mm512_permutex2var_ps(_mm512_loadu_ps(w), idx, _mm512_loadu_ps(w + 16));
            if (boc) {
                const __m512i even = _mm512_srli_epi64(_mm512_mul_epu32(ul, S), 32);
                const __m512i odd = _mm512_mul_epu32(_mm512_srli_epi64(ul, 32), S);
                const __m512i j = _mm512_mask_blend_epi32(0xAAAA, even, odd);
                v = _mm512_mul_ps(v, _mm512_permutexvar_ps(j, sub));
            }
            _mm512_storeu_ps(out[l] + k, v);
        }
    }
}

} // namespace

void gnss_code_replicas_avx2(float* const* out, const uint64_t* rel, int n_taps, int n,
                             uint64_t qb, uint64_t step, int F, const gnss_code_table& t)
{
    (t.S > 1 ? replicas_avx2<true> : replicas_avx2<false>)(out, rel, n_taps, n, qb, step, F, t);
}

void gnss_code_replicas_avx512(float* const* out, const uint64_t* rel, int n_taps, int n,
                               uint64_t qb, uint64_t step, int F, const gnss_code_table& t)
{
    (t.S > 1 ? replicas_avx512<true> : replicas_avx512<false>)(
        out, rel, n_taps, n, qb, step, F, t);
}

} // namespace kernels
} // namespace gpudsp
} // namespace gr
