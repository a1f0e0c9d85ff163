/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The DDC on CUDA. The tile kernel (ddc_tile.h): a block decodes the input
// its M kept outputs need into shared memory once, by phase, and each
// thread computes R outputs from register windows sliding along the phase
// rows (each loaded sample feeds up to 8 multiply-adds, each broadcast tap
// R); the premultiplied taps in shared memory; one rotation per output from
// the exact 64-bit phase. Where even a 32-thread tile does not fit in
// shared memory (very long filters), the simple kernel: one thread per
// output reading its window through the cache.

#include "ddc_impl.h"
#include "ddc_ring.cuh"
#include "ddc_tensor_cuda.h"
#include "ddc_tile.h"
#include "kernels/common/cp_async.cuh"
#include "kernels/common/sample_load.cuh"
#include "runtime/cuda_check.h"
#include <cuda_runtime.h>
#include <type_traits>
#include <cstdlib>
#include <cstring>
#include <map>
#include <stdexcept>
#include <string>

namespace gr {
namespace gpudsp {
namespace kernels {

namespace {

constexpr int threads = ddc_cuda_threads;

template <class X>
__device__ __forceinline__ X zero_sample();
template <>
__device__ __forceinline__ float zero_sample<float>()
{
    return 0.0f;
}
template <>
__device__ __forceinline__ ddc_cf zero_sample<ddc_cf>()
{
    return ddc_cf{ 0.0f, 0.0f };
}
// The outputs one tile launch computes: up to ddc_bank_max outputs of one
// input with the same decimation and taps count (a one-output plan is a
// bank of one).
constexpr int ddc_bank_max = 16;
struct ddc_bank {
    int count;                      // 1 for mix first (the tile is one output's)
    const ddc_cf* zr[ddc_bank_max]; // reversed premultiplied taps
    const float* h;                 // mix first: the reversed real taps
    unsigned long long phase_step[ddc_bank_max], phase_offset[ddc_bank_max];
    float2* out[ddc_bank_max];
};

__device__ __forceinline__ float as_tile(float x) { return x; }
__device__ __forceinline__ ddc_cf as_tile(float2 x) { return ddc_cf{ x.x, x.y }; }

// Outputs [blockIdx.x M, + M) of n_outputs, for each of the bank's outputs
// (several DDC outputs of one input with the same decimation and taps count:
// one read of each input tile for all, each with its own taps and mixer).
// in: the launch's first window sample is first_sample; valid samples are
// [0, valid) from there (the rest of the last tile reads zeros). zr: each
// output's reversed premultiplied taps. MIX (complex input, real taps, a
// bank of one): the tile is mixed as it is loaded (ddc_tile_for_mixed) and
// filtered with the real taps, 2 multiply-adds a tap instead of 4, and the
// outputs need no rotation.
template <sample_kind K, int R, int AC, bool MIX = false>
__global__ void __launch_bounds__(ddc_tile_max_threads)
    ddc_tile_kernel(const void* __restrict__ in,
                    long long first_sample,
                    long long valid,
                    const ddc_bank bank,
                    ddc_tile_shape sh,
                    unsigned long long first_output,
                    unsigned long long n_outputs)
{
    using X = typename std::conditional<K == sample_kind::complex64, ddc_cf, float>::type;
    extern __shared__ __align__(16) unsigned char smem[];
    auto* taps = reinterpret_cast<ddc_cf*>(smem);
    auto* tile = reinterpret_cast<X*>(smem + ddc_tile_tile_offset(sh));
    auto* parts = reinterpret_cast<ddc_cf*>(smem + ddc_tile_parts_offset(sh, sizeof(X)));
    const int tid = threadIdx.x, n_threads = sh.threads();
    const long long m0 = (long long)blockIdx.x * sh.M;
    const long long s0 = m0 * sh.D; // the tile's first sample, from first_sample
    if constexpr (MIX) {
        static_assert(K == sample_kind::complex64, "mix first takes complex input");
        const uint64_t n0 = ddc_tile_stream_first(first_output, uint64_t(m0), sh.D, sh.T);
        ddc_tile_for_mixed(
            sh,
            tid,
            n_threads,
            n0,
            bank.phase_step[0],
            bank.phase_offset[0],
            [&](int s) {
                const long long n = s0 + s;
                return n < valid ? as_tile(sample_loader<K>::load(in, first_sample + n))
                                 : zero_sample<X>();
            },
            [&](int at, ddc_cf v) { tile[at] = v; });
    } else if constexpr (K == sample_kind::packed10) {
        // 16 samples from 5-6 aligned words (ddc_tile_for_packed10).
        const auto* bytes = static_cast<const char*>(in);
        const ddc_packed10_span span = ddc_packed10_span_of(
            first_sample, valid, s0, int(reinterpret_cast<uintptr_t>(in) & 3));
        ddc_tile_for_packed10(
            sh,
            span,
            tid,
            n_threads,
            [&](long long b) {
                return __ldg(reinterpret_cast<const uint32_t*>(bytes + b));
            },
            [&](long long n) {
                return packed10_sample(static_cast<const uint8_t*>(in), n);
            },
            [&](int at, float x) { tile[at] = x; });
    } else {
        ddc_tile_for_samples(sh, tid, n_threads, [&](int s, int at) {
            const long long n = s0 + s;
            tile[at] = n < valid ? as_tile(sample_loader<K>::load(in, first_sample + n))
                                 : zero_sample<X>();
        });
    }
    const int t = tid % sh.TW, g = tid / sh.TW;
    for (int o = 0; o < bank.count; ++o) {
        if (o > 0)
            __syncthreads(); // the previous output's taps and parts are read
        auto* h = reinterpret_cast<float*>(taps);
        for (int j = tid; j < sh.T; j += n_threads) {
            if constexpr (MIX)
                h[j] = bank.h[j];
            else
                taps[j] = bank.zr[o][j];
        }
        __syncthreads();
        ddc_cf acc[R];
        if constexpr (MIX)
            ddc_tile_partial<R, AC>(sh, tile, h, t, g, acc);
        else
            ddc_tile_partial<R, AC>(sh, tile, taps, t, g, acc);
        if (sh.G > 1) {
            for (int r = 0; r < R; ++r)
                parts[g * sh.M + t * R + r] = acc[r];
            __syncthreads();
            if (g == 0)
                for (int r = 0; r < R; ++r) {
                    ddc_cf sum = parts[t * R + r];
                    for (int h = 1; h < sh.G; ++h) {
                        sum.re += parts[h * sh.M + t * R + r].re;
                        sum.im += parts[h * sh.M + t * R + r].im;
                    }
                    acc[r] = sum;
                }
        }
        if (g != 0)
            continue; // group 0 holds the sums
        for (int r = 0; r < R; ++r) {
            const unsigned long long m = (unsigned long long)(m0 + t * R + r);
            if (m >= n_outputs)
                continue;
            if constexpr (MIX)
                bank.out[o][m] = make_float2(acc[r].re, acc[r].im);
            else {
                const ddc_cf y = ddc_rotate_output(acc[r],
                                                   first_output + m,
                                                   sh.D,
                                                   bank.phase_step[o],
                                                   bank.phase_offset[o]);
                bank.out[o][m] = make_float2(y.re, y.im);
            }
        }
    }
}

template <sample_kind K>
constexpr int sample_bits_of()
{
    return K == sample_kind::packed10  ? 10
           : K == sample_kind::int16   ? 16
           : K == sample_kind::float32 ? 32
                                       : 64;
}

// Sample n (from the input pointer) out of a stage holding input bytes from
// \p base on (ddc_ring.h): the format's type at its offset.
template <sample_kind K>
__device__ __forceinline__ auto
stage_sample(const unsigned char* st, long long base, long long n)
{
    if constexpr (K == sample_kind::int16)
        return float(*reinterpret_cast<const int16_t*>(st + (2 * n - base)));
    else if constexpr (K == sample_kind::float32)
        return *reinterpret_cast<const float*>(st + (4 * n - base));
    else
        return as_tile(*reinterpret_cast<const float2*>(st + (8 * n - base)));
}

// The ring kernel (ddc_ring.h, docs/ddc.md "The ring kernel"): the tile
// kernel's FIR on a persistent grid, each block's next tiles' input bytes
// in flight (cp.async into a ring of `stages` stages) while it filters the
// current one; the tile decoded from its stage (shared to shared); outputs
// rotated by the re-seeded recurrence and stored by consecutive threads.
// Same arguments as ddc_tile_kernel, plus the ring's stage count and bytes.
// (At least one block an SM: the registers are ptxas's to choose, up to the
// 128 that two blocks of 256 threads allow.)
template <sample_kind K, int R, int AC, bool MIX = false>
__global__ void __launch_bounds__(ddc_tile_max_threads, 2)
    ddc_ring_kernel(const void* __restrict__ in,
                    long long first_sample,
                    long long valid,
                    const ddc_bank bank,
                    ddc_tile_shape sh,
                    int stages,
                    int stage_bytes,
                    unsigned long long first_output,
                    unsigned long long n_outputs)
{
    using X = typename std::conditional<K == sample_kind::complex64, ddc_cf, float>::type;
    constexpr int bits = sample_bits_of<K>();
    extern __shared__ __align__(16) unsigned char smem[];
    auto* taps = reinterpret_cast<ddc_cf*>(smem);
    auto* h = reinterpret_cast<float*>(smem); // mix first: the real taps
    auto* tile = reinterpret_cast<X*>(smem + ddc_tile_tile_offset(sh));
    auto* parts = reinterpret_cast<ddc_cf*>(smem + ddc_tile_parts_offset(sh, sizeof(X)));
    unsigned char* ring = smem + ddc_ring_stage_offset(sh, sizeof(X));
    const auto* bytes = static_cast<const unsigned char*>(in);
    const int tid = threadIdx.x, n_threads = sh.threads();
    const int t = tid % sh.TW, g = tid / sh.TW;
    const long long tiles = (long long)((n_outputs + sh.M - 1) / sh.M);
    const int addr16 = int(reinterpret_cast<uintptr_t>(in) & 15);
    const int mis = addr16 & 3;
    const ddc_ring_bytes readable = ddc_ring_readable(bits, first_sample, valid);
    auto window_of = [&](long long tile_index) {
        return ddc_ring_window_of(
            ddc_ring_needed(sh, bits, first_sample, valid, tile_index * sh.M * sh.D, mis),
            addr16);
    };
    // Puts this block's j-th tile's bytes on their way into stage j mod
    // stages (one commit group a tile, empty past the last tile): tiles
    // 0 .. stages - 1 first, then tile j + stages once tile j is decoded.
    auto issue = [&](int j) {
        const long long i = ddc_ring_tile(blockIdx.x, j, gridDim.x);
        if (i < tiles) {
            unsigned char* st = ring + ddc_ring_stage_of(j, stages) * stage_bytes;
            ddc_ring_fill(st, bytes, window_of(i), readable, tid, n_threads);
        }
        copy_commit();
    };
    // One output's taps for the whole walk; a bank's are loaded per output.
    if (bank.count == 1)
        for (int j = tid; j < sh.T; j += n_threads) {
            if constexpr (MIX)
                h[j] = bank.h[j];
            else
                taps[j] = bank.zr[0][j];
        }
    for (int j = 0; j < stages; ++j)
        issue(j);
    for (int j = 0;; ++j) {
        const long long i = ddc_ring_tile(blockIdx.x, j, gridDim.x);
        if (i >= tiles)
            break;
        // Tile j's group done (the ones after it may fly), and every
        // thread past the last tile's FIR and stores.
        if (ddc_ring_in_flight(stages) == 1)
            copy_wait<1>();
        else
            copy_wait<0>();
        __syncthreads();
        unsigned char* st = ring + ddc_ring_stage_of(j, stages) * stage_bytes;
        const long long m0 = i * sh.M, s0 = m0 * sh.D;
        const ddc_ring_window w = window_of(i);
        if constexpr (MIX) {
            ddc_tile_for_mixed(
                sh,
                tid,
                n_threads,
                ddc_tile_stream_first(first_output, uint64_t(m0), sh.D, sh.T),
                bank.phase_step[0],
                bank.phase_offset[0],
                [&](int s) {
                    const long long n = s0 + s;
                    return n < valid ? stage_sample<K>(st, w.base, first_sample + n)
                                     : zero_sample<X>();
                },
                [&](int at, ddc_cf v) { tile[at] = v; });
        } else if constexpr (K == sample_kind::packed10) {
            ddc_tile_for_packed10(
                sh,
                ddc_packed10_span_of(first_sample, valid, s0, mis),
                tid,
                n_threads,
                [&](long long b) {
                    return *reinterpret_cast<const uint32_t*>(st + (b - w.base));
                },
                [&](long long n) {
                    return packed10_sample(static_cast<const uint8_t*>(in), n);
                },
                [&](int at, float x) { tile[at] = x; });
        } else {
            ddc_tile_for_samples(sh, tid, n_threads, [&](int s, int at) {
                const long long n = s0 + s;
                tile[at] = n < valid ? stage_sample<K>(st, w.base, first_sample + n)
                                     : zero_sample<X>();
            });
        }
        __syncthreads();
        // The stage is free: a later tile's bytes fly while this one is
        // filtered.
        issue(ddc_ring_next(j, stages));
        for (int o = 0; o < bank.count; ++o) {
            if (bank.count > 1) {
                if (o > 0)
                    __syncthreads(); // the previous output's taps and stores are done
                for (int k = tid; k < sh.T; k += n_threads)
                    taps[k] = bank.zr[o][k];
                __syncthreads();
            }
            ddc_cf acc[R];
            if constexpr (MIX)
                ddc_tile_partial<R, AC>(sh, tile, h, t, g, acc);
            else
                ddc_tile_partial<R, AC>(sh, tile, taps, t, g, acc);
            if (sh.G > 1) {
                for (int r = 0; r < R; ++r)
                    parts[g * sh.M + t * R + r] = acc[r];
                __syncthreads();
            }
            if (g == 0) {
                // The groups' sums in a fixed order, rotated, staged where
                // this thread's partials were (only it reads them).
                for (int r = 0; r < R; ++r)
                    for (int k = 1; k < sh.G; ++k) {
                        acc[r].re += parts[k * sh.M + t * R + r].re;
                        acc[r].im += parts[k * sh.M + t * R + r].im;
                    }
                if constexpr (MIX) {
                    for (int r = 0; r < R; ++r)
                        parts[t * R + r] = acc[r];
                } else {
                    ddc_ring_rotations(
                        first_output + uint64_t(m0 + t * R),
                        R,
                        sh.D,
                        bank.phase_step[o],
                        bank.phase_offset[o],
                        [&](int r, ddc_cf v) { parts[t * R + r] = ddc_cmul(acc[r], v); });
                }
            }
            __syncthreads();
            for (int k = tid; k < sh.M; k += n_threads) {
                const unsigned long long m = (unsigned long long)(m0 + k);
                if (m < n_outputs)
                    bank.out[o][m] = make_float2(parts[k].re, parts[k].im);
            }
        }
    }
}

// zr: the reversed taps (output m reads x[m D + j] against zr[j], relative to
// the first window sample).
template <sample_kind K, bool SHARED>
__global__ void __launch_bounds__(threads) ddc_kernel(const void* __restrict__ in,
                                                      long long first_sample,
                                                      const ddc_cf* __restrict__ zr,
                                                      int taps,
                                                      int decimation,
                                                      unsigned long long first_output,
                                                      unsigned long long n_outputs,
                                                      unsigned long long phase_step,
                                                      unsigned long long phase_offset,
                                                      float2* __restrict__ out)
{
    extern __shared__ ddc_cf z_shared[];
    const ddc_cf* z = zr;
    if (SHARED) {
        for (int j = threadIdx.x; j < taps; j += blockDim.x)
            z_shared[j] = zr[j];
        __syncthreads();
        z = z_shared;
    }
    const unsigned long long m =
        (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (m >= n_outputs)
        return;
    const long long base = first_sample + (long long)m * decimation;
    ddc_cf acc{ 0.0f, 0.0f };
    for (int j = 0; j < taps; ++j)
        ddc_mac(acc, z[j], as_tile(sample_loader<K>::load(in, base + j)));
    const ddc_cf y =
        ddc_rotate_output(acc, first_output + m, decimation, phase_step, phase_offset);
    out[m] = make_float2(y.re, y.im);
}

sample_kind kind_of(ddc_input f)
{
    switch (f) {
    case ddc_input::packed10:
        return sample_kind::packed10;
    case ddc_input::int16:
        return sample_kind::int16;
    case ddc_input::float32:
        return sample_kind::float32;
    case ddc_input::complex64:
        break;
    }
    return sample_kind::complex64;
}

class ddc_cuda : public ddc_plan::impl
{
public:
    ddc_cuda(const ddc_config& c,
             runtime::device_context::sptr ctx,
             const std::string& who)
        : d_c(c), d_ctx(std::move(ctx)), d_who(who)
    {
        d_ctx->make_current();
        int optin = 0;
        check(cudaDeviceGetAttribute(
                  &optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, d_ctx->device()),
              "cudaDeviceGetAttribute (shared memory per block, opt-in)");
        // The tile shapes the tuner may choose, the heuristic's first (none:
        // the simple kernel).
        d_shapes = ddc_tile_shape_candidates(
            c.decimation, c.n_taps(), c.complex_input(), std::size_t(optin));
        if (d_shapes.empty())
            d_smem = ddc_cuda_shared_bytes(c.n_taps());
        else
            use_shape(d_shapes[0]);
        setup_mix();
        setup_rings(std::size_t(optin));
        // The attribute is per kernel and process-wide: the device's limit,
        // whatever this plan needs, so that plans never lower it for others.
        auto raise = [&](auto kernel) {
            check(cudaFuncSetAttribute(
                      kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, optin),
                  "cudaFuncSetAttribute (shared memory for the DDC)");
        };
        for (const bool mix : { false, true }) {
            if (mix && !d_mix_ok)
                continue;
            for (const auto& sh : d_shapes)
                for_kernel(sh, mix, raise);
            for (const auto& r : d_rings)
                for_ring_kernel(r.sh, mix, raise);
        }
        d_taps = std::make_unique<runtime::device_memory>(
            d_ctx, std::size_t(c.n_taps()) * sizeof(ddc_cf), who);
        setup_tensor(optin);
        int l2 = 0;
        check(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, d_ctx->device()),
              "cudaDeviceGetAttribute (L2 cache size)");
        d_l2 = std::size_t(l2);
    }

    // The tile shapes (4, 8 and 16 outputs a thread for real input), then
    // the tensor-core forms, the mix-first tile kernel and the ring
    // kernels where they run.
    std::vector<std::string> configurations() const override
    {
        std::vector<std::string> ids;
        for (const auto& sh : d_shapes)
            ids.push_back(ddc_tile_shape_id(sh));
        if (!ids.empty())
            for (int k = 0; k < tensor_kinds; ++k) {
                if (tensor_ok(k))
                    ids.push_back(tensor_id_of(false, k));
                if (tensor_ok(k) && d_tensor_ring_ok[k])
                    ids.push_back(tensor_id_of(true, k));
            }
        if (d_mix_ok)
            ids.push_back(mix_id());
        for (const auto& r : d_rings) {
            ids.push_back(ddc_ring_id(r));
            if (d_mix_ok)
                ids.push_back("mix " + ddc_ring_id(r));
        }
        return ids;
    }
    void use(const std::string& id) override
    {
        // Every form off, then the one the id names (ids come from
        // configurations(); an unknown one changes nothing).
        auto only = [&](bool tensor, bool tensor_ring, bool mix) {
            d_tensor = tensor;
            d_tensor_ring = tensor_ring;
            d_mix = mix;
            d_ring = false;
            d_ring_stages = 0;
        };
        for (int k = 0; k < tensor_kinds; ++k)
            for (const bool ring : { false, true })
                if (tensor_ok(k) && (!ring || d_tensor_ring_ok[k]) &&
                    id == tensor_id_of(ring, k)) {
                    only(true, ring, false);
                    use_tensor_shape(k);
                    unsigned* grid = d_tensor_grid[k];
                    if (ring && !grid[0]) { // (once: the tuner comes back)
                        d_ctx->make_current();
                        for (const bool bank : { false, true })
                            grid[bank] =
                                unsigned(std::max(1,
                                                  ddc_tensor_blocks_per_sm(
                                                      tensor_shape(), true, bank)) *
                                         d_ctx->info().multiprocessors);
                    }
                    return;
                }
        if (d_mix_ok && id == mix_id()) {
            only(false, false, true);
            use_shape(d_shapes[0]);
            return;
        }
        for (const auto& r : d_rings)
            for (const bool mix : { false, true })
                if ((!mix || d_mix_ok) && id == (mix ? "mix " : "") + ddc_ring_id(r)) {
                    only(false, false, mix);
                    use_ring(r);
                    return;
                }
        for (const auto& sh : d_shapes)
            if (ddc_tile_shape_id(sh) == id) {
                only(false, false, false);
                use_shape(sh);
                return;
            }
    }
    std::string forced_configuration() const override
    {
        // GPUDSP_DDC_TENSOR=1: the tensor form (tap block 4D), =8: its tap
        // block of 8D; GPUDSP_DDC_TENSOR_M=32: 32 rows a warp; with
        // GPUDSP_DDC_RING=1 their ring forms. A form not offered for the
        // shape (8D or 32 rows below KD = 16) falls back to the 4D, 16-row one.
        const char* env = std::getenv("GPUDSP_DDC_TENSOR");
        const int nt = !env                         ? 0
                       : std::strcmp(env, "1") == 0 ? 1
                       : std::strcmp(env, "8") == 0 ? 2
                                                    : 0;
        const char* m = std::getenv("GPUDSP_DDC_TENSOR_M");
        const int mt = m && std::strcmp(m, "32") == 0 ? 2 : 1;
        if (nt && !d_shapes.empty()) {
            int k = tensor_kind(nt, mt);
            if (!tensor_ok(k))
                k = 0;
            if (tensor_ok(k)) {
                const char* ring = std::getenv("GPUDSP_DDC_RING");
                return tensor_id_of(
                    ring && std::strcmp(ring, "1") == 0 && d_tensor_ring_ok[k], k);
            }
        }
        const char* mix = std::getenv("GPUDSP_DDC_MIX");
        const bool mixed = mix && std::strcmp(mix, "1") == 0 && d_mix_ok;
        const char* ring = std::getenv("GPUDSP_DDC_RING");
        if (ring && std::strcmp(ring, "1") == 0 && !d_rings.empty())
            return (mixed ? "mix " : "") + ddc_ring_id(d_rings[0]);
        if (mixed)
            return mix_id();
        return "";
    }
    // 2^24 input samples: many waves at any decimation.
    std::size_t tuning_outputs() const override
    {
        return std::max<std::size_t>(
            1, (std::size_t(1) << 24) / std::size_t(d_c.decimation));
    }

    // Blocks of one launch over n outputs (the tile kernel's or the simple
    // one's) over SMs x the blocks the CUDA runtime says fit on one.
    double launch_waves(std::size_t n) const override
    {
        d_ctx->make_current();
        int per_sm = 0;
        std::size_t blocks = 0;
        cudaError_t r = cudaSuccess;
        if (d_tensor) {
            blocks = (n + tensor_shape().outputs() - 1) / tensor_shape().outputs();
            per_sm = ddc_tensor_blocks_per_sm(tensor_shape(), d_tensor_ring);
        } else if (d_ring) { // persistent: its tiles over the blocks that fit
            blocks = (n + d_shape.M - 1) / d_shape.M;
            per_sm = d_ring_per_sm;
        } else if (d_shape.A) {
            blocks = (n + d_shape.M - 1) / d_shape.M;
            for_kernel(d_shape, d_mix, [&](auto kernel) {
                r = cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                    &per_sm, kernel, d_shape.threads(), d_smem);
            });
        } else {
            blocks = (n + threads - 1) / threads;
            for_simple_kernel([&](auto kernel) {
                r = cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                    &per_sm, kernel, threads, d_smem);
            });
        }
        if (r != cudaSuccess) {
            cudaGetLastError(); // a refused query leaves nothing behind
            return 0;
        }
        const int sms = d_ctx->info().multiprocessors;
        return per_sm > 0 && sms > 0 ? double(blocks) / (double(per_sm) * sms) : 0;
    }

