/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Internal: how wipeoff_correlator schedules each satellite's integrations.
// The replica state is kept in the kernels' fixed point (carrier phase in
// cycles * 2^64, code phase in chips * 2^F, F = gnss_code_frac_bits) so
// that consecutive
// integrations continue each other exactly, and every integration starts at
// a code epoch: the first sample whose code phase lies in [0, step).

#ifndef INCLUDED_GPUDSP_GNSS_SCHEDULE_H
#define INCLUDED_GPUDSP_GNSS_SCHEDULE_H

#include "kernels/common/interval_union.h"
#include <gnuradio/gpudsp/kernels/ddc.h> // mixer_phase::cycles_to_fixed
#include <gnuradio/gpudsp/kernels/gnss_correlator.h>
#include <algorithm>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

namespace gr {
namespace gpudsp {

/*! One scheduled integration of one satellite. */
struct gnss_integration {
    kernels::gnss_system system;
    int prn;
    uint64_t start; // absolute sample
    int64_t length; // samples
    uint64_t index; // integrations of this satellite so far
    double carrier_freq;
    double code_freq;
    uint64_t carrier_phase; // cycles * 2^64 at start
    uint64_t code_phase;    // chips * 2^F at start
    int secondary_chip;     // of the first primary period; -1: primary code only
    int64_t epoch;          // primary epochs since the satellite was added

    double carrier_cycles() const { return double(int64_t(carrier_phase)) * 0x1p-64; }
    double code_chips() const
    {
        return std::ldexp(double(code_phase),
                          -kernels::gnss_code_frac_bits(kernels::gnss_signal(system).code_length));
    }

    kernels::gnss_job job(uint64_t first_sample_given) const
    {
        kernels::gnss_job j;
        j.system = system;
        j.prn = prn;
        j.carrier_freq = carrier_freq;
        j.carrier_phase = carrier_cycles();
        j.code_freq = code_freq;
        j.code_phase = code_chips();            // for the record (53 bits)
        j.code_phase_fixed = int64_t(code_phase); // what the kernels use: exact
        j.start = int64_t(start - first_sample_given);
        j.length = length;
        j.secondary_chip = secondary_chip;
        return j;
    }
};

class gnss_tracker
{
public:
    gnss_tracker(kernels::gnss_system system,
                 int prn,
                 double samp_rate,
                 int periods,
                 double carrier_freq,
                 double code_freq,
                 double carrier_phase,
                 double code_phase,
                 uint64_t at_sample)
        : d_system(system),
          d_prn(prn),
          d_samp_rate(samp_rate),
          d_frac(kernels::gnss_code_frac_bits(kernels::gnss_signal(system).code_length)),
          d_modulus(uint64_t(kernels::gnss_signal(system).code_length) << d_frac),
          d_periods(uint64_t(periods)),
          d_next(at_sample)
    {
        set_freqs(carrier_freq, code_freq);
        d_carrier = kernels::mixer_phase::cycles_to_fixed(carrier_phase);
        d_code = kernels::gnss_code_phase_fixed(code_phase,
                                                kernels::gnss_signal(system).code_length);
        align();
    }

    kernels::gnss_system system() const { return d_system; }
    int prn() const { return d_prn; }
    uint64_t next_start() const { return d_next; }
    double carrier_freq() const { return d_carrier_freq; }
    double code_freq() const { return d_code_freq; }
    /*! Code phase (chips) at next_start(). */
    double code_chips() const { return std::ldexp(double(d_code), -d_frac); }

    /*! The secondary code: primary period number \p epoch (counted as
     *  gnss_integration::epoch, which is -1 after a negative code
     *  correction back across a satellite's start; none: the period the
     *  next integration starts with) carries secondary chip \p chip (taken
     *  modulo the code's length), and every other period follows from it;
     *  \p chip -1 correlates with the primary code alone. Periods are
     *  counted across everything that moves the replica (integrations,
     *  skipped samples, code corrections), so a loop may name the period of
     *  an integration it has already seen. */
    void set_secondary_chip(int chip, std::optional<int64_t> epoch = std::nullopt)
    {
        check_secondary_chip(d_system, chip, epoch);
        const int n = kernels::gnss_signal(d_system).secondary_length;
        if (chip < 0) {
            d_secondary_offset = -1;
            return;
        }
        const int64_t at = epoch ? *epoch : d_epoch;
        d_secondary_offset = int(((chip - at) % n + n) % n);
    }
    /*! What set_secondary_chip accepts: chip -1, or a chip >= 0 for a
     *  system with a secondary code, and an epoch >= -1 (the earliest
     *  period a replica can reach); throws std::invalid_argument otherwise. */
    static void check_secondary_chip(kernels::gnss_system system,
                                     int64_t chip,
                                     std::optional<int64_t> epoch = std::nullopt)
    {
        const auto& s = kernels::gnss_signal(system);
        if (epoch && *epoch < -1)
            throw std::invalid_argument("epoch must be >= -1");
        if (chip < -1)
            throw std::invalid_argument(std::string(s.name) +
                                        ": secondary_chip must be >= -1");
        if (chip >= 0 && s.secondary_length == 0)
            throw std::invalid_argument(std::string(s.name) + " has no secondary code");
    }

    /*! The secondary chip of the period holding next_start(), or -1. */
    int secondary_chip() const
    {
        if (d_secondary_offset < 0)
            return -1;
        const int64_t n = kernels::gnss_signal(d_system).secondary_length;
        return int(((d_secondary_offset + d_epoch) % n + n) % n);
    }

