/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Internal: GPUDSP_HD marks arithmetic that the CPU code, the CPU tests and
// the CUDA kernels share (tile maps, decoders, quantisers): inline on the
// host, __host__ __device__ __forceinline__ under nvcc.

#ifndef INCLUDED_GPUDSP_KERNELS_HOST_DEVICE_H
#define INCLUDED_GPUDSP_KERNELS_HOST_DEVICE_H

#ifdef __CUDACC__
#define GPUDSP_HD __host__ __device__ __forceinline__
#else
#define GPUDSP_HD inline
#endif

// Loops of constant trip count over per-thread arrays: unrolled on the GPU
// so that the arrays stay in registers (an index the compiler cannot fold
// puts them in local memory); nothing on the host.
#ifdef __CUDA_ARCH__
#define GPUDSP_UNROLL _Pragma("unroll")
#else
#define GPUDSP_UNROLL
#endif

#endif /* INCLUDED_GPUDSP_KERNELS_HOST_DEVICE_H */
