/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// What the DDC's C++ tests share: a configuration with random taps (complex
// for complex input, else real) and random input bytes of a format.

#ifndef INCLUDED_GPUDSP_QA_DDC_COMMON_H
#define INCLUDED_GPUDSP_QA_DDC_COMMON_H

#include "kernels/common/packed10.h"
#include "runtime/qa_common.h"
#include <gnuradio/gpudsp/kernels/ddc.h>
#include <gnuradio/gpudsp/kernels/unpack10.h>
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <random>

namespace qa {

inline gr::gpudsp::kernels::ddc_config
ddc_config(gr::gpudsp::kernels::ddc_input f, int T, int D, double fc, unsigned seed)
{
    gr::gpudsp::kernels::ddc_config c;
    c.input = f;
    c.decimation = D;
    c.center_freq = fc;
    c.samp_rate = 1e6;
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(-1, 1);
    for (int k = 0; k < T; ++k)
        c.taps.emplace_back(u(rng),
                            f == gr::gpudsp::kernels::ddc_input::complex64 ? u(rng) : 0.0);
    return c;
}

/*! n samples of format f (packed 10-bit: whole groups plus 8 bytes). */
inline std::vector<uint8_t>
ddc_random_input(gr::gpudsp::kernels::ddc_input f, std::size_t n, unsigned seed)
{
    using gr::gpudsp::kernels::ddc_input;
    switch (f) {
    case ddc_input::packed10:
        return random_bytes(gr::gpudsp::kernels::packed10_bytes(n) + 8, seed);
    case ddc_input::int16:
        return random_bytes(2 * n, seed);
    case ddc_input::float32:
    case ddc_input::complex64: {
        const auto v = random_floats(f == ddc_input::float32 ? n : 2 * n, seed);
        std::vector<uint8_t> b(4 * v.size());
        std::memcpy(b.data(), v.data(), b.size());
        return b;
    }
    }
    return {};
}

/*! The plan's premultiplied taps z[k] = h[k] exp(+2j pi f k), as the CUDA
 *  plan receives them. */
inline std::vector<std::complex<float>>
ddc_premultiplied(const gr::gpudsp::kernels::ddc_plan& plan)
{
    const auto& c = plan.config();
    std::vector<std::complex<float>> z(c.taps.size());
    for (std::size_t k = 0; k < z.size(); ++k) {
        const double cyc = double(int64_t(plan.phase().step * uint64_t(k))) * 0x1p-64;
        z[k] = std::complex<float>(c.taps[k] * std::polar(1.0, 2 * M_PI * cyc));
    }
    return z;
}

/*! Sample i of \p in in the plan's input format, in float64 (complex). */
inline std::complex<double>
ddc_sample64(gr::gpudsp::kernels::ddc_input f, const std::vector<uint8_t>& in, int64_t i)
{
    using gr::gpudsp::kernels::ddc_input;
    switch (f) {
    case ddc_input::packed10:
        return double(gr::gpudsp::kernels::packed10_sample(in.data(), i));
    case ddc_input::int16: {
        int16_t v;
        std::memcpy(&v, in.data() + 2 * i, 2);
        return double(v);
    }
    case ddc_input::float32: {
        float v;
        std::memcpy(&v, in.data() + 4 * i, 4);
        return double(v);
    }
    case ddc_input::complex64:
        break;
    }
    float v[2];
    std::memcpy(v, in.data() + 8 * i, 8);
    return { double(v[0]), double(v[1]) };
}

/*!
 * The definition in float64 with the exact 64-bit phase (docs/ddc.md):
 * outputs first_output .. + n of \p plan's configuration and phase, output
 * i reading samples first + i D .. first + i D + T - 1 of \p in (its newest
 * being stream sample (first_output + i) D):
 *   y = exp(-2j pi phi((first_output + i) D)) sum_k h[k] exp(+2j pi phi_step(k)) x[newest
 * - k].
 */
inline std::vector<std::complex<double>>
ddc_reference64(const gr::gpudsp::kernels::ddc_plan& plan,
                const std::vector<uint8_t>& in,
                int64_t first,
                uint64_t first_output,
                std::size_t n)
{
    const auto& c = plan.config();
    const auto& ph = plan.phase();
    const int T = int(c.taps.size()), D = c.decimation;
    auto turn = [](uint64_t phase) { // exp(+2j pi phase / 2^64)
        return std::polar(1.0, 2 * M_PI * double(int64_t(phase)) * 0x1p-64);
    };
    std::vector<std::complex<double>> z(T), y(n);
    for (int k = 0; k < T; ++k)
        z[k] = c.taps[k] * turn(ph.step * uint64_t(k));
    for (std::size_t i = 0; i < n; ++i) {
        const int64_t newest = first + int64_t(i) * D + T - 1;
        std::complex<double> acc = 0;
        for (int k = 0; k < T; ++k)
            acc += z[k] * ddc_sample64(c.input, in, newest - k);
        y[i] = acc * std::conj(turn(ph.at((first_output + i) * uint64_t(D))));
    }
    return y;
}

/*! max |a - b| / max |b| against a float64 reference: the error in units of
 *  its full scale (issue 52: within 1e-5). */
inline double ddc_err64(const std::vector<std::complex<float>>& a,
                        const std::vector<std::complex<double>>& b)
{
    double num = 0, den = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        num = std::max(num, std::abs(std::complex<double>(a[i]) - b[i]));
        den = std::max(den, std::abs(b[i]));
    }
    return num / den;
}

/*! max |a - b| / max |b|: the error relative to the reference's peak. */
inline double ddc_rel_err(const std::vector<std::complex<float>>& a,
                          const std::vector<std::complex<float>>& b)
{
    // (squared magnitudes, one square root at the end: std::abs is a hypot,
    // and the GPU tests compare millions of outputs)
    double num = 0, den = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const double dr = double(a[i].real()) - b[i].real();
        const double di = double(a[i].imag()) - b[i].imag();
        const double br = b[i].real(), bi = b[i].imag();
        num = std::max(num, dr * dr + di * di);
        den = std::max(den, br * br + bi * bi);
    }
    return std::sqrt(num / den);
}

} // namespace qa

#endif
