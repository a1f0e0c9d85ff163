/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The X-engine on CUDA. Two accumulation kernels over the lower triangle of
// input tiles (only tiles I >= J are launched, through a triangular index):
//
//  fp32    xGPU's shape: a block of 16x16 threads owns a 32x32 tile of
//          input pairs, each thread a 2x2 register tile; 16 spectra at a time
//          are staged in shared memory (int8 converted to float on load).
//          For ci8 the float sums are exact integers; they are added to the
//          int32 partials every 512 spectra, before they could exceed 2^24.
//  tensor  ci8 only: one warp per 16x16 tile of input pairs, int8 WMMA
//          16x16x16 with int32 accumulation, the complex product as four real
//          products: re += Ar Ar' + Ai Ai', im = Ai Ar' - Ar Ai' from two
//          accumulators subtracted at the end (no int8 is negated, so -128
//          is exact). A launch is at most 65535 spectra (the plan cuts
//          calls), so the fragments cannot overflow.
//
// ci8 sums live in int32 partials (one read-modify-write per launch), moved
// into the int64 totals by a promote kernel every 65535 spectra and before
// each dump (xengine_impl.h). A dump kernel maps the triangle to
// [channel][baseline][p][q], saturates to +-(2^31 - 1) and counts saturated
// visibilities (warp ballot + one atomic).

#include "xengine_impl.h"
#include <cuda_runtime.h>
#include <mma.h>
#include <algorithm>

