/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Internal: the split F-engine's post-processing kernel (docs/fengine.md,
// "Split FFT"): from the U rows' N2-point FFTs cuFFT wrote, the last
// radix-U stage of the N-point FFT and the fold to the 2N-point real FFT
// (fengine_split.h), then the corrections, dither, quantisation and
// saturation counts every form applies (fengine_postproc.cuh), and the
// transpose to [spectrum][channel][input] through shared memory.

#ifndef INCLUDED_GPUDSP_KERNELS_FENGINE_SPLIT_CUH
#define INCLUDED_GPUDSP_KERNELS_FENGINE_SPLIT_CUH

#include "fengine_postproc.cuh"
#include "fengine_split.h"
#include <type_traits>

namespace gr {
namespace gpudsp {
namespace kernels {

/*! Block (x, y, z): the tile's pairs x and inputs y (split::tile) of
 *  spectra [z spb, (z + 1) spb). Per spectrum, a thread reads its 2U values (coalesced:
 *  consecutive threads, consecutive columns), computes its 2U channels
 *  in registers, corrects and quantises them into shared memory, and the
 *  block writes them out input-contiguous, run by run. */
template <int U, bool CI8>
__global__ void __launch_bounds__(split::threads_for(U), split::min_blocks_for(U))
    postproc_split(const fft::cpx* __restrict__ spectra, // [s][input][r][n2]
                   const fft::cpx* __restrict__ twiddle, // fft::twiddle_table(N)
                   const fft::cpx* __restrict__ fold,    // fft::fold_table(N)
                   int n2,
                   int n_spectra,
                   int spectra_per_block,
                   const postproc_params p,
                   void* __restrict__ out,     // [s][channel][input]
                   unsigned* __restrict__ sat) // [s][input]; or null
{
    using elem = std::conditional_t<CI8, char2, float2>;
    __shared__ elem tile_mem[split::max_smem_elems(U)];
    const int N = p.n_channels, I = p.n_inputs;
    const split::tile t = split::tile_for(I, split::threads_for(U));
    // This thread's pair and input in the compute phase ...
    const int cp = t.compute_pair(threadIdx.x), ci = t.compute_input(threadIdx.x);
    const int pair = blockIdx.x * t.pairs + cp, input = blockIdx.y * t.inputs + ci;
    const bool active = pair < split::pairs(n2) && input < I;
    // ... and in the store phase.
    const int sp = t.store_pair(threadIdx.x), si = t.store_input(threadIdx.x);
    const int store_pair = blockIdx.x * t.pairs + sp;
    const int store_input = blockIdx.y * t.inputs + si;
    const int mirror = split::mirror(pair, n2);
    // Lanes of one input in a warp: t.pairs of them, or the whole warp.
    const int lanes = t.pairs < 32 ? t.pairs : 32;
    const int s_begin = blockIdx.z * spectra_per_block;
    const int s_end = min(n_spectra, s_begin + spectra_per_block);
    for (int s = s_begin; s < s_end; ++s) {
        unsigned clamped_values = 0;
        if (active) {
            const fft::cpx* rows = spectra + (int64_t(s) * I + input) * N;
            fft::cpx za[U], zb[U], xa[U], xb[U];
#pragma unroll
            for (int r = 0; r < U; ++r) {
                za[r] = rows[r * n2 + pair];
                zb[r] = rows[r * n2 + mirror];
            }
            split::pair_channels<U>(za, zb, pair, n2, twiddle, fold, xa, xb);
            const bool both = split::has_mirror(pair, n2);
#pragma unroll
            for (int run = 0; run < 2 * U; ++run) {
                if (run >= U && !both)
                    break;
                const fft::cpx x = run < U ? xa[run] : xb[run - U];
                const int k = split::channel(pair, run, n2, U);
                const cuFloatComplex v =
                    postproc_corrected(p, make_cuFloatComplex(x.re, x.im), s, input, k);
                const int at = t.smem_index(run, cp, ci);
                if constexpr (CI8) {
                    bool clamped = false;
                    tile_mem[at] = postproc_quantised(p, v, s, input, k, clamped);
                    clamped_values += clamped ? 1u : 0u;
                } else {
                    tile_mem[at] = make_float2(cuCrealf(v), cuCimagf(v));
                }
            }
        }
        if (CI8 && sat) {
            // One atomic per input of a warp.
            for (int o = 1; o < lanes; o *= 2)
                clamped_values += __shfl_xor_sync(0xffffffffu, clamped_values, o);
            if (active && threadIdx.x % lanes == 0 && clamped_values)
                atomicAdd(sat + int64_t(s) * I + input, clamped_values);
        }
        __syncthreads();
        if (store_input < I)
#pragma unroll
            for (int run = 0; run < 2 * U; ++run)
                if (split::writes(store_pair, run, n2, U)) {
                    const int k = split::channel(store_pair, run, n2, U);
                    static_cast<elem*>(out)[(int64_t(s) * N + k) * I + store_input] =
                        tile_mem[t.smem_index(run, sp, si)];
                }
        __syncthreads();
    }
}

} // namespace kernels
} // namespace gpudsp
} // namespace gr

#endif
