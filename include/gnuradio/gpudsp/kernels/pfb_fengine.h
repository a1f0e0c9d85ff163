/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUDSP_KERNELS_PFB_FENGINE_H
#define INCLUDED_GPUDSP_KERNELS_PFB_FENGINE_H

#include <gnuradio/gpudsp/api.h>
#include <gnuradio/gpudsp/runtime/backend.h>
#include <gnuradio/gpudsp/runtime/device_context.h>
#include <gnuradio/gpudsp/runtime/tuning.h>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace gr {
namespace gpudsp {
namespace kernels {

/*! \brief Sample formats the F-engine reads: packed 10-bit, int16 and
 *  float32 real samples, or complex float32. */
enum class fengine_input { packed10, int16, float32, complex64 };
/*! \brief What it writes: complex float32, or complex int8 (re, im pairs
 *  clamped to [-127, 127]). */
enum class fengine_output { cf32, ci8 };

GPUDSP_API fengine_input parse_fengine_input(const std::string& name,
                                             const std::string& who);
GPUDSP_API fengine_output parse_fengine_output(const std::string& name,
                                               const std::string& who);

/*!
 * \brief The PFB window, computed in float64.
 *
 * L = step * n_taps with step = 2 n_channels (real input) or n_channels
 * (complex input): w[i] = sin^2(pi i / (L-1)) * sinc(w_cutoff ((i + 0.5)/step
 * - n_taps/2)), sinc(x) = sin(pi x)/(pi x), scaled so that sum(w^2) = 1.
 */
GPUDSP_API std::vector<double>
pfb_weights(int n_channels, int n_taps, double w_cutoff, bool complex_input);

/*! \brief What an F-engine computes (validated by fengine_plan). */
struct GPUDSP_API fengine_config {
    int n_inputs = 1;
    int n_channels = 1024;
    int n_taps = 16;
    fengine_input input = fengine_input::packed10;
    fengine_output output = fengine_output::cf32;
    double w_cutoff = 1.0;
    std::vector<double> weights; //!< length step*n_taps; empty: pfb_weights()
    bool dither = false;         //!< uniform +-0.5 LSB before rounding (ci8)
    uint64_t dither_seed = 0x5eed;
    /*! Complex input only: channels centred (katgpucbf's order, an
     *  fftshift: channel k holds frequency k - N/2, DC at N/2) instead of
     *  natural (DC first, k >= N/2 the negative frequencies). Needs an even
     *  n_channels. */
    bool centred_channels = false;

    bool complex_input() const { return input == fengine_input::complex64; }
    /*! \brief Input samples per spectrum: 2N (real) or N (complex). */
    int step() const { return complex_input() ? n_channels : 2 * n_channels; }
    /*! \brief Input samples one spectrum reads: step * n_taps. */
    std::size_t window() const { return std::size_t(step()) * n_taps; }
    /*! \brief Input samples that give \p n_spectra spectra. */
    std::size_t samples_for(std::size_t n_spectra) const
    {
        return n_spectra ? (n_spectra - 1) * std::size_t(step()) + window() : 0;
    }
    /*! \brief Bytes of one output spectrum ([channel][input] values). */
    std::size_t output_item_size() const
    {
        return std::size_t(n_channels) * n_inputs *
               (output == fengine_output::cf32 ? 8 : 2);
    }
};

/*!
 * \brief Per-input corrections applied after the FFT, per channel k:
 * X[k] * g[k][input] * exp(1j (-pi tau k / N + phi)) for real input
 * (-2 pi tau k' / N for complex input, k' the channel's signed frequency
 * index: k or k - N in natural order, k - N/2 centred).
 * A fine delay tau (samples, |tau| <= 0.5) delays that input's signal by tau.
 * Coarse delays are whole-sample offsets of each input's read position,
 * chosen by the caller (see fengine_plan::execute).
 */
struct GPUDSP_API fengine_corrections {
    std::vector<std::complex<float>> gains; //!< [channel][input]; empty: all 1
    std::vector<double> fine_delays;        //!< [input] samples; empty: 0
    std::vector<double> phases;             //!< [input] radians; empty: 0
    /*! [input] samples per spectrum; empty: 0. With rates, spectrum m (absolute)
     *  uses fine delay fine_delays + delay_rates (m - reference_spectrum) and
     *  phase phases + phase_rates (m - reference_spectrum): delay tracking
     *  applied per spectrum. The caller keeps |m - reference_spectrum| below
     *  2^16 + one call (the GPU evaluates the drift in float) and the fine
     *  delay within [-0.5, 0.5] (a new coarse delay and reference otherwise). */
    std::vector<double> delay_rates;
    std::vector<double> phase_rates;      //!< [input] radians per spectrum; empty: 0
    uint64_t reference_spectrum = 0;      //!< where fine_delays and phases hold
};

/*! \brief Where each input's samples are: a pointer and the index, in
 *  samples from it, of the first sample of the first spectrum (>= 0; for
 *  packed10 this is how a window may start inside a 5-byte group). */
struct fengine_input_view {
    const void* data = nullptr;
    int64_t first_sample = 0;
};

/*!
 * \brief The F-engine on one backend: FIR (decode fused), FFT, corrections,
 * quantisation, output in [spectrum][channel][input] order.
 *
 * execute() works on pointers of the plan's memory space (host memory for
 * the CPU backend, device memory for CUDA and the emulated device) and is
 * enqueued on \p stream without waiting. Saturation counts (ci8: complex
 * values with either part beyond +-127 before rounding), [spectrum][input]
 * uint32, go to \p saturation in the same memory space (may be null).
 * \p first_spectrum is the absolute index of the first output spectrum: it
 * seeds the dither, so a stream split across calls is dithered exactly as
 * in one call, on every backend.
 */
class GPUDSP_API fengine_plan
{
public:
    fengine_plan(const fengine_config& config,
                 runtime::backend_choice where,
                 const std::string& who);
    ~fengine_plan();
    fengine_plan(const fengine_plan&) = delete;
    fengine_plan& operator=(const fengine_plan&) = delete;

