/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUDSP_RUNTIME_CPU_SIMD_H
#define INCLUDED_GPUDSP_RUNTIME_CPU_SIMD_H

#include <gnuradio/gpudsp/api.h>
#include <string>

namespace gr {
namespace gpudsp {
namespace runtime {

/*!
 * \brief Whether the CPU kernels' hand-written AVX2 paths run: the CPU has
 * AVX2 and FMA and $GPUDSP_CPU_SIMD is not "scalar". $GPUDSP_CPU_SIMD ("auto",
 * "avx2" or "scalar") caps the level, so that the fallbacks (what a CPU
 * without AVX-512 or AVX2 runs) are tested on any machine and can be
 * compared; it is read once, at first use. (FFTW and VOLK choose their own
 * SIMD paths.)
 */
GPUDSP_API bool cpu_use_avx2();

/*!
 * \brief Whether the kernels that have an AVX-512 path (the GNSS
 * correlator) run it: the CPU has AVX-512 F, BW, DQ and VL and
 * $GPUDSP_CPU_SIMD is "auto" or unset. Kernels without one run AVX2.
 */
GPUDSP_API bool cpu_use_avx512();

/*!
 * \brief The SIMD level to state beside a CPU figure: what the kernels use
 * and what the CPU has, e.g. "avx512 (CPU: avx512)" (AVX-512 where a kernel
 * has it, AVX2 elsewhere), "avx2 (CPU: avx512, GPUDSP_CPU_SIMD=avx2)" or
 * "scalar (CPU: avx2, GPUDSP_CPU_SIMD=scalar)".
 */
GPUDSP_API std::string cpu_simd_description();

} // namespace runtime
} // namespace gpudsp
} // namespace gr

#endif /* INCLUDED_GPUDSP_RUNTIME_CPU_SIMD_H */
