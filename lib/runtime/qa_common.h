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
#include <boost/test/unit_test.hpp>
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

} // namespace qa

#endif
