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

std::string cpu_top_level()
{
#if defined(__x86_64__) || defined(__i386__)
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw"))
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

bool forced_scalar()
{
    const char* v = std::getenv("GPUDSP_CPU_SIMD");
    if (!v || !*v || std::strcmp(v, "auto") == 0)
        return false;
    if (std::strcmp(v, "scalar") == 0)
        return true;
    throw std::invalid_argument(std::string("GPUDSP_CPU_SIMD must be \"auto\" or "
                                            "\"scalar\", got \"") +
                                v + "\"");
}

} // namespace

bool cpu_use_avx2()
{
#if defined(__x86_64__) || defined(__i386__)
    static const bool use = !forced_scalar() && __builtin_cpu_supports("avx2");
    return use;
#else
    return false;
#endif
}

std::string cpu_simd_description()
{
    std::string s = std::string(cpu_use_avx2() ? "avx2" : "scalar") + " (CPU: " + cpu_top_level();
    if (forced_scalar())
        s += ", GPUDSP_CPU_SIMD=scalar";
    return s + ")";
}

} // namespace runtime
} // namespace gpudsp
} // namespace gr
