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
#include <complex>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

namespace gr {
namespace gpudsp {

/*! The corrections in force for one spectrum. */
struct fengine_state {
    std::vector<std::complex<float>> gains; // [channel][input]
    std::vector<double> fine_delays;        // [input]
    std::vector<double> phases;             // [input]
    std::vector<int> coarse_delays;         // [input]
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
