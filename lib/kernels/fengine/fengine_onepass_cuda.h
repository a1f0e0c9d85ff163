/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Internal, CUDA: the one-pass F-engine kernel's launcher (the kernel is in
// fengine_onepass.cu; its geometry and arithmetic in fengine_onepass.h and
// fengine_fft.h; docs/fengine.md, "One pass").

#ifndef INCLUDED_GPUDSP_KERNELS_FENGINE_ONEPASS_CUDA_H
#define INCLUDED_GPUDSP_KERNELS_FENGINE_ONEPASS_CUDA_H

#include "fengine_inputs.cuh"
#include "fengine_onepass.h"
#include "fengine_postproc.cuh"
#include <gnuradio/gpudsp/runtime/backend.h>
#include <cuda_runtime.h>
#include <string>

namespace gr {
namespace gpudsp {
namespace kernels {

//! Device tables the kernel reads: the FIR's taps [tap][2N], the FFT's
//! twiddles exp(-2 pi i q / N), the real fold's exp(-i pi k / N), and the
//! rotations (gain x delay phasor) by input, [input][channel] (the
//! post-processing's table transposed, so that a CTA reads its input's
//! rotations as one contiguous run).
struct onepass_tables {
    const float* weights;
    const fft::cpx* twiddles;
    const fft::cpx* fold;
    const fft::cpx* rotations;
};

/*! Why the one-pass kernel cannot compute \p c on this device ("" when it
 *  can): its shapes (onepass::supported), and clusters, which need sm_90,
 *  for N > 512; then whether it fits an SM here (registers, shared memory,
 *  cluster placement), asked of the CUDA runtime. */
std::string onepass_refusal(const fengine_config& c, const runtime::device_info& device);

/*! The launch's geometry: \p per_round spectra per CTA and round (the
 *  heuristic: the fewest that keep every thread busy in radix-8 passes),
 *  sections long enough that re-reading T - 1 rows of each costs at most
 *  1/8 of the input and short enough that the grid fills the GPU twice,
 *  times \p section_factor. */
onepass::geometry onepass_geometry(const fengine_config& c,
                                   int n_spectra,
                                   int inputs_per_launch,
                                   int multiprocessors,
                                   int per_round,
                                   int section_factor);

/*! Spectra [0, n_spectra) of inputs tab (plan inputs input_offset ..
 *  input_offset + count - 1) into p.out (and p.sat), on \p stream. */
void launch_onepass(const fengine_config& c,
                    const onepass::geometry& g,
                    const input_table& tab,
                    int input_offset,
                    int count,
                    int n_spectra,
                    const onepass_tables& t,
                    const postproc_params& p,
                    cudaStream_t stream);

} // namespace kernels
} // namespace gpudsp
} // namespace gr

#endif
