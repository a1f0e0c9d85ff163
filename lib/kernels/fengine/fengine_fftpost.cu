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
#include <algorithm>

namespace gr {
namespace gpudsp {
namespace kernels {

namespace {

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

// CTA (x, y): inputs [x rows, x rows + rows) of spectrum y.
// Two CTAs of the largest size an SM at least, i.e. 64 registers: with the
// bound at one CTA ptxas used 128 and the H200 of 2026-11-27 ran it at 25%
// occupancy, latency-bound (ncu: 7% of DRAM peak, 72.6 GS/s at N = 1024
// against a 384 GS/s memory roofline); at 64 it fits without spills (all
// 64 since a butterfly's twiddles load together, below).
template <bool CI8>
__global__ void __launch_bounds__(fftpost::max_threads, 2)
    fftpost_kernel(const fftpost::shape sh,
                   const fft::cpx* __restrict__ fir, // [s][input][N]
                   const fft::cpx* __restrict__ twiddles,
                   const fft::cpx* __restrict__ fold,
                   const postproc_params p)
{
    extern __shared__ __align__(16) unsigned char smem_raw[];
    auto* buf = reinterpret_cast<fft::cpx*>(smem_raw);
    const onepass::geometry& g = sh.fft;
    const int N = g.n_channels, I = p.n_inputs, t = threadIdx.x;
    const int i0 = blockIdx.x * sh.rows, s = blockIdx.y;
    const int rows_here = min(sh.rows, I - i0);
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
                if constexpr (CI8) {
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
}

} // namespace

std::string
fftpost_refusal(const fengine_config& c, int rows, const runtime::device_info& device)
{
    if (c.complex_input())
        return "complex input (the fused FFT takes real samples)";
    if (!fftpost::supported(c.n_channels, rows))
        return "N = " + std::to_string(c.n_channels) + ", " + std::to_string(rows) +
               " rows (the fused FFT takes N a power of two from " +
               std::to_string(fftpost::min_channels) +
               " and rows x N <= " + std::to_string(fftpost::max_points) + ")";
    const auto sh = fftpost::make_shape(c.n_channels, rows);
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
    for (const void* kernel :
         { (const void*)fftpost_kernel<true>, (const void*)fftpost_kernel<false> })
        if (need > 48 * 1024 &&
            cudaFuncSetAttribute(kernel,
                                 cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 optin) != cudaSuccess) {
            cudaGetLastError();
            return "the fused FFT kernel cannot have " + std::to_string(need) +
                   " bytes of shared memory here (not built for this GPU?)";
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
    const dim3 grid(unsigned((p.n_inputs + sh.rows - 1) / sh.rows), unsigned(n_spectra));
    const std::size_t smem = std::size_t(sh.smem_bytes());
    if (ci8)
        fftpost_kernel<true>
            <<<grid, sh.threads(), smem, stream>>>(sh, fir, twiddles, fold, p);
    else
        fftpost_kernel<false>
            <<<grid, sh.threads(), smem, stream>>>(sh, fir, twiddles, fold, p);
}

} // namespace kernels
} // namespace gpudsp
} // namespace gr
