/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The X-engine on CUDA (docs/xengine.md, "Kernels"; index arithmetic in
// xengine_tile.h). Accumulation kernels over the lower triangle of input
// tiles (only tiles I >= J are launched, through a triangular index):
//
//  fp32      xGPU's structure: a block of 16x16 threads owns a 64x64 tile
//            of input pairs, each thread a 4x4 register tile; 16 spectra
//            per stage, double-buffered through registers (int8 converted
//            once); ci8 float sums moved to the int32 partials every 512.
//  tensor    ci8 only, by device: wgmma (sm_90a, xengine_wgmma.cu), else
//            mma.sync m16n8k32 (sm_80+: xtc_pack writes each launch K-major,
//            xcorr_tc80 correlates 128x128 tiles from a cp.async pipeline),
//            else WMMA 16x16x16 (sm_75: xcorr_wmma). The complex product is
//            exact over the whole int8 range (no int8 is negated).
//  cublaslt  the Gram form (xengine_gram.cu): cuBLASLt's int8 GEMM of the
//            interleaved re/im rows; a candidate the tuner times, never the
//            heuristic's choice.
//  wgmma gram  the same rows, our persistent warp-specialized sm_90a kernel
//            (xengine_ws.cu: TMA, wgmma, bulk-reduction epilogue; B tiles
//            of 256 or 128 rows); "wgmma gram direct" the same kernel
//            packing the input itself (no pack pass: 2 bytes of DRAM a
//            sample); "wgmma gram channel" (up to 128 inputs) all of a
//            channel's rows in one block, its two warpgroups transposing
//            each stage once (xcorr_wsc); "mma.sync gram" the same formulation on sm_80+ (a block
//            a tile, cp.async ring, atomic adds). On sm_90a the heuristic
//            runs "wgmma gram direct" at 64..128 inputs and "wgmma gram"
//            beyond 256 (measured fastest on the H200 of 2026-11-27); the
//            others are tuner candidates.
//
// ci8 sums live in int32 partials (atomic adds, no read-modify-write), moved
// into the int64 totals by a promote kernel every 65535 spectra and before
// each dump (xengine_impl.h). A dump kernel maps the triangle to
// [channel][baseline][p][q], saturates to +-(2^31 - 1) and counts saturated
// visibilities (warp ballot + one atomic).

#include "kernels/common/cp_async.cuh"
#include "runtime/autotune.h"
#include "xengine_gram_cuda.h"
#include "xengine_impl.h"
#include "xengine_mma.cuh"
#include "xengine_tile.h"
#include "xengine_ws.h"
#include "xengine_ws_cuda.h"
#ifdef GPUDSP_HAVE_WGMMA
#include "xengine_wgmma.h"
#endif
#include <cuda_runtime.h>
#include <mma.h>
#include <type_traits>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <stdexcept>

namespace gr {
namespace gpudsp {
namespace kernels {

namespace {

constexpr int max_grid_y = 65535;

__device__ __forceinline__ long long tri(int a, int b)
{
    return (long long)a * (a + 1) / 2 + b;
}

// A value as loaded (ci8: its two bytes as one 16-bit integer, converted
// only when stored to shared memory: a conversion waits for its load) and
// as the arithmetic takes it. (A char2 struct chosen against a zero one
// was assembled byte by byte, each PRMT waiting for its load: 5 round
// trips a stage in the sm_90 SASS.)
template <bool CI8>
using raw_value = std::conditional_t<CI8, unsigned short, float2>;
__device__ __forceinline__ float2 as_float2(unsigned short v)
{
    float2 f;
    xfp_ci8_parts(v, f.x, f.y);
    return f;
}
__device__ __forceinline__ float2 as_float2(float2 v) { return v; }

// ---------------------------------------------------------------------------
// FP32 kernel (xengine_tile.h: xfp_*). A block of 16 x 16 threads owns a
// 64 x 64 tile of input pairs, each thread a 4 x 4 register tile (16
// complex accumulators, 64 FMAs per spectrum against 4 128-bit shared
// loads). Shared memory is double-buffered: the global loads of stage s + 1
// are issued into registers before the arithmetic of stage s and stored
// (converted from int8 once per element) after it, one barrier per stage.
// For ci8 the float sums are exact integers (at most 512 * 32768 = 2^24)
// and are added to the int32 partials every 512 spectra.

template <bool CI8>
__global__ void __launch_bounds__(xfp_threads, 2)
    xcorr_fp32(const void* __restrict__ x,
               int n_time,
               int n_channels,
               int channel0,
               int n_inputs,
               int* __restrict__ part,    // ci8: int32 partials [c][pair][2]
               float* __restrict__ acc32) // cf32: [c][pair][2]
{
    __shared__ alignas(16) float2 xs[2][2][xfp_stage][xfp_tile]; // [buffer][side]
    int I, J;
    xengine_tile_pair(blockIdx.x, I, J);
    const int c = channel0 + blockIdx.y;
    const int tx = threadIdx.x % xfp_side, ty = threadIdx.x / xfp_side;
    const int tid = threadIdx.x;
    const int a0 = I * xfp_tile, b0 = J * xfp_tile;
    float2 sum[xfp_regs][xfp_regs];
    for (int u = 0; u < xfp_regs; ++u)
        for (int v = 0; v < xfp_regs; ++v)
            sum[u][v] = make_float2(0.0f, 0.0f);
    const long long pairs = (long long)n_inputs * (n_inputs + 1) / 2;

    // The sums into the partials: ci8's int32 partials by atomic adds
    // (RED: nothing waits, exact in any order); the float partials a row
    // of the register tile at a time, the row's old values loaded first (in
    // flight together: the pairs are distinct), then its sums stored: 4
    // round trips once per launch (float atomics would flush subnormal
    // sums to zero; a whole tile at once would spill at 2 blocks per SM).
    auto pair_at = [&](int u,
                       int v,
                       long long first,
                       long long& k) { // the pair's index, if below the diagonal
        const int a = a0 + xfp_row(ty, u), b = b0 + xfp_col(tx, v);
        k = (first + tri(a, b)) * 2;
        return a < n_inputs && b <= a;
    };
    auto flush = [&]() {
        // The channel's first pair, opaque to the compiler: otherwise it
        // keeps the 16 addresses in registers across the main loop (loop
        // invariants) and spills at the 128 registers of 2 blocks an SM.
        long long first = (long long)c * pairs;
        asm volatile("" : "+l"(first));
        if (CI8) {
#pragma unroll
            for (int u = 0; u < xfp_regs; ++u)
#pragma unroll
                for (int v = 0; v < xfp_regs; ++v) {
                    long long k;
                    if (pair_at(u, v, first, k)) {
                        atomicAdd(part + k, int(sum[u][v].x));
                        atomicAdd(part + k + 1, int(sum[u][v].y));
                    }
                    sum[u][v] = make_float2(0.0f, 0.0f);
                }
            return;
        }
#pragma unroll
        for (int u = 0; u < xfp_regs; ++u) {
            long long k;
            float2 old_f[xfp_regs];
#pragma unroll
            for (int v = 0; v < xfp_regs; ++v)
                if (pair_at(u, v, first, k))
                    old_f[v] = *reinterpret_cast<const float2*>(acc32 + k);
#pragma unroll
            for (int v = 0; v < xfp_regs; ++v) {
                if (pair_at(u, v, first, k))
                    *reinterpret_cast<float2*>(acc32 + k) =
                        make_float2(old_f[v].x + sum[u][v].x, old_f[v].y + sum[u][v].y);
                sum[u][v] = make_float2(0.0f, 0.0f);
            }
        }
    };
    // The next stage's values, as loaded: converted in store(), after the
    // stage's arithmetic. (Converted here, as until 2026-11-28, each ci8
    // stage waited for its loads before its arithmetic began: sm_90 SASS,
    // I2F.S8 straight after the LDG.)
    raw_value<CI8> next[xfp_loads];
    // One pointer a side, advanced a stage at a time (xfp_fetch_plan).
    const xfp_fetch_plan plan = xfp_fetch_plan_of(tid, I, J, c, n_channels, n_inputs);
    const auto* xv = static_cast<const raw_value<CI8>*>(x);
    const raw_value<CI8>* side_at[2] = { xv + plan.base[0], xv + plan.base[1] };
    auto fetch = [&](int t0) { // (t0: the stage side_at points at)
#pragma unroll
        for (int k = 0; k < xfp_loads; ++k)
            next[k] = plan.present(k, t0, n_time)
                          ? side_at[xfp_fetch_plan::side_of(k)][plan.offset(k)]
                          : raw_value<CI8>{};
    };
    auto store = [&](int buffer) {
#pragma unroll
        for (int k = 0; k < xfp_loads; ++k) {
            const xfp_load l = xfp_load_of(tid, k);
            xs[buffer][l.side][l.t][l.col] = as_float2(next[k]);
        }
    };

    fetch(0);
    store(0);
    __syncthreads();
    for (int t0 = 0, buffer = 0; t0 < n_time; t0 += xfp_stage, buffer ^= 1) {
        const bool more = t0 + xfp_stage < n_time;
        if (more) {
            side_at[0] += plan.stage;
            side_at[1] += plan.stage;
            fetch(t0 + xfp_stage); // in flight during the arithmetic
        }
#pragma unroll 4
        for (int tt = 0; tt < xfp_stage; ++tt) {
            const float4* ra =
                reinterpret_cast<const float4*>(&xs[buffer][0][tt][xfp_row(ty, 0)]);
            const float4 pa0 = ra[0], pa1 = ra[1];
            const float2 p[xfp_regs] = { make_float2(pa0.x, pa0.y),
                                         make_float2(pa0.z, pa0.w),
                                         make_float2(pa1.x, pa1.y),
                                         make_float2(pa1.z, pa1.w) };
            float2 q[xfp_regs];
#pragma unroll
            for (int v = 0; v < xfp_regs; ++v)
                q[v] = xs[buffer][1][tt][xfp_col(tx, v)];
#pragma unroll
            for (int u = 0; u < xfp_regs; ++u)
#pragma unroll
                for (int v = 0; v < xfp_regs; ++v) {
                    // p conj(q)
                    sum[u][v].x = fmaf(p[u].x, q[v].x, fmaf(p[u].y, q[v].y, sum[u][v].x));
                    sum[u][v].y =
                        fmaf(p[u].y, q[v].x, fmaf(-p[u].x, q[v].y, sum[u][v].y));
                }
        }
        if (more)
            store(buffer ^ 1); // that buffer's last readers passed the previous barrier
        __syncthreads();
        if (CI8 && xfp_flush_after(t0))
            flush();
    }
    if (!CI8 || xfp_flush_at_end(n_time))
        flush();
}

// ---------------------------------------------------------------------------
// Tensor-core kernel, sm_80 and later (xengine_tile.h: xtc_*): the pack
// kernel writes the launch's spectra K-major (re and im planes per block of
// 32 spectra) with each input's imaginary sum; the correlation kernel
// streams 32-spectrum stages of its two 128-input tiles through a 3-stage
// cp.async pipeline and each warp issues 32 mma.sync.m16n8k32 per stage on
// its 32 x 32 square.

// Block (input group of 128, block of 32 spectra, channel of the launch).
// PARTS 3 (the wgmma kernel) also writes the complement of the real plane.
template <int PARTS>
__global__ void __launch_bounds__(xtc_pack_threads)
    xtc_pack(const char2* __restrict__ x,
             int n_time,
             int n_channels,
             int channel0,
             int n_inputs,
             int n_blocks,
             int a_pad,
             signed char* __restrict__ packed,
             int* __restrict__ im_sum) // [launch channel][a_pad], zeroed
{
    __shared__ alignas(16) signed char s[xtc_k * xtc_pack_row];
    const int g = blockIdx.x, tb = blockIdx.y, lc = blockIdx.z, c = channel0 + lc;
    for (int e = threadIdx.x; e < xtc_k * xtc_tile; e += xtc_pack_threads) {
        const xtc_pack_load l =
            xtc_pack_load_of(e, g, tb, c, n_time, n_channels, n_inputs);
        const char2 v = l.from >= 0 ? x[l.from] : make_char2(0, 0);
        s[l.smem] = v.x;
        s[l.smem + 1] = v.y;
    }
    __syncthreads();
    const int col = threadIdx.x / 2, half = threadIdx.x % 2;
    int isum = 0;
    uint32_t w[3][4];
    xtc_pack_thread(s, threadIdx.x, PARTS, w, isum);
#pragma unroll
    for (int part = 0; part < PARTS; ++part) {
        const std::size_t o = xtc_packed_offset(
            lc, tb, part, g * xtc_tile + col, 16 * half, n_blocks, a_pad, PARTS);
        *reinterpret_cast<uint4*>(packed + o) =
            make_uint4(w[part][0], w[part][1], w[part][2], w[part][3]);
    }
    isum += __shfl_xor_sync(0xffffffffu, isum, 1);
    const int a = g * xtc_tile + col;
    if (half == 0 && a < n_inputs && isum)
        atomicAdd(&im_sum[(std::size_t)lc * a_pad + a], isum);
}

// A warp's stage: fragments from the planes, then the complex products.
__device__ __forceinline__ void warp_stage(
    const unsigned char* planes, int wr, int wc, int (&re)[2][4][4], int (&im)[2][4][4])
{
    xtc_frags f;
    xtc_load_frags(planes, wr, wc, threadIdx.x % 32, f);
    xtc_products(f, re, im, [](int(&d)[4], const uint32_t(&x)[4], const uint32_t(&y)[2]) {
        mma_s8(d, x, y);
    });
}

// A warp's square into the int32 partials of channel c; column_im(b) is
// the column input's imaginary sum (the complement trick's correction).
template <class ColumnIm>
__device__ __forceinline__ void add_warp_square(int I,
                                                int J,
                                                int wr,
                                                int wc,
                                                const int (&re)[2][4][4],
                                                const int (&im)[2][4][4],
                                                int c,
                                                int n_inputs,
                                                int* __restrict__ part,
                                                ColumnIm column_im)
{
    const int lane = threadIdx.x % 32;
    // By atomic adds (RED: nothing waits for them, no read-modify-write),
    // two columns of the square (8 pairs) at a time: their column sums
    // loaded first (in flight together), then the adds (the addresses
    // kept, not recomputed: recomputing them spills at the 128 registers of
    // 512 threads).
#pragma unroll
    for (int q = 0; q < 4; ++q) {
        const int m = q / 2;
        int* at[8];
        int col[8];
#pragma unroll
        for (int j = 0; j < 8; ++j) {
            const int n = 2 * (q % 2) + j / 4, r = j % 4;
            int a, b;
            xtc_pair_of(I, J, wr, wc, m, n, lane, r, a, b);
            at[j] = a < n_inputs && b <= a
                        ? part + xtc_pair_addresses(c, 0, a, b, n_inputs, 0).partial
                        : nullptr;
            if (at[j])
                col[j] = column_im(b);
        }
#pragma unroll
        for (int j = 0; j < 8; ++j) {
            const int n = 2 * (q % 2) + j / 4, r = j % 4;
            if (at[j]) {
                atomicAdd(at[j], re[m][n][r]);
                atomicAdd(at[j] + 1, im[m][n][r] + col[j]);
            }
        }
    }
}

__global__ void __launch_bounds__(xtc_threads, 1)
    xcorr_tc80(const signed char* __restrict__ packed,
               const int* __restrict__ im_sum, // [launch channel][a_pad]
               int n_blocks,
               int a_pad,
               int channel0,
               int n_inputs,
               int* __restrict__ part) // int32 partials [c][pair][2]
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    extern __shared__ __align__(16) unsigned char smem[];
    int I, J;
    xengine_tile_pair(blockIdx.x, I, J);
    const int lc = blockIdx.y;
    const int warp = threadIdx.x / 32;
    const bool idle = xtc_warp_idle(warp, I == J);
    const int wr = xtc_warp_row(warp), wc = xtc_warp_col(warp);

    auto issue = [&](int tb) {
        unsigned char* stage = smem + (tb % xtc_stages) * xtc_stage_bytes;
#pragma unroll
        for (int k = 0; k < xtc_copies_per_thread; ++k) {
            const xtc_copy_at at = xtc_copy_offsets(
                threadIdx.x + k * xtc_threads, I, J, lc, tb, n_blocks, a_pad);
            copy16_async(stage + at.smem, packed + at.packed);
        }
    };

    int re[2][4][4] = {}, im[2][4][4] = {};

    copy_prologue(issue, n_blocks);
    for (int tb = 0; tb < n_blocks; ++tb) {
        copy_wait<1>();  // this thread's copies of stage tb have landed
        __syncthreads(); // everyone's have, and stage tb - 1 is free
        if (tb + 2 < n_blocks)
            issue(tb + 2);
        copy_commit();
        if (idle)
            continue;
        warp_stage(smem + (tb % xtc_stages) * xtc_stage_bytes, wr, wc, re, im);
    }
    copy_wait<0>();
    if (idle)
        return;
    add_warp_square(I, J, wr, wc, re, im, channel0 + lc, n_inputs, part, [&](int b) {
        return im_sum[(long long)lc * a_pad + b];
    });
#endif
}

// ---------------------------------------------------------------------------
// Tensor-core kernel for sm_75 (Turing has no m16n8k32 int8 MMA nor
// cp.async): one warp per 16x16 tile, WMMA 16x16x16, staged per warp.

constexpr int tc_tile = 16;
constexpr int tc_warps = 4;

__global__ void __launch_bounds__(32 * tc_warps)
    xcorr_wmma(const char2* __restrict__ x,
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
    xengine_tile_pair(pair, I, J);
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
    // Every pair by atomic adds (RED: nothing waits for them, no
    // read-modify-write), 8 a lane.
    constexpr int per_lane = tc_tile * tc_tile / 32;
#pragma unroll
    for (int j = 0; j < per_lane; ++j) {
        const int e = lane + 32 * j;
        const int a = I * tc_tile + e / tc_tile, b = J * tc_tile + e % tc_tile;
        if (a < n_inputs && b <= a) {
            int* at = part + ((long long)c * pairs + tri(a, b)) * 2;
            atomicAdd(at, out[warp][0][e]);
            atomicAdd(at + 1, out[warp][1][e]);
        }
    }
}

// The direct path (few inputs, a multiple of 8; xengine_tile.h, "The direct
// path"): raw input stages by cp.async, converted in shared memory, the
// packed path's MMAs and epilogue, the column inputs' imaginary sums from
// the conversion.
// STAGES raw stages in the ring, STAGES - 1 in flight; DIAG_ONCE: a
// diagonal tile copies its input tile once (the deeper tuner candidate,
// xdr_deep_stages).
template <int STAGES, bool DIAG_ONCE>
__global__ void __launch_bounds__(xtc_threads, 1)
    xcorr_direct(const char2* __restrict__ x, // the launch's spectra
                 int n_time,
                 int n_channels,
                 int channel0,
                 int n_inputs,
                 int* __restrict__ part) // int32 partials [c][pair][2]
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    extern __shared__ __align__(16) unsigned char smem[];
    __shared__ int col_im[xtc_tile];
    int I, J;
    xengine_tile_pair(blockIdx.x, I, J);
    const int c = channel0 + blockIdx.y;
    const int warp = threadIdx.x / 32;
    const bool idle = xtc_warp_idle(warp, I == J);
    const int wr = xtc_warp_row(warp), wc = xtc_warp_col(warp);
    unsigned char* planes = smem + STAGES * xdr_raw_bytes;
    const int n_blocks = (n_time + xtc_k - 1) / xtc_k;
    const char* base = reinterpret_cast<const char*>(x);
    const bool one_side = DIAG_ONCE && I == J;

    auto issue = [&](int tb) {
        unsigned char* raw = smem + (tb % STAGES) * xdr_raw_bytes;
#pragma unroll
        for (int k = 0; k < xdr_copies_per_thread; ++k) {
            const int q = threadIdx.x + k * xtc_threads;
            if (xdr_copy_skipped(q, I, J, DIAG_ONCE))
                continue;
            const xdr_copy_at at =
                xdr_copy_offsets(q, I, J, c, tb, n_time, n_channels, n_inputs);
            copy16_async_zfill(raw + at.smem, base + at.from, at.bytes);
        }
    };

    if (threadIdx.x < xtc_tile)
        col_im[threadIdx.x] = 0;
    int re[2][4][4] = {}, im[2][4][4] = {};
    int isum = 0;

    // Stages 0 .. STAGES - 2 in flight, one commit group each (an empty
    // group past the last stage keeps copy_wait's count).
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < n_blocks)
            issue(s);
        copy_commit();
    }
    for (int tb = 0; tb < n_blocks; ++tb) {
        copy_wait<STAGES - 2>(); // this thread's copies of stage tb have landed
        __syncthreads(); // everyone's; the planes' last MMAs and the raw slot
                         // refilled below (converted last iteration) are done
        if (tb + STAGES - 1 < n_blocks)
            issue(tb + STAGES - 1);
        copy_commit();
        isum += xdr_convert(
            smem + (tb % STAGES) * xdr_raw_bytes, planes, threadIdx.x, one_side);
        __syncthreads(); // the planes are whole
        if (idle)
            continue;
        warp_stage(planes, wr, wc, re, im);
    }
    copy_wait<0>();
    if (xdr_column_of(threadIdx.x) >= 0)
        atomicAdd(&col_im[xdr_column_of(threadIdx.x)], isum);
    __syncthreads();
    if (idle)
        return;
    add_warp_square(I, J, wr, wc, re, im, c, n_inputs, part, [&](int b) {
        return col_im[b - J * xtc_tile];
    });
#endif
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
    // The accumulation kernels. The heuristic runs fp32 below 32 inputs (or
    // for cf32), else the best tensor form the device runs: direct mma.sync
    // for few inputs, wgmma on sm_90a, packed mma.sync on sm_80+, WMMA on
    // sm_75; the tuner may choose any available one (xengine_plan::tune),
    // the Gram form on cuBLASLt included.
    enum class form_kind {
        fp32,
        wmma,
        direct,
        direct_deep,
        packed,
        wgmma,
        gram,
        gram_ws,
        gram_ws128,
        gram_direct,
        gram_channel,
        gram_mma
    };
    static constexpr form_kind all_forms[] = {
        form_kind::fp32,        form_kind::wmma,         form_kind::direct,
        form_kind::direct_deep, form_kind::packed,       form_kind::wgmma,
        form_kind::gram,        form_kind::gram_ws,      form_kind::gram_ws128,
        form_kind::gram_direct, form_kind::gram_channel, form_kind::gram_mma
    };
    // The Gram forms' engine (xengine_gram_cuda): cuBLASLt or our kernel's
    // B rows; -1 for the other forms.
    static int engine_of(form_kind f)
    {
        return f == form_kind::gram         ? xengine_gram_cuda::cublaslt
               : f == form_kind::gram_ws    ? 256
               : f == form_kind::gram_ws128 ? 128
               : f == form_kind::gram_mma   ? xengine_gram_cuda::mma
                                            : -1;
    }

    xengine_cuda(const xengine_config& c,
                 runtime::device_context::sptr ctx,
                 const std::string& who)
        : d_c(c),
          d_ctx(std::move(ctx)),
          d_who(who),
          d_sms(std::max(1, d_ctx->info().multiprocessors)),
          d_ci8(c.input == xengine_input::ci8),
          d_sums(std::size_t(c.n_channels) * c.n_inputs() * (c.n_inputs() + 1)),
          d_total(d_ctx, d_sums * (d_ci8 ? sizeof(long long) : sizeof(float)), who),
          d_part(d_ctx, d_ci8 ? d_sums * sizeof(int) : 4, who),
          d_counter(d_ctx, sizeof(uint64_t), who),
          d_init(d_ctx, who),
          d_cap(tensor_cap(who)),
          d_sm80(compute_major(*d_ctx) >= 8 && tc80_built(*d_ctx)),
          d_has_wgmma(wgmma_usable(*d_ctx)),
          d_smem_optin(shared_memory_optin(*d_ctx)),
          d_gram_unavailable(xengine_gram_cuda::unavailable(
              c.n_channels, c.n_inputs(), d_ctx->free_memory())),
          d_ws_unavailable{ ws_unavailable(256),
                            ws_unavailable(128),
                            direct_unavailable(),
                            ws_unavailable(xengine_gram_cuda::mma),
                            channel_unavailable() },
          d_form(heuristic_form(d_cap < 0 ? no_cap : d_cap)),
          d_pack(d_ctx, pack_bytes(), who),
          d_im_sum(d_ctx,
                   available(form_kind::packed).empty()
                       ? xengine_tc_sums_bytes(c.n_channels, c.n_inputs())
                       : 16,
                   who)
    {
        // Per kernel and process-wide: the same value for every plan.
        auto allow = [&](const void* kernel, int bytes) {
            const cudaError_t e = cudaFuncSetAttribute(
                kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
            if (e != cudaSuccess)
                throw runtime::device_error(who +
                                            ": cudaFuncSetAttribute (shared memory "
                                            "of the X-engine tensor kernel): " +
                                            cudaGetErrorString(e));
        };
        if (available(form_kind::packed).empty())
            allow(reinterpret_cast<const void*>(xcorr_tc80), xtc_smem_bytes);
        if (available(form_kind::direct).empty())
            allow(reinterpret_cast<const void*>(xcorr_direct<xdr_stages, false>),
                  xdr_smem_bytes);
        if (available(form_kind::direct_deep).empty())
            allow(reinterpret_cast<const void*>(xcorr_direct<xdr_deep_stages, true>),
                  xdr_smem_bytes_for(xdr_deep_stages));
        if (engine_of(d_form) >= 0) {
            try {
                make_gram(d_form);
            } catch (const runtime::device_error& e) {
                // Forced, or any failure but memory: the user's to see.
                if (d_cap >= 0 || !out_of_memory(e))
                    throw;
                // The heuristic's Gram workspace did not fit after the
                // other buffers: the form before it. Unforced, "wgmma gram"
                // is the only Gram form with a workspace the heuristic
                // picks; the tuner does not offer it, and use() refuses
                // the others if theirs does not fit either (device_alloc
                // took the failed allocation back from CUDA's last error).
                d_ws_unavailable[0] =
                    std::string("its workspace did not fit beside the plan's buffers (") +
                    e.what() + ")";
                d_gram_refused = true;
                d_form = heuristic_form(no_cap);
            }
        }
        reset(d_init.get());
        d_init.synchronize();
    }

    std::string kernel_name() const override
    {
        return d_form == form_kind::fp32 ? "fp32" : "tensor";
    }

    // Blocks and waves of the accumulation kernel's launches for a call of
    // n spectra (the benchmark prints it beside its rows).
    std::string launch_shape(std::size_t n) const override
    {
        d_ctx->make_current();
        const int A = d_c.n_inputs(), C = d_c.n_channels;
        const int sms = d_sms;
        auto per_sm = [&](const void* kernel, int threads, std::size_t smem) {
            int blocks = 0;
            if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                    &blocks, kernel, threads, smem) != cudaSuccess) {
                cudaGetLastError();
                return 0;
            }
            return blocks;
        };
        auto waves = [&](long long blocks, int on_one_sm) {
            char text[96];
            std::snprintf(text,
                          sizeof text,
                          "%lld blocks a launch, %.1f waves",
                          blocks,
                          on_one_sm > 0 && sms > 0
                              ? double(blocks) / (double(on_one_sm) * sms)
                              : 0.0);
            return std::string(text);
        };
        auto persistent = [&](long long tiles, int spectra, int channels) {
            char text[128];
            std::snprintf(text,
                          sizeof text,
                          "persistent: %lld blocks over %lld tiles a launch (%d spectra "
                          "x %d channels)",
                          std::min<long long>(tiles, sms),
                          tiles,
                          spectra,
                          channels);
            return std::string(text);
        };
        const int a_pad = xtc_padded_inputs(A);
        const unsigned tc_pairs = xengine_tile_pairs(unsigned(a_pad / xtc_tile));
        switch (d_form) {
        case form_kind::gram:
            return "cuBLASLt's GEMM between a pack and a combine kernel";
        case form_kind::gram_ws:
        case form_kind::gram_ws128: {
            const xgr_launch_shape sh =
                xgr_launch_shape_for(n, C, A, xgr_workspace(C, A, false), false);
            return persistent(xws_tiles_per_channel(xgr_rows(A), engine_of(d_form)) *
                                  sh.channels,
                              sh.spectra,
                              sh.channels);
        }
        case form_kind::gram_direct:
            return persistent(xwd_tiles_per_channel(A) * C, int(n), C);
        case form_kind::gram_channel: {
            const channel_launch l = channel_launch_of(n);
            return "persistent: " + std::to_string(l.grid) + " blocks sharing " +
                   std::to_string(l.stages) + " stages of whole channels a launch (" +
                   std::to_string(n) + " spectra x " + std::to_string(C) + " channels)";
        }
        case form_kind::gram_mma: {
            const xgr_launch_shape sh =
                xgr_launch_shape_for(n, C, A, xgr_workspace(C, A, false), false);
            return std::to_string(xws_tiles_per_channel(xgr_rows(A), xgm_tile) *
                                  sh.channels) +
                   " blocks (a tile each) a launch of " + std::to_string(sh.spectra) +
                   " spectra x " + std::to_string(sh.channels) + " channels";
        }
        case form_kind::packed:
        case form_kind::wgmma: {
            const xtc_launch_shape sh = xtc_launch_shape_for(
                n, C, A, d_pack.size(), d_form == form_kind::wgmma ? 3 : 2, tc_pairs);
            // One block an SM (the kernels' launch bounds and registers).
            return waves((long long)tc_pairs * sh.channels, 1) + " (" +
                   std::to_string(sh.spectra) + " spectra x " +
                   std::to_string(sh.channels) + " channels)";
        }
        case form_kind::direct:
            return waves(
                (long long)tc_pairs * std::min(C, max_grid_y),
                per_sm(reinterpret_cast<const void*>(xcorr_direct<xdr_stages, false>),
                       xtc_threads,
                       xdr_smem_bytes));
        case form_kind::direct_deep:
            return waves(
                (long long)tc_pairs * std::min(C, max_grid_y),
                per_sm(reinterpret_cast<const void*>(xcorr_direct<xdr_deep_stages, true>),
                       xtc_threads,
                       xdr_smem_bytes_for(xdr_deep_stages)));
        case form_kind::wmma: {
            const unsigned pairs =
                xengine_tile_pairs(unsigned((A + tc_tile - 1) / tc_tile));
            return waves(
                (long long)((pairs + tc_warps - 1) / tc_warps) * std::min(C, max_grid_y),
                per_sm(reinterpret_cast<const void*>(xcorr_wmma), 32 * tc_warps, 0));
        }
        default: {
            const unsigned pairs =
                xengine_tile_pairs(unsigned((A + xfp_tile - 1) / xfp_tile));
            return waves((long long)pairs * std::min(C, max_grid_y),
                         per_sm(d_ci8 ? reinterpret_cast<const void*>(xcorr_fp32<true>)
                                      : reinterpret_cast<const void*>(xcorr_fp32<false>),
                                xfp_threads,
                                0));
        }
        }
    }

    std::string kernel_variant() const override
    {
        return d_form == form_kind::fp32 ? "" : name_of(d_form);
    }

    std::vector<form> forms() const override
    {
        std::vector<form> out;
        for (auto f : all_forms)
            out.push_back({ name_of(f), available(f) });
        return out;
    }
    std::string current_form() const override { return name_of(d_form); }
    std::string forced_form() const override
    {
        return d_cap < 0 ? "" : name_of(heuristic_form(d_cap));
    }
    void use(const std::string& id) override
    {
        for (auto f : all_forms)
            if (name_of(f) == id && available(f).empty()) {
                // A Gram form's workspace (and cuBLASLt handle) on first
                // use (trim() frees them when another form wins).
                if (engine_of(f) >= 0) {
                    try {
                        make_gram(f);
                    } catch (const runtime::device_error& e) {
                        // Its workspace does not fit now (the tuner's
                        // turn, after the plan's buffers): not this GPU's
                        // form for this plan, not a defect. The form that
                        // ran keeps running, with its workspace again
                        // where it had one (make_gram freed it).
                        if (!out_of_memory(e))
                            throw;
                        if (engine_of(d_form) >= 0)
                            make_gram(d_form);
                        throw runtime::candidate_unavailable(
                            "its workspace did not fit beside the plan's buffers (" +
                            std::string(e.what()) + ")");
                    }
                }
                d_form = f;
            }
    }
    void trim() override
    {
        if (engine_of(d_form) < 0)
            d_gram.reset();
    }
    static bool out_of_memory(const runtime::device_error& e)
    {
        return std::strstr(e.what(), "cudaErrorMemoryAllocation") != nullptr;
    }
    void make_gram(form_kind f)
    {
        if (d_gram && d_gram_engine == engine_of(f))
            return;
        d_gram.reset(); // one workspace at a time
        d_gram_engine = -1;
        d_gram = std::make_unique<xengine_gram_cuda>(
            d_ctx, d_c.n_channels, d_c.n_inputs(), d_who, engine_of(f));
        d_gram_engine = engine_of(f);
    }
    std::string direct_unavailable() const
    {
        if (!d_ci8)
            return "tensor kernels take ci8 input only";
        if (d_c.n_inputs() % 8 != 0)
            return "needs a multiple of 8 inputs (TMA's 16-byte strides)";
#ifdef GPUDSP_HAVE_XWS
        d_ctx->make_current();
        return xengine_ws_unusable(d_ctx->device(), 128, true);
#else
        return "needs sm_90a (an H100 or H200) and a build for it";
#endif
    }
    // The channel form's launch of n spectra: the channels' stages, shared
    // by at most a block an SM.
    struct channel_launch {
        long long stages;
        int grid;
    };
    channel_launch channel_launch_of(std::size_t n) const
    {
        const long long stages = (long long)d_c.n_channels * xws_k_blocks(int(n));
        return { stages, int(std::min<long long>(stages, d_sms)) };
    }
    std::string channel_unavailable() const
    {
        if (!d_ci8)
            return "tensor kernels take ci8 input only";
        if (d_c.n_inputs() % 8 != 0)
            return "needs a multiple of 8 inputs (TMA's 16-byte strides)";
        if (d_c.n_inputs() > xwc_max_inputs)
            return "takes at most " + std::to_string(xwc_max_inputs) + " inputs";
#ifdef GPUDSP_HAVE_XWS
        d_ctx->make_current();
        return xengine_wsc_unusable(d_ctx->device(), d_c.n_inputs());
#else
        return "needs sm_90a (an H100 or H200) and a build for it";
#endif
    }
    std::string ws_unavailable(int bn) const
    {
        if (!d_ci8)
            return "tensor kernels take ci8 input only";
        d_ctx->make_current();
        return xengine_gram_cuda::unavailable(
            d_c.n_channels, d_c.n_inputs(), d_ctx->free_memory(), bn, d_ctx->device());
    }
    void reset(runtime::stream_handle sh) override
    {
        d_ctx->memset_async(d_total.get(), 0, d_total.size(), sh, d_who);
        d_ctx->memset_async(d_part.get(), 0, d_part.size(), sh, d_who);
    }

    static std::string name_of(form_kind f)
    {
        switch (f) {
        case form_kind::fp32:
            return "fp32";
        case form_kind::wmma:
            return "wmma";
        case form_kind::direct:
            return "mma.sync direct";
        case form_kind::direct_deep:
            return "mma.sync direct s=6";
        case form_kind::packed:
            return "mma.sync";
        case form_kind::wgmma:
            return "wgmma";
        case form_kind::gram_ws:
            return "wgmma gram";
        case form_kind::gram_ws128:
            return "wgmma gram n=128";
        case form_kind::gram_direct:
            return "wgmma gram direct";
        case form_kind::gram_channel:
            return "wgmma gram channel";
        case form_kind::gram_mma:
            return "mma.sync gram";
        default:
            return "cublaslt";
        }
    }

    // Why form \p f cannot run for this configuration on this device and
    // build; empty when it can.
    std::string available(form_kind f) const
    {
        if (f == form_kind::fp32) {
            if (d_c.kernel == xengine_kernel::tensor)
                return "kernel \"tensor\" was asked for";
            // Not worth the tuner's time where it cannot win: from 512
            // inputs the int8 tensor forms' peak is 8x FP32's or more on
            // every GPU that has them (and its check runs for seconds).
            if (d_ci8 && d_c.kernel == xengine_kernel::automatic && d_c.n_inputs() >= 512)
                return "not timed from 512 inputs: the tensor forms win there";
            return "";
        }
        if (!d_ci8)
            return "tensor kernels take ci8 input only";
        if (d_c.kernel == xengine_kernel::fp32)
            return "kernel \"fp32\" was asked for";
        switch (f) {
        case form_kind::wmma:
            return "";
        case form_kind::direct:
        case form_kind::direct_deep:
            if (!d_sm80)
                return "needs sm_80 or later (and a build for it)";
            if (!xdr_applies(d_c.n_inputs()))
                return "too many inputs for the direct form";
            // (the dynamic shared memory and the column sums' static 512 B)
            if (f == form_kind::direct_deep &&
                d_smem_optin < xdr_smem_bytes_for(xdr_deep_stages) + 512)
                return "its 6 stages need " +
                       std::to_string(xdr_smem_bytes_for(xdr_deep_stages) + 512) +
                       " bytes of shared memory a block; this GPU gives " +
                       std::to_string(d_smem_optin);
            return "";
        case form_kind::packed:
            return d_sm80 ? "" : "needs sm_80 or later (and a build for it)";
        case form_kind::gram:
            return d_gram && d_gram_engine == engine_of(f) ? "" : d_gram_unavailable;
        case form_kind::gram_ws:
            return d_ws_unavailable[0];
        case form_kind::gram_ws128:
            return d_ws_unavailable[1];
        case form_kind::gram_direct:
            return d_ws_unavailable[2];
        case form_kind::gram_mma:
            return d_ws_unavailable[3];
        case form_kind::gram_channel:
            return d_ws_unavailable[4];
        default:
            return d_has_wgmma ? "" : "needs sm_90a (an H100 or H200) and a build for it";
        }
    }

    // Today's choice under GPUDSP_XENGINE_TENSOR's cap (2: none).
    form_kind heuristic_form(int cap) const
    {
        if (!xengine_uses_tensor(d_c))
            return form_kind::fp32;
        if (cap == gram_only) {
            if (d_gram_unavailable.empty())
                return form_kind::gram;
            cap = no_cap;
        }
        if (cap == ws_only || cap == ws128_only || cap == ws_direct_only ||
            cap == ws_channel_only || cap == mma_gram_only) {
            const form_kind f = cap == ws_only           ? form_kind::gram_ws
                                : cap == ws128_only      ? form_kind::gram_ws128
                                : cap == mma_gram_only   ? form_kind::gram_mma
                                : cap == ws_channel_only ? form_kind::gram_channel
                                                         : form_kind::gram_direct;
            if (available(f).empty())
                return f;
            cap = no_cap;
        }
        if (cap == deep_only) {
            if (available(form_kind::direct_deep).empty())
                return form_kind::direct_deep;
            cap = 1; // mma.sync: its 3-stage direct form where it applies
        }
        // Unforced, on sm_90a: the persistent Gram kernel, where the H200
        // of 2026-11-27 measured it fastest (docs/gpu-runs/2026-11-27-*):
        // its direct form at 128 inputs (251 TOPS against 211 for mma.sync
        // direct, S = 64, C = 512), taken from 64 inputs on (one or three
        // tiles a channel, the regime measured); its B = 256 tiles beyond
        // the direct forms' 256 inputs (586-1073 TOPS against 213-346 for
        // wgmma, S = 256..1024). 129..256 and below 64 inputs are
        // unmeasured: as before. A cap ("wgmma" is the same value as no
        // cap) keeps the forms it names.
        if (cap == no_cap && d_cap < 0 && !d_gram_refused) {
            const int A = d_c.n_inputs();
            if (A >= 64 && A <= 128 && available(form_kind::gram_direct).empty())
                return form_kind::gram_direct;
            if (A > xdr_max_inputs && available(form_kind::gram_ws).empty())
                return form_kind::gram_ws;
        }
        const bool mma = cap >= 1 && d_sm80;
        if (mma && cap != packed_only && xdr_applies(d_c.n_inputs()))
            return form_kind::direct;
        if (mma)
            return cap == 2 && d_has_wgmma ? form_kind::wgmma : form_kind::packed;
        return form_kind::wmma;
    }

    // The packed forms' workspace: three parts of each spectrum for wgmma,
    // two for mma.sync; the larger of those available.
    std::size_t pack_bytes() const
    {
        if (available(form_kind::packed).empty())
            return xengine_tc_workspace(d_c.n_channels,
                                        d_c.n_inputs(),
                                        available(form_kind::wgmma).empty() ? 3 : 2);
        return 16;
    }

    // GPUDSP_XENGINE_TENSOR caps the tensor kernel's form: 0 wmma,
    // 1 mma.sync, 2 wgmma (unset: the best the device runs); "mma.sync
    // packed" is mma.sync without the direct form (to compare the two);
    // "cublaslt" the Gram form, "wgmma gram", "wgmma gram n=128", "wgmma
    // gram direct", "wgmma gram channel" and "mma.sync gram" the Gram form
    // on our kernels (where they cannot run: the best the device runs).
    static constexpr int packed_only = 3;
    static constexpr int gram_only = 4;
    static constexpr int deep_only = 5;
    static constexpr int ws_only = 6;
    static constexpr int ws128_only = 7;
    static constexpr int ws_direct_only = 8;
    static constexpr int mma_gram_only = 9;
    static constexpr int ws_channel_only = 10;
    static constexpr int no_cap = 2;
    static int tensor_cap(const std::string& who) // -1: unset
    {
        const char* e = std::getenv("GPUDSP_XENGINE_TENSOR");
        if (!e || !*e)
            return -1;
        const std::string v(e);
        if (v == "wgmma")
            return 2;
        if (v == "mma.sync")
            return 1;
        if (v == "mma.sync packed")
            return packed_only;
        if (v == "wmma")
            return 0;
        if (v == "cublaslt")
            return gram_only;
        if (v == "mma.sync direct s=6")
            return deep_only;
        if (v == "wgmma gram")
            return ws_only;
        if (v == "wgmma gram n=128")
            return ws128_only;
        if (v == "wgmma gram direct")
            return ws_direct_only;
        if (v == "mma.sync gram")
            return mma_gram_only;
        if (v == "wgmma gram channel")
            return ws_channel_only;
        throw std::invalid_argument(who +
                                    ": GPUDSP_XENGINE_TENSOR must be \"wgmma\", "
                                    "\"mma.sync\", \"mma.sync packed\", \"mma.sync "
                                    "direct s=6\", \"wmma\", \"cublaslt\", \"wgmma "
                                    "gram\", \"wgmma gram n=128\", \"wgmma gram "
                                    "direct\", \"wgmma gram channel\" or \"mma.sync "
                                    "gram\", got \"" +
                                    v + "\"");
    }

    static bool wgmma_usable(const runtime::device_context& ctx)
    {
#ifdef GPUDSP_HAVE_WGMMA
        ctx.make_current();
        return xengine_wgmma_usable(ctx.device());
#else
        (void)ctx;
        return false;
#endif
    }

    // The mma.sync kernel's body exists only in sm_80+ images: a build for
    // sm_75 alone would JIT an empty kernel on a newer GPU.
    static bool tc80_built(const runtime::device_context& ctx)
    {
        ctx.make_current();
        cudaFuncAttributes attr{};
        if (cudaFuncGetAttributes(&attr, xcorr_tc80) != cudaSuccess) {
            cudaGetLastError();
            return false;
        }
        return attr.ptxVersion >= 80; // the virtual architecture it came from
    }

    static int shared_memory_optin(const runtime::device_context& ctx)
    {
        ctx.make_current();
        int bytes = 0;
        if (cudaDeviceGetAttribute(&bytes,
                                   cudaDevAttrMaxSharedMemoryPerBlockOptin,
                                   ctx.device()) != cudaSuccess) {
            cudaGetLastError();
            return 0;
        }
        return bytes;
    }

    static int compute_major(const runtime::device_context& ctx)
    {
        ctx.make_current();
        int major = 0;
        const cudaError_t e = cudaDeviceGetAttribute(
            &major, cudaDevAttrComputeCapabilityMajor, ctx.device());
        if (e != cudaSuccess)
            throw runtime::device_error(std::string("xengine: cudaDeviceGetAttribute "
                                                    "(compute capability): ") +
                                        cudaGetErrorString(e));
        return major;
    }

    // n <= xengine_int32_spectra (the plan cuts calls): one launch per
    // block of channels (and, for the packed tensor path, per workspace-full
    // of spectra).
    void accumulate(const void* x, std::size_t n, runtime::stream_handle sh) override
    {
        d_ctx->make_current();
        auto stream = static_cast<cudaStream_t>(sh);
        if (engine_of(d_form) >= 0) {
            d_gram->accumulate(x, n, part(), stream, d_clock);
            return;
        }
        if (d_form == form_kind::packed || d_form == form_kind::wgmma) {
            accumulate_packed(static_cast<const char2*>(x), n, stream);
            return;
        }
        // The other forms are one kernel (a stage "correlate").
        d_clock.start(stream);
        accumulate_one_kernel(x, n, stream);
        d_clock.stage("correlate", 0, stream);
    }

    void time_stages(bool on) override { d_clock.enable(on); }
    void begin_stages() override { d_clock.begin_call(); }
    void end_stages() override { d_clock.end_call(); }
    std::vector<runtime::stage_time> stage_times() override { return d_clock.times(); }

    void accumulate_one_kernel(const void* x, std::size_t n, cudaStream_t stream)
    {
        // Our Gram kernels reading the input themselves (direct, channel):
        // TMA needs it 16-byte aligned (any buffer's item is; else WMMA
        // below).
        if ((d_form == form_kind::gram_direct || d_form == form_kind::gram_channel) &&
            reinterpret_cast<uintptr_t>(x) % 16 == 0) {
            accumulate_from_input(x, n, stream);
            return;
        }
        // The direct path's 16-byte copies need an aligned input (any
        // buffer's item is: n_inputs is a multiple of 8); else WMMA below.
        if ((d_form == form_kind::direct || d_form == form_kind::direct_deep) &&
            reinterpret_cast<uintptr_t>(x) % 16 == 0) {
            accumulate_direct(static_cast<const char2*>(x), n, stream);
            return;
        }
        const int A = d_c.n_inputs();
        const int nt = int(n);
        for (int c0 = 0; c0 < d_c.n_channels; c0 += max_grid_y) {
            const int nc = std::min(max_grid_y, d_c.n_channels - c0);
            if (d_form != form_kind::fp32) {
                const unsigned tiles = unsigned((A + tc_tile - 1) / tc_tile);
                const unsigned tile_pairs = xengine_tile_pairs(tiles);
                dim3 grid((tile_pairs + tc_warps - 1) / tc_warps, nc);
                xcorr_wmma<<<grid, 32 * tc_warps, 0, stream>>>(
                    static_cast<const char2*>(x),
                    nt,
                    d_c.n_channels,
                    c0,
                    A,
                    tile_pairs,
                    part());
            } else {
                const unsigned tiles = unsigned((A + xfp_tile - 1) / xfp_tile);
                dim3 grid(xengine_tile_pairs(tiles), nc);
                if (d_ci8)
                    xcorr_fp32<true><<<grid, xfp_threads, 0, stream>>>(
                        x, nt, d_c.n_channels, c0, A, part(), nullptr);
                else
                    xcorr_fp32<false><<<grid, xfp_threads, 0, stream>>>(
                        x, nt, d_c.n_channels, c0, A, nullptr, total32());
            }
            d_ctx->check_last_error("xengine accumulation kernel launch", d_who);
        }
    }

    // sm_90a: one persistent launch for the call (n <= xengine_int32_spectra:
    // int32 exact), every channel, straight from the input: the direct
    // kernel's tiles, or the channel kernel's channels (the same map).
    void accumulate_from_input(const void* x, std::size_t n, cudaStream_t stream)
    {
        if (n == 0)
            return; // (a tensor map of no spectra does not exist)
#ifdef GPUDSP_HAVE_XWS
        const int A = d_c.n_inputs();
        // The input's tensor map, encoded once per (address, spectra): a
        // block's calls cycle through a few places of its buffer.
        const auto key = std::make_pair(x, n);
        auto found = d_direct_maps.find(key);
        if (found == d_direct_maps.end()) {
            if (d_direct_maps.size() >= 64)
                d_direct_maps.clear();
            xws_map m{};
            const std::string e =
                xengine_ws_encode_input(m, x, int(n), d_c.n_channels, A);
            if (!e.empty())
                throw runtime::device_error(d_who + ": X-engine " + name_of(d_form) +
                                            " kernel: " + e);
            found = d_direct_maps.emplace(key, m).first;
        }
        const xws_map& map = found->second;
        const int k_blocks = xws_k_blocks(int(n));
        if (d_form == form_kind::gram_channel) {
            // All of a channel's rows in one block, the channels' stages
            // shared evenly by the blocks (xengine_ws.h, "The channel
            // variant").
            xengine_wsc_launch(map,
                               channel_launch_of(n).grid,
                               d_c.n_channels,
                               k_blocks,
                               A,
                               part(),
                               stream);
        } else {
            const long long per_channel = xwd_tiles_per_channel(A);
            const long long tiles = per_channel * d_c.n_channels;
            xengine_ws_launch(128,
                              true,
                              map,
                              int(std::min<long long>(tiles, d_sms)),
                              tiles,
                              per_channel,
                              k_blocks,
                              xgr_rows(A),
                              A,
                              0,
                              part(),
                              stream);
        }
        d_ctx->check_last_error("xengine " + name_of(d_form) + " kernel launch", d_who);
#else
        (void)x, (void)n, (void)stream;
#endif
    }

    // sm_80+, few inputs: launches of at most xtc_max_spectra spectra (the
    // in-kernel int32 bound) straight from the input.
    void accumulate_direct(const char2* x, std::size_t n, cudaStream_t stream)
    {
        const int A = d_c.n_inputs();
        const unsigned tiles = unsigned(xtc_padded_inputs(A) / xtc_tile);
        for (std::size_t t0 = 0; t0 < n; t0 += std::size_t(xtc_max_spectra)) {
            const int nt =
                int(std::min<std::size_t>(n - t0, std::size_t(xtc_max_spectra)));
            for (int c0 = 0; c0 < d_c.n_channels; c0 += max_grid_y) {
                const int nc = std::min(max_grid_y, d_c.n_channels - c0);
                const dim3 grid(xengine_tile_pairs(tiles), nc);
                const char2* from = x + t0 * std::size_t(d_c.n_channels) * A;
                if (d_form == form_kind::direct_deep)
                    xcorr_direct<xdr_deep_stages, true>
                        <<<grid,
                           xtc_threads,
                           xdr_smem_bytes_for(xdr_deep_stages),
                           stream>>>(from, nt, d_c.n_channels, c0, A, part());
                else
                    xcorr_direct<xdr_stages, false>
                        <<<grid, xtc_threads, xdr_smem_bytes, stream>>>(
                            from, nt, d_c.n_channels, c0, A, part());
                d_ctx->check_last_error("xengine direct tensor kernel launch", d_who);
            }
        }
    }

    // sm_80+: pack a launch's spectra K-major (with the imaginary sums),
    // then correlate them; the workspace is reused in stream order.
    void accumulate_packed(const char2* x, std::size_t n, cudaStream_t stream)
    {
        const int A = d_c.n_inputs(), a_pad = xtc_padded_inputs(A);
        const bool wgmma = d_form == form_kind::wgmma;
        const int parts = wgmma ? 3 : 2;
        const unsigned tiles = unsigned(a_pad / xtc_tile);
        const xtc_launch_shape shape = xtc_launch_shape_for(
            n, d_c.n_channels, A, d_pack.size(), parts, xengine_tile_pairs(tiles));
        for (std::size_t t0 = 0; t0 < n; t0 += std::size_t(shape.spectra)) {
            const int nt = int(std::min<std::size_t>(n - t0, std::size_t(shape.spectra)));
            const int blocks = (nt + xtc_k - 1) / xtc_k;
            for (int c0 = 0; c0 < d_c.n_channels; c0 += shape.channels) {
                const int nc = std::min(shape.channels, d_c.n_channels - c0);
                d_clock.start(stream);
                d_ctx->memset_async(d_im_sum.get(),
                                    0,
                                    std::size_t(nc) * a_pad * sizeof(int),
                                    stream,
                                    d_who);
                (wgmma
                     ? xtc_pack<3>
                     : xtc_pack<
                           2>)<<<dim3(tiles, blocks, nc), xtc_pack_threads, 0, stream>>>(
                    x + t0 * std::size_t(d_c.n_channels) * A,
                    nt,
                    d_c.n_channels,
                    c0,
                    A,
                    blocks,
                    a_pad,
                    reinterpret_cast<signed char*>(d_pack.get()),
                    reinterpret_cast<int*>(d_im_sum.get()));
                d_ctx->check_last_error("xengine pack kernel launch", d_who);
                d_clock.stage("pack", 0, stream);
#ifdef GPUDSP_HAVE_WGMMA
                if (wgmma) {
                    xengine_wgmma_launch(
                        xengine_tile_pairs(tiles),
                        nc,
                        stream,
                        reinterpret_cast<const signed char*>(d_pack.get()),
                        reinterpret_cast<const int*>(d_im_sum.get()),
                        blocks,
                        a_pad,
                        c0,
                        A,
                        part());
                    d_ctx->check_last_error("xengine wgmma kernel launch", d_who);
                    d_clock.stage("correlate", 0, stream);
                    continue;
                }
#endif
                xcorr_tc80<<<dim3(xengine_tile_pairs(tiles), nc),
                             xtc_threads,
                             xtc_smem_bytes,
                             stream>>>(reinterpret_cast<const signed char*>(d_pack.get()),
                                       reinterpret_cast<const int*>(d_im_sum.get()),
                                       blocks,
                                       a_pad,
                                       c0,
                                       A,
                                       part());
                d_ctx->check_last_error("xengine tensor kernel launch", d_who);
                d_clock.stage("correlate", 0, stream);
            }
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
        d_clock.start(sh);
        promote_partials<<<blocks, promote_threads, 0, static_cast<cudaStream_t>(sh)>>>(
            part(), total64(), n);
        d_ctx->check_last_error("xengine promote kernel launch", d_who);
        d_clock.stage("promote", 0, sh);
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
    int d_sms; // the device's SMs: the persistent grids' bound
    bool d_ci8;
    std::size_t d_sums;               // channels x pairs x (re, im)
    runtime::device_memory d_total;   // ci8: int64; cf32: float
    runtime::device_memory d_part;    // ci8: int32 partials
    runtime::device_memory d_counter; // saturation count nobody asked for
    runtime::device_stream d_init;
    int d_cap;                       // GPUDSP_XENGINE_TENSOR (-1: unset)
    bool d_sm80;                     // sm_80+ and built for it: the mma.sync kernels
    bool d_has_wgmma;                // sm_90a and built for it: wgmma
    int d_smem_optin;                // shared memory a block may opt in to
    std::string d_gram_unavailable;  // why the Gram form cannot run ("": it can)
    std::string d_ws_unavailable[5]; // why "wgmma gram" (n=256, n=128, direct),
                                     // "mma.sync gram", "wgmma gram channel"
                                     // cannot run
    bool d_gram_refused = false;     // the heuristic's Gram workspace did not fit
    form_kind d_form;                // what accumulates
    runtime::device_memory d_pack;   // the launch's spectra, K-major
    runtime::device_memory d_im_sum; // [launch channel][a_pad] imaginary sums
    std::unique_ptr<xengine_gram_cuda> d_gram; // while a Gram form may run
    std::map<std::pair<const void*, std::size_t>, xws_map> d_direct_maps; // by (x, n)
    int d_gram_engine = -1;                    // d_gram's engine
    runtime::stage_clock d_clock{ d_ctx, d_who }; // time_stages: events between kernels
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
