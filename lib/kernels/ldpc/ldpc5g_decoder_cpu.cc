/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The LDPC decoder on the CPU, the reference of the CUDA kernel (bit-exact
// in fixed point: the same formulas, ldpc5g_impl.h, evaluated here on whole
// rows). Codewords one after another; a base-graph row's Z checks are
// processed together in structure-of-arrays form (minima, edge of the
// minimum, signs, parity per z), so every inner loop runs over z without
// branches and the compiler vectorises it (AVX2 clones): int16 lanes in
// fixed point, float lanes in float mode. A circulant's rotation is two
// contiguous runs.

#include "ldpc5g_impl.h"
#include <gnuradio/gpudsp/runtime/cpu_simd.h>
#include <immintrin.h>
#include <algorithm>
#include <cmath>
#include <limits>

namespace gr {
namespace gpudsp {
namespace kernels {

namespace {

// Storage and lane type: int16 (fixed point; every intermediate fits, see
// ldpc5g_impl.h's limits) or float.
template <typename T>
struct arith;
template <>
struct arith<int16_t> {
    static constexpr int16_t big = 32767;
    static int16_t quantise(float llr, float scale)
    {
        // Round half to even (as the GPU's __float2int_rn) by the 1.5 x 2^23
        // trick, after clamping into the range where it is exact; then to
        // the message range.
        const float v = std::clamp(ldpc_llr_in(llr) * scale, -256.f, 256.f);
        const float r = (v + 12582912.f) - 12582912.f;
        return int16_t(std::clamp(int(r), -ldpc_msg_max, ldpc_msg_max));
    }
    static int16_t certain() { return ldpc_app_max; }
    static int16_t clamp_app(int v)
    {
        return int16_t(std::clamp(v, -ldpc_app_max, ldpc_app_max));
    }
    static int16_t magnitude(int16_t t)
    {
        // |t| <= 16510 (ldpc5g_impl.h's limits): no overflow in int16.
        const int16_t a = t < 0 ? int16_t(-t) : t;
        return a < int16_t(ldpc_msg_max) ? a : int16_t(ldpc_msg_max);
    }
    static int16_t scale(int16_t m, const ldpc_norm& n) { return int16_t(ldpc_scale(int32_t(m), n)); }
};
template <>
struct arith<float> {
    static constexpr float big = std::numeric_limits<float>::max();
    static float quantise(float llr, float) { return ldpc_llr_in(llr); }
    static float certain() { return ldpc_float_certain; }
    static float clamp_app(float v) { return v; }
    static float magnitude(float t) { return t < 0 ? -t : t; }
    static float scale(float m, const ldpc_norm& n)
    {
        const float v = m - n.offset;
        return v > 0.f ? n.scaling * v : 0.f;
    }
};

// Lanes of the same width as T for the edge index and signs, so the
// selects vectorise.
template <typename T>
using mask_t =
    typename std::conditional<std::is_same<T, float>::value, int32_t, int16_t>::type;

// One row's compressed messages for all z (structure of arrays).
template <typename T>
struct row_messages {
    std::vector<T> m1, m2;                    // scaled minima
    std::vector<mask_t<T>> idx, parity;       // edge of m1; XOR of the signs
    std::vector<std::vector<mask_t<T>>> sign; // per edge: v2c < 0
};

// c2v of edge i into out[z]. (Every value is loaded unconditionally and
// selected, and nothing aliases: the loop vectorises.)
template <typename T>
__attribute__((target_clones("avx2", "default"))) void
message_lanes(const T* __restrict__ m1,
              const T* __restrict__ m2,
              const mask_t<T>* __restrict__ idx,
              const mask_t<T>* __restrict__ par,
              const mask_t<T>* __restrict__ sg,
              mask_t<T> edge,
              int Z,
              T* __restrict__ out)
{
    for (int z = 0; z < Z; ++z) {
        const T a = m1[z], b = m2[z];
        const T v = idx[z] == edge ? b : a;
        const T nv = T(-v);
        out[z] = (sg[z] ^ par[z]) ? nv : v;
    }
}

template <typename T>
void message(const row_messages<T>& m, int i, int Z, T* out)
{
    message_lanes(m.m1.data(),
                  m.m2.data(),
                  m.idx.data(),
                  m.parity.data(),
                  m.sign[i].data(),
                  mask_t<T>(i),
                  Z,
                  out);
}

template <typename T>
__attribute__((target_clones("avx2", "default"))) void
scale_minima(T* __restrict__ m1, T* __restrict__ m2, int Z, ldpc_norm n)
{
    for (int z = 0; z < Z; ++z) {
        m1[z] = arith<T>::scale(m1[z], n);
        m2[z] = arith<T>::scale(m2[z], n);
    }
}

// One pass over z for edge `edge` of a row: the old message (from the old
// state) is taken off the rotated a-posteriori values, giving the
// variable-to-check values t, which update the running minima, edge of the
// minimum, signs and parity. Called per contiguous run of the rotation.
template <typename T>
__attribute__((target_clones("avx2", "default"))) void
edge_in(const T* __restrict__ app,
        const T* __restrict__ m1o,
        const T* __restrict__ m2o,
        const mask_t<T>* __restrict__ idxo,
        const mask_t<T>* __restrict__ paro,
        const mask_t<T>* sg_in, // may be sg_out (layered): read before written
        mask_t<T>* sg_out,
        mask_t<T> edge,
        int n,
        T* __restrict__ t,
        T* __restrict__ m1,
        T* __restrict__ m2,
        mask_t<T>* __restrict__ idx,
        mask_t<T>* __restrict__ par)
{
    for (int z = 0; z < n; ++z) {
        const T a1 = m1o[z], a2 = m2o[z];
        const T v = idxo[z] == edge ? a2 : a1;
        const T c = (sg_in[z] ^ paro[z]) ? T(-v) : v;
        const T tv = T(app[z] - c);
        t[z] = tv;
        const T a = arith<T>::magnitude(tv);
        const T p1 = m1[z], p2 = m2[z];
        const bool lower = a < p1;
        const T other = a < p2 ? a : p2;
        m2[z] = lower ? p1 : other;
        m1[z] = lower ? a : p1;
        const mask_t<T> old = idx[z];
        idx[z] = lower ? edge : old;
        const mask_t<T> neg = tv < T(0) ? mask_t<T>(1) : mask_t<T>(0);
        sg_out[z] = neg;
        par[z] ^= neg;
    }
}

// The new message of edge `edge` added to t, written back to the rotated
// a-posteriori values (layered schedule).
template <typename T>
__attribute__((target_clones("avx2", "default"))) void
edge_out(T* __restrict__ app,
         const T* __restrict__ t,
         const T* __restrict__ m1,
         const T* __restrict__ m2,
         const mask_t<T>* __restrict__ idx,
         const mask_t<T>* __restrict__ par,
         const mask_t<T>* __restrict__ sg,
         mask_t<T> edge,
         int n)
{
    for (int z = 0; z < n; ++z) {
        const T a1 = m1[z], a2 = m2[z];
        const T v = idx[z] == edge ? a2 : a1;
        const T c = (sg[z] ^ par[z]) ? T(-v) : v;
        app[z] = arith<T>::clamp_app(t[z] + c);
    }
}

// par[z] ^= (col[z] < 0): one run of a row's parity checks.
template <typename T>
__attribute__((target_clones("avx2", "default"))) void
parity_run(const T* __restrict__ col, int n, mask_t<T>* __restrict__ par)
{
    for (int z = 0; z < n; ++z)
        par[z] ^= col[z] < T(0) ? mask_t<T>(1) : mask_t<T>(0);
}

template <typename M>
__attribute__((target_clones("avx2", "default"))) bool any_set(const M* __restrict__ v,
                                                               int n)
{
    M acc = 0;
    for (int z = 0; z < n; ++z)
        acc |= v[z];
    return acc != 0;
}

// q[e] = quantised sign * llr[e], all E at once.
__attribute__((target_clones("avx2", "default"))) void quantise_all(
    const float* __restrict__ llr, int n, float sign, float, float* __restrict__ q)
{
    for (int e = 0; e < n; ++e)
        q[e] = sign * ldpc_llr_in(llr[e]);
}

// GCC leaves the float -> int16 loop scalar; the AVX2 path is written out:
// round half to even of sign * llr * scale, clamped to the message range.
__attribute__((target("avx2"))) void
quantise_avx2(const float* llr, int n, float sign, float scale, int16_t* q)
{
    const __m256 f = _mm256_set1_ps(sign * scale);
    const __m256 lim = _mm256_set1_ps(float(ldpc_msg_max));
    const __m256 nlim = _mm256_set1_ps(-float(ldpc_msg_max));
    const __m256 certain = _mm256_set1_ps(ldpc_float_certain);
    const __m256 ncertain = _mm256_set1_ps(-ldpc_float_certain);
    int e = 0;
    for (; e + 8 <= n; e += 8) {
        // ldpc_llr_in: NaN (an erasure) becomes 0, anything beyond
        // certainty (infinities) certainty, before the scale (a scale below
        // 127 / 1e4 leaves certainty below the message limit). Clamping to
        // the message limit before rounding gives the same result as after
        // (the limit is an integer) and keeps the conversion in range.
        __m256 v = _mm256_loadu_ps(llr + e);
        v = _mm256_and_ps(v, _mm256_cmp_ps(v, v, _CMP_ORD_Q));
        v = _mm256_mul_ps(_mm256_min_ps(_mm256_max_ps(v, ncertain), certain), f);
        v = _mm256_min_ps(_mm256_max_ps(v, nlim), lim);
        const __m256i i = _mm256_cvtps_epi32(
            _mm256_round_ps(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
        _mm_storeu_si128(
            reinterpret_cast<__m128i*>(q + e),
            _mm_packs_epi32(_mm256_castsi256_si128(i), _mm256_extracti128_si256(i, 1)));
    }
    for (; e < n; ++e)
        q[e] = arith<int16_t>::quantise(sign * llr[e], scale);
}

void quantise_all(const float* llr, int n, float sign, float scale, int16_t* q)
{
    static const bool avx2 = runtime::cpu_use_avx2();
    if (avx2) {
        quantise_avx2(llr, n, sign, scale, q);
        return;
    }
    for (int e = 0; e < n; ++e)
        q[e] = arith<int16_t>::quantise(sign * llr[e], scale);
}

template <typename T>
__attribute__((target_clones("avx2", "default"))) void
hard_bits(const T* __restrict__ app, int n, uint8_t* __restrict__ bits)
{
    for (int i = 0; i < n; ++i)
        bits[i] = app[i] < T(0) ? 1 : 0;
}

// A whole row's check update in fixed point, 16 checks (z) at a time with
// the running minima in registers across the row's edges (edge_in and
// scale_minima do the same arithmetic one edge at a time over all z; this
// saves the minima's loads and stores per edge). cols[i]: edge i's rotated
// a-posteriori run; returns the first z it did not cover (a multiple of 16).
struct row_view16 {
    const int16_t *m1, *m2, *idx, *par;
    const int16_t* const* sign; // per edge
};
// ldpc_scale in 16 lanes: v = max(m - offset, 0), then
// max((v * scale16 + round) >> 4, min(v, 1)); v <= 127 and scale16 <= 16, so
// nothing overflows int16.
__attribute__((target("avx2"))) inline __m256i
scale_avx2(__m256i m, __m256i off, __m256i scale, __m256i rnd)
{
    const __m256i v = _mm256_max_epi16(_mm256_sub_epi16(m, off), _mm256_setzero_si256());
    const __m256i s =
        _mm256_srai_epi16(_mm256_add_epi16(_mm256_mullo_epi16(v, scale), rnd), 4);
    return _mm256_max_epi16(s, _mm256_min_epi16(v, _mm256_set1_epi16(1)));
}

__attribute__((target("avx2"))) int check_row_avx2(const int16_t* const* cols,
                                                   int deg,
                                                   int Z,
                                                   row_view16 old,
                                                   int16_t* const* sign_out,
                                                   int16_t* t,
                                                   int t_stride,
                                                   int16_t* m1_out,
                                                   int16_t* m2_out,
                                                   int16_t* idx_out,
                                                   int16_t* par_out,
                                                   ldpc_norm norm)
{
    const __m256i zero = _mm256_setzero_si256(), one = _mm256_set1_epi16(1);
    const __m256i cap = _mm256_set1_epi16(ldpc_msg_max);
    const __m256i off = _mm256_set1_epi16(int16_t(norm.offset_q));
    const __m256i scale = _mm256_set1_epi16(int16_t(norm.scale16));
    const __m256i rnd = _mm256_set1_epi16(8); // round to nearest, ldpc_scale
    int z = 0;
    for (; z + 16 <= Z; z += 16) {
        __m256i m1 = _mm256_set1_epi16(32767), m2 = m1, idx = zero, par = zero;
        const __m256i o1 = _mm256_loadu_si256((const __m256i*)(old.m1 + z));
        const __m256i o2 = _mm256_loadu_si256((const __m256i*)(old.m2 + z));
        const __m256i oidx = _mm256_loadu_si256((const __m256i*)(old.idx + z));
        const __m256i opar = _mm256_loadu_si256((const __m256i*)(old.par + z));
        for (int i = 0; i < deg; ++i) {
            const __m256i edge = _mm256_set1_epi16(int16_t(i));
            const __m256i osg = _mm256_loadu_si256((const __m256i*)(old.sign[i] + z));
            const __m256i v = _mm256_blendv_epi8(o1, o2, _mm256_cmpeq_epi16(oidx, edge));
            const __m256i flip = _mm256_cmpeq_epi16(_mm256_xor_si256(osg, opar), one);
            const __m256i c = _mm256_blendv_epi8(v, _mm256_sub_epi16(zero, v), flip);
            const __m256i tv =
                _mm256_sub_epi16(_mm256_loadu_si256((const __m256i*)(cols[i] + z)), c);
            _mm256_storeu_si256((__m256i*)(t + std::size_t(i) * t_stride + z), tv);
            const __m256i a = _mm256_min_epi16(_mm256_abs_epi16(tv), cap);
            const __m256i lower = _mm256_cmpgt_epi16(m1, a);
            m2 = _mm256_blendv_epi8(_mm256_min_epi16(m2, a), m1, lower);
            m1 = _mm256_min_epi16(m1, a);
            idx = _mm256_blendv_epi8(idx, edge, lower);
            const __m256i neg = _mm256_srli_epi16(tv, 15);
            _mm256_storeu_si256((__m256i*)(sign_out[i] + z), neg);
            par = _mm256_xor_si256(par, neg);
        }
        const __m256i s1 = scale_avx2(m1, off, scale, rnd),
                      s2 = scale_avx2(m2, off, scale, rnd);
        _mm256_storeu_si256((__m256i*)(m1_out + z), s1);
        _mm256_storeu_si256((__m256i*)(m2_out + z), s2);
        _mm256_storeu_si256((__m256i*)(idx_out + z), idx);
        _mm256_storeu_si256((__m256i*)(par_out + z), par);
    }
    return z;
}

template <typename T>
class decoder_cpu : public ldpc5g_decoder_plan::impl
{
public:
    explicit decoder_cpu(const ldpc5g_layout& l) : d_l(l)
    {
        const int Z = l.p.Z;
        d_channel.resize(std::size_t(l.cols_used) * Z);
        d_app.resize(2 * d_channel.size()); // every column twice, see app()
        d_rows.resize(l.p.rows_used);
        d_next.resize(l.p.rows_used);
        for (int r = 0; r < l.p.rows_used; ++r)
            for (auto* m : { &d_rows[r], &d_next[r] }) {
                const int deg = l.row_start[r + 1] - l.row_start[r];
                m->m1.resize(Z);
                m->m2.resize(Z);
                m->idx.resize(Z);
                m->parity.resize(Z);
                m->sign.assign(deg, std::vector<mask_t<T>>(Z));
            }
        d_t.resize(std::size_t(ldpc_max_degree) * Z);
        d_zero.m1.assign(Z, T(0));
        d_zero.m2.assign(Z, T(0));
        d_zero.idx.assign(Z, 0);
        d_zero.parity.assign(Z, 0);
        d_zero.sign.assign(ldpc_max_degree, std::vector<mask_t<T>>(Z, 0));
        d_q.resize(l.p.E);
        // The bit selection as runs: rate-matching indices [e, e + len)
        // land on codeword positions [n, n + len) (the buffer read in order,
        // broken at fillers and at the wrap); indices past one period
        // repeat earlier positions and are added there.
        const int n_vars = int(d_channel.size());
        int e = 0;
        for (int j = 0; e < l.p.E; ++j) {
            const int pos = (l.p.k0 + j) % l.p.Ncb;
            if (pos + 2 * Z >= l.p.K && pos + 2 * Z < l.p.K_ldpc)
                continue; // filler: not sent
            const int n = pos + 2 * Z;
            if (!d_runs.empty() && d_runs.back().e + d_runs.back().len == e &&
                d_runs.back().n + d_runs.back().len == n && n < n_vars)
                ++d_runs.back().len;
            else
                d_runs.push_back({ e, n, 1 });
            ++e;
        }
        // Runs beyond the variables the decoder keeps are dropped (their
        // rows are not used).
        for (auto& r : d_runs)
            r.len = std::max(0, std::min(r.len, n_vars - r.n));
        d_repeats = l.p.E > l.period;
        d_sum.resize(d_channel.size());
        d_c.resize(Z);
        d_par.resize(Z);
    }

    void decode(const float* llrs,
                int batch,
                uint8_t* bits,
                int32_t* iterations,
                uint8_t* ok) override
    {
        for (int b = 0; b < batch; ++b) {
            prepare(llrs + std::size_t(b) * d_l.p.E);
            int it = 0;
            bool pass = false;
            while (it < d_l.c.max_iterations) {
                // The first iteration reads all-zero messages (d_zero)
                // instead of clearing every row's state.
                if (d_l.c.layered)
                    layered_iteration(it == 0);
                else
                    flooding_iteration(it == 0);
                ++it;
                if (d_l.c.early_termination && (pass = syndrome_ok()))
                    break;
            }
            if (!d_l.c.early_termination)
                pass = syndrome_ok();
            for (int c = 0; c * d_l.p.Z < d_l.p.K; ++c)
                hard_bits(app(c),
                          std::min(d_l.p.Z, d_l.p.K - c * d_l.p.Z),
                          bits + std::size_t(b) * d_l.p.K + std::size_t(c) * d_l.p.Z);
            iterations[b] = it;
            ok[b] = pass ? 1 : 0;
        }
    }

private:
    // De-rate-matching: repetitions added, punctured bits 0, fillers
    // certain zeros (int arithmetic in fixed point, as on the GPU). The
    // received values are quantised in one vector pass, then gathered.
    void prepare(const float* llr)
    {
        const auto& p = d_l.p;
        const float sign = d_l.c.positive_is_zero ? 1.f : -1.f;
        quantise_all(llr, p.E, sign, d_l.c.fixed_scale, d_q.data());
        // Undo the bit interleaver: e = i E/Qm + j was sent at j Qm + i.
        const int Qm = p.Qm, R = p.E / Qm;
        const T* __restrict__ q = d_q.data();
        T* __restrict__ qe = d_qe.data();
        if (Qm == 1)
            std::copy_n(q, p.E, qe);
        else
            for (int i = 0; i < Qm; ++i)
                for (int j = 0; j < R; ++j)
                    qe[i * R + j] = q[j * Qm + i];
        // Punctured and unsent bits 0, fillers certain, the runs copied
        // (first reading) or added (repetitions).
        T* __restrict__ ch = d_channel.data();
        std::fill(d_channel.begin(), d_channel.end(), T(0));
        std::fill(ch + p.K,
                  ch + std::min<int>(p.K_ldpc, int(d_channel.size())),
                  arith<T>::certain());
        if (!d_repeats) {
            for (const auto& r : d_runs)
                std::copy_n(qe + r.e, r.len, ch + r.n);
        } else {
            // Repetitions: summed wide, clamped once (as the GPU does).
            std::fill(d_sum.begin(), d_sum.end(), 0);
            for (const auto& r : d_runs)
                for (int k = 0; k < r.len; ++k)
                    d_sum[r.n + k] += qe[r.e + k];
            for (const auto& r : d_runs)
                for (int k = 0; k < r.len; ++k)
                    ch[r.n + k] = arith<T>::clamp_app(d_sum[r.n + k]);
        }
        set_app(d_channel.data());
    }

    // v2c of row r's edges into d_t [edge][z] and the row's new messages
    // into out (which may be old: each edge's old sign is read before its
    // new one is written).
    int check_row(int r, const row_messages<T>& old, row_messages<T>& out)
    {
        const int Z = d_l.p.Z;
        const int e0 = d_l.row_start[r], deg = d_l.row_start[r + 1] - e0;
        int z0 = 0; // the z the general loops start from
        if constexpr (std::is_same<T, int16_t>::value) {
            static const bool avx2 = runtime::cpu_use_avx2();
            if (avx2) {
                const int16_t* cols[ldpc_max_degree];
                const int16_t* old_sign[ldpc_max_degree];
                int16_t* new_sign[ldpc_max_degree];
                for (int i = 0; i < deg; ++i) {
                    cols[i] = app(d_l.edge_col[e0 + i]) + d_l.edge_shift[e0 + i];
                    old_sign[i] = old.sign[i].data();
                    new_sign[i] = out.sign[i].data();
                }
                // (out may be old: each 16-z block is read before written)
                z0 = check_row_avx2(cols,
                                    deg,
                                    Z,
                                    { old.m1.data(),
                                      old.m2.data(),
                                      old.idx.data(),
                                      old.parity.data(),
                                      old_sign },
                                    new_sign,
                                    d_t.data(),
                                    Z,
                                    d_m1.data(),
                                    d_m2.data(),
                                    d_idx.data(),
                                    d_parity.data(),
                                    d_l.norm);
                if (z0 == Z) {
                    out.m1.swap(d_m1);
                    out.m2.swap(d_m2);
                    out.idx.swap(d_idx);
                    out.parity.swap(d_parity);
                    return deg;
                }
            }
        }
        return check_row_from(r, old, out, z0);
    }

    // The same on z in [z0, Z), one edge at a time (d_m1 ... hold z < z0).
    int check_row_from(int r, const row_messages<T>& old, row_messages<T>& out, int z0)
    {
        const int Z = d_l.p.Z, n = Z - z0;
        const int e0 = d_l.row_start[r], deg = d_l.row_start[r + 1] - e0;
        std::fill(d_m1.begin() + z0, d_m1.end(), arith<T>::big);
        std::fill(d_m2.begin() + z0, d_m2.end(), arith<T>::big);
        std::fill(d_idx.begin() + z0, d_idx.end(), 0);
        std::fill(d_parity.begin() + z0, d_parity.end(), 0);
        for (int i = 0; i < deg; ++i) {
            // The rotated column is one contiguous run of the doubled column.
            edge_in(app(d_l.edge_col[e0 + i]) + d_l.edge_shift[e0 + i] + z0,
                    old.m1.data() + z0,
                    old.m2.data() + z0,
                    old.idx.data() + z0,
                    old.parity.data() + z0,
                    old.sign[i].data() + z0,
                    out.sign[i].data() + z0,
                    mask_t<T>(i),
                    n,
                    &d_t[std::size_t(i) * Z + z0],
                    d_m1.data() + z0,
                    d_m2.data() + z0,
                    d_idx.data() + z0,
                    d_parity.data() + z0);
        }
        scale_minima(d_m1.data() + z0, d_m2.data() + z0, n, d_l.norm);
        out.m1.swap(d_m1);
        out.m2.swap(d_m2);
        out.idx.swap(d_idx);
        out.parity.swap(d_parity);
        return deg;
    }

    void layered_iteration(bool first)
    {
        const int Z = d_l.p.Z;
        for (int r = 0; r < d_l.p.rows_used; ++r) {
            const int e0 = d_l.row_start[r];
            const int deg = check_row(r, first ? d_zero : d_rows[r], d_rows[r]);
            const auto& m = d_rows[r];
            for (int i = 0; i < deg; ++i) {
                T* col = app(d_l.edge_col[e0 + i]);
                const int s = d_l.edge_shift[e0 + i];
                // Written where they were read (col[s .. s + Z)), then the
                // other copy of each value brought up to date.
                edge_out(col + s,
                         &d_t[std::size_t(i) * Z],
                         m.m1.data(),
                         m.m2.data(),
                         m.idx.data(),
                         m.parity.data(),
                         m.sign[i].data(),
                         mask_t<T>(i),
                         Z);
                std::copy(col + s, col + Z, col + Z + s);
                std::copy(col + Z, col + Z + s, col);
            }
        }
    }

    void flooding_iteration(bool first)
    {
        const int Z = d_l.p.Z;
        for (int r = 0; r < d_l.p.rows_used; ++r)
            check_row(r, first ? d_zero : d_rows[r], d_next[r]);
        std::swap(d_rows, d_next);
        // APP = channel + every incoming message, added in row order (the
        // GPU's order), clamped once.
        using acc_t =
            typename std::conditional<std::is_same<T, float>::value, float, int>::type;
        d_sum.assign(d_channel.begin(), d_channel.end());
        for (int r = 0; r < d_l.p.rows_used; ++r)
            for (int e = d_l.row_start[r]; e < d_l.row_start[r + 1]; ++e) {
                message(d_rows[r], e - d_l.row_start[r], Z, d_c.data());
                acc_t* col = &d_sum[std::size_t(d_l.edge_col[e]) * Z];
                const int s = d_l.edge_shift[e];
                for (int z = 0; z < Z; ++z)
                    col[z + s < Z ? z + s : z + s - Z] += d_c[z];
            }
        for (std::size_t n = 0; n < d_channel.size(); ++n)
            d_channel_scratch[n] = arith<T>::clamp_app(d_sum[n]);
        set_app(d_channel_scratch.data());
    }

    bool syndrome_ok()
    {
        const int Z = d_l.p.Z;
        for (int r = 0; r < d_l.p.rows_used; ++r) {
            std::fill(d_par.begin(), d_par.end(), 0);
            for (int e = d_l.row_start[r]; e < d_l.row_start[r + 1]; ++e) {
                parity_run(app(d_l.edge_col[e]) + d_l.edge_shift[e], Z, d_par.data());
            }
            if (any_set(d_par.data(), Z))
                return false;
        }
        return true;
    }

    // The a-posteriori values keep each column twice in a row (2 Z
    // values): the rotation by s is then the contiguous run [s, s + Z).
    T* app(int col) { return &d_app[std::size_t(col) * 2 * d_l.p.Z]; }
    void set_app(const T* values)
    {
        const int Z = d_l.p.Z;
        for (int c = 0; c < d_l.cols_used; ++c) {
            std::copy_n(values + std::size_t(c) * Z, Z, app(c));
            std::copy_n(values + std::size_t(c) * Z, Z, app(c) + Z);
        }
    }

    const ldpc5g_layout d_l;
    std::vector<T> d_channel, d_app, d_t, d_c, d_q;
    std::vector<T> d_channel_scratch = std::vector<T>(d_l.cols_used * d_l.p.Z);
    struct run {
        int e, n, len;
    };
    std::vector<run> d_runs; // bit selection: rate-matching index -> position
    bool d_repeats = false;  // E reaches round the buffer more than once
    std::vector<T> d_qe = std::vector<T>(d_l.p.E); // received values by index e
    std::vector<
        typename std::conditional<std::is_same<T, float>::value, float, int>::type>
        d_sum;
    std::vector<row_messages<T>> d_rows, d_next;
    row_messages<T> d_zero; // the messages before the first iteration
    std::vector<T> d_m1 = std::vector<T>(d_l.p.Z), d_m2 = std::vector<T>(d_l.p.Z);
    std::vector<mask_t<T>> d_idx = std::vector<mask_t<T>>(d_l.p.Z),
                           d_parity = std::vector<mask_t<T>>(d_l.p.Z);
    std::vector<mask_t<T>> d_par;
};

} // namespace

std::unique_ptr<ldpc5g_decoder_plan::impl> make_ldpc5g_cpu(const ldpc5g_layout& l)
{
    if (l.c.fixed_point)
        return std::make_unique<decoder_cpu<int16_t>>(l);
    return std::make_unique<decoder_cpu<float>>(l);
}

} // namespace kernels
} // namespace gpudsp
} // namespace gr