namespace gr {
namespace gpudsp {
namespace kernels {

namespace {

constexpr int max_grid_y = 65535;

__device__ __forceinline__ void tile_pair(unsigned x, int& I, int& J)
{
    // x = I (I + 1) / 2 + J with J <= I
    int i = int((sqrtf(8.0f * float(x) + 1.0f) - 1.0f) * 0.5f);
    while (i * (i + 1) / 2 > int(x))
        --i;
    while ((i + 1) * (i + 2) / 2 <= int(x))
        ++i;
    I = i;
    J = int(x) - i * (i + 1) / 2;
}

__device__ __forceinline__ long long tri(int a, int b)
{
    return (long long)a * (a + 1) / 2 + b;
}

template <bool CI8>
__device__ __forceinline__ float2 load_value(const void* x, long long index)
{
    if (CI8) {
        const char2 v = static_cast<const char2*>(x)[index];
        return make_float2(float(v.x), float(v.y));
    }
    return static_cast<const float2*>(x)[index];
}

// ---------------------------------------------------------------------------
// FP32 kernel

constexpr int fp_tile = 32;   // inputs per tile side
constexpr int fp_time = 16;   // spectra staged per step
constexpr int fp_flush = 512; // ci8: spectra between moves to 64-bit
constexpr int fp_block = 16;  // threads per block side (2 x 2 pairs each)

template <bool CI8>
__global__ void __launch_bounds__(fp_block* fp_block)
    xcorr_fp32(const void* __restrict__ x,
               int n_time,
               int n_channels,
               int channel0,
               int n_inputs,
               int* __restrict__ part,    // ci8: int32 partials [c][pair][2]
               float* __restrict__ acc32) // cf32: [c][pair][2]
{
    __shared__ float2 xa[fp_time][fp_tile];
    __shared__ float2 xb[fp_time][fp_tile];
    int I, J;
    tile_pair(blockIdx.x, I, J);
    const int c = channel0 + blockIdx.y;
    const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * fp_block + tx;
    const int a0 = I * fp_tile + 2 * ty, b0 = J * fp_tile + 2 * tx;
    float2 sum[2][2];
    for (int u = 0; u < 2; ++u)
        for (int v = 0; v < 2; ++v)
            sum[u][v] = make_float2(0.0f, 0.0f);
    const long long pairs = (long long)n_inputs * (n_inputs + 1) / 2;

    auto flush = [&]() {
        for (int u = 0; u < 2; ++u)
            for (int v = 0; v < 2; ++v) {
                const int a = a0 + u, b = b0 + v;
                if (a < n_inputs && b <= a) {
                    const long long k = ((long long)c * pairs + tri(a, b)) * 2;
                    if (CI8) {
                        part[k] += int(sum[u][v].x);
                        part[k + 1] += int(sum[u][v].y);
                    } else {
                        acc32[k] += sum[u][v].x;
                        acc32[k + 1] += sum[u][v].y;
                    }
                }
                sum[u][v] = make_float2(0.0f, 0.0f);
            }
    };

    for (int t0 = 0; t0 < n_time; t0 += fp_time) {
        // 256 threads stage 16 spectra x 32 inputs of both tiles.
        for (int e = tid; e < fp_time * fp_tile; e += 256) {
            const int tt = e / fp_tile, col = e % fp_tile, t = t0 + tt;
            const int a = I * fp_tile + col, b = J * fp_tile + col;
            const long long row = ((long long)t * n_channels + c) * n_inputs;
            xa[tt][col] = (t < n_time && a < n_inputs) ? load_value<CI8>(x, row + a)
                                                       : make_float2(0.0f, 0.0f);
            xb[tt][col] = (t < n_time && b < n_inputs) ? load_value<CI8>(x, row + b)
                                                       : make_float2(0.0f, 0.0f);
        }
        __syncthreads();
#pragma unroll 4
        for (int tt = 0; tt < fp_time; ++tt) {
            const float2 p0 = xa[tt][2 * ty], p1 = xa[tt][2 * ty + 1];
            const float2 q0 = xb[tt][2 * tx], q1 = xb[tt][2 * tx + 1];
            const float2 p[2] = { p0, p1 }, q[2] = { q0, q1 };
#pragma unroll
            for (int u = 0; u < 2; ++u)
#pragma unroll
                for (int v = 0; v < 2; ++v) {
                    // p conj(q)
                    sum[u][v].x = fmaf(p[u].x, q[v].x, fmaf(p[u].y, q[v].y, sum[u][v].x));
                    sum[u][v].y =
                        fmaf(p[u].y, q[v].x, fmaf(-p[u].x, q[v].y, sum[u][v].y));
                }
        }
        __syncthreads();
        if (CI8 && ((t0 + fp_time) % fp_flush) == 0)
            flush();
    }
    flush();
}

// ---------------------------------------------------------------------------
// Tensor-core kernel (ci8)

constexpr int tc_tile = 16;
constexpr int tc_warps = 4;

__global__ void __launch_bounds__(32 * tc_warps)
    xcorr_tensor(const char2* __restrict__ x,
                 int n_time,
                 int n_channels,
                 int channel0,
                 int n_inputs,
                 unsigned n_tile_pairs,
                 int* __restrict__ part) // int32 partials [c][pair][2]
{
    using namespace nvcuda;
    // load_matrix_sync and store_matrix_sync need 256-bit aligned pointers:
    // each plane is 256 (or 1024) bytes, so an aligned base aligns them all.
    // Planes Ar_i, Ai_i, Ar_j, Ai_j of each warp's tile.
    __shared__ alignas(32) signed char stage[tc_warps][4][tc_tile * tc_tile];
    __shared__ alignas(32) int out[tc_warps][2][tc_tile * tc_tile];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const unsigned pair = blockIdx.x * tc_warps + warp;
    if (pair >= n_tile_pairs)
        return;
    int I, J;
    tile_pair(pair, I, J);
    const int c = channel0 + blockIdx.y;
    const long long pairs = (long long)n_inputs * (n_inputs + 1) / 2;
    signed char* s = &stage[warp][0][0];

    wmma::fragment<wmma::matrix_a, 16, 16, 16, signed char, wmma::row_major> ar, ai;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, signed char, wmma::col_major> br, bi;
    // im = Ai Br - Ar Bi, as two sums: negating an int8 would wrap -128.
    wmma::fragment<wmma::accumulator, 16, 16, 16, int> re, im, im_neg;
    wmma::fill_fragment(re, 0);
    wmma::fill_fragment(im, 0);
    wmma::fill_fragment(im_neg, 0);

    for (int t0 = 0; t0 < n_time; t0 += tc_tile) {
        // Stage [input][time] tiles: element (row, tt) at row * 16 + tt.
        for (int e = lane; e < tc_tile * tc_tile; e += 32) {
            const int tt = e / tc_tile, row = e % tc_tile, t = t0 + tt;
            const long long base = ((long long)t * n_channels + c) * n_inputs;
            const int a = I * tc_tile + row, b = J * tc_tile + row;
            char2 va = make_char2(0, 0), vb = make_char2(0, 0);
            if (t < n_time) {
                if (a < n_inputs)
                    va = x[base + a];
                if (b < n_inputs)
                    vb = x[base + b];
            }
            const int at = row * tc_tile + tt;
            s[0 * 256 + at] = va.x;
            s[1 * 256 + at] = va.y;
            s[2 * 256 + at] = vb.x;
            s[3 * 256 + at] = vb.y;
        }
        __syncwarp();
        wmma::load_matrix_sync(ar, s + 0 * 256, tc_tile);
        wmma::load_matrix_sync(ai, s + 1 * 256, tc_tile);
        wmma::load_matrix_sync(br, s + 2 * 256, tc_tile);
        wmma::load_matrix_sync(bi, s + 3 * 256, tc_tile);
        wmma::mma_sync(re, ar, br, re);
        wmma::mma_sync(re, ai, bi, re);
        wmma::mma_sync(im, ai, br, im);
        wmma::mma_sync(im_neg, ar, bi, im_neg);
        __syncwarp();
    }
    // Accumulator fragments of one type share their element layout.
    for (int e = 0; e < im.num_elements; ++e)
        im.x[e] -= im_neg.x[e];
    wmma::store_matrix_sync(&out[warp][0][0], re, tc_tile, wmma::mem_row_major);
    wmma::store_matrix_sync(&out[warp][1][0], im, tc_tile, wmma::mem_row_major);
    __syncwarp();
    for (int e = lane; e < tc_tile * tc_tile; e += 32) {
        const int a = I * tc_tile + e / tc_tile, b = J * tc_tile + e % tc_tile;
        if (a < n_inputs && b <= a) {
            const long long k = ((long long)c * pairs + tri(a, b)) * 2;
            part[k] += out[warp][0][e];
            part[k + 1] += out[warp][1][e];
        }
    }
}

// ci8: the int32 partials into the int64 totals, and cleared.
constexpr int promote_threads = 256;

__global__ void __launch_bounds__(promote_threads)
    promote_partials(int* __restrict__ part, long long* __restrict__ total, long long n)
{
    for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; k < n;
         k += (long long)gridDim.x * blockDim.x) {
        total[k] += part[k];
        part[k] = 0;
    }
}

// ---------------------------------------------------------------------------
// Dump: [c][pair] accumulators to [c][baseline][p][q].

constexpr int dump_threads = 256;

template <bool ACC64, bool OUT_CI32>
__global__ void __launch_bounds__(dump_threads)
    xdump(const long long* __restrict__ acc64,
          const float* __restrict__ acc32,
          long long n_values,
          int n_inputs,
          int n_pols,
          long long n_baselines,
          void* __restrict__ out,
          unsigned long long* __restrict__ saturated)
{
    const long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    bool clamped = false;
    if (o < n_values) {
        const int pq = n_pols * n_pols;
        const int q = int(o % n_pols), p = int((o / n_pols) % n_pols);
        const long long k = (o / pq) % n_baselines;
        const long long c = o / (pq * n_baselines);
        long long i = (long long)((sqrt(8.0 * double(k) + 1.0) - 1.0) * 0.5);
        while (i * (i + 1) / 2 > k)
            --i;
        while ((i + 1) * (i + 2) / 2 <= k)
            ++i;
        const long long j = k - i * (i + 1) / 2;
        const int a = int(i) * n_pols + p, b = int(j) * n_pols + q;
        const long long pairs = (long long)n_inputs * (n_inputs + 1) / 2;
        const bool direct = a >= b;
        const long long idx = (c * pairs + (direct ? tri(a, b) : tri(b, a))) * 2;
        if (ACC64) {
            const long long vr = acc64[idx];
            const long long vi = direct ? acc64[idx + 1] : -acc64[idx + 1];
            if (OUT_CI32) {
                const long long lim = 2147483647LL;
                clamped = vr > lim || vr < -lim || vi > lim || vi < -lim;
                static_cast<int2*>(out)[o] =
                    make_int2(int(max(-lim, min(lim, vr))), int(max(-lim, min(lim, vi))));
            } else {
                static_cast<float2*>(out)[o] = make_float2(float(vr), float(vi));
            }
        } else {
            const float vr = acc32[idx];
            const float vi = direct ? acc32[idx + 1] : -acc32[idx + 1];
            static_cast<float2*>(out)[o] = make_float2(vr, vi);
        }
    }
    if (OUT_CI32) {
        const unsigned n = __popc(__ballot_sync(0xffffffffu, clamped));
        if ((threadIdx.x & 31) == 0 && n)
            atomicAdd(saturated, (unsigned long long)n);
    }
}

class xengine_cuda : public xengine_plan::impl
{
public:
    xengine_cuda(const xengine_config& c,
                 runtime::device_context::sptr ctx,
                 const std::string& who)
        : d_c(c),
          d_ctx(std::move(ctx)),
          d_who(who),
          d_tensor(xengine_uses_tensor(c)),
          d_ci8(c.input == xengine_input::ci8),
          d_sums(std::size_t(c.n_channels) * c.n_inputs() * (c.n_inputs() + 1)),
          d_total(d_ctx, d_sums * (d_ci8 ? sizeof(long long) : sizeof(float)), who),
          d_part(d_ctx, d_ci8 ? d_sums * sizeof(int) : 4, who),
          d_counter(d_ctx, sizeof(uint64_t), who),
          d_init(d_ctx, who)
    {
        d_ctx->memset_async(d_total.get(), 0, d_total.size(), d_init.get(), who);
        d_ctx->memset_async(d_part.get(), 0, d_part.size(), d_init.get(), who);
        d_init.synchronize();
    }

