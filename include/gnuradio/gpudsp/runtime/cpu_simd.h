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
 * AVX2 and $GPUDSP_CPU_SIMD is not "scalar". The override exists so the
 * scalar fallbacks (what a CPU without AVX2 runs) are tested on any
 * machine, and so the two can be compared; it is read once, at first use.
 * (FFTW and VOLK choose their own SIMD paths.)
 */
GPUDSP_API bool cpu_use_avx2();

/*!
 * \brief The SIMD level to state beside a CPU figure: what the kernels use
 * and what the CPU has, e.g. "avx2 (CPU: avx512)" or "scalar (CPU: avx2,
 * GPUDSP_CPU_SIMD=scalar)".
 */
GPUDSP_API std::string cpu_simd_description();

} // namespace runtime
} // namespace gpudsp
} // namespace gr

#endif /* INCLUDED_GPUDSP_RUNTIME_CPU_SIMD_H */
