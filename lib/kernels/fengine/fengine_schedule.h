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
 * A delay model (docs/fengine.md, "Delay tracking"): per input, the total
 * delay delay + delay_rate (n - at_sample) samples and the phase phase +
 * phase_rate (n - at_sample) radians at input sample n, evaluated for each
 * spectrum at the centre of its window.
 */
struct fengine_delay_model {
    std::vector<double> delay, delay_rate, phase, phase_rate; // [input]
    int64_t at_sample = 0;
    bool active() const { return !delay.empty(); }
};

/*! Spectra after which a model's corrections are rebased: keeps the
 *  per-spectrum drift the GPU evaluates in float small (fmath::drift_halfturns). */
constexpr uint64_t fengine_rebase_spectra = 65536;

/*! The corrections a delay model gives from spectrum \p m on, and \p end:
 *  the first spectrum at which some input's coarse delay changes (or m +
 *  fengine_rebase_spectra). coarse = floor(tau + 0.5), fine = tau - coarse
 *  in [-0.5, 0.5) at m, drifting by the rates (per spectrum) until end. */
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

inline fengine_model_segment
fengine_segment(const fengine_delay_model& model, uint64_t m, int64_t step, int n_taps)
{
    const std::size_t I = model.delay.size();
    const double dn = 0.5 * double(fengine_centre_offset2(m, step, n_taps, model.at_sample));
    fengine_model_segment seg;
    seg.end = m + fengine_rebase_spectra;
    for (std::size_t i = 0; i < I; ++i) {
        const double A = model.delay[i] + model.delay_rate[i] * dn;
        const double B = model.delay_rate[i] * double(step); // per spectrum
        const double c = std::floor(A + 0.5);
        seg.coarse.push_back(int64_t(c));
        seg.fine.push_back(A - c);
        seg.fine_rate.push_back(B);
        seg.phase.push_back(std::remainder(model.phase[i] + model.phase_rate[i] * dn,
                                           2 * 3.141592653589793));
        seg.phase_rate.push_back(model.phase_rate[i] * double(step));
        if (B == 0)
            continue;
        // The first j >= 1 with floor(A + B j + 0.5) != c: solved, then made
        // exact against the same floating-point expression.
        const double edge = B > 0 ? c + 0.5 : c - 0.5;
        double j = std::max(1.0, std::ceil((edge - A) / B));
        if (j >= double(fengine_rebase_spectra))
            continue;
        auto coarse_at = [&](double jj) { return std::floor(A + B * jj + 0.5); };
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