    // A quarter of L2: a chunk and its outputs stay there among the other
    // traffic (the taps, other streams' kernels) from one launch to the next.
    std::size_t cache_chunk_bytes() const override { return d_l2 / 4; }

    void set_taps(const std::vector<std::complex<float>>& z) override
    {
        // Reversed; uploaded by the next execute() on its stream, so work in
        // flight keeps its taps.
        d_host.resize(z.size());
        for (std::size_t j = 0; j < z.size(); ++j)
            d_host[j] = ddc_cf{ z[z.size() - 1 - j].real(), z[z.size() - 1 - j].imag() };
        d_dirty = true;
        if (d_tensor_taps) { // the tensor form's image of them
            d_tensor_zr.assign(z.rbegin(), z.rend());
            d_tensor_image = ddc_tensor::make_taps(d_tensor_zr, tensor_shape());
            d_tensor_dirty = true;
        }
    }

    void execute(const void* in,
                 int64_t first_sample,
                 uint64_t first_output,
                 std::size_t n,
                 void* out,
                 const mixer_phase& phase,
                 runtime::stream_handle sh) override
    {
        d_ctx->make_current();
        auto stream = static_cast<cudaStream_t>(sh);
        if (d_tensor) { // a bank of one
            execute_tensor_group(
                { { this, &phase, out } }, in, first_sample, first_output, n, sh);
            return;
        }
        if (d_mix) {
            upload_mix_taps(stream);
            ddc_bank bank{};
            bank.count = 1;
            bank.h = reinterpret_cast<const float*>(d_mix_taps->get());
            bank.phase_step[0] = phase.step;
            bank.phase_offset[0] = phase.offset;
            bank.out[0] = static_cast<float2*>(out);
            launch_tiles(in, first_sample, first_output, n, bank, stream);
            return;
        }
        if (d_shape.A) { // a bank of one
            execute_group({ { this, &phase, out } }, in, first_sample, first_output, n, sh);
            return;
        }
        upload_taps(sh);
        auto* y = static_cast<float2*>(out);
        const int T = d_c.n_taps(), D = d_c.decimation;
        // Launches of at most 2^31 - 1 blocks.
        const std::size_t per_launch = std::size_t(threads) * 0x7fffffff;
        for (std::size_t m0 = 0; m0 < n; m0 += per_launch) {
            const std::size_t count = std::min(per_launch, n - m0);
            const unsigned blocks = unsigned((count + threads - 1) / threads);
            const long long first = first_sample + (long long)(m0 * D);
            launch_simple(blocks,
                          stream,
                          in,
                          first,
                          taps(),
                          T,
                          first_output + m0,
                          count,
                          phase,
                          y + m0);
            d_ctx->check_last_error("ddc kernel launch", d_who);
        }
    }

