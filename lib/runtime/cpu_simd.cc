/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <gnuradio/gpudsp/runtime/cpu_simd.h>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace gr {
namespace gpudsp {
namespace runtime {

namespace {

bool cpu_has_avx512()
{
#if defined(__x86_64__) || defined(__i386__)
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
#else
    return false;
#endif
}

std::string cpu_top_level()
{
#if defined(__x86_64__) || defined(__i386__)
    if (cpu_has_avx512())
        return "avx512";
    if (__builtin_cpu_supports("avx2"))
        return "avx2";
    if (__builtin_cpu_supports("sse4.2"))
        return "sse4.2";
    return "x86-64 baseline";
#else
    return "non-x86";
#endif
}

// The cap $GPUDSP_CPU_SIMD sets: "" (none), "avx2" or "scalar".
std::string simd_cap()
{
    static const std::string cap = [] {
        const char* v = std::getenv("GPUDSP_CPU_SIMD");
        if (!v || !*v || std::strcmp(v, "auto") == 0)
            return std::string();
        if (std::strcmp(v, "scalar") == 0 || std::strcmp(v, "avx2") == 0)
            return std::string(v);
        throw std::invalid_argument(std::string("GPUDSP_CPU_SIMD must be \"auto\", "
                                                "\"avx2\" or \"scalar\", got \"") +
                                    v + "\"");
    }();
    return cap;
}

} // namespace

bool cpu_use_avx2()
{
#if defined(__x86_64__) || defined(__i386__)
    // (FMA too: the AVX2 paths are compiled with it; every AVX2 CPU has
    // it, but a virtual CPU may hide it)
    static const bool use = simd_cap() != "scalar" && __builtin_cpu_supports("avx2") &&
                            __builtin_cpu_supports("fma");
    return use;
#else
    return false;
#endif
}

bool cpu_use_avx512()
{
    static const bool use = simd_cap().empty() && cpu_has_avx512();
    return use;
}

std::string cpu_simd_description()
{
    std::string s = std::string(cpu_use_avx512() ? "avx512"
                                : cpu_use_avx2() ? "avx2"
                                                 : "scalar") +
                    " (CPU: " + cpu_top_level();
    if (!simd_cap().empty())
        s += ", GPUDSP_CPU_SIMD=" + simd_cap();
    return s + ")";
}

} // namespace runtime
} // namespace gpudsp
} // namespace gr
