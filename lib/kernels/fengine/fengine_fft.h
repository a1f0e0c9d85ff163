/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Internal: the one-pass F-engine's own FFT (docs/fengine.md, "One pass"),
// as arithmetic the CUDA kernel and the CPU tests share: a complex FFT of
// n = 2^k points as Stockham passes of radix 2, 4 or 8 over one buffer in
// shared memory, every butterfly's inputs, outputs and twiddles given by
// the functions here; the twiddles are a table of exp(-2 pi i q / n)
// computed in float64 and rounded once; and the fold that turns the FFT of
// the n complex pairs z[m] = y[2m] + i y[2m+1] into the 2n-point real FFT
// of y. Every float operation is written out (fmaf where one is meant), so
// the host's emulation and the GPU round alike: nvcc contracts no a*b + c
// here that g++ would not.

#ifndef INCLUDED_GPUDSP_KERNELS_FENGINE_FFT_H
#define INCLUDED_GPUDSP_KERNELS_FENGINE_FFT_H

#include "kernels/common/host_device.h"
#include <cmath>
#include <cstdint>
#include <vector>

namespace gr {
namespace gpudsp {
namespace kernels {
namespace fft {

// Aligned as a float2, so that a kernel loads and stores one in one instruction.
struct alignas(8) cpx {
    float re, im;
};

GPUDSP_HD cpx add(cpx a, cpx b) { return { a.re + b.re, a.im + b.im }; }
GPUDSP_HD cpx sub(cpx a, cpx b) { return { a.re - b.re, a.im - b.im }; }
//! a * b, each part one product and one fused multiply-add.
GPUDSP_HD cpx mul(cpx a, cpx b)
{
    const float ii = a.im * b.im, ri = a.im * b.re;
    return { fmaf(a.re, b.re, -ii), fmaf(a.re, b.im, ri) };
}
//! -i a (a quarter turn clockwise): exact.
GPUDSP_HD cpx mul_minus_i(cpx a) { return { a.im, -a.re }; }
GPUDSP_HD cpx conj(cpx a) { return { a.re, -a.im }; }
GPUDSP_HD cpx scale(cpx a, float s) { return { a.re * s, a.im * s }; }

/*! The radices of an n-point FFT (n a power of two, 2..2^20), first pass
 *  first: the remainder (2 or 4) first if log2 n is not a multiple of the
 *  largest radix's bits, then passes of the largest radix, \p max_radix (2,
 *  4 or 8): a pass of radix r has n / r butterflies, and the kernel wants
 *  at least as many as its threads. Arithmetic, not a table: the kernel
 *  indexes it with a loop counter, which a table in its parameters would
 *  turn into local memory. */
struct radix_plan {
    int passes = 0;
    int log2r = 1;      //!< bits of the largest radix
    int first_bits = 1; //!< bits of the first pass's radix
    GPUDSP_HD int radix_bits(int p) const { return p == 0 ? first_bits : log2r; }
    GPUDSP_HD int radix(int p) const { return 1 << radix_bits(p); }
    //! log2 of the product of the radices before pass p (the sub-transforms' size).
    GPUDSP_HD int stride_bits(int p) const
    {
        return p == 0 ? 0 : first_bits + (p - 1) * log2r;
    }
    GPUDSP_HD int stride_before(int p) const { return 1 << stride_bits(p); }
};

GPUDSP_HD radix_plan plan_radices(int n, int max_radix)
{
    int log2n = 0;
    while ((1 << log2n) < n)
        ++log2n;
    radix_plan p;
    p.log2r = max_radix >= 8 ? 3 : (max_radix >= 4 ? 2 : 1);
    if (p.log2r > log2n)
        p.log2r = log2n;
    const int rest = log2n % p.log2r;
    p.first_bits = rest ? rest : p.log2r;
    p.passes = (log2n - p.first_bits) / p.log2r + 1;
    return p;
}

/*! Butterfly \p b (0 .. n/r - 1) of a Stockham pass of radix r = 2^lr
 *  after sub-transforms of ns = 2^lns points (the product of the earlier
 *  radices), n = 2^ln: input e at in(e), output e at out(e) (e < r, the
 *  same buffer after a barrier), twiddle exp(-2 pi i twiddle(e) / n) on
 *  input e. In shifts and masks: every size is a power of two. */
struct butterfly {
    int ln, lr, lns, b;
    GPUDSP_HD int in(int e) const { return b + (e << (ln - lr)); }
    GPUDSP_HD int out(int e) const
    {
        return ((b >> lns) << (lns + lr)) + (b & ((1 << lns) - 1)) + (e << lns);
    }
    GPUDSP_HD int twiddle(int e) const
    {
        return (e * (b & ((1 << lns) - 1))) << (ln - lns - lr);
    }
};

/*! log2 of a power of two. */
GPUDSP_HD int log2_of(int n)
{
    int l = 0;
    while ((1 << l) < n)
        ++l;
    return l;
}

/*! The r-point DFT (r = 2, 4, 8; forward, exp(-2 pi i jk / r)) of v[0..r)
 *  in place, in registers. Radix 8 is two radix-4 DFTs and exact eighth
 *  turns (sqrt(1/2) rounded once). */
GPUDSP_HD void dft2(cpx* v)
{
    const cpx a = v[0], b = v[1];
    v[0] = add(a, b);
    v[1] = sub(a, b);
}
GPUDSP_HD void dft4(cpx& a0, cpx& a1, cpx& a2, cpx& a3)
{
    const cpx s02 = add(a0, a2), d02 = sub(a0, a2);
    const cpx s13 = add(a1, a3), d13 = mul_minus_i(sub(a1, a3));
    a0 = add(s02, s13);
    a1 = add(d02, d13);
    a2 = sub(s02, s13);
    a3 = sub(d02, d13);
}
GPUDSP_HD void dft4(cpx* v) { dft4(v[0], v[1], v[2], v[3]); }
GPUDSP_HD void dft8(cpx* v)
{
    cpx e0 = v[0], e1 = v[2], e2 = v[4], e3 = v[6];
    cpx o0 = v[1], o1 = v[3], o2 = v[5], o3 = v[7];
    dft4(e0, e1, e2, e3);
    dft4(o0, o1, o2, o3);
    const float h = 0.70710678118654752f; // sqrt(1/2)
    // o_k * exp(-2 pi i k / 8): k = 1: h (1 - i); k = 2: -i; k = 3: h (-1 - i)
    o1 = { (o1.re + o1.im) * h, (o1.im - o1.re) * h };
    o2 = mul_minus_i(o2);
    o3 = { (o3.im - o3.re) * h, -(o3.re + o3.im) * h };
    v[0] = add(e0, o0);
    v[4] = sub(e0, o0);
    v[1] = add(e1, o1);
    v[5] = sub(e1, o1);
    v[2] = add(e2, o2);
    v[6] = sub(e2, o2);
    v[3] = add(e3, o3);
    v[7] = sub(e3, o3);
}
template <int R>
GPUDSP_HD void dft_r(cpx* v)
{
    if (R == 8)
        dft8(v);
    else if (R == 4)
        dft4(v);
    else
        dft2(v);
}

/*! The twiddles of butterfly \p bf's inputs 1 .. R-1 into w[1 .. R): the
 *  table's entries e q1 with q1 = twiddle(1) (twiddle(e) = e q1: the index
 *  arithmetic is linear in e). False, and nothing loaded, where q1 = 0: then
 *  every input's twiddle is 1. A kernel calls this before it loads the
 *  butterfly's values, so that the R - 1 loads, from one base and under
 *  one condition, are in flight together (SASS of 2026-11-28: loaded one
 *  at a time, each under its own test of q, each just before its product,
 *  every butterfly waited for R - 1 table loads in turn). */
template <int R>
GPUDSP_HD bool load_twiddles(const butterfly& bf, const cpx* table, cpx* w)
{
    const int q1 = bf.twiddle(1);
    if (q1 == 0)
        return false;
    GPUDSP_UNROLL
    for (int e = 1; e < R; ++e)
        w[e] = table[e * q1];
    return true;
}

/*! One butterfly's work between its loads and its stores: inputs 1 .. R-1
 *  times their twiddles (when \p twiddled; load_twiddles), then the DFT. */
template <int R>
GPUDSP_HD void twiddle_and_dft(cpx* v, const cpx* w, bool twiddled)
{
    if (twiddled) {
        GPUDSP_UNROLL
        for (int e = 1; e < R; ++e)
            v[e] = mul(v[e], w[e]);
    }
    dft_r<R>(v);
}

/*! Both: the host's form (fft_host). */
template <int R>
GPUDSP_HD void butterfly_compute(const butterfly& bf, cpx* v, const cpx* table)
{
    cpx w[R];
    const bool twiddled = load_twiddles<R>(bf, table, w);
    twiddle_and_dft<R>(v, w, twiddled);
}

/*! exp(-2 pi i q / n) for q = 0 .. n-1, each computed in float64 from the
 *  exact quarter-turn symmetry (so that q = n/4 is exactly -i) and rounded
 *  once. */
inline std::vector<cpx> twiddle_table(int n)
{
    std::vector<cpx> t(static_cast<std::size_t>(n));
    for (int q = 0; q < n; ++q) {
        // Reduce to the first octant in integers, then one sincos.
        const long double turn = (long double)q / n;
        const double a = -2.0 * 3.14159265358979323846 * double(turn);
        double c = std::cos(a), s = std::sin(a);
        if (4 * int64_t(q) % n == 0) { // multiples of a quarter turn: exact
            const int k = int(4 * int64_t(q) / n) % 4;
            c = k == 0 ? 1 : (k == 2 ? -1 : 0);
            s = k == 1 ? -1 : (k == 3 ? 1 : 0);
        }
        t[std::size_t(q)] = { float(c), float(s) };
    }
    return t;
}

/*! exp(-i pi k / n) for k = 0 .. n-1 (the 2n-point roots the real fold
 *  needs), in float64 and rounded once. */
inline std::vector<cpx> fold_table(int n)
{
    std::vector<cpx> t(static_cast<std::size_t>(n));
    for (int k = 0; k < n; ++k) {
        const double a = -3.14159265358979323846 * double(k) / double(n);
        double c = std::cos(a), s = std::sin(a);
        if (2 * k == n) {
            c = 0;
            s = -1;
        }
        t[std::size_t(k)] = { float(c), float(s) };
    }
    return t;
}

/*! Channel k (0 .. n-1) of the 2n-point real FFT of y from Z, the n-point
 *  FFT of z[m] = y[2m] + i y[2m+1]: with A = Z[k], B = conj(Z[(n-k) % n]),
 *  X[k] = (A + B)/2 - i exp(-i pi k / n) (A - B)/2; \p w = fold_table[k]. */
GPUDSP_HD cpx real_fold(cpx zk, cpx znk, cpx w)
{
    const cpx a = zk, b = conj(znk);
    const cpx even = scale(add(a, b), 0.5f);
    const cpx odd = mul_minus_i(scale(sub(a, b), 0.5f));
    return add(even, mul(odd, w));
}

/*! The whole FFT on the host, as the kernel's threads run it (every pass:
 *  all butterflies load and compute, then all store): the reference for
 *  the kernel's arithmetic, in place over \p buf (n points). */
inline void fft_host(cpx* buf, int n, const radix_plan& plan, const cpx* table)
{
    std::vector<cpx> next(static_cast<std::size_t>(n));
    const int ln = log2_of(n);
    for (int p = 0; p < plan.passes; ++p) {
        const int r = plan.radix(p);
        for (int b = 0; b < n / r; ++b) {
            const butterfly bf{ ln, plan.radix_bits(p), plan.stride_bits(p), b };
            cpx v[8];
            for (int e = 0; e < r; ++e)
                v[e] = buf[bf.in(e)];
            if (r == 8)
                butterfly_compute<8>(bf, v, table);
            else if (r == 4)
                butterfly_compute<4>(bf, v, table);
            else
                butterfly_compute<2>(bf, v, table);
            for (int e = 0; e < r; ++e)
                next[std::size_t(bf.out(e))] = v[e];
        }
        for (int m = 0; m < n; ++m)
            buf[m] = next[std::size_t(m)];
    }
}

} // namespace fft
} // namespace kernels
} // namespace gpudsp
} // namespace gr

#endif /* INCLUDED_GPUDSP_KERNELS_FENGINE_FFT_H */
