/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// unpack10 on the GPU: one thread per output sample. Sample i lies in the
// two bytes starting at byte 10i/8; consecutive threads read consecutive
// bytes and write consecutive samples, so loads and stores coalesce, and
// nothing depends on the alignment of either pointer (a device_buffer's
// read and write positions are arbitrary item offsets).

#include "unpack10_cuda.h"
#include <cuda_runtime.h>

namespace gr {
namespace gpudsp {
namespace kernels {
namespace cuda {

namespace {

constexpr int threads = 256;

template <typename T>
__global__ void __launch_bounds__(threads) unpack10_kernel(const uint8_t* __restrict__ in,
                                                           T* __restrict__ out,
                                                           std::size_t n_samples)
{
    const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
    for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
         i < n_samples;
         i += stride) {
        const std::size_t bit = 10 * i;
        const std::size_t byte = bit >> 3;
        const unsigned shift = 6 - (bit & 7);
        // Every sample ends at bit 10i+9 >= 8*byte+8, so byte+1 always
        // belongs to it and never lies past the packed input.
        const unsigned pair = (unsigned(__ldg(in + byte)) << 8) | __ldg(in + byte + 1);
        const int raw = int((pair >> shift) & 0x3FF);
        out[i] = T((raw ^ 0x200) - 0x200);
    }
}

template <typename T>
void launch(const uint8_t* in, T* out, std::size_t n_samples, void* stream)
{
    if (n_samples == 0)
        return;
    // A grid-stride loop with enough blocks to fill any current GPU.
    const std::size_t wanted = (n_samples + threads - 1) / threads;
    const unsigned blocks = unsigned(wanted < 65536 ? wanted : 65536);
    unpack10_kernel<T>
        <<<blocks, threads, 0, static_cast<cudaStream_t>(stream)>>>(in, out, n_samples);
}

} // namespace

void launch_unpack10(const uint8_t* in, float* out, std::size_t n_samples, void* stream)
{
    launch(in, out, n_samples, stream);
}

void launch_unpack10(const uint8_t* in, int16_t* out, std::size_t n_samples, void* stream)
{
    launch(in, out, n_samples, stream);
}

} // namespace cuda
} // namespace kernels
} // namespace gpudsp
} // namespace gr
