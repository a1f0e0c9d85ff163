/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Internal, CUDA only: sample n of an input stream as float (real formats)
// or float2 (complex float), for every sample format the kernels read. The
// packed 10-bit decode is fengine_math.h's, shared with the CPU.

#ifndef INCLUDED_GPUDSP_KERNELS_SAMPLE_LOAD_CUH
#define INCLUDED_GPUDSP_KERNELS_SAMPLE_LOAD_CUH

#include "packed10.h"
#include <cuda_runtime.h>
#include <cstdint>

namespace gr {
namespace gpudsp {
namespace kernels {

enum class sample_kind { packed10, int16, float32, complex64 };

template <sample_kind K>
struct sample_loader;

template <>
struct sample_loader<sample_kind::packed10> {
    using type = float;
    __device__ static float load(const void* p, int64_t n)
    {
        return float(packed10_sample(static_cast<const uint8_t*>(p), n));
    }
};
// The word formats also in two steps, `raw` as loaded and its `value`, for
// loops that load ahead and convert on use (the conversion waits for the
// load; fir::column_run).
template <>
struct sample_loader<sample_kind::int16> {
    using type = float;
    using raw = int;
    __device__ static raw fetch(const void* p, int64_t n)
    {
        return __ldg(static_cast<const int16_t*>(p) + n);
    }
    __device__ static float value(raw r) { return float(r); }
    __device__ static float load(const void* p, int64_t n) { return value(fetch(p, n)); }
};
template <>
struct sample_loader<sample_kind::float32> {
    using type = float;
    using raw = float;
    __device__ static raw fetch(const void* p, int64_t n)
    {
        return __ldg(static_cast<const float*>(p) + n);
    }
    __device__ static float value(raw r) { return r; }
    __device__ static float load(const void* p, int64_t n) { return fetch(p, n); }
};
template <>
struct sample_loader<sample_kind::complex64> {
    using type = float2;
    using raw = float2;
    __device__ static raw fetch(const void* p, int64_t n)
    {
        return __ldg(static_cast<const float2*>(p) + n);
    }
    __device__ static float2 value(raw r) { return r; }
    __device__ static float2 load(const void* p, int64_t n) { return fetch(p, n); }
};

} // namespace kernels
} // namespace gpudsp
} // namespace gr

#endif