    std::string kernel_name() const override { return d_tensor ? "tensor" : "fp32"; }

    // n <= xengine_int32_spectra (the plan cuts calls): one launch per
    // block of channels.
    void accumulate(const void* x, std::size_t n, runtime::stream_handle sh) override
    {
        d_ctx->make_current();
        auto stream = static_cast<cudaStream_t>(sh);
        const int A = d_c.n_inputs();
        const int nt = int(n);
        for (int c0 = 0; c0 < d_c.n_channels; c0 += max_grid_y) {
            const int nc = std::min(max_grid_y, d_c.n_channels - c0);
            if (d_tensor) {
                const unsigned tiles = unsigned((A + tc_tile - 1) / tc_tile);
                const unsigned tile_pairs = tiles * (tiles + 1) / 2;
                dim3 grid((tile_pairs + tc_warps - 1) / tc_warps, nc);
                xcorr_tensor<<<grid, 32 * tc_warps, 0, stream>>>(
                    static_cast<const char2*>(x),
                    nt,
                    d_c.n_channels,
                    c0,
                    A,
                    tile_pairs,
                    part());
            } else {
                const unsigned tiles = unsigned((A + fp_tile - 1) / fp_tile);
                dim3 grid(tiles * (tiles + 1) / 2, nc);
                dim3 block(fp_block, fp_block);
                if (d_ci8)
                    xcorr_fp32<true><<<grid, block, 0, stream>>>(
                        x, nt, d_c.n_channels, c0, A, part(), nullptr);
                else
                    xcorr_fp32<false><<<grid, block, 0, stream>>>(
                        x, nt, d_c.n_channels, c0, A, nullptr, total32());
            }
            d_ctx->check_last_error("xengine accumulation kernel launch", d_who);
        }
    }

