/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// unpack10 on the GPU. Sample i lies in the two bytes starting at byte
// 10i/8; consecutive threads read consecutive bytes and write consecutive
// samples, so loads and stores coalesce, and nothing depends on the
// alignment of either pointer (a device_buffer's read and write positions
// are arbitrary item offsets). Each thread takes PER_THREAD samples a grid
// stride apart and issues their loads before any store: the first H100 run
// (2026-11-24) found one sample per thread at 65% (float) and 47% (short)
// of the device's copy rate. The plan's tuner chooses PER_THREAD among
// unpack10_per_thread_options (8 untuned), or the group kernel below.

#include "unpack10_cuda.h"
#include "unpack10_groups.h"
#include <cuda_runtime.h>
#include <stdexcept>
#include <string>

namespace gr {
namespace gpudsp {
namespace kernels {
namespace cuda {

namespace {

constexpr int threads = unpack10_threads;

template <typename T, int PER_THREAD> // samples in flight per thread and round
__global__ void __launch_bounds__(threads) unpack10_kernel(const uint8_t* __restrict__ in,
                                                           T* __restrict__ out,
                                                           std::size_t n_samples)
{
    // Round r of thread t takes samples t + (PER_THREAD r + u) stride, u <
    // PER_THREAD: every sample once, consecutive threads on consecutive ones.
    const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
    for (std::size_t i0 = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
         i0 < n_samples;
         i0 += PER_THREAD * stride) {
        unsigned pair[PER_THREAD];
#pragma unroll
        for (int u = 0; u < PER_THREAD; ++u) {
            const std::size_t i = i0 + u * stride;
            // Every sample ends at bit 10i+9 >= 8*byte+8, so byte+1 always
            // belongs to it and never lies past the packed input.
            const std::size_t byte = (10 * i) >> 3;
            pair[u] = i < n_samples
                          ? (unsigned(__ldg(in + byte)) << 8) | __ldg(in + byte + 1)
                          : 0u;
        }
#pragma unroll
        for (int u = 0; u < PER_THREAD; ++u) {
            const std::size_t i = i0 + u * stride;
            if (i < n_samples) {
                const int raw = int((pair[u] >> (6 - ((10 * i) & 7))) & 0x3FF);
                out[i] = T((raw ^ 0x200) - 0x200);
            }
        }
    }
}

// A thread's 4 samples of one group as one vector store where the output
// is aligned to it (16 bytes of float, 8 of short), else four stores.
__device__ __forceinline__ void store_group(float* dst, const int (&v)[4], bool vec)
{
    if (vec) {
        *reinterpret_cast<float4*>(dst) =
            make_float4(float(v[0]), float(v[1]), float(v[2]), float(v[3]));
    } else {
#pragma unroll
        for (int m = 0; m < 4; ++m)
            dst[m] = float(v[m]);
    }
}
__device__ __forceinline__ void store_group(int16_t* dst, const int (&v)[4], bool vec)
{
    if (vec) {
        *reinterpret_cast<short4*>(dst) =
            make_short4(short(v[0]), short(v[1]), short(v[2]), short(v[3]));
    } else {
#pragma unroll
        for (int m = 0; m < 4; ++m)
            dst[m] = int16_t(v[m]);
    }
}

// The group kernel (docs/formats.md): thread t takes groups of 4 samples (5
// bytes) t + (GROUPS r + u) stride, u < GROUPS, each from the two aligned
// words that hold it (unpack10_groups.h), all 2 GROUPS loads issued first,
// then decoded by shifts (packed10_group) and written as one vector store.
// Against the per-sample kernel, whose 4 samples cost ~27 instructions each
// in its sm_90 SASS (two byte loads, 64-bit 10 i / 8 arithmetic and a
// guard per sample): the short output, bound by instructions at 58% of the
// H200's copy rate (2026-11-28), is what this is for. Consecutive threads
// read consecutive 5-byte groups and write consecutive 4-sample groups, so
// a warp's loads span 160 bytes and its stores 512 (float) or 256 (short).
template <typename T, int GROUPS>
__global__ void __launch_bounds__(threads)
    unpack10_groups_kernel(const uint8_t* __restrict__ in,
                           T* __restrict__ out,
                           std::size_t n_samples)
{
    const uintptr_t address = reinterpret_cast<uintptr_t>(in);
    const int mis = int(address & 3);
    const auto* words = reinterpret_cast<const uint32_t*>(address - mis);
    const std::size_t in_bytes = (10 * n_samples + 7) / 8, n_groups = n_samples / 4;
    const bool vec = reinterpret_cast<uintptr_t>(out) % (4 * sizeof(T)) == 0;
    const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
    for (std::size_t j0 = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
         j0 < n_groups;
         j0 += GROUPS * stride) {
        uint32_t w0[GROUPS], w1[GROUPS];
        int o[GROUPS];
#pragma unroll
        for (int u = 0; u < GROUPS; ++u) {
            const std::size_t j = j0 + u * stride;
            const unpack10_group_fetch f = unpack10_group_at(mis, in_bytes, j);
            o[u] = f.o;
            w0[u] = w1[u] = 0;
            if (j < n_groups) {
                if (f.whole) {
                    w0[u] = __ldg(words + f.word);
                    w1[u] = __ldg(words + f.word + 1);
                } else { // the input's last group, whose second word runs past it
                    unpack10_group_bytes(in + 5 * j, w0[u], w1[u]);
                    o[u] = 0;
                }
            }
        }
#pragma unroll
        for (int u = 0; u < GROUPS; ++u) {
            const std::size_t j = j0 + u * stride;
            if (j < n_groups) {
                int v[4];
                packed10_group(w0[u], w1[u], o[u], v);
                store_group(out + 4 * j, v, vec);
            }
        }
    }
    // The last n mod 4 samples, which make no group.
    if (blockIdx.x == 0 && threadIdx.x < (n_samples & 3)) {
        const std::size_t i = 4 * n_groups + threadIdx.x;
        out[i] = T(packed10_sample(in, int64_t(i)));
    }
}

// fn(unpack10_kernel<T, PER_THREAD>, PER_THREAD) for the compiled
// PER_THREAD equal to per_thread (unpack10_per_thread_options); throws for
// another.
template <typename T, class Fn>
auto with_kernel(int per_thread, Fn fn)
{
    switch (per_thread) {
    case 1:
        return fn(unpack10_kernel<T, 1>, 1);
    case 2:
        return fn(unpack10_kernel<T, 2>, 2);
    case 4:
        return fn(unpack10_kernel<T, 4>, 4);
    case 8:
        return fn(unpack10_kernel<T, 8>, 8);
    case 16:
        return fn(unpack10_kernel<T, 16>, 16);
    }
    throw std::invalid_argument("unpack10: no kernel for " + std::to_string(per_thread) +
                                " samples per thread");
}

template <typename T>
void launch_any(const uint8_t* in, T* out, std::size_t n_samples, int per_thread, void* s)
{
    if (n_samples == 0)
        return;
    // A grid-stride loop, each thread taking per_thread samples a round
    // (unpack10_blocks). (Calls of under ~1.6 M samples leave SMs idle;
    // launch costs rule there.)
    with_kernel<T>(per_thread, [&](auto kernel, int pt) {
        kernel<<<unpack10_blocks(n_samples, pt),
                 threads,
                 0,
                 static_cast<cudaStream_t>(s)>>>(in, out, n_samples);
    });
}

template <typename T, class Fn>
auto with_group_kernel(int groups, Fn fn)
{
    switch (groups) {
    case 1:
        return fn(unpack10_groups_kernel<T, 1>);
    case 2:
        return fn(unpack10_groups_kernel<T, 2>);
    case 4:
        return fn(unpack10_groups_kernel<T, 4>);
    }
    throw std::invalid_argument("unpack10: no group kernel for " +
                                std::to_string(groups) + " groups per thread");
}

template <typename T>
void launch_groups(const uint8_t* in, T* out, std::size_t n_samples, int groups, void* s)
{
    if (n_samples == 0)
        return;
    with_group_kernel<T>(groups, [&](auto kernel) {
        kernel<<<unpack10_group_blocks(n_samples, groups),
                 threads,
                 0,
                 static_cast<cudaStream_t>(s)>>>(in, out, n_samples);
    });
}

// Blocks over the SMs times the blocks of \p kernel one SM holds.
template <typename Kernel>
double waves_of(Kernel kernel, unsigned blocks)
{
    int device = 0, sms = 0, per_sm = 0;
    cudaError_t r = cudaGetDevice(&device);
    if (r == cudaSuccess)
        r = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    if (r == cudaSuccess)
        r = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, 0);
    if (r != cudaSuccess || sms * per_sm == 0) {
        cudaGetLastError(); // (a figure for a note: none rather than a throw)
        return 0;
    }
    return double(blocks) / (double(sms) * per_sm);
}

template <typename T>
double waves(std::size_t n_samples, int per_thread, int groups)
{
    double w = 0;
    if (groups > 0)
        with_group_kernel<T>(groups, [&](auto kernel) {
            w = waves_of(kernel, unpack10_group_blocks(n_samples, groups));
        });
    else
        with_kernel<T>(per_thread, [&](auto kernel, int) {
            w = waves_of(kernel, unpack10_blocks(n_samples, per_thread));
        });
    return w;
}

} // namespace

double unpack10_waves(std::size_t n_samples, int per_thread, bool float_out, int groups)
{
    return float_out ? waves<float>(n_samples, per_thread, groups)
                     : waves<int16_t>(n_samples, per_thread, groups);
}

void launch_unpack10(
    const uint8_t* in, float* out, std::size_t n_samples, int per_thread, void* stream)
{
    launch_any(in, out, n_samples, per_thread, stream);
}

void launch_unpack10(
    const uint8_t* in, int16_t* out, std::size_t n_samples, int per_thread, void* stream)
{
    launch_any(in, out, n_samples, per_thread, stream);
}

void launch_unpack10_groups(
    const uint8_t* in, float* out, std::size_t n_samples, int groups, void* stream)
{
    launch_groups(in, out, n_samples, groups, stream);
}

void launch_unpack10_groups(
    const uint8_t* in, int16_t* out, std::size_t n_samples, int groups, void* stream)
{
    launch_groups(in, out, n_samples, groups, stream);
}

} // namespace cuda
} // namespace kernels
} // namespace gpudsp
} // namespace gr
