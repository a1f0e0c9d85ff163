/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Internal to the F-engine block: corrections that take effect at a given
// output spectrum, and the runs of output spectra that missing input
// touches. Plain bookkeeping, kept apart from the block's work().

#ifndef INCLUDED_GPUDSP_FENGINE_SCHEDULE_H
#define INCLUDED_GPUDSP_FENGINE_SCHEDULE_H

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

namespace gr {
namespace gpudsp {

/*!
 * How a delay model's numbers are read (docs/fengine.md, "Delay
 * conventions"). gpudsp: evaluated at each spectrum's window centre, coarse
 * delay floor(tau + 0.5), rotation -pi tau k / N + phi (phi at DC).
 * katgpucbf (MeerKAT's CBF): evaluated at the spectrum's timestamp (its
 * window's first sample), coarse delay rint(tau) (ties to even), and for
 * real input the fine delay and phase referred to the band centre:
 * -pi tau (k - N/2) / N + phi + pi/2 (D mod 4); complex input as gpudsp.
 */
enum class fengine_delay_convention { gpudsp, katgpucbf };

/*!
 * A delay model (docs/fengine.md, "Delay tracking"): per input, the total
 * delay delay + delay_rate (n - at_sample) samples and the phase phase +
 * phase_rate (n - at_sample) radians at input sample n, evaluated for each
 * spectrum as its convention says.
 */
struct fengine_delay_model {
    std::vector<double> delay, delay_rate, phase, phase_rate; // [input]
    int64_t at_sample = 0;
    fengine_delay_convention convention = fengine_delay_convention::gpudsp;
    bool real_input = true; // katgpucbf: the centre's pi/2 per sample of delay
    bool active() const { return !delay.empty(); }
};

/*! The coarse delay a convention takes for a total delay \p tau. */
inline double fengine_coarse(double tau, fengine_delay_convention convention)
{
    // std::nearbyint rounds ties to even in the default rounding mode, as
    // numpy's rint does (katgpucbf's LinearDelayModel.range).
    return convention == fengine_delay_convention::katgpucbf ? std::nearbyint(tau)
                                                             : std::floor(tau + 0.5);
}

/*! The phase, in radians referred to DC as the plan applies it, that a
 *  convention's model phase \p phi means for fine delay \p fine and coarse
 *  delay \p coarse: katgpucbf's rotation for real input, -pi fine (k - N/2)
 *  / N + phi + pi/2 (coarse mod 4), is the plan's -pi fine k / N + phi'
 *  with phi' = phi + pi/2 (fine + coarse mod 4). */
inline double fengine_dc_phase(double phi,
                               double fine,
                               int64_t coarse,
                               fengine_delay_convention convention,
                               bool real_input)
{
    if (convention != fengine_delay_convention::katgpucbf || !real_input)
        return phi;
    const int64_t quarter_turns = ((coarse % 4) + 4) % 4;
    return phi + 0.5 * M_PI * (fine + double(quarter_turns));
}

/*! Spectra after which a model's corrections are rebased: keeps the
 *  per-spectrum drift the GPU evaluates in float small (fmath::drift_halfturns). */
constexpr uint64_t fengine_rebase_spectra = 65536;

/*! The corrections a delay model gives from spectrum \p m on, and \p end:
 *  the first spectrum at which some input's coarse delay changes (or m +
 *  fengine_rebase_spectra). coarse = fengine_coarse(tau), fine = tau -
 *  coarse in [-0.5, 0.5] at m, drifting by the rates (per spectrum) until
 *  end; phase as the plan applies it (fengine_dc_phase), with its rate. */
struct fengine_model_segment {
    std::vector<int64_t> coarse;
    std::vector<double> fine, phase, fine_rate, phase_rate;
    uint64_t end = 0;
};

/*! Twice the offset, in samples, of spectrum m's window centre
 *  ((m - T + 1) step + T step / 2) from sample \p at: exact integers. */
inline int64_t fengine_centre_offset2(uint64_t m, int64_t step, int n_taps, int64_t at)
{
    return 2 * ((int64_t(m) - n_taps + 1) * step - at) + int64_t(n_taps) * step;
}

/*! The offset, in samples from \p at, of spectrum m's first sample
 *  ((m - T + 1) step: its timestamp, where katgpucbf evaluates a model). */
inline int64_t fengine_start_offset(uint64_t m, int64_t step, int n_taps, int64_t at)
{
    return (int64_t(m) - n_taps + 1) * step - at;
}

inline fengine_model_segment
fengine_segment(const fengine_delay_model& model, uint64_t m, int64_t step, int n_taps)
{
    const std::size_t I = model.delay.size();
    const auto conv = model.convention;
    const bool kat = conv == fengine_delay_convention::katgpucbf;
    const double dn =
        kat ? double(fengine_start_offset(m, step, n_taps, model.at_sample))
            : 0.5 * double(fengine_centre_offset2(m, step, n_taps, model.at_sample));
    // katgpucbf's centre term turns the phase by pi/2 per sample of fine delay.
    const double centre_turn = kat && model.real_input ? 0.5 * M_PI : 0.0;
    fengine_model_segment seg;
    seg.end = m + fengine_rebase_spectra;
    for (std::size_t i = 0; i < I; ++i) {
        const double A = model.delay[i] + model.delay_rate[i] * dn;
        const double B = model.delay_rate[i] * double(step); // per spectrum
        const double c = fengine_coarse(A, conv);
        seg.coarse.push_back(int64_t(c));
        seg.fine.push_back(A - c);
        seg.fine_rate.push_back(B);
        // As katgpucbf: the model's phase wrapped, then the centre's terms.
        const double phi =
            std::remainder(model.phase[i] + model.phase_rate[i] * dn, 2 * M_PI);
        seg.phase.push_back(std::remainder(
            fengine_dc_phase(phi, A - c, int64_t(c), conv, model.real_input), 2 * M_PI));
        seg.phase_rate.push_back(model.phase_rate[i] * double(step) + centre_turn * B);
        if (B == 0)
            continue;
        // The first j >= 1 where the coarse delay of A + B j differs from c:
        // solved, then made exact against the same floating-point expression.
        const double edge = B > 0 ? c + 0.5 : c - 0.5;
        double j = std::max(1.0, std::ceil((edge - A) / B));
        if (j >= double(fengine_rebase_spectra))
            continue;
        auto coarse_at = [&](double jj) { return fengine_coarse(A + B * jj, conv); };
        while (j > 1 && coarse_at(j - 1) != c)
            --j;
        while (coarse_at(j) == c && j < double(fengine_rebase_spectra))
            ++j;
        seg.end = std::min(seg.end, m + uint64_t(j));
    }
    return seg;
}

/*! The corrections in force for one spectrum. */
struct fengine_state {
    std::vector<std::complex<float>> gains; // [channel][input]
    std::vector<double> fine_delays;        // [input]
    std::vector<double> phases;             // [input]
    std::vector<int> coarse_delays;         // [input]
    fengine_delay_model model;              // when active, it gives the three above
};

class fengine_schedule
{
public:
    using change = std::function<void(fengine_state&)>;

