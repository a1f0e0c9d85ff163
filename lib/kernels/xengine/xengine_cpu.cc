/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The X-engine on the CPU: per spectrum and channel, the lower triangle of
// x x^H. ci8 is exact: the products are summed in int32 partials (as on the
// GPU, in wrap-around uint32 arithmetic, so a promotion the plan failed to
// schedule gives a wrong result rather than undefined behaviour) and
// promoted into int64 totals; cf32 is summed in float64. The inner loop runs
// over the second input of a pair and vectorises. The reference the GPU
// kernels are tested against, and the fallback without a GPU.

#include "xengine_impl.h"
#include <type_traits>
#include <complex>
#include <vector>

namespace gr {
namespace gpudsp {
namespace kernels {

namespace {

// Acc: the totals (int64 for ci8, double for cf32); Part: what one spectrum's
// products are summed in (uint32 holding int32 for ci8, double for cf32).
template <typename Acc, typename Part>
class xengine_cpu : public xengine_plan::impl
{
public:
    static constexpr bool ci8 = std::is_same<Acc, int64_t>::value;
    using Value = typename std::conditional<ci8, int32_t, double>::type;

    explicit xengine_cpu(const xengine_config& c)
        : d_c(c),
          d_pairs(std::size_t(c.n_inputs()) * (c.n_inputs() + 1) / 2),
          d_re(std::size_t(c.n_channels) * d_pairs, 0),
          d_im(std::size_t(c.n_channels) * d_pairs, 0),
          d_part_re(ci8 ? d_re.size() : 0, 0),
          d_part_im(ci8 ? d_im.size() : 0, 0),
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
                Part* re = sums_re() + std::size_t(c) * d_pairs;
                Part* im = sums_im() + std::size_t(c) * d_pairs;
                for (int a = 0; a < A; ++a) {
                    const Value ar = d_xr[a], ai = d_xi[a];
                    const std::size_t row = xengine_tri(a, 0);
                    // x_a conj(x_b) = (ar br + ai bi) + i (ai br - ar bi)
                    for (int b = 0; b <= a; ++b) {
                        re[row + b] += Part(ar * d_xr[b] + ai * d_xi[b]);
                        im[row + b] += Part(ai * d_xr[b] - ar * d_xi[b]);
                    }
                }
            }
        }
    }

    void promote(runtime::stream_handle) override
    {
        if (!ci8)
            return;
        for (std::size_t k = 0; k < d_re.size(); ++k) {
            d_re[k] += Acc(int32_t(d_part_re[k]));
            d_im[k] += Acc(int32_t(d_part_im[k]));
        }
        std::fill(d_part_re.begin(), d_part_re.end(), 0u);
        std::fill(d_part_im.begin(), d_part_im.end(), 0u);
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
    // Where a spectrum's products go: the int32 partials for ci8, the
    // float64 totals for cf32.
    Part* sums_re()
    {
        if constexpr (ci8)
            return d_part_re.data();
        else
            return d_re.data();
    }
    Part* sums_im()
    {
        if constexpr (ci8)
            return d_part_im.data();
        else
            return d_im.data();
    }

    void load(const void* spectra, std::size_t t, int c)
    {
        const int A = d_c.n_inputs();
        const std::size_t base = (t * d_c.n_channels + c) * A;
        if (ci8) {
            const auto* x = static_cast<const int8_t*>(spectra) + 2 * base;
            for (int a = 0; a < A; ++a) {
                d_xr[a] = Value(x[2 * a]);
                d_xi[a] = Value(x[2 * a + 1]);
            }
        } else {
            const auto* x = static_cast<const float*>(spectra) + 2 * base;
            for (int a = 0; a < A; ++a) {
                d_xr[a] = Value(x[2 * a]);
                d_xi[a] = Value(x[2 * a + 1]);
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
    std::vector<Acc> d_re, d_im;                // totals (cf32: the only sums)
    std::vector<uint32_t> d_part_re, d_part_im; // ci8 partials (int32 bits)
    std::vector<Value> d_xr, d_xi;
};

} // namespace

std::unique_ptr<xengine_plan::impl> make_xengine_cpu(const xengine_config& config)
{
    if (config.input == xengine_input::ci8)
        return std::make_unique<xengine_cpu<int64_t, uint32_t>>(config);
    return std::make_unique<xengine_cpu<double, double>>(config);
}

} // namespace kernels
} // namespace gpudsp
} // namespace gr
