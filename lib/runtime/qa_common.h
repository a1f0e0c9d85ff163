/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Shared by the C++ tests. A test source compiled with GPUDSP_TEST_CUDA runs
// on CUDA device 0 and, without one, prints "SKIPPED: no CUDA device" and
// exits 77 (ctest's SKIP_RETURN_CODE); otherwise it runs on the emulated
// device, the CI stand-in for a GPU.

#ifndef INCLUDED_GPUDSP_QA_COMMON_H
#define INCLUDED_GPUDSP_QA_COMMON_H

#include <gnuradio/gpudsp/runtime/backend.h>
#include <gnuradio/gpudsp/runtime/tuning.h>
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace qa {

inline gr::gpudsp::runtime::backend_choice test_device()
{
    gr::gpudsp::runtime::backend_choice choice;
#ifdef GPUDSP_TEST_CUDA
    choice.kind = gr::gpudsp::runtime::backend_kind::cuda;
#else
    choice.kind = gr::gpudsp::runtime::backend_kind::emulated;
#endif
    choice.device = 0;
    return choice;
}

inline std::string test_backend() { return gr::gpudsp::runtime::to_string(test_device().kind); }

struct skip_without_device {
    skip_without_device()
    {
#ifdef GPUDSP_TEST_CUDA
        if (!gr::gpudsp::runtime::cuda_available()) {
            std::printf("SKIPPED: no CUDA device\n");
            std::fflush(stdout);
            std::exit(77);
        }
        std::printf("running on %s\n", test_device().describe().c_str());
#endif
    }
};

/*! Sets environment variable \p name to \p value (null: unset) for its
 *  lifetime and restores what was there, also when a check throws. */
struct env_setting {
    std::string name, old;
    bool had;
    env_setting(const char* variable, const char* value) : name(variable)
    {
        const char* e = std::getenv(variable);
        had = e != nullptr;
        old = had ? e : "";
        if (value)
            setenv(variable, value, 1);
        else
            unsetenv(variable);
    }
    ~env_setting()
    {
        if (had)
            setenv(name.c_str(), old.c_str(), 1);
        else
            unsetenv(name.c_str());
    }
    env_setting(const env_setting&) = delete;
    env_setting& operator=(const env_setting&) = delete;
};

/*! A fresh folder under /tmp (for a tuning cache, say), removed with its
 *  files at the end. */
struct temp_dir {
    std::string path;
    temp_dir()
    {
        char tmpl[] = "/tmp/gpudsp_qa.XXXXXX";
        const char* made = mkdtemp(tmpl);
        BOOST_REQUIRE(made);
        path = made;
    }
    ~temp_dir() { std::system(("rm -rf '" + path + "'").c_str()); }
    temp_dir(const temp_dir&) = delete;
    temp_dir& operator=(const temp_dir&) = delete;
};

/*! The tuner forced on, with a fresh cache and a short budget, for the
 *  plans made in its lifetime (the tests' way to run every candidate). */
struct tuning_forced {
    temp_dir cache;
    env_setting mode{ "GPUDSP_AUTOTUNE", "force" };
    env_setting dir{ "GPUDSP_AUTOTUNE_DIR", cache.path.c_str() };
    env_setting budget{ "GPUDSP_AUTOTUNE_BUDGET", "0.1" };
};

/*! A plan built under tuning_forced: where it has configurations to choose
 *  (CUDA; the emulated DDC), each ran and none was rejected or failed, and
 *  one of them runs; elsewhere the heuristic (the one configuration). */
inline void check_tuned(const gr::gpudsp::runtime::tune_result& t)
{
    using gr::gpudsp::runtime::tune_source;
    BOOST_TEST_MESSAGE(t.describe());
    if (t.candidates.empty()) {
        BOOST_CHECK(t.source == tune_source::heuristic);
        BOOST_CHECK_EQUAL(t.chosen, t.heuristic);
        return;
    }
    BOOST_CHECK(t.source == tune_source::tuned);
    bool chosen_ran = false;
    for (const auto& c : t.candidates) {
        BOOST_CHECK_MESSAGE(c.status == "timed" ||
                                c.status.rfind("unavailable: ", 0) == 0,
                            t.kernel << " candidate " << c.id << ": " << c.status);
        chosen_ran |= c.id == t.chosen && c.samples > 0;
    }
    BOOST_CHECK_MESSAGE(chosen_ran, t.describe());
}

inline std::vector<uint8_t> random_bytes(std::size_t n, unsigned seed)
{
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> dist(0, 255);
    std::vector<uint8_t> v(n);
    for (auto& b : v)
        b = static_cast<uint8_t>(dist(rng));
    return v;
}

inline std::vector<float> random_floats(std::size_t n, unsigned seed)
{
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(-1000.0f, 1000.0f);
    std::vector<float> v(n);
    for (auto& x : v)
        x = dist(rng);
    return v;
}

// The index of the first of \p n floats that is not finite (NaN poison,
// infinities), or n. One Boost assertion a buffer, not one a value: a
// BOOST_REQUIRE costs ~0.3 us, and 2^20 outputs for each of ~180 DDC
// configurations took qa_ddc_plan_cuda past its 45 s on the H200 of
// 2026-11-28.
inline std::size_t first_non_finite(const float* v, std::size_t n)
{
    for (std::size_t i = 0; i < n; ++i)
        if (!std::isfinite(v[i]))
            return i;
    return n;
}

} // namespace qa

#endif