    /*! \brief Throws std::invalid_argument, naming the parameter and its
     *  range, for a configuration no backend can run. */
    static void validate(const fengine_config& config, const std::string& who);

    const fengine_config& config() const { return d_config; }
    const runtime::backend_choice& where() const { return d_where; }
    const std::vector<float>& weights() const { return d_weights; }

    /*! \brief Replaces the corrections (validated) for later executes. */
    void set_corrections(const fengine_corrections& c);
    const fengine_corrections& corrections() const { return d_corrections; }

    void execute(const std::vector<fengine_input_view>& inputs,
                 void* out,
                 uint32_t* saturation,
                 std::size_t n_spectra,
                 uint64_t first_spectrum,
                 runtime::stream_handle stream);

    /*! \brief Host arrays in and out, staged through the device if any;
     *  waits for the result. */
    void execute_host(const std::vector<fengine_input_view>& inputs,
                      std::size_t input_bytes_each,
                      void* out,
                      uint32_t* saturation,
                      std::size_t n_spectra,
                      uint64_t first_spectrum);

    /*! \brief How the CUDA backend runs the FFT and post-processing: fused
     *  (cuFFT LTO store callback) or as a kernel of its own, and why; ""
     *  on the host backends. GPUDSP_FENGINE_FUSED=0 keeps them apart. */
    std::string kernel_form() const;
    /*! \brief How a call of \p n_spectra launches the FIR kernel (the one
     *  reading the input) on this device: chunks, blocks and waves a launch;
     *  empty on the CPU. Benchmarks print it beside their rows. */
    std::string launch_shape(std::size_t n_spectra) const;

    /*! \brief A diagnostic: from now on (\p on) the CUDA backend records a
     *  timing event between its kernel stages in each execute(), which costs
     *  the stream a few microseconds a chunk and changes no output. Ignored
     *  on the host backends. */
    void time_stages(bool on);
    /*! \brief The stages of the last execute() timed so, in the order they
     *  ran, each summed over the call's chunks; waits for that call's work
     *  to finish. Empty on the host backends and before a timed call. */
    std::vector<runtime::stage_time> stage_times() const;

    /*! \brief Spectra per execute() call that keep a device busy long
     *  enough to hide the host's cost of a call (scheduler, launches, one
     *  synchronisation): 2^27 samples over all inputs, at most 2^24 per
     *  input and 4096 spectra; 1 on the CPU. A block asks for this many at
     *  a time while its stream goes on. */
    std::size_t preferred_spectra() const;

    /*! \brief Bytes of input holding samples [0, n) of one input. */
    std::size_t input_bytes(std::size_t n_samples) const;

    /*! \brief The configuration that runs (CUDA: fused or not, the FIR's
     *  sections) and where it came from: tuned when the plan was built,
     *  cached, shipped, forced (GPUDSP_FENGINE_FUSED=0) or the heuristic
     *  (docs/gpu.md, "Tuning"). */
    const runtime::tune_result& tuning() const { return d_tuning; }

    struct impl;

private:
    void tune();
    std::vector<std::complex<float>> rotations(const fengine_corrections& c) const;
    std::vector<float> drift(const fengine_corrections& c) const;

    fengine_config d_config;
    runtime::backend_choice d_where;
    std::string d_who;
    std::vector<float> d_weights;
    fengine_corrections d_corrections;
    std::unique_ptr<impl> d_impl;
    runtime::tune_result d_tuning;
};

} // namespace kernels
} // namespace gpudsp
} // namespace gr

#endif /* INCLUDED_GPUDSP_KERNELS_PFB_FENGINE_H */
