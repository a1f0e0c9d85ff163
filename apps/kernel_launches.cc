/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// gpudsp_kernel_launches: the launches whose shared memory is chosen at run
// time, at every configuration the documentation allows, as JSON for
// scripts/kernel-report.sh (which checks them against each architecture's
// limit). The numbers come from the same functions the launch code calls.
// Needs no GPU. Not installed.

#include "kernels/ddc_impl.h"
#include "kernels/ldpc5g_impl.h"
#include <gnuradio/gpudsp/kernels/ldpc5g.h>
#include <cstdio>
#include <string>

namespace {

using namespace gr::gpudsp::kernels;

bool first = true;

// kernel: a regular expression on the kernel's short name
// ("decode_kernel<float, float, true>"), as the report prints it.
void emit(const char* kernel, const std::string& config, int threads, std::size_t bytes)
{
    std::printf("%s\n  {\"kernel\": \"%s\", \"config\": \"%s\", \"threads\": %d, "
                "\"dynamic_shared\": %zu}",
                first ? "" : ",",
                kernel,
                config.c_str(),
                threads,
                bytes);
    first = false;
}

} // namespace

int main()
{
    std::printf("[");
    // DDC: taps in shared memory up to ddc_cuda_max_shared_taps (any count
    // is allowed; more are read through the cache with no shared memory).
    const int T = ddc_cuda_max_shared_taps;
    emit("^ddc_kernel<.*, true>$",
         "T = " + std::to_string(T) + " taps (the most held in shared memory)",
         ddc_cuda_threads,
         ddc_cuda_shared_bytes(T));
    // LDPC: every lifting size of both base graphs at the lowest rate (all
    // columns used), in float and in fixed point.
    for (const int bg : { 1, 2 })
        for (const int Z : ldpc5g_lifting_sizes())
            for (const bool fixed : { false, true }) {
                const int cols = bg == 1 ? 68 : 52;
                emit(fixed ? "^decode_kernel<int, short, "
                           : "^decode_kernel<float, float, ",
                     "BG" + std::to_string(bg) + " Z=" + std::to_string(Z) +
                         (fixed ? " fixed point" : " float") + ", all " +
                         std::to_string(cols) + " columns",
                     ldpc5g_cuda_threads(Z),
                     ldpc5g_cuda_shared_bytes(Z, cols, fixed));
            }
    std::printf("\n]\n");
    return 0;
}
