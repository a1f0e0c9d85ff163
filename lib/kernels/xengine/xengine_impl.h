/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Internal: the backends behind xengine_plan. Both accumulate the lower
// triangle of the input-by-input matrix per channel, pair (a, b) with a >= b
// at tri(a, b) = a (a + 1) / 2 + b; a dump maps it to [channel][baseline]
// [p][q], taking the conjugate of (b, a) for the one product of a station
// with itself that lies above the diagonal (p < q).

#ifndef INCLUDED_GPUDSP_KERNELS_XENGINE_IMPL_H
#define INCLUDED_GPUDSP_KERNELS_XENGINE_IMPL_H

#include <gnuradio/gpudsp/kernels/xengine.h>

namespace gr {
namespace gpudsp {
namespace kernels {

inline std::size_t xengine_tri(std::size_t a, std::size_t b)
{
    return a * (a + 1) / 2 + b;
}

/*!
 * The accumulation model (docs/xengine.md). ci8: partial sums in int32, in
 * which each spectrum adds at most 2 * 128^2 = 32768 per part (exact for the
 * whole int8 range, -128 included), so xengine_int32_spectra of them cannot
 * overflow; the plan promotes the partials into the int64 totals after that
 * many spectra and before every dump. cf32: float sums (float64 on the
 * CPU), nothing to promote.
 */
constexpr std::size_t xengine_int32_spectra = 65535;

struct xengine_plan::impl {
    virtual ~impl() = default;
    virtual std::string kernel_name() const = 0;
    virtual std::string kernel_variant() const { return ""; }
    virtual std::string launch_shape(std::size_t n) const
    {
        (void)n;
        return "";
    }
    /*! Adds n spectra to the partial sums; the plan never lets the spectra
     *  since the last promotion exceed xengine_int32_spectra. */
    virtual void
    accumulate(const void* spectra, std::size_t n, runtime::stream_handle s) = 0;
    /*! xengine_plan::time_stages and stage_times (CUDA only); a call of
     *  accumulate() is between begin_stages() and end_stages() (a dump's
     *  promotion is not its stage). */
    virtual void time_stages(bool on) { (void)on; }
    virtual void begin_stages() {}
    virtual void end_stages() {}
    virtual std::vector<runtime::stage_time> stage_times() { return {}; }
    /*! Moves the partial sums into the totals (ci8; nothing for cf32). */
    virtual void promote(runtime::stream_handle s) = 0;
    /*! Writes the totals and clears them (the plan promotes first). */
    virtual void dump(void* out, uint64_t* saturated, runtime::stream_handle s) = 0;

    /*! The accumulation kernels this backend has (ids, each with why it
     *  cannot run here, empty if it can); none: nothing to tune. */
    struct form {
        std::string id, unavailable;
    };
    virtual std::vector<form> forms() const { return {}; }
    /*! The form that runs now (the heuristic's until use()). */
    virtual std::string current_form() const { return ""; }
    /*! The form an environment variable forces (GPUDSP_XENGINE_TENSOR), or empty. */
    virtual std::string forced_form() const { return ""; }
    /*! Accumulates with form \p id from now on (an available one). */
    virtual void use(const std::string& id) { (void)id; }
    /*! Clears the totals and partials (after the tuner's runs). */
    virtual void reset(runtime::stream_handle s) { (void)s; }
    /*! Frees what only forms other than the current one need (after the
     *  tuner's choice). */
    virtual void trim() {}
};

/*! Whether a GPU backend runs the tensor-core kernel for this configuration. */
inline bool xengine_uses_tensor(const xengine_config& c)
{
    if (c.kernel == xengine_kernel::tensor)
        return true;
    if (c.kernel == xengine_kernel::fp32 || c.input != xengine_input::ci8)
        return false;
    return c.n_inputs() >= 32; // below one 32-input tile the FP32 kernel does as well
}

std::unique_ptr<xengine_plan::impl> make_xengine_cpu(const xengine_config& config);
#ifdef GPUDSP_HAVE_CUDA
std::unique_ptr<xengine_plan::impl> make_xengine_cuda(const xengine_config& config,
                                                      runtime::device_context::sptr ctx,
                                                      const std::string& who);
#endif

/*! Saturates a 64-bit sum to +-(2^31 - 1), setting \p clamped when it had to. */
inline int32_t saturate_int32(int64_t v, bool& clamped)
{
    constexpr int64_t lim = 2147483647;
    if (v > lim || v < -lim) {
        clamped = true;
        return int32_t(v > 0 ? lim : -lim);
    }
    return int32_t(v);
}

} // namespace kernels
} // namespace gpudsp
} // namespace gr

#endif
