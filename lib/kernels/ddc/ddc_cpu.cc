/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The DDC on the CPU. Kept outputs are computed B at a time with the taps
// in SIMD vectors: each tap vector is loaded once for the B outputs
// (polyphase register blocking: outputs m .. m+B-1 read the same taps at
// input offsets D apart) and every output's accumulators stay in registers.
// Two forms of the same definition (docs/ddc.md):
//  - premultiplied complex taps z against the input (real input decoded to
//    float once; complex input with complex taps), then one rotation per
//    output from the exact 64-bit phase (ddc_cpu_mix.h, vectorised over
//    outputs): 2 multiply-adds per tap for real input, 4 for complex;
//  - complex input with real taps: mix first (ddc_cpu_mix.h: the input
//    times the exact carrier, tile by tile, planar), then the real taps
//    against its real and imaginary parts: 2 multiply-adds per tap and no
//    rotation per output, for about 2 mixer operations per input sample.
// One body for 16, 8 and 4 float lanes (AVX-512, AVX2 and the x86-64
// baseline), chosen at run time (runtime/cpu_simd.h).
//
// Every output is computed by the same instructions in the same order
// whichever block it falls in, so a stream cut anywhere gives the same bits.
// The reference for the GPU kernel and the fallback without a GPU.

#include "ddc_cpu_layout.h"
#include "ddc_cpu_mix.h"
#include "ddc_impl.h"
#include "kernels/common/packed10.h"
#include <gnuradio/gpudsp/kernels/unpack10.h>
#include <gnuradio/gpudsp/runtime/cpu_simd.h>
#include <algorithm>
#include <cstring>
#include <optional>
#include <utility>

