/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUDSP_PFB_FENGINE_H
#define INCLUDED_GPUDSP_PFB_FENGINE_H

#include <gnuradio/gpudsp/api.h>
#include <gnuradio/sync_decimator.h>
#include <complex>
#include <string>
#include <vector>

namespace gr {
namespace gpudsp {

/*!
 * \brief The F of an FX correlator: polyphase filter bank (FIR + FFT) with
 * per-input gains, fine and coarse delays and phases, and int8 quantisation.
 * \ingroup gpudsp
 *
 * \details
 * n_inputs input ports (antenna-polarisations), each packed 10-bit bytes,
 * short, float (real samples) or complex float. One output port: one item
 * per spectrum, n_channels x n_inputs complex values in [channel][input]
 * order, complex float ("cf32") or complex int8 pairs ("ci8", clamped to
 * [-127, 127]).
 *
 * Output item m is the spectrum of input samples [(m - T + 1) step,
 * (m + 1) step), step = 2 n_channels (real input) or n_channels (complex):
 * the first T - 1 spectra (and those a coarse delay takes back before the
 * stream) see the zeros before the stream starts and are flagged
 * gpudsp.missing. The full
 * definition, the delay and phase conventions, the tags (gpudsp.missing,
 * gpudsp.saturated, rx_time, rx_rate) and the message formats are in
 * docs/fengine.md.
 *
 * Corrections (gains, fine delays, phases, coarse delays, or a delay model
 * with rates that is evaluated per spectrum) change through the setters or
 * the message port "delays", from a given absolute input sample: they apply
 * to every spectrum whose first sample is at or after it (-1: from the next
 * spectrum produced).
 */
class GPUDSP_API pfb_fengine : virtual public gr::sync_decimator
{
public:
    typedef std::shared_ptr<pfb_fengine> sptr;

    /*!
     * \param n_inputs input ports (antenna x polarisation)
     * \param n_channels channels per spectrum (N)
     * \param n_taps taps per channel (T)
     * \param input_format "packed10", "short", "float" or "complex"
     * \param output_format "ci8" or "cf32"
     * \param w_cutoff sinc width of the default window (1.0: -6 dB at one channel)
     * \param weights replace the default window (length step x T)
     * \param dither uniform +-0.5 LSB dither before rounding (ci8)
     * \param backend "auto", "cuda" or "cpu"
     * \param device CUDA device index
     * \param max_coarse_delay the largest coarse delay, in samples, the
     *        block will accept (sets its history)
     * \param delay_convention how delays, delay models and phases are read:
     *        "gpudsp" (model at each spectrum's window centre, phase at DC)
     *        or "katgpucbf" (MeerKAT's CBF: model at the spectrum's first
     *        sample, coarse delays rounded half to even, fine delay and
     *        phase referred to the band centre); docs/fengine.md
     * \param channel_order complex input: "natural" (DC first) or "centred"
     *        (katgpucbf's order: DC at n_channels/2); real input: "natural"
     */
    static sptr make(int n_inputs,
                     int n_channels,
                     int n_taps = 16,
                     const std::string& input_format = "packed10",
                     const std::string& output_format = "ci8",
                     double w_cutoff = 1.0,
                     const std::vector<double>& weights = {},
                     bool dither = false,
                     const std::string& backend = "auto",
                     int device = 0,
                     int max_coarse_delay = 65536,
                     const std::string& delay_convention = "gpudsp",
                     const std::string& channel_order = "natural");

    virtual std::string backend() const = 0;
    /*! \brief The configuration the block's plan runs and where it came
     *  from: tuned when made, cached, shipped, forced or the heuristic
     *  (docs/gpu.md, "Tuning"); the block logs it when made. */
    virtual std::string configuration() const = 0;
    virtual std::vector<double> weights() const = 0;
    /*! \brief "gpudsp" or "katgpucbf" (docs/fengine.md, "Delay conventions"). */
    virtual std::string delay_convention() const = 0;
    /*! \brief "natural" or "centred". */
    virtual std::string channel_order() const = 0;

    /*! \brief Complex gains [channel][input] (n_channels x n_inputs values). */
    virtual void set_gains(const std::vector<std::complex<float>>& gains,
                           int64_t at_sample = -1) = 0;
    /*! \brief Fine delays in samples, |tau| <= 0.5, one per input. The
     *  fine delays, phases and coarse delays mean what the block's
     *  delay_convention says (katgpucbf: the rotation -pi tau (k - N/2) / N
     *  + phi + pi/2 (D mod 4) for real input). */
    virtual void set_fine_delays(const std::vector<double>& delays,
                                 int64_t at_sample = -1) = 0;
    /*! \brief Phases in radians, one per input. */
    virtual void set_phases(const std::vector<double>& phases,
                            int64_t at_sample = -1) = 0;
    /*! \brief Coarse delays in whole samples, 0..max_coarse_delay, one per input. */
    virtual void set_coarse_delays(const std::vector<int>& delays,
                                   int64_t at_sample = -1) = 0;

    /*!
     * \brief Delay tracking, as a correlator's delay model drives it: per
     * input, the total delay delay + delay_rate (n - at_sample) samples
     * (>= 0; delay_rate in samples per sample) and the phase phase +
     * phase_rate (n - at_sample) radians (phase_rate per sample) at input
     * sample n, evaluated for every spectrum at the centre of its window and
     * applied as coarse delay (floor(tau + 0.5)), fine delay (the rest) and
     * phase; with delay_convention "katgpucbf", at the spectrum's first
     * sample, coarse delay rint(tau), and the fine delay and phase referred
     * to the band centre (docs/fengine.md). From the spectra that set_*
     * with the same at_sample would reach
     * (at_sample >= 0 is required: it is also where the model holds). Empty
     * rates or phases mean 0. It replaces the fine and coarse delays and the
     * phases until they are set again.
     */
    virtual void set_delay_model(const std::vector<double>& delays,
                                 const std::vector<double>& delay_rates,
                                 const std::vector<double>& phases,
                                 const std::vector<double>& phase_rates,
                                 int64_t at_sample) = 0;

    virtual std::vector<std::complex<float>> gains() const = 0;
    virtual std::vector<double> fine_delays() const = 0;
    virtual std::vector<double> phases() const = 0;
    virtual std::vector<int> coarse_delays() const = 0;
};

} // namespace gpudsp
} // namespace gr

#endif /* INCLUDED_GPUDSP_PFB_FENGINE_H */