    // Outputs of the same input, decimation and taps (the same tile shape)
    // as banks of up to ddc_bank_max per launch: each input tile is read
    // once for the bank.
    bool execute_group(const std::vector<ddc_group_member>& members,
                       const void* in,
                       int64_t first_sample,
                       uint64_t first_output,
                       std::size_t n,
                       runtime::stream_handle sh) override
    {
        if (d_tensor)
            return execute_tensor_group(members, in, first_sample, first_output, n, sh);
        if (!d_shape.A)
            return false; // the simple kernel reads per output anyway
        if (d_mix) {      // its tile is mixed for one output: alone
            if (members.size() != 1 || members[0].impl != this)
                return false;
            execute(
                in, first_sample, first_output, n, members[0].out, *members[0].phase, sh);
            return true;
        }
        std::vector<ddc_cuda*> plans;
        for (const auto& m : members) {
            auto* p = dynamic_cast<ddc_cuda*>(m.impl);
            if (!p || p->d_tensor || p->d_mix || p->d_ctx != d_ctx ||
                p->d_ring != d_ring || (d_ring && p->d_ring_stages != d_ring_stages) ||
                std::memcmp(&p->d_shape, &d_shape, sizeof d_shape) != 0)
                return false;
            plans.push_back(p);
        }
        d_ctx->make_current();
        for (std::size_t k0 = 0; k0 < plans.size(); k0 += ddc_bank_max) {
            ddc_bank bank{};
            bank.count = int(std::min<std::size_t>(ddc_bank_max, plans.size() - k0));
            for (int i = 0; i < bank.count; ++i) {
                ddc_cuda& p = *plans[k0 + i];
                p.upload_taps(sh);
                bank.zr[i] = p.taps();
                bank.phase_step[i] = members[k0 + i].phase->step;
                bank.phase_offset[i] = members[k0 + i].phase->offset;
                bank.out[i] = static_cast<float2*>(members[k0 + i].out);
            }
            launch_tiles(
                in, first_sample, first_output, n, bank, static_cast<cudaStream_t>(sh));
        }
        return true;
    }

private:
    void check(cudaError_t e, const char* what) const
    {
        runtime::cuda_check(e, what, d_ctx->device(), d_who);
    }

