/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUDSP_RUNTIME_TUNING_H
#define INCLUDED_GPUDSP_RUNTIME_TUNING_H

#include <gnuradio/gpudsp/api.h>
#include <string>
#include <vector>

namespace gr {
namespace gpudsp {
namespace runtime {

/*!
 * \brief What the plan-time tuner may do ($GPUDSP_AUTOTUNE, docs/gpu.md
 * "Tuning"):
 * - `off`: the plan's built-in choice (the heuristic), nothing read or timed;
 * - `cache`: a tuned choice from the cache or a shipped table, else the
 *   heuristic; nothing timed;
 * - `auto` (the default): as `cache`, and on a miss the candidates are timed
 *   when the plan is built and the winner is cached;
 * - `force`: always timed, the cache rewritten.
 */
enum class tune_mode { off, cache, automatic, force };

/*! \brief The mode $GPUDSP_AUTOTUNE asks for ("off", "cache", "auto" or
 *  "force"; unset or empty: auto). Throws std::invalid_argument, naming the
 *  variable and the values it takes, for anything else. */
GPUDSP_API tune_mode autotune_mode();
GPUDSP_API const char* to_string(tune_mode mode);

/*! \brief Where a plan's configuration came from. */
enum class tune_source {
    heuristic, //!< the plan's built-in choice (tuning off, nothing to choose, or a miss)
    tuned,     //!< timed on this GPU when the plan was built
    cache,     //!< the user's cache ($XDG_CACHE_HOME/gr-gpudsp)
    shipped,   //!< a table measured on the project's GPUs (share/gr-gpudsp/tuning)
    forced     //!< an environment variable that forces a form (GPUDSP_XENGINE_TENSOR...)
};
GPUDSP_API const char* to_string(tune_source source);

/*! \brief One candidate's timing, per unit of work (a spectrum, a sample...
 *  as the kernel states), or why it was not timed. */
struct GPUDSP_API candidate_timing {
    std::string id;
    /*! "timed"; "unavailable: why" (cannot run here); "failed: why" (threw,
     *  e.g. too many resources); "rejected: why" (its output differed from
     *  the heuristic candidate's). */
    std::string status;
    double median_s = 0, min_s = 0, q1_s = 0, q3_s = 0; //!< seconds per unit of work
    int samples = 0;
};

/*! \brief The configuration a plan runs and why. */
struct GPUDSP_API tune_result {
    std::string kernel; //!< e.g. "xengine"
    std::string shape;  //!< the problem as the kernel keys it, e.g. "S=64 P=2 C=4096 ci8"
    std::string chosen; //!< the candidate that runs, e.g. "wgmma"
    std::string heuristic; //!< what the plan would run untuned
    tune_source source = tune_source::heuristic;
    std::string unit; //!< the unit of work the timings are per
    /*! Every candidate's timing: from this run (tuned), or as recorded
     *  (cache, shipped); empty otherwise. */
    std::vector<candidate_timing> candidates;
    double seconds_spent = 0; //!< time spent tuning now
    /*! The cache key (JSON: GPU, compute capability, SMs, L2, kernel,
     *  version, shape, candidates) when the tuner looked it up; gpudsp_tune
     *  writes it into the tables it makes. */
    std::string key;
    bool saved = false; //!< timed now and written to the cache
    /*! What a user should know: a rejected candidate, a noisy result that
     *  was not saved, an unwritable cache, a stale entry... */
    std::vector<std::string> notes;

    /*! \brief One line: "xengine [S=64 ...]: wgmma (tuned now in 0.41 s;
     *  heuristic mma.sync 1.32x slower)". */
    std::string describe() const;
};

} // namespace runtime
} // namespace gpudsp
} // namespace gr

#endif /* INCLUDED_GPUDSP_RUNTIME_TUNING_H */
