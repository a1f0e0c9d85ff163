/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The code replica without gathers and without 64-bit lane arithmetic. At
// most one chip per sample, so W consecutive samples' chips lie within W
// consecutive table entries: one load from the first sample's chip and a
// lane permutation pick them (the sub-chip values likewise from the
// 16-entry subcarrier). Each lane's 64-bit phase q + k step is carried in
// two 32-bit halves (k step precomputed per call, the carry from an
// unsigned compare), so W lanes take one 32-bit vector instead of W/4
// 64-bit ones; the chip and the sub-phase are the bits gnss_chip and
// gnss_sub_phase take, so the values are the scalar path's exactly.

#include "gnss_replica_cpu.h"
#include "gnss_correlator_impl.h"
#include <immintrin.h>

namespace gr {
namespace gpudsp {
namespace kernels {

void gnss_code_replica_scalar(
    float* out, int n, uint64_t q0, uint64_t step, int F, const gnss_code_table& t)
{
    uint64_t q = q0; // the phase advances by addition: exact, and cheaper
    if (t.S == 1) {
        for (int k = 0; k < n; ++k, q += step)
            out[k] = t.chips2[gnss_chip(q, F)];
    } else {
        for (int k = 0; k < n; ++k, q += step)
            out[k] = t.chips2[gnss_chip(q, F)] * t.sub[gnss_sub_phase(q, F, t.S)];
    }
}

namespace {

// The W lane offsets k step (k < W) in 32-bit halves.
template <int W>
void lane_offsets(uint64_t step, uint32_t* lo, uint32_t* hi)
{
    for (int k = 0; k < W; ++k) {
        const uint64_t o = uint64_t(k) * step;
        lo[k] = uint32_t(o);
        hi[k] = uint32_t(o >> 32);
    }
}

} // namespace

__attribute__((target("avx2"))) void gnss_code_replica_avx2(
    float* out, int n, uint64_t q0, uint64_t step, int F, const gnss_code_table& t)
{
    alignas(32) uint32_t off_lo[8], off_hi[8];
    lane_offsets<8>(step, off_lo, off_hi);
    const __m256i olo = _mm256_load_si256(reinterpret_cast<const __m256i*>(off_lo));
    const __m256i ohi = _mm256_load_si256(reinterpret_cast<const __m256i*>(off_hi));
    const __m256i bias = _mm256_set1_epi32(int(0x80000000u)); // unsigned compare
    const __m256i olo_biased = _mm256_xor_si256(olo, bias);
    const __m128i chip_shift = _mm_cvtsi32_si128(F - 32); // of the high half
    const __m128i up = _mm_cvtsi32_si128(64 - F), down = _mm_cvtsi32_si128(F - 32);
    const __m256i S = _mm256_set1_epi64x(t.S);
    const __m256 sub_lo = _mm256_loadu_ps(t.sub), sub_hi = _mm256_loadu_ps(t.sub + 8);
    const __m256i seven = _mm256_set1_epi32(7);
    const float* chips2 = t.chips2; // (a local: stores to out could alias t)
    const bool boc = t.S > 1;
    int k = 0;
    uint64_t q = q0;
    for (; k < n; k += 8, q += 8 * step) { // whole groups (see the header)
        const __m256i lo = _mm256_add_epi32(_mm256_set1_epi32(int(uint32_t(q))), olo);
        // -1 where the low half wrapped (lo < olo, unsigned)
        const __m256i carry =
            _mm256_cmpgt_epi32(olo_biased, _mm256_xor_si256(lo, bias));
        const __m256i hi = _mm256_sub_epi32(
            _mm256_add_epi32(_mm256_set1_epi32(int(uint32_t(q >> 32))), ohi), carry);
        const uint32_t c0 = gnss_chip(q, F);
        const __m256i rel = _mm256_sub_epi32(_mm256_srl_epi32(hi, chip_shift),
                                             _mm256_set1_epi32(int(c0)));
        __m256 v = _mm256_permutevar8x32_ps(_mm256_loadu_ps(chips2 + c0), rel);
        if (boc) {
            // u: the top 32 fractional bits; j = (u S) >> 32, even lanes
            // from the 64-bit products of the low words, odd lanes of the high
            const __m256i u =
                _mm256_or_si256(_mm256_sll_epi32(hi, up), _mm256_srl_epi32(lo, down));
            const __m256i even = _mm256_srli_epi64(_mm256_mul_epu32(u, S), 32);
            const __m256i odd = _mm256_mul_epu32(_mm256_srli_epi64(u, 32), S);
            const __m256i j = _mm256_blend_epi32(even, odd, 0xAA);
            // (the permutation reads the index's low 3 bits: j - 8 for sub_hi)
            const __m256 s = _mm256_blendv_ps(
                _mm256_permutevar8x32_ps(sub_lo, j),
                _mm256_permutevar8x32_ps(sub_hi, j),
                _mm256_castsi256_ps(_mm256_cmpgt_epi32(j, seven)));
            v = _mm256_mul_ps(v, s);
        }
        _mm256_storeu_ps(out + k, v);
    }
}

__attribute__((target("avx512f,avx512bw,avx512dq,avx512vl"))) void
gnss_code_replica_avx512(
    float* out, int n, uint64_t q0, uint64_t step, int F, const gnss_code_table& t)
{
    alignas(64) uint32_t off_lo[16], off_hi[16];
    lane_offsets<16>(step, off_lo, off_hi);
    const __m512i olo = _mm512_load_si512(off_lo), ohi = _mm512_load_si512(off_hi);
    const __m128i chip_shift = _mm_cvtsi32_si128(F - 32);
    const __m128i up = _mm_cvtsi32_si128(64 - F), down = _mm_cvtsi32_si128(F - 32);
    const __m512i S = _mm512_set1_epi64(t.S);
    const __m512i one = _mm512_set1_epi32(1);
    const __m512 sub = _mm512_loadu_ps(t.sub);
    const float* chips2 = t.chips2; // (a local: stores to out could alias t)
    const bool boc = t.S > 1;
    int k = 0;
    uint64_t q = q0;
    for (; k < n; k += 16, q += 16 * step) { // whole groups (see the header)
        const __m512i lo = _mm512_add_epi32(_mm512_set1_epi32(int(uint32_t(q))), olo);
        const __mmask16 carry = _mm512_cmplt_epu32_mask(lo, olo);
        __m512i hi = _mm512_add_epi32(_mm512_set1_epi32(int(uint32_t(q >> 32))), ohi);
        hi = _mm512_mask_add_epi32(hi, carry, hi, one);
        const uint32_t c0 = gnss_chip(q, F);
        const __m512i rel = _mm512_sub_epi32(_mm512_srl_epi32(hi, chip_shift),
                                             _mm512_set1_epi32(int(c0)));
        __m512 v = _mm512_permutexvar_ps(rel, _mm512_loadu_ps(chips2 + c0));
        if (boc) {
            const __m512i u =
                _mm512_or_si512(_mm512_sll_epi32(hi, up), _mm512_srl_epi32(lo, down));
            const __m512i even = _mm512_srli_epi64(_mm512_mul_epu32(u, S), 32);
            const __m512i odd = _mm512_mul_epu32(_mm512_srli_epi64(u, 32), S);
            const __m512i j = _mm512_mask_blend_epi32(0xAAAA, even, odd);
            v = _mm512_mul_ps(v, _mm512_permutexvar_ps(j, sub));
        }
        _mm512_storeu_ps(out + k, v);
    }
}

} // namespace kernels
} // namespace gpudsp
} // namespace gr
