/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The one-pass F-engine kernel (docs/fengine.md, "One pass"): decode, FIR,
// FFT, corrections, quantisation and the [spectrum][channel][input] output
// in one kernel, each input byte read once, each output written once, no
// cuFFT and no run-time linking. Its geometry and arithmetic are in
// fengine_onepass.h and fengine_fft.h, which qa_fengine_onepass emulates on
// the host phase by phase; this file adds what only a GPU has: the
// registers, the shared memory, the cluster's distributed shared memory and
// the barriers. Real input, N = 256 .. 4096 (clusters of 2N / 1024 CTAs
// above N = 512, which need sm_90), T <= 16.

#include "fengine_onepass_cuda.h"
#include "runtime/cuda_check.h"
#include <cooperative_groups.h>
#include <algorithm>

namespace gr {
namespace gpudsp {
namespace kernels {

namespace {

namespace cg = cooperative_groups;

constexpr int onepass_max_threads = 256;

struct onepass_args {
    onepass::geometry geo;
    input_table in;
    int input_offset;         // the launch's first input, of the plan's
    int n_spectra;            // spectra of this launch
    int step;                 // 2N samples per spectrum
    const float* weights;     // [tap][2N]
    const fft::cpx* twiddles; // exp(-2 pi i q / N)
    const fft::cpx* fold;     // exp(-i pi k / N)
    const fft::cpx* rotations; // [input][channel]: gain x delay phasor
};

// The CTA's rank in its cluster, an owner's buffers, and the round's
// barrier: a cluster's (sm_90) where the FIR writes into other CTAs'
// shared memory, else the block's.
__device__ __forceinline__ int cta_rank(int cluster)
{
#if __CUDA_ARCH__ >= 900
    if (cluster > 1)
        return int(cg::this_cluster().block_rank());
#endif
    (void)cluster;
    return 0;
}
__device__ __forceinline__ fft::cpx* owner_buffers(fft::cpx* smem, int owner, int cluster)
{
#if __CUDA_ARCH__ >= 900
    if (cluster > 1)
        return cg::this_cluster().map_shared_rank(smem, owner);
#endif
    (void)owner;
    (void)cluster;
    return smem;
}
__device__ __forceinline__ void round_barrier(int cluster)
{
#if __CUDA_ARCH__ >= 900
    if (cluster > 1) {
        cg::this_cluster().sync(); // release/acquire: the remote writes are seen
        return;
    }
#endif
    (void)cluster;
    __syncthreads();
}

// A thread's 4 columns of one row (samples n .. n + 3), or zeros: the packed
// format's 5 or 6 bytes read once (packed10_four), the others' samples.
template <fengine_input F>
__device__ __forceinline__ void
load_columns(const void* src, int64_t n, bool present, float* x)
{
    if (!present) {
        GPUDSP_UNROLL
        for (int c = 0; c < onepass::cols_per_thread; ++c)
            x[c] = 0.0f;
    } else if constexpr (F == fengine_input::packed10) {
        packed10_four(static_cast<const uint8_t*>(src), n, x);
    } else {
        GPUDSP_UNROLL
        for (int c = 0; c < onepass::cols_per_thread; ++c)
            x[c] = loader<F>::load(src, n + c);
    }
}

// One CTA: input blockIdx.y, section blockIdx.x / C, columns of cluster rank
// q; one round after another: the FIR of the round's C g spectra into their
// owners' buffers, the cluster barrier, the FFT of its own g, the fold,
// corrections and output. MAXT: the register window (8 or 16 >= T).
template <int MAXT, fengine_input F, bool CI8>
__global__ void __launch_bounds__(onepass_max_threads, 1)
    onepass_kernel(const onepass_args a, const postproc_params p)
{
    extern __shared__ __align__(16) unsigned char smem_raw[];
    auto* smem = reinterpret_cast<fft::cpx*>(smem_raw);
    const onepass::geometry& g = a.geo;
    const int C = g.cluster;
    const int q = cta_rank(C);
    const int t = threadIdx.x;
    const int i = blockIdx.y, input = a.input_offset + i;
    const int s_begin = int(blockIdx.x / C) * g.section;
    const int s_end = min(a.n_spectra, s_begin + g.section);
    const void* src = a.in.data[i];
    const int j0 = g.first_column(q, t);
    const int64_t first = a.in.first[i] + j0; // column j0 of row 0

    // The input's rotations into shared memory, once per section (read
    // after the first round's barrier).
    fft::cpx* const rot = smem + g.rotation_point();
    for (int k = t; k < g.n_channels; k += g.threads)
        rot[k] = a.rotations[int64_t(input) * g.n_channels + k];

    // The taps once per section, the window primed with the rows before it.
    onepass::fir_state<MAXT> st;
    onepass::load_taps(st, a.weights, a.step, g.taps, j0);
    GPUDSP_UNROLL
    for (int tt = 1; tt < MAXT; ++tt) {
        const int row = onepass::warm_row(s_begin, g.taps, MAXT, tt);
        float x[onepass::cols_per_thread];
        load_columns<F>(src, first + int64_t(row) * a.step, row >= 0, x);
        GPUDSP_UNROLL
        for (int c = 0; c < onepass::cols_per_thread; ++c)
            st.x[c][tt] = x[c];
    }

    // Every CTA of the cluster running before any writes into another's
    // shared memory (CUDA's rule for distributed shared memory).
    round_barrier(C);

    const int per_round = g.spectra_per_round();
    int round = 0;
    for (int r0 = s_begin; r0 < s_end; r0 += per_round, ++round) {
        const int parity = round & 1;
        // The FIR of the round's spectra, each to its owner: one new row per
        // spectrum, 4 columns = 2 complex points = one 16-byte store.
        for (int u = 0; u < per_round; ++u) {
            const int s = r0 + u;
            const int64_t at = first + int64_t(s + g.taps - 1) * a.step;
            float row[onepass::cols_per_thread];
            load_columns<F>(src, at, s < s_end, row);
            onepass::slide(st, row);
            const float4 y = make_float4(onepass::fir_column(st, 0),
                                         onepass::fir_column(st, 1),
                                         onepass::fir_column(st, 2),
                                         onepass::fir_column(st, 3));
            fft::cpx* dst =
                owner_buffers(smem, g.owner(u), C) +
                onepass::geometry::phys(onepass::dest_point(g, u, parity, j0));
            *reinterpret_cast<float4*>(dst) = y;
        }
        round_barrier(C);

        // This CTA's g spectra: the FFT passes in place.
        const int lbase = parity * g.buffer_points();
        for (int pass = 0; pass < g.radices.passes; ++pass) {
            fft::cpx v[onepass::max_values];
            onepass::fft_pass_compute_at(g, pass, t, smem, lbase, a.twiddles, v);
            __syncthreads();
            onepass::fft_pass_store_at(g, pass, t, smem, lbase, v);
            __syncthreads();
        }

        // Fold, correct, quantise, write each channel once. A warp's 32
        // channels are of one spectrum (N >= 256, P a multiple of 32): its
        // clamped values are counted with one ballot and one atomic. The
        // drift of delay tracking, linear in the channel, is a phasor: one
        // sincos for a thread's first channel of a spectrum and one for its
        // step of P channels, then a product per channel.
        cuFloatComplex drift = make_cuFloatComplex(1.0f, 0.0f), drift_step = drift;
        GPUDSP_UNROLL
        for (int v = 0; v < onepass::max_values; ++v) {
            if (v < g.channels_per_thread()) {
                int sigma, k;
                const fft::cpx X =
                    onepass::fold_at(g, smem, lbase, a.fold, t, v, sigma, k);
                const int s = r0 + sigma * C + q;
                if (s < s_end) { // the same for the whole warp
                    cuFloatComplex val =
                        cuCmulf(make_cuFloatComplex(X.re, X.im),
                                make_cuFloatComplex(rot[k].re, rot[k].im));
                    if (p.drift) {
                        if (((v << g.log2p) & (g.n_channels - 1)) == 0) { // k == t
                            const float2 r = p.drift[input];
                            const float d = float(p.drift_offset + s);
                            const auto real = fmath::channel_axis::real;
                            float sn, cs;
                            sincospif(fmath::drift_halfturns<float>(
                                          r.x, r.y, d, k, g.n_channels, real),
                                      &sn,
                                      &cs);
                            drift = make_cuFloatComplex(cs, sn);
                            sincospif(fmath::drift_halfturns<float>(
                                          r.x, 0.0f, d, g.threads, g.n_channels, real),
                                      &sn,
                                      &cs);
                            drift_step = make_cuFloatComplex(cs, sn);
                        } else {
                            drift = cuCmulf(drift, drift_step);
                        }
                        val = cuCmulf(val, drift);
                    }
                    const int64_t o =
                        (int64_t(s) * g.n_channels + k) * p.n_inputs + input;
                    if (CI8) {
                        bool clamped = false;
                        static_cast<char2*>(p.out)[o] =
                            postproc_quantised(p, val, s, input, k, clamped);
                        const unsigned n = __popc(__ballot_sync(0xffffffffu, clamped));
                        if (n && p.sat && (t & 31) == 0)
                            atomicAdd(p.sat + int64_t(s) * p.n_inputs + input, n);
                    } else {
                        static_cast<float2*>(p.out)[o] = make_float2(val.x, val.y);
                    }
                }
            }
        }
        // No barrier: the next round writes the other buffers, and the
        // round after it only after the next round's barrier, which every
        // CTA reaches after this round's reads.
    }
    // Every write into another CTA's shared memory precedes the last round's
    // barrier: none can reach a CTA that has exited.
}

template <int MAXT, fengine_input F, bool CI8>
void launch(const onepass_args& a,
            const postproc_params& p,
            dim3 grid,
            int threads,
            int cluster,
            int smem,
            cudaStream_t stream)
{
    // Its shared-memory limit was raised once, when the plan was made
    // (onepass_refusal), to the most any of its geometries asks.
    auto* kernel = onepass_kernel<MAXT, F, CI8>;
    cudaLaunchAttribute attr;
    cudaLaunchConfig_t cfg =
        runtime::cluster_launch_config(grid, threads, cluster, smem, attr);
    cfg.stream = stream;
    cudaLaunchKernelEx(&cfg, kernel, a, p);
}

template <int MAXT, bool CI8>
void launch_format(fengine_input f,
                   const onepass_args& a,
                   const postproc_params& p,
                   dim3 grid,
                   int threads,
                   int cluster,
                   int smem,
                   cudaStream_t stream)
{
    switch (f) {
    case fengine_input::packed10:
        launch<MAXT, fengine_input::packed10, CI8>(
            a, p, grid, threads, cluster, smem, stream);
        break;
    case fengine_input::int16:
        launch<MAXT, fengine_input::int16, CI8>(
            a, p, grid, threads, cluster, smem, stream);
        break;
    default:
        launch<MAXT, fengine_input::float32, CI8>(
            a, p, grid, threads, cluster, smem, stream);
        break;
    }
}

// The kernel a config runs (for the occupancy query).
const void* kernel_for(const fengine_config& c)
{
    const bool wide = onepass::window_for(c.n_taps) > 8;
    const bool ci8 = c.output == fengine_output::ci8;
#define GPUDSP_PICK(F)                                              \
    return wide ? (ci8 ? (const void*)onepass_kernel<16, F, true>   \
                       : (const void*)onepass_kernel<16, F, false>) \
                : (ci8 ? (const void*)onepass_kernel<8, F, true>    \
                       : (const void*)onepass_kernel<8, F, false>)
    switch (c.input) {
    case fengine_input::packed10:
        GPUDSP_PICK(fengine_input::packed10);
    case fengine_input::int16:
        GPUDSP_PICK(fengine_input::int16);
    default:
        GPUDSP_PICK(fengine_input::float32);
    }
#undef GPUDSP_PICK
}

} // namespace


onepass::geometry onepass_geometry(const fengine_config& c,
                                   int n_spectra,
                                   int inputs_per_launch,
                                   int multiprocessors,
                                   int per_round,
                                   int section_factor)
{
    const auto probe = onepass::make_geometry(c.n_channels, c.n_taps, per_round, 1);
    // Two CTAs' worth of work per SM: sections = 2 SMs / (C x inputs).
    const int clusters_wanted = std::max(1, 2 * multiprocessors / probe.cluster);
    const int sections = std::max(1, clusters_wanted / std::max(1, inputs_per_launch));
    const int fill = (n_spectra + sections - 1) / sections;
    const int least = 8 * (c.n_taps - 1); // T - 1 warm-up rows: <= 1/8 more input
    const int hint = std::max(fill, least) * std::max(1, section_factor);
    return onepass::make_geometry(c.n_channels, c.n_taps, per_round, hint);
}

std::string onepass_refusal(const fengine_config& c, const runtime::device_info& device)
{
    if (c.complex_input())
        return "complex input (the one-pass kernel takes real samples)";
    if (!onepass::supported(c.n_channels, c.n_taps, false))
        return "N = " + std::to_string(c.n_channels) +
               ", T = " + std::to_string(c.n_taps) +
               " (the one-pass kernel takes N a power of two in " +
               std::to_string(onepass::min_channels) + ".." +
               std::to_string(onepass::max_channels) + " and T <= 16)";
    const auto g = onepass::make_geometry(
        c.n_channels, c.n_taps, onepass::default_per_round(c.n_channels), 1);
    if (g.cluster > 1 && device.compute_major < 9)
        return "N = " + std::to_string(c.n_channels) + " needs clusters of " +
               std::to_string(g.cluster) + " CTAs (sm_90; this GPU is sm_" +
               std::to_string(device.compute_major) +
               std::to_string(device.compute_minor) + ")";
    const void* kernel = kernel_for(c);
    cudaFuncAttributes attr{};
    if (cudaFuncGetAttributes(&attr, kernel) != cudaSuccess) {
        cudaGetLastError();
        return "the one-pass kernel is not built for this GPU";
    }
    // A build for older GPUs alone runs here from PTX compiled below sm_90,
    // where the kernel has no clusters: every CTA would take rank 0.
    if (g.cluster > 1 && attr.ptxVersion < 90)
        return "N = " + std::to_string(c.n_channels) + " needs clusters of " +
               std::to_string(g.cluster) + " CTAs, and this build runs compute_" +
               std::to_string(attr.ptxVersion) + " code here (build for sm_90)";
    // Once per plan, not per launch: the device's opt-in limit, which
    // every geometry the tuner may time (g and 2g spectra per round) fits
    // (the same value for every plan: never lowered for another).
    int optin = 0;
    if (cudaDeviceGetAttribute(&optin,
                               cudaDevAttrMaxSharedMemoryPerBlockOptin,
                               device.index) != cudaSuccess ||
        optin < g.smem_bytes()) {
        cudaGetLastError();
        optin = g.smem_bytes();
    }
    if (optin > 48 * 1024 &&
        cudaFuncSetAttribute(
            kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, optin) != cudaSuccess) {
        cudaGetLastError();
        return "the one-pass kernel cannot have " + std::to_string(optin) +
               " bytes of shared memory on this GPU";
    }
    int fits = 0;
    if (g.cluster > 1) {
        cudaLaunchAttribute attr;
        const cudaLaunchConfig_t cfg = runtime::cluster_launch_config(
            dim3(g.cluster), g.threads, g.cluster, g.smem_bytes(), attr);
        if (cudaOccupancyMaxActiveClusters(&fits, kernel, &cfg) != cudaSuccess)
            fits = 0;
    } else if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                   &fits, kernel, g.threads, std::size_t(g.smem_bytes())) !=
               cudaSuccess) {
        fits = 0;
    }
    cudaGetLastError(); // a refused query leaves nothing behind
    if (fits < 1)
        return "the one-pass kernel does not fit here (" + std::to_string(attr.numRegs) +
               " registers a thread, " + std::to_string(g.smem_bytes()) +
               " bytes of shared memory, clusters of " + std::to_string(g.cluster) + ")";
    return "";
}

void launch_onepass(const fengine_config& c,
                    const onepass::geometry& g,
                    const input_table& tab,
                    int input_offset,
                    int count,
                    int n_spectra,
                    const onepass_tables& t,
                    const postproc_params& p,
                    cudaStream_t stream)
{
    onepass_args a;
    a.geo = g;
    a.in = tab;
    a.input_offset = input_offset;
    a.n_spectra = n_spectra;
    a.step = 2 * c.n_channels;
    a.weights = t.weights;
    a.twiddles = t.twiddles;
    a.fold = t.fold;
    a.rotations = t.rotations;
    const int sections = (n_spectra + g.section - 1) / g.section;
    const dim3 grid(unsigned(g.cluster * sections), unsigned(count));
    const bool wide = onepass::window_for(c.n_taps) > 8;
    const bool ci8 = c.output == fengine_output::ci8;
    if (wide && ci8)
        launch_format<16, true>(
            c.input, a, p, grid, g.threads, g.cluster, g.smem_bytes(), stream);
    else if (wide)
        launch_format<16, false>(
            c.input, a, p, grid, g.threads, g.cluster, g.smem_bytes(), stream);
    else if (ci8)
        launch_format<8, true>(
            c.input, a, p, grid, g.threads, g.cluster, g.smem_bytes(), stream);
    else
        launch_format<8, false>(
            c.input, a, p, grid, g.threads, g.cluster, g.smem_bytes(), stream);
}

} // namespace kernels
} // namespace gpudsp
} // namespace gr
