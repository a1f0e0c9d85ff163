/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The CPU DDC's mixer (complex input, real taps): see ddc_cpu_mix.h. Plain
// loops that the compiler vectorises at each SIMD level. The vector body and
// the scalar remainder of a loop must round alike (whether a sample falls
// in one or the other depends on where a call starts), so this file is
// compiled without floating-point contraction and the levels with FMA ask
// for it explicitly (fmaf: one rounding, vector or scalar).

#include "ddc_cpu_mix.h"
#include <gnuradio/gpudsp/runtime/cpu_simd.h>
#include <algorithm>

namespace gr {
namespace gpudsp {
namespace kernels {

ddc_mix_table::ddc_mix_table(uint64_t s) : step(s)
{
    for (int j = 0; j < ddc_mix_block; ++j) {
        const auto r = mixer_rotation(s * uint64_t(j));
        re[j] = float(r.real());
        im[j] = float(r.imag());
    }
}

namespace {

#define MIX_INLINE inline __attribute__((always_inline))

// a b + c: fused where the level has FMA, else two roundings; the same at
// every position of a loop.
template <bool fused>
MIX_INLINE float madd(float a, float b, float c)
{
    if constexpr (fused)
        return __builtin_fmaf(a, b, c);
    else
        return a * b + c;
}

// exp(-2j pi phase(n0 + i)) for i < n, block by block: exp(-2j pi
// phase(b)) at the block's start b (float64, then float) times the table;
// each (re, im) handed to put(i, re, im) in a loop the compiler vectorises.
template <bool fused, class Put>
MIX_INLINE void rotations(std::size_t n,
                          uint64_t n0,
                          const mixer_phase& phase,
                          const ddc_mix_table& t,
                          Put put)
{
    for (std::size_t i = 0; i < n;) {
        const unsigned j0 = unsigned((n0 + i) % ddc_mix_block);
        const std::size_t len = std::min<std::size_t>(ddc_mix_block - j0, n - i);
        const auto b = mixer_rotation(phase.at(n0 + i - j0));
        const float br = float(b.real()), bi = float(b.imag());
        const float* tr = t.re + j0;
        const float* ti = t.im + j0;
        for (std::size_t k = 0; k < len; ++k)
            put(i + k,
                madd<fused>(br, tr[k], -(bi * ti[k])),
                madd<fused>(br, ti[k], bi * tr[k]));
        i += len;
    }
}

// Planar w = x r, x interleaved.
template <bool fused>
MIX_INLINE void mix_body(const float* __restrict x,
                         std::size_t n,
                         uint64_t n0,
                         const mixer_phase& phase,
                         const ddc_mix_table& t,
                         float* __restrict wr,
                         float* __restrict wi)
{
    rotations<fused>(n, n0, phase, t, [=](std::size_t i, float rr, float ri) {
        const float a = x[2 * i], c = x[2 * i + 1];
        wr[i] = madd<fused>(a, rr, -(c * ri));
        wi[i] = madd<fused>(a, ri, c * rr);
    });
}

// y *= r in place, y interleaved.
template <bool fused>
MIX_INLINE void rotate_body(float* y,
                            std::size_t n,
                            uint64_t n0,
                            const mixer_phase& phase,
                            const ddc_mix_table& t)
{
    rotations<fused>(n, n0, phase, t, [=](std::size_t i, float rr, float ri) {
        const float a = y[2 * i], c = y[2 * i + 1];
        y[2 * i] = madd<fused>(a, rr, -(c * ri));
        y[2 * i + 1] = madd<fused>(a, ri, c * rr);
    });
}

typedef void (*mix_fn)(const float*,
                       std::size_t,
                       uint64_t,
                       const mixer_phase&,
                       const ddc_mix_table&,
                       float*,
                       float*);

#define DDC_MIX_LEVEL(NAME, FUSED, ATTR)                                                   \
    template <bool planar>                                                        \
    ATTR void NAME(const float* x,                                                \
                   std::size_t n,                                                 \
                   uint64_t n0,                                                   \
                   const mixer_phase& p,                                          \
                   const ddc_mix_table& t,                                        \
                   float* wr,                                                     \
                   float* wi)                                                     \
    {                                                                             \
        if (planar)                                                               \
            mix_body<FUSED>(x, n, n0, p, t, wr, wi);                              \
        else                                                                      \
            rotate_body<FUSED>(wr, n, n0, p, t);                                  \
    }
DDC_MIX_LEVEL(mix_baseline, false, )
DDC_MIX_LEVEL(mix_avx2, true, __attribute__((target("avx2,fma"))))
DDC_MIX_LEVEL(mix_avx512, true, __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,fma"))))
#undef DDC_MIX_LEVEL

template <bool planar>
mix_fn mix_level()
{
    return runtime::cpu_use_avx512() ? mix_avx512<planar>
           : runtime::cpu_use_avx2() ? mix_avx2<planar>
                                     : mix_baseline<planar>;
}

} // namespace

void ddc_mix(const float* x,
             std::size_t n,
             uint64_t n0,
             const mixer_phase& phase,
             const ddc_mix_table& table,
             float* wr,
             float* wi)
{
    static const mix_fn fn = mix_level<true>();
    fn(x, n, n0, phase, table, wr, wi);
}

void ddc_rotate(float* y,
                std::size_t n,
                uint64_t n0,
                const mixer_phase& phase,
                const ddc_mix_table& table)
{
    static const mix_fn fn = mix_level<false>();
    fn(y, n, n0, phase, table, y, nullptr);
}

} // namespace kernels
} // namespace gpudsp
} // namespace gr
