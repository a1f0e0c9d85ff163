/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The F-engine's fused FFT and post-processing kernel (docs/fengine.md,
// "FFT and post-processing fused"): after the FIR kernel, one kernel reads
// each (spectrum, input)'s N complex pairs once, transforms them in shared
// memory with the one-pass kernel's FFT passes, folds the 2N-point real
// FFT and writes each channel once, corrected and quantised by the code
// every form shares (fengine_postproc.cuh). No cuFFT, nothing linked at run
// time. Its geometry is fengine_fftpost.h, which qa_fengine_fftpost
// emulates on the host thread by thread.

#include "fengine_fftpost_cuda.h"
#include "runtime/cuda_check.h"
#include <cooperative_groups.h>
#include <algorithm>
#include <cassert>

namespace gr {
namespace gpudsp {
namespace kernels {

namespace {

namespace cg = cooperative_groups;

// One FFT pass of radix 2^LR by the whole CTA: every thread's butterflies
// loaded and computed, a barrier, stored in place, a barrier.
template <int LR>
__device__ __forceinline__ void fft_pass(const onepass::geometry& g,
                                         int pass,
                                         int t,
                                         fft::cpx* buf,
                                         const fft::cpx* __restrict__ twiddles)
{
    // t through an empty asm: what depends on it is new each pass, so the
    // compiler does not keep the butterflies' shared-memory addresses (the
    // same every pass of a radix) in registers across passes, which at 64
    // registers it spilled; recomputing them costs a few integer
    // instructions a pass.
    asm volatile("" : "+r"(t));
    fft::cpx v[onepass::max_values];
    const int lns = g.radices.stride_bits(pass);
    onepass::fft_pass_compute<LR>(g, lns, t, buf, 0, twiddles, v);
    __syncthreads();
    onepass::fft_pass_store<LR>(g, lns, t, buf, 0, v);
    __syncthreads();
}

__device__ __forceinline__ void fft_pass_any(const onepass::geometry& g,
                                             int pass,
                                             int t,
                                             fft::cpx* buf,
                                             const fft::cpx* __restrict__ twiddles)
{
    const int lr = g.radices.radix_bits(pass);
    if (lr == 3)
        fft_pass<3>(g, pass, t, buf, twiddles);
    else if (lr == 2)
        fft_pass<2>(g, pass, t, buf, twiddles);
    else
        fft_pass<1>(g, pass, t, buf, twiddles);
}

// The staged form's write-out (fengine_fftpost.h): the CTA's staging
// buffer, its channels' runs of the cluster's inputs [i0, i0 + group), in
// 16-byte stores of 8 values where the runs are whole and aligned, else
// value by value (consecutive threads still write consecutive inputs).
__device__ __forceinline__ void write_staged(const fftpost::shape& sh,
                                             const char2* stage,
                                             int rank,
                                             int i0,
                                             int s,
                                             const postproc_params& p)
{
    const int N = sh.n(), I = p.n_inputs, G = sh.group(), P = sh.threads();
    auto* out = static_cast<char2*>(p.out);
    constexpr int V = fftpost::shape::store_values;
    const bool whole = G >= V && I % V == 0 && i0 + G <= I &&
                       (reinterpret_cast<uintptr_t>(p.out) & 15) == 0;
    if (whole) {
        for (int e = threadIdx.x * V; e < sh.points(); e += P * V) {
            const int k = sh.staged_channel(rank, e), j = sh.staged_input(e);
            *reinterpret_cast<uint4*>(out + (int64_t(s) * N + k) * I + i0 + j) =
                *reinterpret_cast<const uint4*>(stage + e);
        }
    } else {
        for (int e = threadIdx.x; e < sh.points(); e += P) {
            const int k = sh.staged_channel(rank, e), j = sh.staged_input(e);
            if (i0 + j < I)
                out[(int64_t(s) * N + k) * I + i0 + j] = stage[e];
        }
    }
}

// CTA (x, y): inputs [x rows, x rows + rows) of spectrum y.
// Two CTAs of the largest size an SM at least, i.e. 64 registers: with the
// bound at one CTA ptxas used 128 and the H200 of 2026-11-27 ran it at 25%
// occupancy, latency-bound (ncu: 7% of DRAM peak, 72.6 GS/s at N = 1024
// against a 384 GS/s memory roofline); at 64 it fits without spills (all
// 64 since a butterfly's twiddles load together, below).
// STAGED (ci8, sm_90; clusters of sh.cluster CTAs along x): the values go
// through the owner CTA's staging buffer instead of straight out.
template <bool CI8, bool STAGED>
__global__ void __launch_bounds__(fftpost::max_threads, 2)
    fftpost_kernel(const fftpost::shape sh,
                   const fft::cpx* __restrict__ fir, // [s][input][N]
                   const fft::cpx* __restrict__ twiddles,
                   const fft::cpx* __restrict__ fold,
                   const postproc_params p)
{
    static_assert(CI8 || !STAGED, "the staged form stages ci8 values");
    extern __shared__ __align__(16) unsigned char smem_raw[];
    auto* buf = reinterpret_cast<fft::cpx*>(smem_raw);
    const onepass::geometry& g = sh.fft;
    const int N = g.n_channels, I = p.n_inputs, t = threadIdx.x;
    const int i0 = blockIdx.x * sh.rows, s = blockIdx.y;
    const int rows_here = min(sh.rows, I - i0);
#if __CUDA_ARCH__ >= 900
    // Distributed shared memory may be written only once every CTA of the
    // cluster runs: this arrival, and the wait before the first remote
    // store, say so without holding up the loads and the FFT.
    int rank = 0;
    char2* stage = nullptr;
    if constexpr (STAGED) {
        rank = int(cg::this_cluster().block_rank());
        stage =
            reinterpret_cast<char2*>(smem_raw + onepass::geometry::phys(sh.points()) * 8);
        cg::this_cluster().barrier_arrive();
    }
#else
    if constexpr (STAGED)
        __trap(); // refused on the host below sm_90 (fftpost_refusal)
#endif
    const auto* src =
        reinterpret_cast<const float4*>(fir + (int64_t(s) * I + i0) * int64_t(N));

    // The rows' pairs, 16 bytes a load and a store (rows past the last
    // input: zeros, transformed and never written out).
    for (int k = 0; k < sh.pairs_per_thread(); ++k) {
        const int e = sh.pair(t, k), m = 2 * e;
        const float4 v = (m >> g.log2n) < rows_here ? src[e] : make_float4(0, 0, 0, 0);
        *reinterpret_cast<float4*>(buf + onepass::geometry::phys(m)) = v;
    }
    __syncthreads();

    // Pass 0 is of radix 2 or 4 where log2 N is not a multiple of 3; the
    // others are of the geometry's largest radix, 8 but where rows N < 256.
    // Pass 0 (whatever its radix) runs before the loop, so that the radix-8 loop holds
    // nothing of the smaller radices (4-8 butterflies a thread, whose indices ptxas kept
    // across the whole loop and spilled at 64 registers).
    fft_pass_any(g, 0, t, buf, twiddles);
    if (g.radices.log2r == 3)
        for (int pass = 1; pass < g.radices.passes; ++pass)
            fft_pass<3>(g, pass, t, buf, twiddles);
    else
        for (int pass = 1; pass < g.radices.passes; ++pass)
            fft_pass_any(g, pass, t, buf, twiddles);

    // Fold, correct, quantise, write: consecutive threads take a channel's
    // rows side by side (the output's input order). A warp's lanes of row r
    // are the lanes l with l mod rows = r (P is a multiple of 32): their
    // clamped values are added by shuffles and lane r adds them once.
    // Values go in groups whose loads (two points, fold factor, rotation,
    // drift) are all issued before the first is used: one value at a time,
    // each value's loads waited behind the previous one's store and atomic
    // (SASS of 2026-11-28, as in the post-processing kernel).
    const int mask = N - 1, values = sh.values_per_thread();
#if __CUDA_ARCH__ >= 900
    if constexpr (STAGED)
        cg::this_cluster().barrier_wait();
#endif
    for (int v0 = 0; v0 < values; v0 += fftpost::epilogue_group) {
        fft::cpx zk[fftpost::epilogue_group], znk[fftpost::epilogue_group];
        fft::cpx w[fftpost::epilogue_group];
        cuFloatComplex rot[fftpost::epilogue_group];
        float2 drift[fftpost::epilogue_group] = {}; // (delay tracking only)
#pragma unroll
        for (int j = 0; j < fftpost::epilogue_group; ++j) {
            if (v0 + j >= values) // values_per_thread() < the group at small N
                break;
            const int idx = sh.value(t, v0 + j), r = sh.row_of(idx);
            const int k = sh.channel_of(idx), base = r << g.log2n;
            zk[j] = buf[onepass::geometry::phys(base + k)];
            znk[j] = buf[onepass::geometry::phys(base + ((N - k) & mask))];
            w[j] = fold[k];
            rot[j] = make_cuFloatComplex(0.0f, 0.0f);
            if (r < rows_here) {
                rot[j] = p.rot[int64_t(k) * I + i0 + r];
                if (p.drift)
                    drift[j] = p.drift[i0 + r];
            }
        }
#pragma unroll
        for (int j = 0; j < fftpost::epilogue_group; ++j) {
            if (v0 + j >= values)
                break;
            const int idx = sh.value(t, v0 + j), r = sh.row_of(idx);
            const int k = sh.channel_of(idx), input = i0 + r;
            const fft::cpx X = fft::real_fold(zk[j], znk[j], w[j]);
            unsigned clamped_values = 0;
            if (r < rows_here) {
                const cuFloatComplex val = postproc_corrected(
                    p, make_cuFloatComplex(X.re, X.im), rot[j], drift[j], s, input, k);
                const int64_t o = (int64_t(s) * N + k) * I + input;
                if constexpr (STAGED) {
#if __CUDA_ARCH__ >= 900
                    bool clamped = false;
                    cg::this_cluster().map_shared_rank(
                        stage, sh.stage_owner(k))[sh.stage_slot(k, r, rank)] =
                        postproc_quantised(p, val, s, input, k, clamped);
                    clamped_values = clamped ? 1u : 0u;
#endif
                } else if constexpr (CI8) {
                    bool clamped = false;
                    static_cast<char2*>(p.out)[o] =
                        postproc_quantised(p, val, s, input, k, clamped);
                    clamped_values = clamped ? 1u : 0u;
                } else {
                    static_cast<float2*>(p.out)[o] =
                        make_float2(cuCrealf(val), cuCimagf(val));
                }
            }
            if (CI8 && p.sat) {
                for (int o = sh.rows; o < 32; o *= 2)
                    clamped_values += __shfl_xor_sync(0xffffffffu, clamped_values, o);
                if ((t & 31) < sh.rows && r < rows_here && clamped_values)
                    atomicAdd(p.sat + int64_t(s) * I + input, clamped_values);
            }
        }
    }
#if __CUDA_ARCH__ >= 900
    // Every CTA's values in place (release/acquire), then each writes its
    // own buffer out: nothing reads another CTA's memory after this
    // barrier, so none waits for the others to finish before it exits.
    if constexpr (STAGED) {
        cg::this_cluster().sync();
        write_staged(sh, stage, rank, i0 - rank * sh.rows, s, p);
    }
#endif
}

} // namespace

std::string fftpost_refusal(const fengine_config& c,
                            int rows,
                            int cluster,
                            const runtime::device_info& device)
{
    if (c.complex_input())
        return "complex input (the fused FFT takes real samples)";
    if (!fftpost::supported(c.n_channels, rows, cluster))
        return "N = " + std::to_string(c.n_channels) + ", " + std::to_string(rows) +
               " rows, clusters of " + std::to_string(cluster) +
               " (the fused FFT takes N a power of two from " +
               std::to_string(fftpost::min_channels) +
               ", rows x N <= " + std::to_string(fftpost::max_points) +
               " and clusters of at most " + std::to_string(fftpost::max_cluster) + ")";
    const bool staged = cluster > 1;
    if (staged && c.output != fengine_output::ci8)
        return "staged outputs are ci8";
    if (staged && device.compute_major < 9)
        return "staged outputs need clusters (sm_90; this GPU is sm_" +
               std::to_string(device.compute_major) +
               std::to_string(device.compute_minor) + ")";
    if (staged) {
        // The code that runs, not the device: a build for older GPUs alone
        // runs here from its PTX, compiled below sm_90, where the staged
        // kernel only traps (and a trap loses the whole context).
        cudaFuncAttributes fa{};
        if (cudaFuncGetAttributes(&fa, (const void*)fftpost_kernel<true, true>) !=
                cudaSuccess ||
            fa.ptxVersion < 90) {
            cudaGetLastError();
            return "staged outputs need the kernel compiled for sm_90 (this build runs "
                   "compute_" +
                   std::to_string(fa.ptxVersion) + " code here)";
        }
    }
    const auto sh = fftpost::make_shape(c.n_channels, rows, cluster);
    const int need = sh.smem_bytes();
    int optin = 0;
    if (cudaDeviceGetAttribute(&optin,
                               cudaDevAttrMaxSharedMemoryPerBlockOptin,
                               device.index) != cudaSuccess) {
        cudaGetLastError(); // this query's error only
        optin = 48 * 1024;
    }
    if (need > optin)
        return std::to_string(need) + " bytes of shared memory (this GPU allows " +
               std::to_string(optin) + ")";
    // Once per plan, not per launch: the device's opt-in limit (the same for
    // every plan, never lowered for another).
    const void* kernels[] = { (const void*)fftpost_kernel<true, false>,
                              (const void*)fftpost_kernel<false, false>,
                              (const void*)fftpost_kernel<true, true> };
    for (const void* kernel : kernels)
        if (need > 48 * 1024 &&
            cudaFuncSetAttribute(kernel,
                                 cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 optin) != cudaSuccess) {
            cudaGetLastError();
            return "the fused FFT kernel cannot have " + std::to_string(need) +
                   " bytes of shared memory here (not built for this GPU?)";
        }
    if (staged) {
        cudaLaunchAttribute attr;
        const cudaLaunchConfig_t cfg = runtime::cluster_launch_config(
            dim3(unsigned(cluster)), sh.threads(), cluster, need, attr);
        int fits = 0;
        if (cudaOccupancyMaxActiveClusters(
                &fits, (const void*)fftpost_kernel<true, true>, &cfg) != cudaSuccess)
            fits = 0;
        cudaGetLastError(); // a refused query leaves nothing behind
        if (fits < 1)
            return "clusters of " + std::to_string(cluster) + " CTAs of " +
                   std::to_string(need) + " bytes of shared memory do not fit here";
    }
    return "";
}

void launch_fftpost(const fftpost::shape& sh,
                    bool ci8,
                    const fft::cpx* fir,
                    int n_spectra,
                    const fft::cpx* twiddles,
                    const fft::cpx* fold,
                    const postproc_params& p,
                    cudaStream_t stream)
{
    // Padded to whole clusters: CTAs past the last input transform zeros
    // and stage nothing, but write out their channels of the cluster's
    // inputs like every other CTA (so none may leave early).
    const int ctas = (p.n_inputs + sh.rows - 1) / sh.rows;
    const dim3 grid(unsigned((ctas + sh.cluster - 1) / sh.cluster * sh.cluster),
                    unsigned(n_spectra));
    const std::size_t smem = std::size_t(sh.smem_bytes());
    if (sh.staged()) {
        assert(ci8 && "the staged form stages ci8 values");
        (void)ci8;
        cudaLaunchAttribute attr;
        cudaLaunchConfig_t cfg = runtime::cluster_launch_config(
            grid, sh.threads(), sh.cluster, int(smem), attr);
        cfg.stream = stream;
        cudaLaunchKernelEx(&cfg, fftpost_kernel<true, true>, sh, fir, twiddles, fold, p);
    } else if (ci8) {
        fftpost_kernel<true, false>
            <<<grid, sh.threads(), smem, stream>>>(sh, fir, twiddles, fold, p);
    } else {
        fftpost_kernel<false, false>
            <<<grid, sh.threads(), smem, stream>>>(sh, fir, twiddles, fold, p);
    }
}

} // namespace kernels
} // namespace gpudsp
} // namespace gr
