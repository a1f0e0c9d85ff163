/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The X-engine on the CPU: per spectrum and channel, the lower triangle of
// x x^H, exact in 64-bit integers for ci8 and in float64 for cf32. The inner
// loop runs over the second input of a pair and vectorises. The reference the
// GPU kernels are tested against, and the fallback without a GPU.

#include "xengine_impl.h"
#include <complex>
#include <vector>

namespace gr {
namespace gpudsp {
namespace kernels {

namespace {

template <typename Acc>
class xengine_cpu : public xengine_plan::impl
{
public:
    explicit xengine_cpu(const xengine_config& c)
        : d_c(c),
          d_pairs(std::size_t(c.n_inputs()) * (c.n_inputs() + 1) / 2),
          d_re(std::size_t(c.n_channels) * d_pairs, 0),
          d_im(std::size_t(c.n_channels) * d_pairs, 0),
          d_xr(c.n_inputs()),
          d_xi(c.n_inputs())
    {
    }

    std::string kernel_name() const override { return "cpu"; }

    void accumulate(const void* spectra, std::size_t n, runtime::stream_handle) override
    {
        const int A = d_c.n_inputs();
        for (std::size_t t = 0; t < n; ++t) {
            for (int c = 0; c < d_c.n_channels; ++c) {
                load(spectra, t, c);
                Acc* re = d_re.data() + std::size_t(c) * d_pairs;
                Acc* im = d_im.data() + std::size_t(c) * d_pairs;
                for (int a = 0; a < A; ++a) {
                    const Acc ar = d_xr[a], ai = d_xi[a];
                    const std::size_t row = xengine_tri(a, 0);
                    // x_a conj(x_b) = (ar br + ai bi) + i (ai br - ar bi)
                    for (int b = 0; b <= a; ++b) {
                        re[row + b] += ar * d_xr[b] + ai * d_xi[b];
                        im[row + b] += ai * d_xr[b] - ar * d_xi[b];
                    }
                }
            }
        }
    }

    void dump(void* out, uint64_t* saturated, runtime::stream_handle) override
    {
        const int S = d_c.n_stations, P = d_c.n_pols;
        uint64_t count = 0;
        std::size_t o = 0;
        for (int c = 0; c < d_c.n_channels; ++c) {
            const Acc* re = d_re.data() + std::size_t(c) * d_pairs;
            const Acc* im = d_im.data() + std::size_t(c) * d_pairs;
            for (int i = 0; i < S; ++i)
                for (int j = 0; j <= i; ++j)
                    for (int p = 0; p < P; ++p)
                        for (int q = 0; q < P; ++q, ++o) {
                            const int a = i * P + p, b = j * P + q;
                            const std::size_t k =
                                a >= b ? xengine_tri(a, b) : xengine_tri(b, a);
                            const Acc vr = re[k];
                            const Acc vi = a >= b ? im[k] : -im[k];
                            write(out, o, vr, vi, count);
                        }
        }
        if (saturated)
            *saturated = count;
        std::fill(d_re.begin(), d_re.end(), Acc(0));
        std::fill(d_im.begin(), d_im.end(), Acc(0));
    }

private:
    void load(const void* spectra, std::size_t t, int c)
    {
        const int A = d_c.n_inputs();
        const std::size_t base = (t * d_c.n_channels + c) * A;
        if (d_c.input == xengine_input::ci8) {
            const auto* x = static_cast<const int8_t*>(spectra) + 2 * base;
            for (int a = 0; a < A; ++a) {
                d_xr[a] = Acc(x[2 * a]);
                d_xi[a] = Acc(x[2 * a + 1]);
            }
        } else {
            const auto* x = static_cast<const float*>(spectra) + 2 * base;
            for (int a = 0; a < A; ++a) {
                d_xr[a] = Acc(x[2 * a]);
                d_xi[a] = Acc(x[2 * a + 1]);
            }
        }
    }

    void write(void* out, std::size_t o, Acc vr, Acc vi, uint64_t& count) const
    {
        if (d_c.output == xengine_output::ci32) {
            auto* v = static_cast<int32_t*>(out) + 2 * o;
            bool clamped = false; // one saturated visibility, whichever part
            v[0] = saturate_int32(int64_t(vr), clamped);
            v[1] = saturate_int32(int64_t(vi), clamped);
            count += clamped;
        } else {
            auto* v = static_cast<float*>(out) + 2 * o;
            v[0] = float(vr);
            v[1] = float(vi);
        }
    }

    xengine_config d_c;
    std::size_t d_pairs;
    std::vector<Acc> d_re, d_im;
    std::vector<Acc> d_xr, d_xi;
};

} // namespace

std::unique_ptr<xengine_plan::impl> make_xengine_cpu(const xengine_config& config)
{
    if (config.input == xengine_input::ci8)
        return std::make_unique<xengine_cpu<int64_t>>(config);
    return std::make_unique<xengine_cpu<double>>(config);
}

} // namespace kernels
} // namespace gpudsp
} // namespace gr
