/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The DDC on the CPU: decode the span the outputs need once, then per kept
// output one complex dot product with the reversed premultiplied taps (the
// loops vectorise; an AVX2 clone is picked at run time) and one rotation
// from the exact 64-bit phase. The reference for the GPU kernel and the
// fallback without a GPU.

#include "ddc_impl.h"
#include "fengine_math.h"
#include <gnuradio/gpudsp/kernels/unpack10.h>
#include <algorithm>
#include <cmath>

namespace gr {
namespace gpudsp {
namespace kernels {

namespace {

class ddc_cpu : public ddc_plan::impl
{
public:
    explicit ddc_cpu(const ddc_config& c) : d_c(c) {}

    void set_taps(const std::vector<std::complex<float>>& z) override
    {
        // Reversed, so output m reads x[mD - T + 1 + j] against zr[j].
        const std::size_t T = z.size();
        d_zr.resize(T);
        d_zi.resize(T);
        for (std::size_t j = 0; j < T; ++j) {
            d_zr[j] = z[T - 1 - j].real();
            d_zi[j] = z[T - 1 - j].imag();
        }
    }

    void execute(const void* in,
                 int64_t first_sample,
                 uint64_t first_output,
                 std::size_t n,
                 void* out,
                 const mixer_phase& phase,
                 runtime::stream_handle) override
    {
        const int T = int(d_zr.size()), D = d_c.decimation;
        const std::size_t span = (n - 1) * std::size_t(D) + T;
        decode(in, first_sample, span);
        auto* y = static_cast<std::complex<float>*>(out);
        const bool cplx = d_c.complex_input();
        for (std::size_t m = 0; m < n; ++m) {
            float re, im;
            if (cplx)
                dot_complex(d_xr.data() + m * D, d_xi.data() + m * D, T, re, im);
            else
                dot_real(d_xr.data() + m * D, T, re, im);
            const uint64_t p = phase.at((first_output + m) * uint64_t(D));
            const double angle = -2 * M_PI * (double(int64_t(p)) * 0x1p-64);
            const float c = float(std::cos(angle)), s = float(std::sin(angle));
            y[m] = { re * c - im * s, re * s + im * c };
        }
    }

private:
    __attribute__((target_clones("avx2", "default"))) void
    dot_real(const float* x, int T, float& re, float& im) const
    {
        float a = 0, b = 0;
        const float* zr = d_zr.data();
        const float* zi = d_zi.data();
        for (int j = 0; j < T; ++j) {
            a += zr[j] * x[j];
            b += zi[j] * x[j];
        }
        re = a;
        im = b;
    }

    __attribute__((target_clones("avx2", "default"))) void
    dot_complex(const float* xr, const float* xi, int T, float& re, float& im) const
    {
        float a = 0, b = 0;
        const float* zr = d_zr.data();
        const float* zi = d_zi.data();
        for (int j = 0; j < T; ++j) {
            a += zr[j] * xr[j] - zi[j] * xi[j];
            b += zr[j] * xi[j] + zi[j] * xr[j];
        }
        re = a;
        im = b;
    }

    // Samples [first, first + n) into d_xr (and d_xi for complex input).
    void decode(const void* in, int64_t first, std::size_t n)
    {
        d_xr.resize(n);
        switch (d_c.input) {
        case ddc_input::complex64: {
            d_xi.resize(n);
            const auto* p = static_cast<const float*>(in) + 2 * first;
            for (std::size_t j = 0; j < n; ++j) {
                d_xr[j] = p[2 * j];
                d_xi[j] = p[2 * j + 1];
            }
            break;
        }
        case ddc_input::float32:
            std::copy_n(static_cast<const float*>(in) + first, n, d_xr.data());
            break;
        case ddc_input::int16: {
            const auto* p = static_cast<const int16_t*>(in) + first;
            for (std::size_t j = 0; j < n; ++j)
                d_xr[j] = float(p[j]);
            break;
        }
        case ddc_input::packed10: {
            const auto* p = static_cast<const uint8_t*>(in);
            std::size_t j = 0;
            for (; j < n && (first + int64_t(j)) % 4 != 0; ++j) // up to a group boundary
                d_xr[j] = float(fmath::packed10_sample(p, first + j));
            if (j < n)
                unpack10_cpu(p + (first + int64_t(j)) / 4 * 5, d_xr.data() + j, n - j);
            break;
        }
        }
    }

    ddc_config d_c;
    std::vector<float> d_zr, d_zi, d_xr, d_xi;
};

} // namespace

std::unique_ptr<ddc_plan::impl> make_ddc_cpu(const ddc_config& config)
{
    return std::make_unique<ddc_cpu>(config);
}

} // namespace kernels
} // namespace gpudsp
} // namespace gr
