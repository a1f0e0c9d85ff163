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

// CTA (x, y): inputs [x rows, x rows + rows) of spectrum y.
// Two CTAs of the largest size an SM at least, i.e. 64 registers: with the
// bound at one CTA ptxas used 128 and the H200 of 2026-11-27 ran it at 25%
// occupancy, latency-bound (ncu: 7% of DRAM peak, 72.6 GS/s at N = 1024
// against a 384 GS/s memory roofline); at 64 it needs 56-63, no spills.
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

    for (int pass = 0; pass < g.radices.passes; ++pass) {
        fft::cpx v[onepass::max_values];
        onepass::fft_pass_compute_at(g, pass, t, buf, 0, twiddles, v);
        __syncthreads();
        onepass::fft_pass_store_at(g, pass, t, buf, 0, v);
        __syncthreads();
    }

    // Fold, correct, quantise, write: consecutive threads take a channel's
    // rows side by side (the output's input order). A warp's lanes of row r
    // are the lanes l with l mod rows = r (P is a multiple of 32): their
    // clamped values are added by shuffles and lane r adds them once.
    const int mask = N - 1;
    for (int vv = 0; vv < sh.values_per_thread(); ++vv) {
        const int idx = sh.value(t, vv), r = sh.row_of(idx), k = sh.channel_of(idx);
        const int base = r << g.log2n;
        const fft::cpx X =
            fft::real_fold(buf[onepass::geometry::phys(base + k)],
                           buf[onepass::geometry::phys(base + ((N - k) & mask))],
                           fold[k]);
        const int input = i0 + r;
        unsigned clamped_values = 0;
        if (r < rows_here) {
            const cuFloatComplex val =
                postproc_corrected(p, make_cuFloatComplex(X.re, X.im), s, input, k);
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
