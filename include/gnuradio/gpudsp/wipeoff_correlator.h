/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUDSP_WIPEOFF_CORRELATOR_H
#define INCLUDED_GPUDSP_WIPEOFF_CORRELATOR_H

#include <gnuradio/block.h>
#include <gnuradio/gpudsp/api.h>
#include <cmath>
#include <string>
#include <vector>

namespace gr {
namespace gpudsp {

/*!
 * \brief GNSS carrier wipe-off and code correlation for many satellites on
 * n_antennas inputs, at every tap offset, one launch for all satellites.
 * \ingroup gpudsp
 * \details
 * For satellite k, antenna m and tap l (chips, > 0 early):
 *   R[k][m][l] = sum_i x_m[n0 + i] exp(-2j pi (phi + f i / fs))
 *                c(tau + tap_l + fc i / fs)
 * over whole code periods (1 ms L1 C/A, L5 and E5a, 4 ms E1-B, times
 * integration_periods) aligned to the satellite's own code epochs; phases
 * advance exactly (64-bit fixed point) from one integration to the next.
 * Each integration is sent as a PMT dict on message port "corr" and, when
 * output 0 is connected, as a fixed-size record (layout in docs/gnss.md).
 * Satellites are added, updated and removed with the methods or the
 * message port "control". See docs/gnss.md.
 */
class GPUDSP_API wipeoff_correlator : virtual public gr::block
{
public:
    typedef std::shared_ptr<wipeoff_correlator> sptr;

    static sptr make(double samp_rate,
                     int n_antennas,
                     const std::vector<double>& taps_chips = { 0.5, 0.0, -0.5 },
                     const std::string& input_format = "complex",
                     int integration_periods = 1,
                     const std::string& backend = "auto",
                     int device = 0);

    virtual std::string backend() const = 0;
    /*! \brief The configuration the block's plan runs and where it came
     *  from: tuned when made, cached, shipped, forced or the heuristic
     *  (docs/gpu.md, "Tuning"); the block logs it when made. */
    virtual std::string configuration() const = 0;

    /*! \brief Bytes of one output record: 64 + 8 n_antennas n_taps. */
    virtual int record_size() const = 0;

    /*!
     * \brief Starts correlating (or restarts) satellite (\p system, \p prn)
     * whose carrier phase (cycles) and code phase (chips) are \p
     * carrier_phase and \p code_phase at absolute sample \p at_sample (-1:
     * the first sample not yet read). Integrations begin at its next code
     * epoch.
     */
    virtual void add_satellite(const std::string& system,
                               int prn,
                               double carrier_freq,
                               double code_freq,
                               double carrier_phase = 0,
                               double code_phase = 0,
                               int64_t at_sample = -1) = 0;

    /*!
     * \brief From the satellite's next integration on: new frequencies
     * (NaN keeps one) and phase corrections added to its replica (cycles,
     * chips; a code correction moves the integration to the code epoch it
     * lands in).
     */
    virtual void update_satellite(const std::string& system,
                                  int prn,
                                  double carrier_freq = NAN,
                                  double code_freq = NAN,
                                  double carrier_phase_correction = 0,
                                  double code_phase_correction = 0) = 0;

    /*!
     * \brief Secondary code wipe-off for a satellite of a signal that has
     * one (GPS L5, Galileo E5a): primary period \p epoch carries secondary
     * chip \p chip (taken modulo the code's length). Periods are numbered
     * from the satellite's first (the "epoch" of each "corr" message is
     * its integration's first period; -1 here: the period the next
     * integration starts with; a control message without "epoch" means
     * the same, and one with "epoch" -1 names period -1, which a negative
     * code correction back across the satellite's start reaches), so a
     * tracking loop may name the period of an
     * integration it has seen, whatever the latency. From the next
     * integration on each primary period is multiplied by its secondary
     * chip's sign, so an integration of several periods adds up
     * coherently (a pilot over 20 or 100 ms). \p chip -1 (every
     * satellite's default) correlates with the primary code alone. Also
     * the "secondary_chip" (and "epoch") keys of a control message.
     */
    virtual void set_secondary_chip(const std::string& system,
                                    int prn,
                                    int chip,
                                    int64_t epoch = -1) = 0;

    virtual void remove_satellite(const std::string& system, int prn) = 0;

    /*! \brief The satellites correlated now, as "system:prn". */
    virtual std::vector<std::string> satellites() const = 0;

    /*! \brief CPU backend: spread each call's satellites over \p n threads
     *  (1..256, default 1; the results do not depend on it), from the next
     *  call. Throws std::invalid_argument outside 1..256. */
    virtual void set_cpu_threads(int n) = 0;
};

} // namespace gpudsp
} // namespace gr

#endif /* INCLUDED_GPUDSP_WIPEOFF_CORRELATOR_H */