    explicit fengine_schedule(fengine_state initial) : d_latest(std::move(initial)) {}

    /*! A change applied to every spectrum from \p first_spectrum on (in the
     *  order the changes were made, for equal spectra). */
    void add(uint64_t first_spectrum, const change& c)
    {
        auto it = d_pending.begin();
        while (it != d_pending.end() && it->first <= first_spectrum)
            ++it;
        d_pending.insert(it, { first_spectrum, c });
        c(d_latest);
    }

    /*! Applies to \p s every change due at spectrum \p m; true if any. */
    bool apply_due(uint64_t m, fengine_state& s)
    {
        bool any = false;
        while (!d_pending.empty() && d_pending.front().first <= m) {
            d_pending.front().second(s);
            d_pending.erase(d_pending.begin());
            any = true;
        }
        return any;
    }

    /*! The first spectrum after \p m at which a change is due (or UINT64_MAX). */
    uint64_t next_after(uint64_t m) const
    {
        for (const auto& p : d_pending)
            if (p.first > m)
                return p.first;
        return UINT64_MAX;
    }

    /*! Every change made so far applied (what the getters report). */
    const fengine_state& latest() const { return d_latest; }

private:
    std::vector<std::pair<uint64_t, change>> d_pending; // sorted by spectrum
    fengine_state d_latest;
};

/*! Runs of output spectra [first, last] that missing input touches. */
class missing_tracker
{
public:
    void add(uint64_t first, uint64_t last) { d_runs.emplace_back(first, last); }

    /*! The merged runs within spectra [begin, end) as (first, count); runs
     *  that end before \p end are forgotten. */
    std::vector<std::pair<uint64_t, uint64_t>> take(uint64_t begin, uint64_t end)
    {
        std::sort(d_runs.begin(), d_runs.end());
        std::vector<std::pair<uint64_t, uint64_t>> merged;
        for (const auto& r : d_runs) {
            if (!merged.empty() && r.first <= merged.back().second + 1)
                merged.back().second = std::max(merged.back().second, r.second);
            else
                merged.push_back(r);
        }
        std::vector<std::pair<uint64_t, uint64_t>> out;
        d_runs.clear();
        for (const auto& r : merged) {
            const uint64_t lo = std::max(r.first, begin);
            const uint64_t hi = std::min(r.second, end - 1);
            if (lo <= hi && end > begin)
                out.emplace_back(lo, hi - lo + 1);
            if (r.second >= end)
                d_runs.emplace_back(std::max(r.first, end), r.second);
        }
        return out;
    }

private:
    std::vector<std::pair<uint64_t, uint64_t>> d_runs;
};

} // namespace gpudsp
} // namespace gr

#endif
