/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The GNSS correlator on the CPU, fused in one pass over blocks of 128
// samples: per block the carrier is one exact rotation (from the 64-bit
// phase) times a per-job table of in-block rotations, so nothing drifts;
// each tap's code replica is generated once for all antennas from the
// fixed-point code phase; then every antenna is wiped off once and
// correlated with every tap. The loops are written for the compiler's
// vectoriser (AVX2 clones), with eight-lane partial sums promoted to
// float64 per block.

#include "gnss_correlator_impl.h"
#include <gnuradio/gpudsp/runtime/cpu_simd.h>
#include <immintrin.h>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <thread>

namespace gr {
namespace gpudsp {
namespace kernels {

namespace {

constexpr int block = 128; // samples; block * code_step < one code period
constexpr int lanes = 8;

// q0 < L 2^F and n * step < L 2^F, so q < 2 L 2^F: chips2 holds the
// code twice and needs no wrap. S = 1 (BPSK) or the sub-phases per chip.
void code_replica_scalar(float* __restrict__ out,
                         int n,
                         uint64_t q0,
                         uint64_t step,
                         int F,
                         const float* __restrict__ chips2,
                         const float* __restrict__ sub,
                         int S)
{
    uint64_t q = q0; // the phase advances by addition: exact, and cheaper
    if (S == 1) {
        for (int k = 0; k < n; ++k, q += step)
            out[k] = chips2[gnss_chip(q, F)];
    } else {
        for (int k = 0; k < n; ++k, q += step)
            out[k] = chips2[gnss_chip(q, F)] * sub[gnss_sub_phase(q, F, S)];
    }
}

// The same 8 samples at a time without gathers (AVX2 gathers were no
// faster on the AMD EPYC dev machine): at most one chip per
// sample, so 8 samples' chips lie within 8 consecutive table entries: one
// load from the first sample's chip and a lane permutation pick them (the
// sub-chip values likewise from the 12-entry subcarrier, in two halves).
// The integer arithmetic is the scalar path's, so the values are identical.
__attribute__((target("avx2"))) void code_replica_avx2(float* out,
                                                       int n,
                                                       uint64_t q0,
                                                       uint64_t step,
                                                       int F,
                                                       const float* chips2,
                                                       const float* sub16,
                                                       int S)
{
    const __m128i chip_shift = _mm_cvtsi32_si128(F);     // gnss_chip
    const __m128i frac_shift = _mm_cvtsi32_si128(F - 32); // gnss_sub_phase
    const __m256i lanes_lo = _mm256_setr_epi64x(0, 1, 2, 3);
    const __m256i even_lo = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
    const __m256i even_hi = _mm256_setr_epi32(1, 3, 5, 7, 0, 2, 4, 6);
    const __m256i step4 = _mm256_set1_epi64x(int64_t(4 * step));
    const __m256i s12 = _mm256_set1_epi64x(S);
    const __m256i eight = _mm256_set1_epi32(8);
    // 64-bit lane products: step * [0..3] (step < 2^63 / L, lanes 2 bits)
    const __m256i offs =
        _mm256_mul_epu32(lanes_lo, _mm256_set1_epi64x(int64_t(step & 0xffffffffu)));
    const __m256i offs_hi = _mm256_slli_epi64(
        _mm256_mul_epu32(lanes_lo, _mm256_set1_epi64x(int64_t(step >> 32))), 32);
    const __m256i lane_step = _mm256_add_epi64(offs, offs_hi);
    const __m256 sub_lo = _mm256_loadu_ps(sub16), sub_hi = _mm256_loadu_ps(sub16 + 8);
    int k = 0;
    uint64_t q = q0;
    for (; k + 8 <= n; k += 8, q += 8 * step) {
        const __m256i qa = _mm256_add_epi64(_mm256_set1_epi64x(int64_t(q)), lane_step);
        const __m256i qb = _mm256_add_epi64(qa, step4);
        // chip indices of the 8 samples, relative to the first one's
        const __m256i ia =
            _mm256_permutevar8x32_epi32(_mm256_srl_epi64(qa, chip_shift), even_lo);
        const __m256i ib =
            _mm256_permutevar8x32_epi32(_mm256_srl_epi64(qb, chip_shift), even_hi);
        const uint64_t c0 = gnss_chip(q, F);
        const __m256i rel = _mm256_sub_epi32(_mm256_blend_epi32(ia, ib, 0xF0),
                                             _mm256_set1_epi32(int(c0)));
        __m256 v = _mm256_permutevar8x32_ps(_mm256_loadu_ps(chips2 + c0), rel);
        if (S > 1) {
            // The top 32 fractional bits times S (mul_epu32 reads the low
            // 32 bits of each lane), as gnss_sub_phase.
            const __m256i ja = _mm256_permutevar8x32_epi32(
                _mm256_srli_epi64(_mm256_mul_epu32(_mm256_srl_epi64(qa, frac_shift), s12), 32),
                even_lo);
            const __m256i jb = _mm256_permutevar8x32_epi32(
                _mm256_srli_epi64(_mm256_mul_epu32(_mm256_srl_epi64(qb, frac_shift), s12), 32),
                even_hi);
            const __m256i j = _mm256_blend_epi32(ja, jb, 0xF0);
            const __m256 lo = _mm256_permutevar8x32_ps(sub_lo, j);
            const __m256 hi =
                _mm256_permutevar8x32_ps(sub_hi, _mm256_sub_epi32(j, eight));
            const __m256 high =
                _mm256_castsi256_ps(_mm256_cmpgt_epi32(j, _mm256_set1_epi32(7)));
            v = _mm256_mul_ps(v, _mm256_blendv_ps(lo, hi, high));
        }
        _mm256_storeu_ps(out + k, v);
    }
    code_replica_scalar(out + k, n - k, q, step, F, chips2, sub16, S);
}

void code_replica(float* __restrict__ out,
                  int n,
                  uint64_t q0,
                  uint64_t step,
                  int F,
                  const float* __restrict__ chips2,
                  const float* __restrict__ sub16,
                  int S)
{
    static const bool avx2 = runtime::cpu_use_avx2();
    if (avx2)
        code_replica_avx2(out, n, q0, step, F, chips2, sub16, S);
    else
        code_replica_scalar(out, n, q0, step, F, chips2, sub16, S);
}

// w = x * carrier for n samples of interleaved I/Q (float or int16).
template <typename S>
__attribute__((target_clones("avx2", "default"))) void
wipe(const S* x, const float* cr, const float* ci, float* wr, float* wi, int n)
{
    for (int k = 0; k < n; ++k) {
        const float a = x[2 * k], b = x[2 * k + 1];
        wr[k] = a * cr[k] - b * ci[k];
        wi[k] = a * ci[k] + b * cr[k];
    }
}

// sum_k w[k] v[k] for n a multiple of 2 lanes, in eight-float vectors
// (GCC vector extensions, so each clone uses its own registers) with two
// independent chains per part, so the loop is bound by loads, not latency.
typedef float v8f __attribute__((vector_size(32)));

__attribute__((target_clones("avx2", "default"))) void
dot2(const float* wr, const float* wi, const float* v, int n, double* re, double* im)
{
    v8f r0 = {}, r1 = {}, i0 = {}, i1 = {};
    for (int k = 0; k < n; k += 2 * lanes) {
        v8f a0, a1, b0, b1, c0, c1;
        std::memcpy(&a0, wr + k, sizeof a0);
        std::memcpy(&a1, wr + k + lanes, sizeof a1);
        std::memcpy(&b0, wi + k, sizeof b0);
        std::memcpy(&b1, wi + k + lanes, sizeof b1);
        std::memcpy(&c0, v + k, sizeof c0);
        std::memcpy(&c1, v + k + lanes, sizeof c1);
        r0 += a0 * c0;
        r1 += a1 * c1;
        i0 += b0 * c0;
        i1 += b1 * c1;
    }
    const v8f r = r0 + r1, i = i0 + i1;
    double sr = 0, si = 0;
    for (int j = 0; j < lanes; ++j) {
        sr += r[j];
        si += i[j];
    }
    *re += sr;
    *im += si;
}

class gnss_correlator_cpu : public gnss_correlator_plan::impl
{
public:
    gnss_correlator_cpu(int n_antennas,
                        const std::vector<int64_t>& taps,
                        gnss_input input)
        : d_m(n_antennas), d_l(taps.size() / gnss_n_systems), d_taps(taps), d_input(input)
    {
        set_threads(1);
    }

