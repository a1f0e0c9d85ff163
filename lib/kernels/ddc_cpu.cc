/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The DDC on the CPU: decode the span the outputs need once (complex input
// is read in place), then per kept output one VOLK dot product with the
// reversed premultiplied taps and one rotation from the exact 64-bit phase.
// The reference for the GPU kernel and the fallback without a GPU.

#include "ddc_impl.h"
#include "fengine_math.h"
#include <gnuradio/gpudsp/kernels/unpack10.h>
#include <volk/volk.h>
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
        // Reversed, so output m reads x[mD - T + 1 + j] against zr[j]; split
        // into parts too, for the real-input loop.
        d_zr.assign(z.rbegin(), z.rend());
        d_zre.resize(z.size());
        d_zim.resize(z.size());
        for (std::size_t j = 0; j < z.size(); ++j) {
            d_zre[j] = d_zr[j].real();
            d_zim[j] = d_zr[j].imag();
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
        const lv_32fc_t* z = d_zr.data();
        const lv_32fc_t* xc = nullptr;
        if (d_c.complex_input())
            xc = static_cast<const lv_32fc_t*>(in) + first_sample;
        else
            decode(in, first_sample, (n - 1) * std::size_t(D) + T);
        auto* y = static_cast<std::complex<float>*>(out);
        for (std::size_t m = 0; m < n; ++m) {
            lv_32fc_t acc;
            if (xc)
                volk_32fc_x2_dot_prod_32fc(&acc, xc + m * D, z, T);
            else
                acc = dot_real(d_xr.data() + m * D, T);
            const uint64_t p = phase.at((first_output + m) * uint64_t(D));
            const double angle = -2 * M_PI * (double(int64_t(p)) * 0x1p-64);
            y[m] =
                acc * std::complex<float>(float(std::cos(angle)), float(std::sin(angle)));
        }
    }

private:
    // Complex taps against real samples. (VOLK's volk_32fc_32f_dot_prod_32fc
    // crashed in its AVX kernels with VOLK 2.5 here; this loop vectorises.)
    __attribute__((target_clones("avx2", "default"))) lv_32fc_t dot_real(const float* x,
                                                                         int T) const
    {
        const float* zre = d_zre.data();
        const float* zim = d_zim.data();
        float re = 0, im = 0;
        for (int j = 0; j < T; ++j) {
            re += zre[j] * x[j];
            im += zim[j] * x[j];
        }
        return { re, im };
    }

    // Real samples [first, first + n) as floats into d_xr.
    void decode(const void* in, int64_t first, std::size_t n)
    {
        d_xr.resize(n);
        switch (d_c.input) {
        case ddc_input::complex64: // read in place, never decoded
            break;
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
    std::vector<lv_32fc_t> d_zr;
    std::vector<float> d_zre, d_zim, d_xr;
};

} // namespace

std::unique_ptr<ddc_plan::impl> make_ddc_cpu(const ddc_config& config)
{
    return std::make_unique<ddc_cpu>(config);
}

} // namespace kernels
} // namespace gpudsp
} // namespace gr
