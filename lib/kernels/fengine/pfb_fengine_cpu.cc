/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The F-engine on the CPU: decode, polyphase FIR (the inner loop over the
// 2N columns vectorises), FFTW r2c/c2c in batches, then corrections and
// quantisation into [spectrum][channel][input] order. It is the reference
// the CUDA backend is tested against, and the fallback without a GPU.

#include "fengine_math.h"
#include "kernels/common/packed10.h"
#include "pfb_fengine_impl.h"
#include <gnuradio/gpudsp/kernels/unpack10.h>
#include <gnuradio/gpudsp/runtime/cpu_simd.h>
#include <fftw3.h>
#include <immintrin.h>
#include <algorithm>
#include <cmath>
#include <mutex>
#include <stdexcept>

namespace gr {
namespace gpudsp {
namespace kernels {

namespace {

// FFTW's planner is not thread-safe.
std::mutex& fftw_planner_mutex()
{
    static std::mutex m;
    return m;
}

template <typename T>
struct fftw_deleter {
    void operator()(T* p) const { fftwf_free(p); }
};
template <typename T>
using fftw_array = std::unique_ptr<T[], fftw_deleter<T>>;

template <typename T>
fftw_array<T> fftw_alloc(std::size_t n)
{
    auto* p = static_cast<T*>(fftwf_malloc(sizeof(T) * std::max<std::size_t>(n, 1)));
    if (!p)
        throw std::bad_alloc();
    return fftw_array<T>(p);
}

class fengine_cpu : public fengine_plan::impl
{
public:
    // Spectra per batch: one decode of the batch's span of input (the
    // windows of neighbouring spectra overlap by T - 1 steps) and one FFTW
    // call.
    static constexpr int batch = 32;

    fengine_cpu(const fengine_config& c, const std::vector<float>& w)
        : d_c(c),
          d_w(w),
          d_step(c.step()),
          d_fir(fftw_alloc<float>(std::size_t(batch) * d_step *
                                  (c.complex_input() ? 2 : 1))),
          d_spec(fftw_alloc<fftwf_complex>(std::size_t(batch) * (c.n_channels + 1))),
          d_samples((std::size_t(batch - 1) * c.step() + c.window()) *
                    (c.complex_input() ? 2 : 1)),
          d_phasor(std::size_t(c.n_channels)),
          d_post(2 * std::size_t(c.n_channels)),
          d_quant(2 * std::size_t(c.n_channels))
    {
        std::lock_guard<std::mutex> lock(fftw_planner_mutex());
        int n = d_step;
        if (c.complex_input()) {
            auto* in = reinterpret_cast<fftwf_complex*>(d_fir.get());
            d_plan = fftwf_plan_many_dft(1,
                                         &n,
                                         batch,
                                         in,
                                         nullptr,
                                         1,
                                         n,
                                         d_spec.get(),
                                         nullptr,
                                         1,
                                         c.n_channels + 1,
                                         FFTW_FORWARD,
                                         FFTW_ESTIMATE);
        } else {
            d_plan = fftwf_plan_many_dft_r2c(1,
                                             &n,
                                             batch,
                                             d_fir.get(),
                                             nullptr,
                                             1,
                                             n,
                                             d_spec.get(),
                                             nullptr,
                                             1,
                                             c.n_channels + 1,
                                             FFTW_ESTIMATE);
        }
        if (!d_plan)
            throw std::runtime_error("pfb_fengine: FFTW could not plan a transform of " +
                                     std::to_string(n) + " points");
    }

    ~fengine_cpu() override
    {
        std::lock_guard<std::mutex> lock(fftw_planner_mutex());
        fftwf_destroy_plan(d_plan);
    }

    void set_rotations(const std::vector<std::complex<float>>& rot) override
    {
        d_rot = rot;
    }
    void set_drift(const std::vector<float>& rates, uint64_t reference) override
    {
        // (delay rate, phase rate in half turns) per input, as the GPU keeps it.
        d_drift.assign(rates.begin(), rates.end());
        for (std::size_t j = 1; j < d_drift.size(); j += 2)
            d_drift[j] /= M_PI;
        d_reference = reference;
    }

    void execute(const std::vector<fengine_input_view>& inputs,
                 void* out,
                 uint32_t* saturation,
                 std::size_t n_spectra,
                 uint64_t first_spectrum,
                 runtime::stream_handle) override
    {
        if (saturation)
            std::fill(saturation, saturation + n_spectra * d_c.n_inputs, 0u);
        for (int i = 0; i < d_c.n_inputs; ++i) {
            for (std::size_t s0 = 0; s0 < n_spectra; s0 += batch) {
                const int nb = int(std::min<std::size_t>(batch, n_spectra - s0));
                decode_span(inputs[i],
                            inputs[i].first_sample + int64_t(s0) * d_step,
                            std::size_t(nb - 1) * d_step + d_c.window());
                for (int b = 0; b < nb; ++b)
                    fir(b);
                for (int b = nb; b < batch; ++b) // keep the unused tail finite
                    std::fill_n(fir_row(b), row_floats(), 0.0f);
                if (d_c.complex_input())
                    fftwf_execute_dft(d_plan,
                                      reinterpret_cast<fftwf_complex*>(d_fir.get()),
                                      d_spec.get());
                else
                    fftwf_execute_dft_r2c(d_plan, d_fir.get(), d_spec.get());
                for (int b = 0; b < nb; ++b)
                    post(i, s0 + b, b, out, saturation, first_spectrum);
            }
        }
    }

private:
    // The plain product (std::complex's operator* also handles inf/NaN
    // cases, which keeps the loop from vectorising).
    static std::complex<float> multiply(std::complex<float> a, std::complex<float> b)
    {
        return { a.real() * b.real() - a.imag() * b.imag(),
                 a.real() * b.imag() + a.imag() * b.real() };
    }

    int row_floats() const { return d_step * (d_c.complex_input() ? 2 : 1); }
    float* fir_row(int b) { return d_fir.get() + std::size_t(b) * row_floats(); }

    // Samples [first, first + n) of one input as floats (pairs for complex).
    void decode_span(const fengine_input_view& v, int64_t first, std::size_t n)
    {
        float* dst = d_samples.data();
        switch (d_c.input) {
        case fengine_input::packed10: {
            const auto* p = static_cast<const uint8_t*>(v.data);
            std::size_t j = 0;
            for (; j < n && (first + int64_t(j)) % 4 != 0; ++j) // up to a group boundary
                dst[j] = float(packed10_sample(p, first + j));
            if (j < n)
                unpack10_cpu(p + (first + int64_t(j)) / 4 * 5, dst + j, n - j);
            break;
        }
        case fengine_input::int16: {
            const auto* p = static_cast<const int16_t*>(v.data) + first;
            for (std::size_t j = 0; j < n; ++j)
                dst[j] = float(p[j]);
            break;
        }
        case fengine_input::float32:
            std::copy_n(static_cast<const float*>(v.data) + first, n, dst);
            break;
        case fengine_input::complex64:
            std::copy_n(static_cast<const float*>(v.data) + 2 * first, 2 * n, dst);
            break;
        }
    }

    // Row b of the batch: y[j] = sum_t w[t*step + j] * x[(b + t)*step + j]
    // (complex: the same real weight on both parts).
    void fir(int b)
    {
        fir_row_kernel(fir_row(b),
                       d_samples.data() + std::size_t(b) * row_floats(),
                       d_w.data(),
                       row_floats(),
                       d_step,
                       d_c.n_taps,
                       d_c.complex_input());
    }

    // Columns in blocks that stay in registers/L1 across the taps; built
    // for AVX2+FMA too and picked at run time (the module is compiled for
    // the baseline x86-64 ISA).
    __attribute__((target_clones("avx2", "default"))) static void fir_row_kernel(
        float* y, const float* x, const float* w, int cols, int step, int taps, bool cplx)
    {
        constexpr int block = 64;
        for (int j0 = 0; j0 < cols; j0 += block) {
            const int n = std::min(block, cols - j0);
            float acc[block] = {};
            for (int t = 0; t < taps; ++t) {
                const float* xt = x + std::size_t(t) * cols + j0;
                const float* wt = w + std::size_t(t) * step;
                if (cplx)
                    for (int j = 0; j < n; ++j)
                        acc[j] += wt[(j0 + j) >> 1] * xt[j];
                else
                    for (int j = 0; j < n; ++j)
                        acc[j] += wt[j0 + j] * xt[j];
            }
            std::copy_n(acc, n, y + j0);
        }
    }

    void post(int i,
              std::size_t s,
              int b,
              void* out,
              uint32_t* saturation,
              uint64_t first_spectrum)
    {
        const int N = d_c.n_channels, I = d_c.n_inputs;
        const auto* X = reinterpret_cast<const std::complex<float>*>(d_spec.get()) +
                        std::size_t(b) * (N + 1);
        const std::size_t base = s * N * I + i;
        const std::complex<float>* drift =
            d_drift.empty() ? nullptr : drift_phasors(i, first_spectrum + s);
        auto rotated = [&](int k) {
            const std::complex<float> r = multiply(X[k], d_rot[std::size_t(k) * I + i]);
            return drift ? multiply(r, drift[k]) : r;
        };
        if (d_c.output == fengine_output::cf32) {
            auto* o = static_cast<std::complex<float>*>(out) + base;
            for (int k = 0; k < N; ++k)
                o[std::size_t(k) * I] = rotated(k);
            return;
        }
        // Rotate (and dither) into a contiguous block of floats, quantise it
        // without branches, then scatter to the [channel][input] layout.
        float* v = d_post.data();
        for (int k = 0; k < N; ++k) {
            const std::complex<float> r = rotated(k);
            v[2 * k] = r.real();
            v[2 * k + 1] = r.imag();
        }
        if (d_c.dither)
            for (int k = 0; k < N; ++k) {
                float dr, di;
                fmath::dither_pair(d_c.dither_seed, first_spectrum + s, k, i, dr, di);
                v[2 * k] += dr;
                v[2 * k + 1] += di;
            }
        int8_t* q = d_quant.data();
        const uint32_t sat = quantise_block(v, q, N);
        auto* o = static_cast<int8_t*>(out) + 2 * base;
        for (int k = 0; k < N; ++k) {
            o[2 * std::size_t(k) * I] = q[2 * k];
            o[2 * std::size_t(k) * I + 1] = q[2 * k + 1];
        }
        if (saturation)
            saturation[s * I + i] = sat;
    }

    // exp(1j pi fmath::drift_halfturns) of input i in absolute spectrum m, for every
    // channel: the phase is linear in the (signed) channel index, so a
    // sincos every 64 channels (and where the signed index jumps) and
    // double-precision products between.
    const std::complex<float>* drift_phasors(int i, uint64_t m)
    {
        const int N = d_c.n_channels;
        const auto axis = channel_axis_of(d_c);
        const double rd = d_drift[2 * i], rp = d_drift[2 * i + 1];
        const double d = double(int64_t(m - d_reference));
        // The phase step from one channel to the next (the signed index
        // grows by one, except where natural complex order jumps to -N/2).
        const std::complex<double> step =
            std::polar(1.0,
                       M_PI *
                           fmath::drift_halfturns<double>(
                               rd, 0.0, d, 1, N, fmath::channel_axis::real) *
                           fmath::delay_slope_halfturns_numerator(axis));
        std::complex<double> p;
        for (int k = 0; k < N; ++k) {
            if (k % 64 == 0 ||
                (axis == fmath::channel_axis::complex_natural && k == N / 2))
                p = std::polar(
                    1.0, M_PI * fmath::drift_halfturns<double>(rd, rp, d, k, N, axis));
            else
                p *= step;
            d_phasor[k] = std::complex<float>(p);
        }
        return d_phasor.data();
    }

    // n complex values: round half to even, clamp to +-127 (fmath::quantise's
    // rule); returns how many values had a part clamped. GCC does not
    // vectorise the float -> int8 loop, so the AVX2 path is written out.
    static uint32_t quantise_block(const float* v, int8_t* q, int n)
    {
        static const bool avx2 = runtime::cpu_use_avx2();
        return avx2 ? quantise_avx2(v, q, n) : quantise_scalar(v, q, 0, n);
    }

    static uint32_t quantise_scalar(const float* v, int8_t* q, int k0, int n)
    {
        uint32_t sat = 0;
        for (int k = k0; k < n; ++k) {
            bool clamped = false;
            for (int p = 2 * k; p < 2 * k + 2; ++p) {
                const float x = v[p];
                clamped |= x > 127.0f || x < -127.0f;
                const float c = std::min(std::max(x, -127.0f), 127.0f);
                q[p] = int8_t(int((c + 12582912.0f) - 12582912.0f));
            }
            sat += clamped;
        }
        return sat;
    }

    __attribute__((target("avx2"))) static uint32_t
    quantise_avx2(const float* v, int8_t* q, int n)
    {
        const __m256 lo = _mm256_set1_ps(-127.0f), hi = _mm256_set1_ps(127.0f);
        uint32_t sat = 0;
        int k = 0;
        for (; k + 4 <= n; k += 4) { // 4 complex values = 8 floats
            const __m256 x = _mm256_loadu_ps(v + 2 * k);
            const __m256 c = _mm256_min_ps(_mm256_max_ps(x, lo), hi);
            const unsigned changed =
                unsigned(_mm256_movemask_ps(_mm256_cmp_ps(x, c, _CMP_NEQ_UQ)));
            sat += unsigned(__builtin_popcount((changed | (changed >> 1)) & 0x55u));
            // Round half to even (the current MXCSR mode), then narrow.
            const __m256i i = _mm256_cvtps_epi32(
                _mm256_round_ps(c, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
            const __m128i p16 = _mm_packs_epi32(_mm256_castsi256_si128(i),
                                                _mm256_extracti128_si256(i, 1));
            _mm_storel_epi64(reinterpret_cast<__m128i*>(q + 2 * k),
                             _mm_packs_epi16(p16, p16));
        }
        return sat + quantise_scalar(v, q, k, n);
    }

    fengine_config d_c;
    std::vector<float> d_w;
    int d_step;
    fftw_array<float> d_fir;
    fftw_array<fftwf_complex> d_spec;
    std::vector<float> d_samples;
    std::vector<std::complex<float>> d_rot;
    std::vector<double> d_drift; // [input] (delay rate, phase rate / pi); empty: none
    uint64_t d_reference = 0;
    std::vector<std::complex<float>> d_phasor; // one spectrum's drift
    std::vector<float> d_post;   // one spectrum, rotated, as float pairs
    std::vector<int8_t> d_quant; // the same, quantised
    fftwf_plan d_plan = nullptr;
};

} // namespace

std::unique_ptr<fengine_plan::impl> make_fengine_cpu(const fengine_config& config,
                                                     const std::vector<float>& weights)
{
    return std::make_unique<fengine_cpu>(config, weights);
}

} // namespace kernels
} // namespace gpudsp
} // namespace gr
