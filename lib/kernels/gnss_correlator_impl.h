/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Internal: the backends behind gnss_correlator_plan. They receive jobs
// already checked and in fixed point, and tap offsets per system in chips
// * 2^F of that system's code ([system][tap]). The code-phase arithmetic
// both backends run is here (host and device), so that CPU tests cover it.

#ifndef INCLUDED_GPUDSP_KERNELS_GNSS_CORRELATOR_IMPL_H
#define INCLUDED_GPUDSP_KERNELS_GNSS_CORRELATOR_IMPL_H

#include <gnuradio/gpudsp/kernels/gnss_correlator.h>

namespace gr {
namespace gpudsp {
namespace kernels {

#ifdef __CUDACC__
#define GNSS_HD __host__ __device__ __forceinline__
#else
#define GNSS_HD inline
#endif

/*! The code phase (chips * 2^F) of sample i of a job: (q0 + i step) mod
 *  modulus, exact for any i (a 128-bit product). */
GNSS_HD uint64_t gnss_code_phase_at(uint64_t q0, uint64_t step, uint64_t modulus, uint64_t i)
{
    return uint64_t((q0 + (unsigned __int128)i * step) % modulus);
}

/*! The chip of a code phase q in [0, 2 L 2^F) (a table holding the code
 *  twice takes it without a wrap). */
GNSS_HD uint32_t gnss_chip(uint64_t q, int frac_bits) { return uint32_t(q >> frac_bits); }

/*! The sub-phase (0 .. S-1) of a code phase: from the top 32 fractional
 *  bits, so every backend places sub-chip boundaries on the same 2^-32 chip
 *  grid (at most 2^-32 chip from the exact boundary). */
GNSS_HD uint32_t gnss_sub_phase(uint64_t q, int frac_bits, int S)
{
    return uint32_t((uint64_t(uint32_t(q >> (frac_bits - 32))) * uint64_t(S)) >> 32);
}

/*! Where PRN p's code starts in the GPU's code tables, in chips: codes of
 *  L chips at a stride of L rounded up to 16 (int8 chips), so that each
 *  starts on a 16-byte boundary and is copied in 16-byte words. */
GNSS_HD constexpr uint32_t gnss_code_stride(uint32_t code_length)
{
    return (code_length + 15) / 16 * 16;
}

/*! The chunks of \p chunk samples the GPU kernel splits a job of \p length
 *  samples into: at least one, so that an empty job's results are written
 *  (zeros) by its one block. */
GNSS_HD int64_t gnss_chunks_of(int64_t length, int64_t chunk)
{
    return length <= 0 ? 1 : (length + chunk - 1) / chunk;
}

struct gnss_correlator_plan::impl {
    virtual ~impl() = default;
    virtual void execute(const std::vector<const void*>& antennas,
                         const std::vector<gnss_fixed_job>& jobs,
                         std::complex<float>* out,
                         runtime::stream_handle stream) = 0;
    virtual double last_kernel_seconds() const { return 0; }
    virtual void set_threads(int) {} // CPU work only
};

std::unique_ptr<gnss_correlator_plan::impl> make_gnss_correlator_cpu(
    int n_antennas, const std::vector<int64_t>& taps, gnss_input input);
#ifdef GPUDSP_HAVE_CUDA
std::unique_ptr<gnss_correlator_plan::impl>
make_gnss_correlator_cuda(int n_antennas,
                          const std::vector<int64_t>& taps,
                          gnss_input input,
                          runtime::device_context::sptr ctx,
                          const std::string& who);
#endif

} // namespace kernels
} // namespace gpudsp
} // namespace gr

#endif