    void set_threads(int n) override { d_scratch.resize(std::size_t(n)); }

    // Job j goes to worker j mod T: each job is summed by one thread in the
    // same order whatever T, so the results do not depend on it.
    void execute(const std::vector<const void*>& antennas,
                 const std::vector<gnss_fixed_job>& jobs,
                 std::complex<float>* out,
                 runtime::stream_handle) override
    {
        for (const auto& j : jobs)
            prepare_table(j.system); // before the workers start
        const std::size_t T = std::min(d_scratch.size(), jobs.size());
        auto run = [&](std::size_t w) {
            for (std::size_t j = w; j < jobs.size(); j += T)
                correlate_job(antennas, jobs[j], out, j, d_scratch[w]);
        };
        if (T <= 1) {
            if (!jobs.empty())
                run(0);
            return;
        }
        std::vector<std::thread> helpers;
        for (std::size_t w = 1; w < T; ++w)
            helpers.emplace_back(run, w);
        run(0);
        for (auto& h : helpers)
            h.join();
    }

private:
    // One thread's working memory.
    struct scratch {
        std::vector<float> code; // [tap][block]
        std::vector<uint64_t> tap_offset;
        std::vector<double> acc;
    };

    void correlate_job(const std::vector<const void*>& antennas,
                       const gnss_fixed_job& job,
                       std::complex<float>* out,
                       std::size_t j,
                       scratch& s)
    {
        const std::size_t L = d_l;
        s.acc.assign(2 * d_m * L, 0.0);
        s.code.resize(L * block);
        correlate(antennas, job, s);
        for (std::size_t r = 0; r < d_m * L; ++r)
            out[j * d_m * L + r] =
                std::complex<float>(float(s.acc[2 * r]), float(s.acc[2 * r + 1]));
    }

