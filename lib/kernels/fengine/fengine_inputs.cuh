/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Internal, CUDA: how the F-engine's kernels find their inputs — a table of
// up to 64 inputs per launch (pointer and the sample index of the first
// spectrum's first sample) and the sample loader of each input format.

#ifndef INCLUDED_GPUDSP_KERNELS_FENGINE_INPUTS_CUH
#define INCLUDED_GPUDSP_KERNELS_FENGINE_INPUTS_CUH

#include "kernels/common/sample_load.cuh"
#include <gnuradio/gpudsp/kernels/pfb_fengine.h>
#include <cstdint>

namespace gr {
namespace gpudsp {
namespace kernels {

// The F-engine's input formats as the shared loaders' kinds.
template <fengine_input F>
struct kind_of;
template <>
struct kind_of<fengine_input::packed10> {
    static constexpr sample_kind value = sample_kind::packed10;
};
template <>
struct kind_of<fengine_input::int16> {
    static constexpr sample_kind value = sample_kind::int16;
};
template <>
struct kind_of<fengine_input::float32> {
    static constexpr sample_kind value = sample_kind::float32;
};
template <>
struct kind_of<fengine_input::complex64> {
    static constexpr sample_kind value = sample_kind::complex64;
};
template <fengine_input F>
using loader = sample_loader<kind_of<F>::value>;

struct input_table {
    static constexpr int max_inputs = 64; // per launch; more go in several launches
    const void* data[max_inputs];
    int64_t first[max_inputs];
};

} // namespace kernels
} // namespace gpudsp
} // namespace gr

#endif