    // The tensor form's kinds: [tensor_kind(nt, mt)], nt column tiles (the
    // tap block 4 nt D) and mt row tiles a warp (16 mt rows).
    static constexpr int tensor_kinds = ddc_tensor::max_nt * ddc_tensor::max_mt;
    static int tensor_kind(int nt, int mt)
    {
        return (mt - 1) * ddc_tensor::max_nt + nt - 1;
    }
    static int nt_of(int k) { return k % ddc_tensor::max_nt + 1; }
    bool tensor_ok(int k) const { return d_tensor_shapes[k].warps > 0; }
    const ddc_tensor::shape& tensor_shape() const { return d_tensor_shapes[d_tensor_k]; }
    static int mt_of(int k) { return k / ddc_tensor::max_nt + 1; }
    // "tensor", "tensor ring": tap block 4D, 16 rows; " 8D": the tap block
    // of 8D; " M=32": 32 rows a warp ("tensor ring 8D M=32").
    static std::string tensor_id_of(bool ring, int k)
    {
        return std::string(ring ? "tensor ring" : "tensor") +
               (nt_of(k) == 2 ? " 8D" : "") + (mt_of(k) == 2 ? " M=32" : "");
    }

    // The mix-first tile kernel's id: the heuristic's shape, mixed.
    std::string mix_id() const { return "mix " + ddc_tile_shape_id(d_shapes[0]); }

