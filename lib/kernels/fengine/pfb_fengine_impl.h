/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Internal: the backends behind fengine_plan. Each is built from a
// validated config and the float32 window.

#ifndef INCLUDED_GPUDSP_KERNELS_PFB_FENGINE_IMPL_H
#define INCLUDED_GPUDSP_KERNELS_PFB_FENGINE_IMPL_H

#include "fengine_math.h"
#include <gnuradio/gpudsp/kernels/pfb_fengine.h>

namespace gr {
namespace gpudsp {
namespace kernels {

/*! How the config's channels map to signed frequencies (fmath::signed_channel). */
inline fmath::channel_axis channel_axis_of(const fengine_config& c)
{
    if (!c.complex_input())
        return fmath::channel_axis::real;
    return c.centred_channels ? fmath::channel_axis::complex_centred
                              : fmath::channel_axis::complex_natural;
}

/*! The FIR taps a backend runs: the window, with the odd taps negated for
 *  centred channels ((-1)^j on the FIR output shifts the FFT by N/2, and
 *  j = i mod N has i's parity for an even N). */
inline std::vector<float> fir_taps(const fengine_config& c,
                                   const std::vector<float>& window)
{
    std::vector<float> taps = window;
    if (c.centred_channels)
        for (std::size_t i = 1; i < taps.size(); i += 2)
            taps[i] = -taps[i];
    return taps;
}

struct fengine_plan::impl {
    virtual ~impl() = default;
    /*! What runs on the device ("" for the host backends). */
    virtual std::string kernel_form() const { return ""; }
    virtual std::string launch_shape(std::size_t n) const
    {
        (void)n;
        return "";
    }
    /*! The corrections as one rotation per (channel, input), [channel][input]:
     *  gain * exp(1j (delay phase + phi)), computed once by the plan. */
    virtual void set_rotations(const std::vector<std::complex<float>>& rot) = 0;
    /*! Per-spectrum drift: [input] (delay rate, phase rate) pairs (empty: none),
     *  relative to spectrum \p reference (fmath::drift_halfturns). */
    virtual void set_drift(const std::vector<float>& rates, uint64_t reference) = 0;
    virtual void execute(const std::vector<fengine_input_view>& inputs,
                         void* out,
                         uint32_t* saturation,
                         std::size_t n_spectra,
                         uint64_t first_spectrum,
                         runtime::stream_handle stream) = 0;

    /*! fengine_plan::time_stages and stage_times (CUDA only). */
    virtual void time_stages(bool on) { (void)on; }
    virtual std::vector<runtime::stage_time> stage_times() { return {}; }

    /*! The configurations the tuner may time (ids, the first is the
     *  heuristic's); fewer than two: nothing to tune. */
    virtual std::vector<std::string> configurations() const { return {}; }
    /*! The configuration an environment variable forces (GPUDSP_FENGINE_FUSED=0). */
    virtual std::string forced_configuration() const { return ""; }
    /*! Runs configuration \p id from now on (one of configurations()). */
    virtual void use(const std::string& id) { (void)id; }
    /*! Spectra per timed call: one chunk of the backend's scratch. */
    virtual std::size_t tuning_spectra() const { return 0; }
};

std::unique_ptr<fengine_plan::impl> make_fengine_cpu(const fengine_config& config,
                                                     const std::vector<float>& weights);
#ifdef GPUDSP_HAVE_CUDA
std::unique_ptr<fengine_plan::impl> make_fengine_cuda(const fengine_config& config,
                                                      const std::vector<float>& weights,
                                                      runtime::device_context::sptr ctx,
                                                      const std::string& who);
#endif

} // namespace kernels
} // namespace gpudsp
} // namespace gr

#endif