    void promote(runtime::stream_handle sh) override
    {
        if (!d_ci8)
            return;
        d_ctx->make_current();
        const long long n = (long long)d_sums;
        const unsigned blocks = unsigned(
            std::min<long long>((n + promote_threads - 1) / promote_threads, 65535));
        promote_partials<<<blocks, promote_threads, 0, static_cast<cudaStream_t>(sh)>>>(
            part(), total64(), n);
        d_ctx->check_last_error("xengine promote kernel launch", d_who);
    }

    void dump(void* out, uint64_t* saturated, runtime::stream_handle sh) override
    {
        d_ctx->make_current();
        auto stream = static_cast<cudaStream_t>(sh);
        const long long n_values = (long long)d_c.dump_values();
        const int threads = dump_threads;
        const unsigned blocks = unsigned((n_values + threads - 1) / threads);
        auto* sat = reinterpret_cast<unsigned long long*>(
            saturated ? saturated : reinterpret_cast<uint64_t*>(d_counter.get()));
        d_ctx->memset_async(sat, 0, sizeof(uint64_t), sh, d_who);
        const bool ci32 = d_c.output == xengine_output::ci32;
        const long long nb = (long long)d_c.n_baselines();
        if (blocks) {
            // ci8 sums are the int64 totals, cf32 ones float; only ci32
            // output counts saturation.
            auto* kernel = d_ci8 ? (ci32 ? xdump<true, true> : xdump<true, false>)
                                 : xdump<false, false>;
            kernel<<<blocks, threads, 0, stream>>>(d_ci8 ? total64() : nullptr,
                                                   d_ci8 ? nullptr : total32(),
                                                   n_values,
                                                   d_c.n_inputs(),
                                                   d_c.n_pols,
                                                   nb,
                                                   out,
                                                   d_ci8 && ci32 ? sat : nullptr);
            d_ctx->check_last_error("xengine dump kernel launch", d_who);
        }
        // The partials were promoted (and cleared) by the plan before the dump.
        d_ctx->memset_async(d_total.get(), 0, d_total.size(), sh, d_who);
    }

private:
    long long* total64() { return reinterpret_cast<long long*>(d_total.get()); }
    float* total32() { return reinterpret_cast<float*>(d_total.get()); }
    int* part() { return reinterpret_cast<int*>(d_part.get()); }

    xengine_config d_c;
    runtime::device_context::sptr d_ctx;
    std::string d_who;
    bool d_tensor, d_ci8;
    std::size_t d_sums;               // channels x pairs x (re, im)
    runtime::device_memory d_total;   // ci8: int64; cf32: float
    runtime::device_memory d_part;    // ci8: int32 partials
    runtime::device_memory d_counter; // saturation count nobody asked for
    runtime::device_stream d_init;
};

} // namespace

std::unique_ptr<xengine_plan::impl> make_xengine_cuda(const xengine_config& config,
                                                      runtime::device_context::sptr ctx,
                                                      const std::string& who)
{
    return std::make_unique<xengine_cuda>(config, std::move(ctx), who);
}

} // namespace kernels
} // namespace gpudsp
} // namespace gr