    // A system's table, made when a job first needs it (the L5 and E5a
    // tables are 4-5 MB each as float).
    void prepare_table(int system)
    {
        auto& t = d_tables[system];
        if (t.length)
            return;
        const auto sys = gnss_system(system);
        const auto& spec = gnss_signal(sys);
        const auto& codes = gnss_codes(sys);
        // (+8: the AVX2 replica loads 8 entries from any chip)
        t.chips2.resize(std::size_t(spec.n_prns) * 2 * spec.code_length + 8);
        for (int p = 0; p < spec.n_prns; ++p)
            for (int c = 0; c < 2 * spec.code_length; ++c)
                t.chips2[std::size_t(p) * 2 * spec.code_length + c] =
                    codes[std::size_t(p) * spec.code_length + c % spec.code_length];
        t.sub_phases = spec.sub_phases;
        for (int j = 0; j < spec.sub_phases; ++j)
            t.sub[j] = float(gnss_subcarrier(sys, j));
        t.length = spec.code_length;
    }

    struct table {
        int length = 0; // 0 until prepared
        int sub_phases = 1;
        std::vector<float> chips2; // per PRN: the code twice
        float sub[16] = {};        // 12 used; padded for the AVX2 lane permutation
    };

    void correlate(const std::vector<const void*>& antennas,
                   const gnss_fixed_job& job,
                   scratch& s)
    {
        double* acc = s.acc.data();
        const auto& t = d_tables[job.system];
        const float* chips2 = t.chips2.data() + std::size_t(job.prn - 1) * 2 * t.length;
        const std::size_t L = d_l;
        const int64_t* taps = d_taps.data() + std::size_t(job.system) * L;
        // The in-block carrier rotations exp(-2j pi step k), from float64.
        alignas(32) float rot_r[block], rot_i[block];
        // (One float64 rotation per sample from the exact step: after 128
        // products the error is ~1e-14, far below float.)
        const double step_cyc = double(int64_t(job.carrier_step)) * 0x1p-64;
        const std::complex<double> per_sample = std::polar(1.0, -2 * M_PI * step_cyc);
        std::complex<double> r = 1.0;
        for (int k = 0; k < block; ++k) {
            rot_r[k] = float(r.real());
            rot_i[k] = float(r.imag());
            r *= per_sample;
        }
        auto& tap_offset = s.tap_offset;
        tap_offset.resize(L);
        for (std::size_t l = 0; l < L; ++l)
            tap_offset[l] = taps[l] < 0 ? job.code_modulus - uint64_t(-taps[l])
                                        : uint64_t(taps[l]);
        const uint64_t block_advance =
            (uint64_t(block) * job.code_step) % job.code_modulus;
        alignas(32) float cr[block], ci[block], wr[block], wi[block];
        uint64_t q = job.code_phase; // code phase at the block's first sample
        for (int64_t i0 = 0; i0 < job.length; i0 += block) {
            const int n = int(std::min<int64_t>(block, job.length - i0));
            const int padded = (n + 2 * lanes - 1) / (2 * lanes) * (2 * lanes);
            const uint64_t ph = job.carrier_phase + job.carrier_step * uint64_t(i0);
            const double a = -2 * M_PI * double(int64_t(ph)) * 0x1p-64;
            const float br = float(std::cos(a)), bi = float(std::sin(a));
            for (int k = 0; k < n; ++k) {
                cr[k] = br * rot_r[k] - bi * rot_i[k];
                ci[k] = br * rot_i[k] + bi * rot_r[k];
            }
            for (std::size_t l = 0; l < L; ++l) {
                uint64_t q0 = q + tap_offset[l];
                if (q0 >= job.code_modulus)
                    q0 -= job.code_modulus;
                float* v = s.code.data() + l * block;
                code_replica(
                    v, n, q0, job.code_step, job.code_frac_bits, chips2, t.sub, t.sub_phases);
                std::fill(v + n, v + padded, 0.0f);
            }
            for (int m = 0; m < d_m; ++m) {
                const int64_t first = job.start + i0;
                if (d_input == gnss_input::complex64)
                    wipe(static_cast<const float*>(antennas[m]) + 2 * first,
                         cr,
                         ci,
                         wr,
                         wi,
                         n);
                else
                    wipe(static_cast<const int16_t*>(antennas[m]) + 2 * first,
                         cr,
                         ci,
                         wr,
                         wi,
                         n);
                std::fill(wr + n, wr + padded, 0.0f);
                std::fill(wi + n, wi + padded, 0.0f);
                for (std::size_t l = 0; l < L; ++l)
                    dot2(wr,
                         wi,
                         s.code.data() + l * block,
                         padded,
                         &acc[2 * (m * L + l)],
                         &acc[2 * (m * L + l) + 1]);
            }
            q += block_advance;
            if (q >= job.code_modulus)
                q -= job.code_modulus;
        }
    }

    int d_m;
    std::size_t d_l;             // taps per job
    std::vector<int64_t> d_taps; // [system][tap]
    gnss_input d_input;
    table d_tables[gnss_n_systems];
    std::vector<scratch> d_scratch; // one per thread
};

} // namespace

std::unique_ptr<gnss_correlator_plan::impl> make_gnss_correlator_cpu(
    int n_antennas, const std::vector<int64_t>& taps, gnss_input input)
{
    return std::make_unique<gnss_correlator_cpu>(n_antennas, taps, input);
}

} // namespace kernels
} // namespace gpudsp
} // namespace gr
