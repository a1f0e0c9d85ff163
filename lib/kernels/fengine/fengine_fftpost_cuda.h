/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Internal, CUDA: the launcher of the F-engine's fused FFT and
// post-processing kernel (fengine_fftpost.cu; its geometry in
// fengine_fftpost.h; docs/fengine.md, "FFT and post-processing fused").

#ifndef INCLUDED_GPUDSP_KERNELS_FENGINE_FFTPOST_CUDA_H
#define INCLUDED_GPUDSP_KERNELS_FENGINE_FFTPOST_CUDA_H

#include "fengine_fftpost.h"
#include "fengine_postproc.cuh"
#include <gnuradio/gpudsp/kernels/pfb_fengine.h>
#include <gnuradio/gpudsp/runtime/backend.h>
#include <cuda_runtime.h>
#include <string>

namespace gr {
namespace gpudsp {
namespace kernels {

/*! Why the kernel cannot take \p rows inputs a CTA of \p c, in clusters of
 *  \p cluster CTAs that stage their outputs (1: none), on this device (""
 *  when it can): its shapes (fftpost::supported, real input; staging: ci8
 *  and sm_90), then the device's shared memory and, staged, whether such a
 *  cluster fits; where it can, its shared-memory limit is raised to what
 *  the shape needs, once. */
std::string fftpost_refusal(const fengine_config& c,
                            int rows,
                            int cluster,
                            const runtime::device_info& device);

/*! Spectra [0, n_spectra) of the FIR's output \p fir ([s][input][N]
 *  complex pairs) into p.out (and p.sat), ci8 or cf32 (staged: ci8, in
 *  clusters of sh.cluster CTAs), on \p stream;
 *  \p twiddles and \p fold: fft::twiddle_table(N) and fft::fold_table(N)
 *  on the device. */
void launch_fftpost(const fftpost::shape& sh,
                    bool ci8,
                    const fft::cpx* fir,
                    int n_spectra,
                    const fft::cpx* twiddles,
                    const fft::cpx* fold,
                    const postproc_params& p,
                    cudaStream_t stream);

} // namespace kernels
} // namespace gpudsp
} // namespace gr

#endif