    // Mix first where it applies, as on the CPU: complex input with real
    // taps (then fixed for the plan: a retune changes only the mixer) and
    // a tile shape; GPUDSP_DDC_MIX=0 leaves it out, =1 forces it.
    void setup_mix()
    {
        const char* env = std::getenv("GPUDSP_DDC_MIX");
        if (!d_c.complex_input() || d_shapes.empty() ||
            (env && std::strcmp(env, "0") == 0))
            return;
        std::vector<float> h(d_c.taps.size());
        for (std::size_t k = 0; k < h.size(); ++k) {
            if (d_c.taps[k].imag() != 0)
                return;
            h[h.size() - 1 - k] = float(d_c.taps[k].real()); // reversed
        }
        d_mix_taps = std::make_unique<runtime::device_memory>(
            d_ctx, h.size() * sizeof(float), d_who);
        d_mix_host = std::move(h);
        d_mix_ok = true;
    }

    // The real taps go up once, on the stream of the first launch.
    void upload_mix_taps(cudaStream_t stream)
    {
        if (d_mix_uploaded)
            return;
        d_ctx->copy_async(d_mix_taps->get(),
                          d_mix_host.data(),
                          d_mix_host.size() * sizeof(float),
                          runtime::copy_kind::host_to_device,
                          stream,
                          d_who);
        d_mix_uploaded = true;
    }

