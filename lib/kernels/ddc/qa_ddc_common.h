/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// What the DDC's C++ tests share: a configuration with random taps (complex
// for complex input, else real) and random input bytes of a format.

#ifndef INCLUDED_GPUDSP_QA_DDC_COMMON_H
#define INCLUDED_GPUDSP_QA_DDC_COMMON_H

#include "runtime/qa_common.h"
#include <gnuradio/gpudsp/kernels/ddc.h>
#include <gnuradio/gpudsp/kernels/unpack10.h>
#include <algorithm>
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

/*! max |a - b| / max |b|: the error relative to the reference's peak. */
inline double ddc_rel_err(const std::vector<std::complex<float>>& a,
                          const std::vector<std::complex<float>>& b)
{
    double num = 0, den = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        num = std::max(num, double(std::abs(a[i] - b[i])));
        den = std::max(den, double(std::abs(b[i])));
    }
    return num / den;
}

} // namespace qa

#endif