namespace gr {
namespace gpudsp {
namespace kernels {

namespace {

#define DDC_INLINE inline __attribute__((always_inline))

typedef float f2 __attribute__((vector_size(8)));
typedef float f4 __attribute__((vector_size(16)));
typedef float f8 __attribute__((vector_size(32)));
typedef float f16 __attribute__((vector_size(64)));

// (Vectors are taken and given by reference: always inlined into a
// function of the right target, they never cross an ABI boundary.)

// Outputs per block: 2B accumulators plus two tap vectors and a sample
// stay within the 16 (AVX2) or 32 (AVX-512) vector registers. Real input
// takes 6: its loop issues a multiply-add pair per sample loaded and is
// bound by the FP micro-ops per tap, so sharing each tap vector among more
// outputs (fewer tap loads) gained 5-7% on an AVX2 Zen 3 core; complex
// input, mixed first or not, gained nothing and keeps 4.
constexpr int block_outputs = 4;
constexpr int real_block_outputs = 6;

// The lower and upper halves of v, added, down to two lanes: a fixed
// order, so every output's horizontal sum is the same operations.
DDC_INLINE void fold_to_two(const f2& v, f2& r) { r = v; }
DDC_INLINE void fold_to_two(const f4& v, f2& r)
{
    fold_to_two(__builtin_shufflevector(v, v, 0, 1) + __builtin_shufflevector(v, v, 2, 3), r);
}
DDC_INLINE void fold_to_two(const f8& v, f2& r)
{
    fold_to_two(__builtin_shufflevector(v, v, 0, 1, 2, 3) +
                    __builtin_shufflevector(v, v, 4, 5, 6, 7),
                r);
}
DDC_INLINE void fold_to_two(const f16& v, f2& r)
{
    fold_to_two(__builtin_shufflevector(v, v, 0, 1, 2, 3, 4, 5, 6, 7) +
                    __builtin_shufflevector(v, v, 8, 9, 10, 11, 12, 13, 14, 15),
                r);
}

// Lanes (a, b) -> (b, a): for the complex-input sum below.
template <std::size_t... I, class V>
DDC_INLINE void swap_pairs(const V& v, V& r, std::index_sequence<I...>)
{
    r = __builtin_shufflevector(v, v, (I ^ 1)...);
}

template <class V>
DDC_INLINE void load(V& v, const float* p)
{
    std::memcpy(&v, p, sizeof v); // any alignment
}

// B kept outputs: output i's window starts at x + i * stride floats. Real
// input: acc_a sums zre * x, acc_b zim * x. Complex input (interleaved
// I/Q; taps duplicated per lane pair): acc_a sums (zr xr, zr xi), acc_b
// (zi xr, zi xi), so y = (sum a_even - b_odd, sum a_odd + b_even) with no
// shuffle in the loop.
template <class V, int B, bool complex_in>
DDC_INLINE void dot_block(const float* x,
                          std::size_t stride,
                          const ddc_cpu_layout& lay,
                          std::complex<float>* y)
{
    constexpr std::size_t W = sizeof(V) / sizeof(float);
    V acc_a[B] = {}, acc_b[B] = {};
    const float* a = lay.a.data();
    const float* b = lay.b.data();
    for (int k = 0; k < lay.vectors; ++k) {
        V za, zb;
        load(za, a + k * W);
        load(zb, b + k * W);
        const float* xk = x + lay.offset[k];
        for (int i = 0; i < B; ++i) {
            V xv;
            load(xv, xk + i * stride);
            acc_a[i] += xv * za;
            acc_b[i] += xv * zb;
        }
    }
    for (int i = 0; i < B; ++i) {
        if constexpr (complex_in) {
            V sign;
            for (std::size_t l = 0; l < W; ++l)
                sign[l] = l % 2 ? 1.0f : -1.0f;
            V swapped;
            swap_pairs(acc_b[i], swapped, std::make_index_sequence<W>{});
            f2 r;
            fold_to_two(acc_a[i] + sign * swapped, r);
            y[i] = std::complex<float>(r[0], r[1]);
        } else {
            f2 ra, rb;
            fold_to_two(acc_a[i], ra);
            fold_to_two(acc_b[i], rb);
            y[i] = std::complex<float>(ra[0] + ra[1], rb[0] + rb[1]);
        }
    }
}

// B kept outputs from planar mixed input (wr, wi) and real taps (lay.a):
// output i's window starts at wr/wi + i * stride.
template <class V, int B>
DDC_INLINE void dot_block_planar(const float* wr,
                                 const float* wi,
                                 std::size_t stride,
                                 const ddc_cpu_layout& lay,
                                 std::complex<float>* y)
{
    constexpr std::size_t W = sizeof(V) / sizeof(float);
    V acc_r[B] = {}, acc_i[B] = {};
    const float* a = lay.a.data();
    for (int k = 0; k < lay.vectors; ++k) {
        V h;
        load(h, a + k * W);
        const int off = lay.offset[k];
        for (int i = 0; i < B; ++i) {
            V vr, vi;
            load(vr, wr + off + i * stride);
            load(vi, wi + off + i * stride);
            acc_r[i] += vr * h;
            acc_i[i] += vi * h;
        }
    }
    for (int i = 0; i < B; ++i) {
        f2 rr, ri;
        fold_to_two(acc_r[i], rr);
        fold_to_two(acc_i[i], ri);
        y[i] = std::complex<float>(rr[0] + rr[1], ri[0] + ri[1]);
    }
}

template <class V>
DDC_INLINE void dot_planar(const float* wr,
                           const float* wi,
                           std::size_t stride,
                           std::size_t n,
                           const ddc_cpu_layout& lay,
                           std::complex<float>* y)
{
    std::size_t m = 0;
    for (; m + block_outputs <= n; m += block_outputs)
        dot_block_planar<V, block_outputs>(
            wr + m * stride, wi + m * stride, stride, lay, y + m);
    for (; m < n; ++m)
        dot_block_planar<V, 1>(wr + m * stride, wi + m * stride, stride, lay, y + m);
}

// Outputs [0, n): x holds output 0's window (floats), stride floats apart.
template <class V, bool complex_in>
DDC_INLINE void dot_all(const float* x,
                        std::size_t stride,
                        std::size_t n,
                        const ddc_cpu_layout& lay,
                        std::complex<float>* y)
{
    constexpr int B = complex_in ? block_outputs : real_block_outputs;
    std::size_t m = 0;
    for (; m + B <= n; m += B)
        dot_block<V, B, complex_in>(x + m * stride, stride, lay, y + m);
    for (; m < n; ++m)
        dot_block<V, 1, complex_in>(x + m * stride, stride, lay, y + m);
}

template <class V>
DDC_INLINE void dot_level(const float* x,
                          std::size_t stride,
                          std::size_t n,
                          const ddc_cpu_layout& lay,
                          bool complex_in,
                          std::complex<float>* y)
{
    if (complex_in)
        dot_all<V, true>(x, stride, n, lay, y);
    else
        dot_all<V, false>(x, stride, n, lay, y);
}

// Each SIMD level's two entry points (dot_<level>, planar_<level>), compiled
// for its target.
#define DDC_LEVEL(LEVEL, V, ATTR)                                                 \
    ATTR void dot_##LEVEL(const float* x,                                         \
                          std::size_t stride,                                     \
                          std::size_t n,                                          \
                          const ddc_cpu_layout& lay,                              \
                          bool complex_in,                                        \
                          std::complex<float>* y)                                 \
    {                                                                             \
        dot_level<V>(x, stride, n, lay, complex_in, y);                           \
    }                                                                             \
    ATTR void planar_##LEVEL(const float* wr,                                     \
                             const float* wi,                                     \
                             std::size_t stride,                                  \
                             std::size_t n,                                       \
                             const ddc_cpu_layout& lay,                           \
                             std::complex<float>* y)                              \
    {                                                                             \
        dot_planar<V>(wr, wi, stride, n, lay, y);                                 \
    }
DDC_LEVEL(baseline, f4, )
DDC_LEVEL(avx2, f8, __attribute__((target("avx2,fma"))))
DDC_LEVEL(avx512, f16, __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,fma"))))
#undef DDC_LEVEL

typedef void (*dot_fn)(const float*,
                       std::size_t,
                       std::size_t,
                       const ddc_cpu_layout&,
                       bool,
                       std::complex<float>*);
typedef void (*planar_fn)(const float*,
                          const float*,
                          std::size_t,
                          std::size_t,
                          const ddc_cpu_layout&,
                          std::complex<float>*);
struct simd_level {
    int lanes;
    dot_fn dot;
    planar_fn planar;
};
// Widest first; a CPU runs those up to runtime::cpu_use_avx512/avx2.
constexpr simd_level levels[] = { { 16, dot_avx512, planar_avx512 },
                                  { 8, dot_avx2, planar_avx2 },
                                  { 4, dot_baseline, planar_baseline } };
// The lanes of the widest level the CPU runs.
int cpu_lanes()
{
    return runtime::cpu_use_avx512() ? 16 : runtime::cpu_use_avx2() ? 8 : 4;
}
// The widest level the CPU runs, up to \p max_lanes, whose vector holds at
// most \p floats floats of one window (needs floats >= 4).
const simd_level& widest_level(int floats, int max_lanes)
{
    const int cpu = std::min(max_lanes, cpu_lanes());
    for (const auto& l : levels)
        if (l.lanes <= cpu && l.lanes <= floats)
            return l;
    return levels[2];
}

// Mixed input per tile: the tile's windows overlap the next tile's by T - 1
// samples, mixed twice; 4096 samples or more keep that small and the tile
// in L1/L2.
constexpr std::size_t tile_samples = 4096;

class ddc_cpu : public ddc_plan::impl
{
public:
    // Complex input with real taps mixes first: its filter is the real
    // taps h, fixed for the plan (a retune changes only the mixer).
    ddc_cpu(const ddc_config& c, int max_lanes)
        : d_c(c),
          d_max_lanes(max_lanes),
          d_mix_first(c.complex_input() && c.n_taps() >= 4 &&
                      std::all_of(c.taps.begin(), c.taps.end(), [](auto t) {
                          return t.imag() == 0;
                      }))
    {
        if (d_mix_first) {
            std::vector<std::complex<float>> h(c.n_taps());
            for (std::size_t k = 0; k < h.size(); ++k)
                h[k] = float(c.taps[k].real());
            const simd_level& l = widest_level(c.n_taps(), d_max_lanes);
            d_layout = ddc_cpu_layout(h, l.lanes, false);
            d_planar = l.planar;
        }
    }

    void set_taps(const std::vector<std::complex<float>>& z) override
    {
        // The premultiplied z, at the widest vector whose samples fit in one
        // window (a level narrower than the CPU's for tiny T; scalar below).
        // Where D is a multiple of the samples per vector S, every output's
        // window starts at the same phase within a vector, -(T - 1) mod S
        // (output m's first sample is mD - T + 1): the layout for that
        // phase, whose loads are aligned where addresses follow sample
        // indices (ddc_cpu_layout).
        d_z = z;
        if (d_mix_first)
            return;
        const bool cplx = d_c.complex_input();
        const int T = int(z.size());
        d_dot = nullptr;
        d_phase = 0;
        if (T >= (cplx ? 2 : 4)) {
            const simd_level& l = widest_level(cplx ? 2 * T : T, d_max_lanes);
            const int S = l.lanes / (cplx ? 2 : 1);
            if (d_c.decimation % S == 0)
                d_phase = (S - (T - 1) % S) % S;
            d_layout = ddc_cpu_layout(z, l.lanes, cplx, d_phase);
            d_dot = l.dot;
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
        const int T = int(d_z.size()), D = d_c.decimation;
        const bool cplx = d_c.complex_input();
        if (d_mix_first) {
            execute_mixed(static_cast<const float*>(in) + 2 * first_sample,
                          first_output,
                          n,
                          static_cast<std::complex<float>*>(out),
                          phase);
            return;
        }
        const float* x;
        if (cplx)
            x = static_cast<const float*>(in) + 2 * first_sample;
        else if (d_c.input == ddc_input::float32)
            x = static_cast<const float*>(in) + first_sample;
        else
            x = decode(in, first_sample, (n - 1) * std::size_t(D) + T, d_phase);
        auto* y = static_cast<std::complex<float>*>(out);
        const std::size_t stride = std::size_t(D) * (cplx ? 2 : 1);
        if (d_dot)
            d_dot(x, stride, n, d_layout, cplx, y);
        else
            dot_scalar(x, stride, n, cplx, y);
        // Output m turns by exp(-2j pi phase(mD)): the phase of every D-th
        // sample, step F D.
        const mixer_phase at_outputs{ phase.step * uint64_t(D), phase.offset };
        ddc_rotate(reinterpret_cast<float*>(y), n, first_output, at_outputs, table(at_outputs));
    }

private:
    // Complex input, real taps: outputs [0, n) from x (interleaved, output
    // 0's window first), tile by tile: mix the tile's windows, then filter.
    void execute_mixed(const float* x,
                       uint64_t first_output,
                       std::size_t n,
                       std::complex<float>* y,
                       const mixer_phase& phase)
    {
        const std::size_t T = std::size_t(d_c.n_taps()), D = std::size_t(d_c.decimation);
        const std::size_t tile = std::max<std::size_t>(1, std::max(tile_samples, 16 * T) / D);
        // Absolute index of output 0's first window sample (mod 2^64: the
        // windows of the first outputs start before sample 0).
        const uint64_t n_first = first_output * D - (T - 1);
        for (std::size_t m0 = 0; m0 < n; m0 += tile) {
            const std::size_t count = std::min(tile, n - m0);
            const std::size_t span = (count - 1) * D + T;
            float* wr = aligned(d_wr, span);
            float* wi = aligned(d_wi, span);
            ddc_mix(x + 2 * m0 * D, span, n_first + m0 * D, phase, table(phase), wr, wi);
            d_planar(wr, wi, D, count, d_layout, y + m0);
        }
    }

    // Room for n floats in v from a 64-byte boundary: the filter's loads
    // then cross no cache line where D is a multiple of the vector width.
    static float* aligned(std::vector<float>& v, std::size_t n)
    {
        v.resize(std::max(v.size(), n + 16));
        const auto p = reinterpret_cast<std::uintptr_t>(v.data());
        return reinterpret_cast<float*>((p + 63) & ~std::uintptr_t(63));
    }

    const ddc_mix_table& table(const mixer_phase& p)
    {
        if (!d_table || d_table->step != p.step)
            d_table.emplace(p.step);
        return *d_table;
    }

    // Windows shorter than the narrowest vector (T = 1, or T < 4 real).
    void dot_scalar(const float* x,
                    std::size_t stride,
                    std::size_t n,
                    bool cplx,
                    std::complex<float>* y) const
    {
        const int T = int(d_z.size());
        for (std::size_t m = 0; m < n; ++m) {
            const float* xm = x + m * stride;
            float re = 0, im = 0;
            for (int j = 0; j < T; ++j) {
                const float zr = d_z[T - 1 - j].real(), zi = d_z[T - 1 - j].imag();
                if (cplx) {
                    re += zr * xm[2 * j] - zi * xm[2 * j + 1];
                    im += zr * xm[2 * j + 1] + zi * xm[2 * j];
                } else {
                    re += zr * xm[j];
                    im += zi * xm[j];
                }
            }
            y[m] = { re, im };
        }
    }

    // int16 or packed 10-bit samples [first, first + n) as floats, placed
    // \p phase floats after a 64-byte boundary (so that addresses follow
    // the samples' phase); returns where they start.
    const float* decode(const void* in, int64_t first, std::size_t n, std::size_t phase)
    {
        float* x = aligned(d_xr, n + phase) + phase;
        switch (d_c.input) {
        case ddc_input::complex64: // read in place, never decoded
        case ddc_input::float32:
            break;
        case ddc_input::int16: {
            const auto* p = static_cast<const int16_t*>(in) + first;
            for (std::size_t j = 0; j < n; ++j)
                x[j] = float(p[j]);
            break;
        }
        case ddc_input::packed10: {
            const auto* p = static_cast<const uint8_t*>(in);
            std::size_t j = 0;
            for (; j < n && (first + int64_t(j)) % 4 != 0; ++j) // up to a group boundary
                x[j] = float(packed10_sample(p, first + j));
            if (j < n)
                unpack10_cpu(p + (first + int64_t(j)) / 4 * 5, x + j, n - j);
            break;
        }
        }
        return x;
    }

    ddc_config d_c;
    const int d_max_lanes;                // the widest vector this plan may use
    std::vector<std::complex<float>> d_z; // z[k], not reversed
    const bool d_mix_first;
    ddc_cpu_layout d_layout;
    int d_phase = 0;              // the windows' phase the layout is for
    dot_fn d_dot = nullptr;       // the premultiplied form (null: scalar)
    planar_fn d_planar = nullptr; // the mixed form
    std::optional<ddc_mix_table> d_table;
    std::vector<float> d_xr, d_wr, d_wi;
};

} // namespace

std::unique_ptr<ddc_plan::impl> make_ddc_cpu(const ddc_config& config, int max_lanes)
{
    return std::make_unique<ddc_cpu>(config, max_lanes);
}

std::vector<int> ddc_cpu_lane_options()
{
    std::vector<int> out;
    for (const auto& l : levels)
        if (l.lanes <= cpu_lanes())
            out.push_back(l.lanes);
    return out;
}

} // namespace kernels
} // namespace gpudsp
} // namespace gr
