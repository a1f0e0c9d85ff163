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

/*! gnss_code_phase_at for modulus L 2^F without a 128-bit division (a
 *  software routine on a GPU, called once per thread): for q0 < L 2^F,
 *  step <= 2^F (at most one chip per sample), i < 2^32, F >= 21 and
 *  \p inv_L the double nearest 1 / L. x = q0 + i step is below 2^64 +
 *  2^(F + 32), so its chip count h = x >> F is below 2^43 + 2^32: exact in
 *  a double, and h * inv_L (two roundings) is within h 2^-52 / L < 1 / L
 *  of h / L. It truncates to floor(h / L), or to one less where h is a
 *  multiple of L and the product rounds just below it: one correction. */
GNSS_HD uint64_t
gnss_code_phase_near(uint64_t q0, uint64_t step, int F, uint32_t L, double inv_L, uint32_t i)
{
    const unsigned __int128 x = q0 + (unsigned __int128)i * step;
    const uint64_t h = uint64_t(x >> F), frac = uint64_t(x) & ((uint64_t(1) << F) - 1);
    const uint64_t k = uint64_t(double(h) * inv_L); // floor(h / L) or one less
    uint64_t r = h - k * L;
    if (r >= L)
        r -= L;
    return (r << F) | frac;
}

/*! The chip of a code phase q in [0, 2 L 2^F) (a table holding the code
 *  twice takes it without a wrap). */
GNSS_HD uint32_t gnss_chip(uint64_t q, int frac_bits) { return uint32_t(q >> frac_bits); }

/*! The sub-phase (0 .. S-1) of a code phase: from the top 32 fractional
 *  bits, so every backend places sub-chip boundaries on the same 2^-32 chip
 *  grid (at most 2^-32 chip from the exact boundary). */
GNSS_HD uint32_t gnss_sub_phase(uint64_t q, int frac_bits, int S)
{
    const uint32_t u = uint32_t(q >> (frac_bits - 32));
#ifdef __CUDA_ARCH__
    return __umulhi(u, uint32_t(S)); // (the same bits: one instruction)
#else
    return uint32_t((uint64_t(u) * uint32_t(S)) >> 32);
#endif
}

/*! The bytes of a PRN's row in the GPU's code tables: the code twice (a
 *  byte per chip, for phases in [0, 2 L 2^F)) rounded up to 16, so that
 *  each row starts on a 16-byte boundary and is copied in 16-byte words. */
GNSS_HD constexpr uint32_t gnss_code_row_bytes(uint32_t code_length)
{
    return (2 * code_length + 15) / 16 * 16;
}

/*! A PRN's row of the GPU's code tables (gnss_code_row_bytes(L) bytes):
 *  the code of \p chips (+1/-1) twice as sign bytes (0x80: -1, else 0),
 *  zero padding. */
inline void gnss_code_row(const int8_t* chips, uint32_t L, uint8_t* row)
{
    for (uint32_t c = 0; c < gnss_code_row_bytes(L); ++c)
        row[c] = c < 2 * L && chips[c % L] < 0 ? 0x80 : 0;
}

/*! The GPU kernel's code value at phase \p q in [0, 2 L 2^F), as float
 *  bits: +-1 (BPSK) or +-sub[j] (\p boc; \p sub_bits the S subcarrier
 *  values' bits), the sign bit from the row of gnss_code_row: exactly the
 *  chip times the subcarrier value, without a conversion or a multiply. */
GNSS_HD uint32_t gnss_code_value_bits(
    const uint8_t* row, const uint32_t* sub_bits, bool boc, uint64_t q, int F, int S)
{
    return (boc ? sub_bits[gnss_sub_phase(q, F, S)] : 0x3f800000u) ^
           (uint32_t(row[gnss_chip(q, F)]) << 24);
}

/*! Threads per block of the GPU kernel. */
constexpr int gnss_cuda_threads = 256;

/*! The chunks of \p chunk samples the GPU kernel splits a job of \p length
 *  samples into: at least one, so that an empty job's results are written
 *  (zeros) by its one block. */
GNSS_HD int64_t gnss_chunks_of(int64_t length, int64_t chunk)
{
    return length <= 0 ? 1 : (length + chunk - 1) / chunk;
}

/*! Runs execute's \p meanwhile (if any) while launched work runs; if it
 *  throws, \p wait() for that work (its buffers are in use until then; a
 *  failure of the wait is the one reported) before the exception leaves. */
template <class Wait>
void gnss_run_meanwhile(const std::function<void()>& meanwhile, Wait wait)
{
    if (!meanwhile)
        return;
    try {
        meanwhile();
    } catch (...) {
        wait();
        throw;
    }
}

struct gnss_correlator_plan::impl {
    virtual ~impl() = default;
    // (meanwhile: as gnss_correlator_plan::execute's, may be empty)
    virtual void execute(const std::vector<const void*>& antennas,
                         const std::vector<gnss_fixed_job>& jobs,
                         std::complex<float>* out,
                         runtime::stream_handle stream,
                         const std::function<void()>& meanwhile) = 0;
    virtual double last_kernel_seconds() const { return 0; }
    virtual std::string last_launch_shape() const { return ""; }
    virtual void set_threads(int) {} // CPU work only

    /*! The configurations the tuner may time (ids, the first is the
     *  heuristic's); fewer than two: nothing to tune. */
    virtual std::vector<std::string> configurations() const { return {}; }
    /*! Runs configuration \p id from now on (one of configurations()). */
    virtual void use(const std::string& id) { (void)id; }
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