    // The tensor-core form where it runs: 10-bit input (exact in FP16),
    // sm_80 on (mma.sync m16n8k16), a shape whose samples fit 48 KiB a
    // block; GPUDSP_DDC_TENSOR=0 leaves it out, =1 forces it.
    // Both tap blocks (4D, and 8D where D >= 2) where their shapes fit.
    void setup_tensor(int optin)
    {
        const char* env = std::getenv("GPUDSP_DDC_TENSOR");
        if (d_c.input != ddc_input::packed10 || d_ctx->info().compute_major < 8 ||
            (env && std::strcmp(env, "0") == 0) || !ddc_tensor_built())
            return;
        std::size_t words = 0;
        const char* ring = std::getenv("GPUDSP_DDC_RING");
        int first = -1;
        for (int k = 0; k < tensor_kinds; ++k) {
            const auto sh =
                ddc_tensor::make_shape(d_c.decimation, d_c.n_taps(), nt_of(k), mt_of(k));
            if (!sh.warps)
                continue;
            d_tensor_shapes[k] = sh;
            first = first < 0 ? k : first;
            words = std::max(words, ddc_tensor::image_words(sh));
            // Its ring form (GPUDSP_DDC_RING=0 leaves it out) where its tile
            // and stage fit the device's shared memory a block.
            if (!(ring && std::strcmp(ring, "0") == 0))
                d_tensor_ring_ok[k] = ddc_tensor_ring_prepare(sh, optin);
        }
        if (first < 0)
            return;
        d_tensor_taps = std::make_unique<runtime::device_memory>(
            d_ctx, words * sizeof(uint32_t), d_who);
        d_tensor_k = first;
    }

    // The tensor form's shape of kind \p k, and its taps image (the next
    // execute uploads it on its stream, as set_taps's).
    void use_tensor_shape(int k)
    {
        if (k == d_tensor_k)
            return;
        const bool same_image = nt_of(k) == nt_of(d_tensor_k); // (the tap block alone)
        d_tensor_k = k;
        if (!same_image && !d_tensor_zr.empty()) {
            d_tensor_image = ddc_tensor::make_taps(d_tensor_zr, tensor_shape());
            d_tensor_dirty = true;
        }
    }

    // Its taps image up on the stream of the launch that reads it, when
    // new (pageable: staged when the call returns).
    void upload_tensor_taps(cudaStream_t stream)
    {
        if (!d_tensor_dirty)
            return;
        d_ctx->copy_async(d_tensor_taps->get(),
                          d_tensor_image.words.data(),
                          d_tensor_image.words.size() * sizeof(uint32_t),
                          runtime::copy_kind::host_to_device,
                          stream,
                          d_who);
        d_tensor_dirty = false;
    }

    // Outputs of the same input, decimation and taps count, all run by the
    // tensor form, as banks of up to ddc_tensor_bank::max a launch (each
    // block's samples decoded once for the bank); false where a member is
    // another plan kind or form or shape (the caller then runs each alone).
    bool execute_tensor_group(const std::vector<ddc_group_member>& members,
                              const void* in,
                              int64_t first_sample,
                              uint64_t first_output,
                              std::size_t n,
                              runtime::stream_handle sh)
    {
        std::vector<ddc_cuda*> plans;
        for (const auto& m : members) {
            auto* p = dynamic_cast<ddc_cuda*>(m.impl);
            if (!p || !p->d_tensor || p->d_ctx != d_ctx ||
                p->tensor_shape().D != tensor_shape().D ||
                p->tensor_shape().T != tensor_shape().T || p->d_tensor_k != d_tensor_k)
                return false;
            plans.push_back(p);
        }
        d_ctx->make_current();
        auto stream = static_cast<cudaStream_t>(sh);
        const std::size_t most =
            std::size_t(ddc_tensor_bank_max(tensor_shape().nt, tensor_shape().mt));
        for (std::size_t k0 = 0; k0 < plans.size(); k0 += most) {
            ddc_tensor_bank bank{};
            bank.count = int(std::min(most, plans.size() - k0));
            for (int i = 0; i < bank.count; ++i) {
                ddc_cuda& p = *plans[k0 + i];
                p.upload_tensor_taps(stream);
                bank.taps[i] = reinterpret_cast<const uint4*>(p.d_tensor_taps->get());
                bank.phase_step[i] = members[k0 + i].phase->step;
                bank.phase_offset[i] = members[k0 + i].phase->offset;
                bank.out[i] = static_cast<float2*>(members[k0 + i].out);
            }
            launch_tensor(in, first_sample, first_output, n, bank, stream);
        }
        return true;
    }

    // The tensor kernel over outputs [0, n) for every output of the bank,
    // in launches of at most 2^31 - 1 blocks.
    void launch_tensor(const void* in,
                       int64_t first_sample,
                       uint64_t first_output,
                       std::size_t n,
                       ddc_tensor_bank bank,
                       cudaStream_t stream)
    {
        const int T = d_c.n_taps(), D = d_c.decimation;
        // (One block spare for the launch's lead, ddc_tensor::lead_of.)
        const std::size_t per_launch = std::size_t(tensor_shape().outputs()) * 0x7ffffffe;
        for (std::size_t m0 = 0; m0 < n; m0 += per_launch) {
            const std::size_t count = std::min(per_launch, n - m0);
            ddc_tensor_bank b = bank;
            for (int i = 0; i < b.count; ++i)
                b.out[i] += m0;
            launch_ddc_tensor(tensor_shape(),
                              in,
                              first_sample + (long long)(m0 * D),
                              (long long)(count - 1) * D + T,
                              b,
                              first_output + m0,
                              count,
                              d_tensor_ring ? d_tensor_grid[d_tensor_k][bank.count > 1]
                                            : 0u,
                              stream);
            d_ctx->check_last_error("ddc tensor kernel launch", d_who);
        }
    }

