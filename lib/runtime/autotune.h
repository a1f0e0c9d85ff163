/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Internal: the plan-time autotuner (docs/gpu.md, "Tuning"). A CUDA plan
// describes its tuning problem (the candidate configurations it has
// compiled, how to run one, the heuristic's choice); when the plan is built
// the tuner returns the configuration to run: forced by an environment
// variable, found in the user's cache or a shipped table, or timed now on
// this device and cached. katsdpsigproc's autotuner (katgpucbf) is the
// model; here each candidate's output is also checked against the
// heuristic's before its time counts.

#ifndef INCLUDED_GPUDSP_RUNTIME_AUTOTUNE_H
#define INCLUDED_GPUDSP_RUNTIME_AUTOTUNE_H

#include "json.h"
#include <gnuradio/gpudsp/api.h>
#include <gnuradio/gpudsp/runtime/backend.h>
#include <gnuradio/gpudsp/runtime/device_context.h>
#include <gnuradio/gpudsp/runtime/tuning.h>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace gr {
namespace gpudsp {
namespace runtime {

/*! \brief What a candidate's run (or select) throws when it finds, only by
 *  trying, that it cannot run here: this machine cannot for any problem
 *  (cuFFT refusing every LTO callback, say), or this plan's problem does
 *  not fit beside its buffers (an X-engine Gram workspace). The tuner
 *  records the candidate as unavailable, as if the plan had said so when
 *  listing it, not as a failure (a defect). */
class GPUDSP_API candidate_unavailable : public device_error
{
public:
    using device_error::device_error;
};

/*! \brief One configuration a plan can run. */
struct tune_candidate {
    std::string id; //!< e.g. "wgmma" or "per_thread=8": what the cache stores
    /*! Why it cannot run on this device or build (empty: it can). */
    std::string unavailable;
    /*! Units of work one run does (the problem's unit): runs of different
     *  sizes (batch candidates) are compared per unit. */
    double work = 1;
    /*! Enqueues one run on \p stream: reads \p in (the problem's
     *  input_bytes), may write \p out (output_bytes). */
    std::function<void(const void* in, void* out, stream_handle stream)> run;
    /*! Optional: makes the candidate the plan's current one where that
     *  allocates or frees (a workspace of its own). Called before its
     *  output check and before each timed batch, outside the timing, so
     *  that switching between candidates is not counted in their times; it
     *  may throw candidate_unavailable. run must also work without it. */
    std::function<void()> select;
};

/*! \brief A tuning problem: what a plan asks the tuner. */
struct tune_problem {
    std::string kernel; //!< the job, e.g. "xengine"
    /*! Bumped whenever a candidate's code or meaning changes: older cache
     *  entries and tables then miss. */
    int version = 1;
    std::string shape;         //!< the problem size as the kernel keys it
    std::string unit = "call"; //!< what one unit of work is (timings are per unit)
    std::vector<tune_candidate> candidates;
    std::string heuristic; //!< the id the plan runs untuned (must be available)
    /*! An id an environment variable forces (empty: none): returned as is,
     *  source `forced`, nothing read or timed. */
    std::string forced;
    std::size_t input_bytes = 0, output_bytes = 0;
    /*! The runs wait for their own results (host-fed plans: LDPC, GNSS):
     *  batches are timed on the host clock, not by events on the tuner's
     *  stream. */
    bool host_timed = false;
    /*! Optional, with host_timed (ignored without it): the device seconds
     *  of the run just made (its kernels' busy time). Set, the tuner
     *  compares these instead of the host clock: where every candidate
     *  shares the same host work (the LDPC's staging of LLRs), the host
     *  clock hides what the candidates change. A candidate whose checked
     *  run reports no time (<= 0) is unavailable; the heuristic's, or any
     *  timed run's, leaves the problem untuned. Batches are still sized to
     *  ~1 ms of device time, so a batch's wall time is that times the
     *  host-to-device ratio (about 5 for the LDPC). */
    std::function<double()> device_seconds;
    /*! Called once before the first candidate runs, only when the tuner
     *  times (never for off, cached or shipped results): where a plan makes
     *  inputs of its own (host-fed plans' large host arrays), so that a plan
     *  that is not tuned does not pay for them. */
    std::function<void()> prepare;
    /*! Fills a host copy of one input (seeded; never zeros). Default: random
     *  bytes, which suit integer and packed formats only. */
    std::function<void(void* host, std::size_t bytes, uint64_t seed)> fill;
    /*! Enqueues what leaves \p out comparable across candidates (e.g. clear,
     *  accumulate, dump). Default: one run. */
    std::function<void(
        const tune_candidate& c, const void* in, void* out, stream_handle s)>
        result;
    /*! Compares a candidate's output with the heuristic's (host copies of
     *  output_bytes): empty when equal (within the job's documented
     *  tolerance), else what differs. Default: bit for bit. */
    std::function<std::string(const void* expected, const void* got)> compare;
};

/*! \brief How the tuner runs: from the environment, or set by a test or a
 *  tool. */
struct GPUDSP_API tune_options {
    tune_mode mode = tune_mode::automatic;
    double budget_s = 0.5;               //!< time to spend timing one problem
    std::string cache_dir;               //!< empty: no cache read or written
    std::vector<std::string> table_dirs; //!< folders of shipped tables
    /*! Test seam: when set, the seconds one run of a candidate takes in a
     *  round (its output is still checked on the device). */
    std::function<double(const tune_candidate& c, int round)> timer;

