/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The F-engine's post-processing fused into cuFFT's output as LTO store
// callbacks. Compiled to LTO-IR alone (lib/CMakeLists.txt embeds the fatbin
// in the library); cuFFT links it into its own FFT kernels when the plan is
// made (cufftXtSetJITCallback), so each FFT output value is corrected,
// quantised and written in [spectrum][channel][input] order straight from
// the FFT's registers: the float spectra do not go to memory and back (a
// multi-pass transform, N > 16384, still keeps its own intermediate passes).
//
// cuFFT calls a store callback once per output element with the element's
// offset from the output pointer given to the exec call; the plan's caller
// info points at the chunk's postproc_params in device memory. The offset
// within the chunk's scratch decodes to (spectrum, input, point) by two
// multiply-high divisions (fmath::scratch_layout, tested on the host). The
// R2C transform's point N (the Nyquist bin) is not a channel: dropped.

#include "fengine_postproc.cuh"
#include <cooperative_groups.h>
#include <cufftXt.h>

namespace cg = cooperative_groups;
using gr::gpudsp::kernels::postproc_corrected;
using gr::gpudsp::kernels::postproc_params;
using gr::gpudsp::kernels::postproc_quantised;
using gr::gpudsp::kernels::fmath::scratch_element;

namespace {

// The element's place in the chunk's output (-1: the Nyquist bin) and its
// (spectrum, input, point).
__device__ __forceinline__ long long output_of(const postproc_params& p,
                                               const void* data_out,
                                               unsigned long long offset,
                                               scratch_element& e)
{
    const auto from_chunk = static_cast<const cuFloatComplex*>(data_out) - p.spec;
    return gr::gpudsp::kernels::fmath::fused_output_index(
        p.layout, p.n_channels, uint32_t(from_chunk + offset), e);
}

// One element: corrected, and for ci8 dithered, quantised and counted when
// it saturates; written to its place in the chunk's output.
template <bool CI8>
__device__ __forceinline__ void
store(void* data_out, unsigned long long offset, cufftComplex x, void* caller_info)
{
    const postproc_params& p = *static_cast<const postproc_params*>(caller_info);
    scratch_element e;
    const long long o = output_of(p, data_out, offset, e);
    if (o < 0)
        return;
    const int s = int(e.spectrum);
    const cuFloatComplex v = postproc_corrected(p, x, s, e.input, e.point);
    if (!CI8) {
        static_cast<cuFloatComplex*>(p.out)[o] = v;
        return;
    }
    bool clamped = false;
    static_cast<char2*>(p.out)[o] =
        postproc_quantised(p, v, s, e.input, e.point, clamped);
    if (clamped && p.sat) {
        // One atomic per (spectrum, input) among the warp's clamped lanes:
        // heavy saturation must not serialise the FFT on one counter.
        const unsigned key = e.spectrum * unsigned(p.n_inputs) + unsigned(e.input);
        const auto peers = cg::labeled_partition(cg::coalesced_threads(), key);
        if (peers.thread_rank() == 0)
            atomicAdd(p.sat + key, peers.size());
    }
}

} // namespace

// Names without C++ mangling: cuFFT finds the callback by this symbol.
extern "C" __device__ void gpudsp_fengine_store_ci8(void* data_out,
                                                    unsigned long long offset,
                                                    cufftComplex x,
                                                    void* caller_info,
                                                    void* /* shared memory */)
{
    store<true>(data_out, offset, x, caller_info);
}

extern "C" __device__ void gpudsp_fengine_store_cf32(void* data_out,
                                                     unsigned long long offset,
                                                     cufftComplex x,
                                                     void* caller_info,
                                                     void* /* shared memory */)
{
    store<false>(data_out, offset, x, caller_info);
}

// A store callback that only writes its value: the plan tries it when cuFFT
// refuses the F-engine's own, to tell an environment whose cuFFT links no
// LTO callback at all from a refusal of this file's callbacks.
extern "C" __device__ void gpudsp_cufft_lto_probe(void* data_out,
                                                  unsigned long long offset,
                                                  cufftComplex x,
                                                  void* /* caller info */,
                                                  void* /* shared memory */)
{
    static_cast<cufftComplex*>(data_out)[offset] = x;
}