    void use_shape(const ddc_tile_shape& sh)
    {
        d_shape = sh;
        d_smem = ddc_tile_shared_bytes(sh, d_c.complex_input() ? 8 : 4);
    }

    int sample_bits() const { return ddc_sample_bits(d_c.input); }

    // The ring kernel's candidates (ddc_ring.h) where a tile fits;
    // GPUDSP_DDC_RING=0 leaves them out, =1 forces the first.
    void setup_rings(std::size_t optin)
    {
        const char* env = std::getenv("GPUDSP_DDC_RING");
        if (d_shapes.empty() || (env && std::strcmp(env, "0") == 0))
            return;
        d_rings = ddc_ring_candidates(d_c.decimation, d_c.n_taps(), sample_bits(), optin);
    }

    // The ring kernel on shape r from now on (the mix flag set by the
    // caller): its shared memory and the blocks of its persistent grid.
    void use_ring(const ddc_ring_shape& r)
    {
        d_ring = true;
        d_ring_stages = r.stages;
        d_shape = r.sh;
        d_smem = ddc_ring_shared_bytes(r.sh, sample_bits(), r.stages);
        // (asked once per candidate and mixing: the tuner comes back to each)
        const std::string key = (d_mix ? "mix " : "") + ddc_ring_id(r);
        const auto known = d_ring_fit.find(key);
        if (known != d_ring_fit.end()) {
            d_ring_per_sm = known->second;
            return;
        }
        if (r.per_sm) { // (a candidate: fewer blocks than fit)
            d_ring_per_sm = d_ring_fit[key] = r.per_sm;
            return;
        }
        d_ctx->make_current();
        int per_sm = 0;
        for_ring_kernel(d_shape, d_mix, [&](auto kernel) {
            check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                      &per_sm, kernel, d_shape.threads(), d_smem),
                  "cudaOccupancyMaxActiveBlocksPerMultiprocessor (DDC ring kernel)");
        });
        d_ring_per_sm = d_ring_fit[key] = std::max(per_sm, 1);
    }

    const ddc_cf* taps() const { return reinterpret_cast<const ddc_cf*>(d_taps->get()); }

    // New taps go up on the stream of the next launch that reads them, so
    // work in flight keeps its taps. Pageable source: the call returns once
    // the bytes are staged.
    void upload_taps(runtime::stream_handle sh)
    {
        if (!d_dirty)
            return;
        d_ctx->copy_async(d_taps->get(),
                          d_host.data(),
                          d_host.size() * sizeof(ddc_cf),
                          runtime::copy_kind::host_to_device,
                          sh,
                          d_who);
        d_dirty = false;
    }

    // The tile kernel over outputs [0, n) for every output of the bank,
    // in launches of at most 2^31 - 1 blocks.
    void launch_tiles(const void* in,
                      int64_t first_sample,
                      uint64_t first_output,
                      std::size_t n,
                      ddc_bank bank,
                      cudaStream_t stream)
    {
        const int T = d_c.n_taps(), D = d_c.decimation;
        const std::size_t per_launch = std::size_t(d_shape.M) * 0x7fffffff;
        for (std::size_t m0 = 0; m0 < n; m0 += per_launch) {
            const std::size_t count = std::min(per_launch, n - m0);
            const unsigned blocks = unsigned((count + d_shape.M - 1) / d_shape.M);
            const long long first = first_sample + (long long)(m0 * D);
            const long long valid = (long long)(count - 1) * D + T;
            ddc_bank b = bank;
            for (int i = 0; i < b.count; ++i)
                b.out[i] += m0;
            if (d_ring) { // persistent: at most the blocks that fit at once
                const std::size_t fit =
                    std::size_t(d_ring_per_sm) * d_ctx->info().multiprocessors;
                const unsigned grid = unsigned(std::min<std::size_t>(blocks, fit));
                const int stage = ddc_ring_stage_bytes(d_shape, sample_bits());
                for_ring_kernel(d_shape, d_mix, [&](auto kernel) {
                    kernel<<<grid, d_shape.threads(), d_smem, stream>>>(in,
                                                                        first,
                                                                        valid,
                                                                        b,
                                                                        d_shape,
                                                                        d_ring_stages,
                                                                        stage,
                                                                        first_output + m0,
                                                                        count);
                });
                d_ctx->check_last_error("ddc ring kernel launch", d_who);
                continue;
            }
            for_kernel(d_shape, d_mix, [&](auto kernel) {
                kernel<<<blocks, d_shape.threads(), d_smem, stream>>>(
                    in, first, valid, b, d_shape, first_output + m0, count);
            });
            d_ctx->check_last_error("ddc kernel launch", d_who);
        }
    }

    // fn(pick(format, R, AC, mix)): pick names an instance of a kernel
    // template <sample_kind, int R, int AC, bool MIX> from its arguments'
    // ::value, for this plan's sample format, the shape's R and AC and
    // mixing first or not (mix first takes complex input only; complex
    // input R = 8 only, R = 16 in the ring kernel only: ddc_tile_r_log2s).
    template <bool RING, class Pick, class Fn>
    void for_instance(const ddc_tile_shape& sh, bool mix, Pick pick, Fn fn) const
    {
        using complex_t = std::integral_constant<sample_kind, sample_kind::complex64>;
        auto with_r = [&](auto kind, auto r, auto m) {
            return sh.AC == 8 ? fn(pick(kind, r, std::integral_constant<int, 8>{}, m))
                              : fn(pick(kind, r, std::integral_constant<int, 4>{}, m));
        };
        using r8 = std::integral_constant<int, 8>;
        using ac8 = std::integral_constant<int, 8>;
        if (!ddc_tile_r_built(sh.R(), sh.AC, d_c.complex_input(), RING))
            throw std::logic_error(
                "ddc: no kernel built for R=" + std::to_string(sh.R()) +
                " AC=" + std::to_string(sh.AC)); // (a defect)
        auto with = [&](auto kind) {
            // (R other than 8 with AC = 8 only: ddc_tile_r_log2s)
            if (sh.R() == 4 && sh.AC == 8)
                return fn(pick(
                    kind, std::integral_constant<int, 4>{}, ac8{}, std::false_type{}));
            if constexpr (RING)
                if (sh.R() == 16 && sh.AC == 8)
                    return fn(pick(kind,
                                   std::integral_constant<int, 16>{},
                                   ac8{},
                                   std::false_type{}));
            return with_r(kind, r8{}, std::false_type{});
        };
        if (d_c.complex_input())
            return mix ? with_r(complex_t{}, r8{}, std::true_type{})
                       : with_r(complex_t{}, r8{}, std::false_type{});
        switch (kind_of(d_c.input)) {
        case sample_kind::packed10:
            return with(std::integral_constant<sample_kind, sample_kind::packed10>{});
        case sample_kind::int16:
            return with(std::integral_constant<sample_kind, sample_kind::int16>{});
        case sample_kind::float32:
        case sample_kind::complex64:
            break;
        }
        return with(std::integral_constant<sample_kind, sample_kind::float32>{});
    }

