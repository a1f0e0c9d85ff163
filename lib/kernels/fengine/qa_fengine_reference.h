/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Test-only: the references the host emulations of the CUDA F-engine's
// kernels (qa_fengine_onepass, qa_fengine_split) are held to — a float64
// FFT and polyphase filter bank, random 10-bit input, and the comparison of
// emulated spectra, corrected and quantised by the CPU plan's rules, with
// the CPU F-engine's int8 output.

#ifndef INCLUDED_GPUDSP_KERNELS_FENGINE_QA_REFERENCE_H
#define INCLUDED_GPUDSP_KERNELS_FENGINE_QA_REFERENCE_H

#include "fengine_math.h"
#include <gnuradio/gpudsp/kernels/pfb_fengine.h>
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <complex>
#include <cstdint>
#include <random>
#include <vector>

namespace qa_fengine {

using cd = std::complex<double>;

//! float64 FFT in place: radix 2 for powers of two, the plain DFT otherwise.
inline void fft_double(std::vector<cd>& a)
{
    const std::size_t n = a.size();
    if (n == 1)
        return;
    if (n % 2) {
        std::vector<cd> out(n);
        for (std::size_t k = 0; k < n; ++k)
            for (std::size_t j = 0; j < n; ++j)
                out[k] += a[j] * std::polar(1.0, -2.0 * M_PI * double(j * k % n) / n);
        a = out;
        return;
    }
    std::vector<cd> even(n / 2), odd(n / 2);
    for (std::size_t i = 0; i < n / 2; ++i) {
        even[i] = a[2 * i];
        odd[i] = a[2 * i + 1];
    }
    fft_double(even);
    fft_double(odd);
    for (std::size_t k = 0; k < n / 2; ++k) {
        const cd w = std::polar(1.0, -2.0 * M_PI * double(k) / double(n)) * odd[k];
        a[k] = even[k] + w;
        a[k + n / 2] = even[k] - w;
    }
}

inline double rms(const std::vector<cd>& v)
{
    double s = 0;
    for (const auto& x : v)
        s += std::norm(x);
    return std::sqrt(s / double(v.size()));
}

//! The polyphase filter bank of real input x[i] in float64: X[s][k][i].
inline std::vector<cd> pfb_double(const std::vector<std::vector<float>>& x,
                                  const std::vector<float>& w,
                                  int N,
                                  int T,
                                  int n_spectra)
{
    const int step = 2 * N, I = int(x.size());
    std::vector<cd> out(std::size_t(n_spectra) * N * I);
    for (int i = 0; i < I; ++i)
        for (int s = 0; s < n_spectra; ++s) {
            std::vector<cd> y(step);
            for (int j = 0; j < step; ++j) {
                double acc = 0;
                for (int t = 0; t < T; ++t)
                    acc += double(w[std::size_t(t) * step + j]) *
                           double(x[i][std::size_t(s + t) * step + j]);
                y[j] = acc;
            }
            fft_double(y);
            for (int k = 0; k < N; ++k)
                out[(std::size_t(s) * N + k) * I + i] = y[k];
        }
    return out;
}

/*! The CUDA FIR kernel's output for real input x[i] (T taps w, 2N
 *  columns): [s][i][2N] floats, taps in order, one fused multiply-add each
 *  (fir::column_run's order). */
inline std::vector<float> fir_float(const std::vector<std::vector<float>>& x,
                                    const std::vector<float>& w,
                                    int N,
                                    int T,
                                    int n_spectra)
{
    const int I = int(x.size()), step = 2 * N;
    std::vector<float> out(std::size_t(n_spectra) * I * step);
    for (int s = 0; s < n_spectra; ++s)
        for (int i = 0; i < I; ++i)
            for (int j = 0; j < step; ++j) {
                float acc = 0;
                for (int t = 0; t < T; ++t)
                    acc = std::fma(w[std::size_t(t) * step + j],
                                   x[i][std::size_t(s + t) * step + j],
                                   acc);
                out[(std::size_t(s) * I + i) * step + j] = acc;
            }
    return out;
}

//! I inputs of n random 10-bit samples, as floats.
inline std::vector<std::vector<float>> ten_bit(int I, std::size_t n, std::mt19937_64& rng)
{
    std::uniform_int_distribution<int> d(-512, 511);
    std::vector<std::vector<float>> x(I, std::vector<float>(n));
    for (auto& v : x)
        for (auto& s : v)
            s = float(d(rng));
    return x;
}

/*! Spectra X[s][k][i] of an emulated kernel, rotated and quantised as the
 *  CPU plan does (gain x exp(1j (-pi tau k / N + phi)), round half to
 *  even), against \p want, the CPU plan's ci8 output: every value equal
 *  or one step apart; returns how many are apart. */
template <typename C>
int ci8_differences(const gr::gpudsp::kernels::fengine_corrections& corr,
                    const std::vector<C>& X,
                    const std::vector<int8_t>& want,
                    int N,
                    int I,
                    int n_spectra)
{
    int differ = 0;
    for (int s = 0; s < n_spectra; ++s)
        for (int k = 0; k < N; ++k)
            for (int i = 0; i < I; ++i) {
                const std::size_t e = (std::size_t(s) * N + k) * I + i;
                const double ph = -M_PI * corr.fine_delays[i] * k / N + corr.phases[i];
                const auto rot = std::complex<float>(
                    std::complex<double>(corr.gains[std::size_t(k) * I + i]) *
                    std::polar(1.0, ph));
                const std::complex<float> v = std::complex<float>(X[e].re, X[e].im) * rot;
                bool clamped = false;
                const int8_t re = gr::gpudsp::kernels::fmath::quantise(v.real(), clamped);
                const int8_t im = gr::gpudsp::kernels::fmath::quantise(v.imag(), clamped);
                for (const auto& pr : { std::make_pair(re, want[2 * e]),
                                        std::make_pair(im, want[2 * e + 1]) })
                    if (pr.first != pr.second) {
                        BOOST_REQUIRE_LE(std::abs(int(pr.first) - int(pr.second)), 1);
                        ++differ;
                    }
            }
    return differ;
}

/*! Random corrections of I inputs that keep ~30 rms values inside int8. */
inline gr::gpudsp::kernels::fengine_corrections
random_corrections(int N, int I, std::mt19937_64& rng)
{
    gr::gpudsp::kernels::fengine_corrections corr;
    std::uniform_real_distribution<float> u(-1, 1);
    corr.gains.resize(std::size_t(N) * I);
    for (auto& gain : corr.gains)
        gain = std::complex<float>(0.1f + 0.05f * u(rng), 0.05f * u(rng));
    for (int i = 0; i < I; ++i) {
        corr.fine_delays.push_back(0.45 * u(rng));
        corr.phases.push_back(3.0 * u(rng));
    }
    return corr;
}

/*! A CPU F-engine run to hold an emulated kernel to: random 10-bit input
 *  (as floats) of I inputs, random corrections, and the CPU plan's ci8
 *  output of n_spectra spectra (N channels, T taps). */
struct cpu_ci8_case {
    std::vector<std::vector<float>> x; //!< the inputs
    std::vector<float> w;              //!< the plan's taps, [tap][2N]
    gr::gpudsp::kernels::fengine_corrections corr;
    std::vector<int8_t> want; //!< [s][k][i] ci8
};
inline cpu_ci8_case
cpu_ci8_reference(int N, int T, int I, int n_spectra, std::mt19937_64& rng)
{
    using namespace gr::gpudsp::kernels;
    fengine_config c;
    c.n_inputs = I;
    c.n_channels = N;
    c.n_taps = T;
    c.input = fengine_input::float32;
    c.output = fengine_output::ci8;
    fengine_plan plan(c, gr::gpudsp::runtime::backend_choice{}, "qa_fengine");
    cpu_ci8_case r;
    r.corr = random_corrections(N, I, rng);
    plan.set_corrections(r.corr);
    r.x = ten_bit(I, std::size_t(n_spectra + T - 1) * 2 * N, rng);
    std::vector<fengine_input_view> views;
    for (const auto& v : r.x)
        views.push_back({ v.data(), 0 });
    r.want.resize(std::size_t(n_spectra) * N * I * 2);
    plan.execute_host(
        views, r.x[0].size() * sizeof(float), r.want.data(), nullptr, n_spectra, 0);
    r.w.assign(plan.weights().begin(), plan.weights().end());
    return r;
}

/*! Emulated spectra X of \p ref's input, corrected and quantised, equal the
 *  CPU plan's ci8 output but for values within float rounding of a half: at
 *  most 1 in 1000, by one step. */
template <typename C>
void check_ci8(const cpu_ci8_case& ref,
               const std::vector<C>& X,
               int N,
               int n_spectra,
               const char* what)
{
    const int I = int(ref.x.size());
    const int differ = ci8_differences(ref.corr, X, ref.want, N, I, n_spectra);
    BOOST_TEST_MESSAGE(what << " N=" << N << ": " << differ << " of " << ref.want.size()
                            << " int8 values differ by one step");
    BOOST_REQUIRE_LE(differ, int(ref.want.size() / 1000) + 1);
}

} // namespace qa_fengine

#endif