    /*! Samples of the next integration: those whose code phase, counted
     *  from its start, stays below periods * L chips (128-bit: periods
     *  L 2^F exceeds 64 bits). */
    int64_t next_length() const
    {
        const unsigned __int128 span = (unsigned __int128)d_periods * d_modulus - d_code;
        return int64_t((span + d_code_step - 1) / d_code_step);
    }

    void set_freqs(double carrier_freq, double code_freq)
    {
        if (!std::isfinite(carrier_freq) || !(code_freq > 0) || code_freq > d_samp_rate)
            throw std::invalid_argument("carrier_freq must be finite and code_freq in "
                                        "(0, samp_rate]");
        d_carrier_freq = carrier_freq;
        d_code_freq = code_freq;
        d_carrier_step =
            kernels::mixer_phase::cycles_to_fixed(carrier_freq / d_samp_rate);
        d_code_step = kernels::gnss_code_step(code_freq, d_samp_rate, d_frac);
    }

    void correct(double carrier_cycles, double code_chips)
    {
        d_carrier += kernels::mixer_phase::cycles_to_fixed(carrier_cycles);
        // Shift within [0, L 2^F) and realign to the epoch that follows.
        // |shift| < L 2^F <= 2^63 (equal only for a power-of-two L, where
        // a shift of a whole period is no shift).
        const double scaled =
            std::ldexp(std::fmod(code_chips, double(d_modulus >> d_frac)), d_frac);
        const int64_t shift = std::fabs(scaled) >= 0x1p63 ? 0 : std::llround(scaled);
        const __int128 moved = (__int128)d_code + shift; // in (-L 2^F, 2 L 2^F)
        d_epoch += moved < 0 ? -1 : moved >= __int128(d_modulus) ? 1 : 0;
        d_code = uint64_t((moved + d_modulus) % d_modulus);
        align();
    }

    /*! The samples before \p sample are gone: continue the replica to there
     *  and start at the next epoch. */
    void skip_to(uint64_t sample)
    {
        if (sample <= d_next)
            return;
        const uint64_t k = sample - d_next;
        d_carrier += d_carrier_step * k;
        const unsigned __int128 reach = d_code + (unsigned __int128)k * d_code_step;
        d_epoch += int64_t(reach / d_modulus);
        d_code = uint64_t(reach % d_modulus);
        d_next = sample;
        align();
    }

    /*! Sample numbers from \p n on renumbered from 0 (a stream that
     *  starts over at old sample n): the replica continued to there first. */
    void renumber_from(uint64_t n)
    {
        skip_to(n);
        d_next -= n;
    }

    gnss_integration take()
    {
        gnss_integration g{ d_system,      d_prn,     d_next,
                            next_length(), d_count++, d_carrier_freq,
                            d_code_freq,   d_carrier, d_code,
                            secondary_chip(), d_epoch };
        d_epoch += int64_t(d_periods);
        d_next += uint64_t(g.length);
        d_carrier += d_carrier_step * uint64_t(g.length);
        // In 64-bit modular arithmetic: the true result lies in [0, step).
        d_code = d_code + uint64_t(g.length) * d_code_step - d_periods * d_modulus;
        return g;
    }

private:
    // To the first sample (from d_next) whose code phase lies in [0, step).
    void align()
    {
        if (d_code < d_code_step)
            return;
        const uint64_t k = (d_modulus - d_code + d_code_step - 1) / d_code_step;
        ++d_epoch; // into the next primary period
        d_next += k;
        d_carrier += d_carrier_step * k;
        d_code = d_code + k * d_code_step - d_modulus;
    }

    kernels::gnss_system d_system;
    int d_prn;
    double d_samp_rate;
    int d_frac;
    uint64_t d_modulus;
    uint64_t d_periods;
    uint64_t d_next;
    double d_carrier_freq = 0, d_code_freq = 0;
    uint64_t d_carrier_step = 0, d_code_step = 1;
    uint64_t d_carrier = 0; // at d_next
    uint64_t d_code = 0;    // at d_next, in [0, L 2^F)
    uint64_t d_count = 0;
    // Primary epochs the replica has crossed since the start (back across
    // one: -1): the number of the period holding d_next.
    int64_t d_epoch = 0;
    int d_secondary_offset = -1; // secondary chip of period 0; -1: none
};

/*! Sample runs announced lost (gpudsp.missing tags), as [begin, end). */
class gnss_missing_runs
{
public:
    void add(uint64_t begin, uint64_t end) { d_runs.emplace_back(begin, end); }
    uint64_t overlap(uint64_t begin, uint64_t end) const
    {
        // Runs may overlap each other (several antennas): count each sample once.
        std::vector<std::pair<uint64_t, uint64_t>> cut;
        for (const auto& r : d_runs)
            if (r.second > begin && r.first < end)
                cut.emplace_back(std::max(r.first, begin), std::min(r.second, end));
        return kernels::interval_union_length(std::move(cut));
    }
    void forget_before(uint64_t sample)
    {
        d_runs.erase(std::remove_if(d_runs.begin(),
                                    d_runs.end(),
                                    [&](const auto& r) { return r.second <= sample; }),
                     d_runs.end());
    }

private:
    std::vector<std::pair<uint64_t, uint64_t>> d_runs;
};

} // namespace gpudsp
} // namespace gr

#endif