    /*! $GPUDSP_AUTOTUNE, $GPUDSP_AUTOTUNE_BUDGET (seconds),
     *  $GPUDSP_AUTOTUNE_DIR (else $XDG_CACHE_HOME/gr-gpudsp, else
     *  ~/.cache/gr-gpudsp) and the data folder's tuning/. */
    static tune_options from_environment();
};

/*! \brief What keys a tuning result: the device and the problem. */
struct GPUDSP_API tune_key {
    std::string gpu; //!< the device's name
    int cc_major = 0, cc_minor = 0, multiprocessors = 0;
    std::size_t l2_bytes = 0;
    std::string kernel;
    int version = 0;
    std::string shape;
    std::string candidates; //!< every declared candidate id, in order, ';'-joined

    static tune_key of(const tune_problem& p, const device_info& d);
    json::value to_json() const;
    /*! Throws std::runtime_error when \p v is not a key. */
    static tune_key from_json(const json::value& v);
    bool operator==(const tune_key& o) const;
    /*! The same GPU model and problem (a shipped table's match): SM count
     *  and L2 size may differ (MIG slices, board variants). */
    bool same_model_and_problem(const tune_key& o) const;
    /*! The cache file's name: kernel and a hash of the whole key. */
    std::string file_name() const;
};

/*! \brief A cache file or shipped-table entry. */
struct GPUDSP_API tune_entry {
    tune_key key;
    std::string winner, heuristic, unit;
    std::vector<candidate_timing> candidates;
    json::value recorded; //!< driver, runtime and module versions, date

    json::value to_json() const;
    static tune_entry from_json(const json::value& v); //!< throws std::runtime_error
};

/*! \brief The user's cache entry for \p key: absent, unreadable, corrupt or
 *  foreign files are misses (a note says why, never a throw). */
GPUDSP_API bool cache_load(const std::string& dir,
                           const tune_key& key,
                           tune_entry& entry,
                           std::vector<std::string>& notes);
/*! \brief Writes \p entry atomically (a temporary file renamed into place,
 *  under a lock shared with other processes); false, with a note, when the
 *  folder cannot be written. */
GPUDSP_API bool cache_store(const std::string& dir,
                            const tune_entry& entry,
                            std::vector<std::string>& notes);
/*! \brief The entry of a shipped table (*.json in \p dirs) for the same GPU
 *  model and problem. */
GPUDSP_API bool shipped_lookup(const std::vector<std::string>& dirs,
                               const tune_key& key,
                               tune_entry& entry,
                               std::vector<std::string>& notes);

/*! \brief The decision: lowest median per unit wins; the heuristic stays
 *  when within 3% of it. Timings of candidates that were not timed are
 *  ignored. Returns the winner's id. */
GPUDSP_API std::string choose_candidate(const std::vector<candidate_timing>& timings,
                                        const std::string& heuristic);
/*! \brief Whether a timing is too spread to keep: interquartile range over
 *  10% of the median, or under 3 samples. */
GPUDSP_API bool too_noisy(const candidate_timing& t);
/*! \brief Whether \p a is faster than \p b beyond doubt, however spread
 *  each is: both timed at least 3 times and a's slowest quartile (q3)
 *  below b's fastest (q1). A result too spread to trust is still saved
 *  where the winner is clearly faster than the heuristic: the ranking
 *  that matters holds. */
GPUDSP_API bool clearly_faster(const candidate_timing& a, const candidate_timing& b);

/*!
 * \brief Resolves \p problem on \p ctx's device: forced, cached, shipped or
 * timed now, per \p options. Timing holds a per-device lock (and a file lock
 * shared with other processes), runs on its own stream over seeded random
 * inputs rotated across buffers larger together than twice the L2, runs
 * each candidate once untimed and checks its output, then times
 * interleaved rounds of batches of at least ~1 ms with events. A candidate
 * that throws is skipped, one whose output differs is rejected; neither
 * can win. Throws only when the heuristic candidate itself fails.
 */
GPUDSP_API tune_result autotune(const tune_problem& problem,
                                const device_context::sptr& ctx,
                                const std::string& who,
                                const tune_options& options);
/*! \brief A plan's result where nothing is tuned (the CPU backend, one
 *  candidate): \p chosen from the heuristic. */
GPUDSP_API tune_result untuned(const std::string& kernel,
                               const std::string& shape,
                               const std::string& chosen);

/*! \brief The configuration an environment variable names (a test, or a
 *  user pinning a plan's configuration): \p variable's value when it is one
 *  of \p ids, empty when it is unset or empty; any other value throws
 *  std::invalid_argument naming the variable and listing \p ids (for
 *  tune_problem::forced: GPUDSP_DDC_CONFIG, GPUDSP_UNPACK10_CONFIG). */
GPUDSP_API std::string configuration_from_environment(const char* variable,
                                                      const std::vector<std::string>& ids,
                                                      const std::string& who);

/*! \brief The same with tune_options::from_environment(). */
GPUDSP_API tune_result autotune(const tune_problem& problem,
                                const device_context::sptr& ctx,
                                const std::string& who);

} // namespace runtime
} // namespace gpudsp
} // namespace gr

#endif /* INCLUDED_GPUDSP_RUNTIME_AUTOTUNE_H */