    // fn(the tile kernel instance for this plan: ddc_tile_kernel<...>).
    template <class Fn>
    void for_kernel(const ddc_tile_shape& sh, bool mix, Fn fn) const
    {
        for_instance<false>(
            sh,
            mix,
            [](auto kind, auto r, auto ac, auto m) {
                return ddc_tile_kernel<decltype(kind)::value,
                                       decltype(r)::value,
                                       decltype(ac)::value,
                                       decltype(m)::value>;
            },
            fn);
    }

    // fn(the ring kernel instance for this plan: ddc_ring_kernel<...>).
    template <class Fn>
    void for_ring_kernel(const ddc_tile_shape& sh, bool mix, Fn fn) const
    {
        for_instance<true>(
            sh,
            mix,
            [](auto kind, auto r, auto ac, auto m) {
                return ddc_ring_kernel<decltype(kind)::value,
                                       decltype(r)::value,
                                       decltype(ac)::value,
                                       decltype(m)::value>;
            },
            fn);
    }

    // fn(the simple kernel instance for this plan's sample format and taps
    // placement).
    template <class Fn>
    void for_simple_kernel(Fn fn) const
    {
        const bool shared = d_smem > 0;
#define GPUDSP_DDC_SIMPLE(KIND) \
    return shared ? fn(ddc_kernel<KIND, true>) : fn(ddc_kernel<KIND, false>)
        switch (kind_of(d_c.input)) {
        case sample_kind::packed10:
            GPUDSP_DDC_SIMPLE(sample_kind::packed10);
        case sample_kind::int16:
            GPUDSP_DDC_SIMPLE(sample_kind::int16);
        case sample_kind::float32:
            GPUDSP_DDC_SIMPLE(sample_kind::float32);
        case sample_kind::complex64:
            GPUDSP_DDC_SIMPLE(sample_kind::complex64);
        }
#undef GPUDSP_DDC_SIMPLE
    }

    // The simple kernel (filters too long for a tile): taps in shared
    // memory up to ddc_cuda_max_shared_taps, else read through the cache.
    void launch_simple(unsigned blocks,
                       cudaStream_t stream,
                       const void* in,
                       long long first,
                       const ddc_cf* z,
                       int T,
                       uint64_t first_output,
                       std::size_t count,
                       const mixer_phase& ph,
                       float2* y)
    {
        // d_smem is 0 where the taps are read through the cache.
        for_simple_kernel([&](auto kernel) {
            kernel<<<blocks, threads, d_smem, stream>>>(in,
                                                        first,
                                                        z,
                                                        T,
                                                        d_c.decimation,
                                                        first_output,
                                                        count,
                                                        ph.step,
                                                        ph.offset,
                                                        y);
        });
    }

    ddc_config d_c;
    runtime::device_context::sptr d_ctx;
    std::string d_who;
    std::vector<ddc_tile_shape> d_shapes; // the tuner's candidates (empty: simple)
    ddc_tile_shape d_shape;               // A == 0: the simple kernel
    std::size_t d_smem = 0;
    std::size_t d_l2 = 0; // bytes of L2 cache
    std::unique_ptr<runtime::device_memory> d_taps;
    std::vector<ddc_cf> d_host;
    bool d_dirty = false;
    bool d_mix_ok = false;         // mix first can run (complex input, real taps)
    bool d_mix = false;            // it runs (in the tile or ring kernel)
    std::vector<ddc_ring_shape> d_rings; // the ring kernel's candidates
    bool d_ring = false;                 // the ring kernel runs d_shape
    int d_ring_stages = 0;
    int d_ring_per_sm = 1;         // its blocks an SM (occupancy)
    std::map<std::string, int> d_ring_fit; // the same, by candidate
    bool d_mix_uploaded = false;   // its taps are on the device
    std::vector<float> d_mix_host; // its reversed real taps
    std::unique_ptr<runtime::device_memory> d_mix_taps;
    // The tensor-core form, [tensor_kind(nt, mt)]: its tap block of 4D or
    // 8D, 16 or 32 rows a warp.
    // (tensor_ok(k): its shape fits, warps > 0.)
    ddc_tensor::shape d_tensor_shapes[tensor_kinds];
    bool d_tensor_ring_ok[tensor_kinds] = {}; // its ring form fits here
    // Its persistent blocks, alone and banks (once asked).
    unsigned d_tensor_grid[tensor_kinds][2] = {};
    bool d_tensor = false;       // it runs (else the tile or simple kernel)
    bool d_tensor_ring = false;  // the ring form runs
    bool d_tensor_dirty = false; // its taps image is newer than the device's
    int d_tensor_k = 0;          // the kind in use (its shape: tensor_shape())
    std::vector<std::complex<float>>
        d_tensor_zr;                       // the reversed taps of the last set_taps
    ddc_tensor::taps_image d_tensor_image; // of them, for tensor_shape()
    std::unique_ptr<runtime::device_memory> d_tensor_taps;
};

} // namespace

std::unique_ptr<ddc_plan::impl> make_ddc_cuda(const ddc_config& config,
                                              runtime::device_context::sptr ctx,
                                              const std::string& who)
{
    return std::make_unique<ddc_cuda>(config, std::move(ctx), who);
}

} // namespace kernels
} // namespace gpudsp
} // namespace gr
