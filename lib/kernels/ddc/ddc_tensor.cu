/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The DDC's tensor-core form (docs/ddc.md, "Tensor cores"): a block decodes
// the 10-bit samples its outputs need into shared memory as FP16 (exact),
// and each warp computes 64 consecutive outputs as a chain of
// mma.sync.m16n8k16 GEMMs of a Hankel arrangement of the samples by the
// taps shifted by 0..3 decimations, the taps in two FP16 parts
// (ddc_tensor.h, which qa_ddc_tensor emulates warp by warp); the two
// parts' FP32 sums are combined, unscaled and rotated by the mixer's exact
// phase; lane l writes the warp's outputs l and l + 32 (coalesced).

#include "ddc_rotate.cuh"
#include "ddc_tensor_cuda.h"
#include "kernels/common/packed10.h"
#include <cuda_fp16.h>

namespace gr {
namespace gpudsp {
namespace kernels {

namespace {

// d += a b, A 16x16 FP16 row-major, B 16x8 FP16 column-major, D FP32.
__device__ __forceinline__ void
mma_f16(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                 "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
#endif
}

// SMALL_D: 4D < 16 (ddc_tensor::a_cursor). BANK: the most outputs of one
// input a launch computes (1 or ddc_tensor_bank::max): each chunk's A
// fragments are loaded once for all of them, each output has its own B
// fragments, scale, accumulators, phase and destination.
template <bool SMALL_D, int BANK>
__global__ void __launch_bounds__(ddc_tensor::max_warps * 32)
    ddc_tensor_kernel(const uint8_t* __restrict__ in,
                      long long first_sample,
                      long long valid_from,
                      long long valid_to,
                      const ddc_tensor_bank bank,
                      const ddc_tensor::shape sh,
                      unsigned long long first_output,
                      int lead,
                      unsigned long long n_outputs)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    extern __shared__ __align__(16) unsigned char smem[];
    auto* tile = reinterpret_cast<__half*>(smem);
    const long long m_blk = (long long)blockIdx.x * sh.outputs();
    const long long a0 =
        first_sample + m_blk * sh.D; // the block's first sample, in the stream

    // The samples, four at a time from groups aligned in the stream, at
    // their padded places (ddc_tensor::decode_block).
    ddc_tensor::decode_block(
        sh,
        first_sample,
        valid_from,
        valid_to,
        a0,
        threadIdx.x,
        blockDim.x,
        [&](long long g, float* x) { packed10_four(in, g, x); },
        [&](long long g) { return float(packed10_sample(in, g)); },
        [&](int at, float x) { tile[at] = __float2half_rn(x); });
    __syncthreads();

    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int wo = warp * ddc_tensor::warp_outputs * sh.D; // the warp's first sample
    ddc_tensor::a_cursor cur[4];
#pragma unroll
    for (int q = 0; q < 4; ++q)
        cur[q].start(sh, wo + ddc_tensor::a_sample(lane, q, 0, sh.D));
    float hi[BANK][4], lo[BANK][4];
#pragma unroll
    for (int o = 0; o < BANK; ++o)
#pragma unroll
        for (int i = 0; i < 4; ++i)
            hi[o][i] = lo[o][i] = 0.0f;
    // Each image: its header, then [chunk][lane].
    constexpr int skip = ddc_tensor::header_words / 4;
    for (int chunk = 0; chunk < sh.chunks; ++chunk) {
        uint32_t a[4];
#pragma unroll
        for (int q = 0; q < 4; ++q) {
            a[q] = *reinterpret_cast<const uint32_t*>(tile + cur[q].at);
            cur[q].template advance<SMALL_D>(sh);
        }
        const int at = skip + chunk * 32 + lane;
#pragma unroll
        for (int o = 0; o < BANK; ++o)
            if (o < bank.count) {
                const uint4 b = __ldg(bank.taps[o] + at);
                mma_f16(hi[o], a, b.x, b.y);
                mma_f16(lo[o], a, b.z, b.w);
            }
    }

#pragma unroll
    for (int o = 0; o < BANK; ++o) {
        if (o >= bank.count)
            break;
        const float unscale = __ldg(reinterpret_cast<const float*>(bank.taps[o]));
#pragma unroll
        for (int half = 0; half < 2; ++half) {
            const unsigned long long m =
                (unsigned long long)(m_blk + warp * ddc_tensor::warp_outputs +
                                     ddc_tensor::out_of(lane, half));
            if (m < (unsigned long long)lead || m >= n_outputs)
                continue; // the lead's outputs only align the others
            const float re =
                fmaf(lo[o][2 * half], 1.0f / ddc_tensor::lo_scale, hi[o][2 * half]) *
                unscale;
            const float im = fmaf(lo[o][2 * half + 1],
                                  1.0f / ddc_tensor::lo_scale,
                                  hi[o][2 * half + 1]) *
                             unscale;
            bank.out[o][m - lead] = ddc_rotate_output(make_float2(re, im),
                                                      first_output + m,
                                                      sh.D,
                                                      bank.phase_step[o],
                                                      bank.phase_offset[o]);
        }
    }
#endif
}

// The kernel for a shape and a bank size.
template <int BANK>
const void* kernel_for(const ddc_tensor::shape& sh)
{
    return sh.small_d() ? (const void*)ddc_tensor_kernel<true, BANK>
                        : (const void*)ddc_tensor_kernel<false, BANK>;
}

} // namespace

bool ddc_tensor_built()
{
    for (const void* kernel :
         { (const void*)ddc_tensor_kernel<true, 1>,
           (const void*)ddc_tensor_kernel<false, 1>,
           (const void*)ddc_tensor_kernel<true, ddc_tensor_bank::max>,
           (const void*)ddc_tensor_kernel<false, ddc_tensor_bank::max> }) {
        cudaFuncAttributes attr{};
        if (cudaFuncGetAttributes(&attr, kernel) != cudaSuccess) {
            cudaGetLastError(); // not built for this GPU: no form
            return false;
        }
        if (attr.ptxVersion < 80) // the virtual architecture it came from
            return false;
    }
    return true;
}

int ddc_tensor_blocks_per_sm(const ddc_tensor::shape& sh)
{
    int per_sm = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            &per_sm, kernel_for<1>(sh), sh.threads(), sh.smem_bytes()) != cudaSuccess) {
        cudaGetLastError(); // a refused query leaves nothing behind
        return 0;
    }
    return per_sm;
}

void launch_ddc_tensor(const ddc_tensor::shape& sh,
                       const void* in,
                       long long first_sample,
                       long long valid,
                       const ddc_tensor_bank& bank,
                       unsigned long long first_output,
                       std::size_t n,
                       cudaStream_t stream)
{
    // The launch starts `lead` outputs early (ddc_tensor::lead_of): its
    // output 0 is absolute output first_output - lead, whose window starts
    // lead D samples before the caller's; those samples are never read.
    const int lead = ddc_tensor::lead_of(first_output);
    const unsigned long long count = n + lead;
    const unsigned blocks = unsigned((count + sh.outputs() - 1) / sh.outputs());
    const auto* src = static_cast<const uint8_t*>(in);
    const long long back = (long long)lead * sh.D;
#define GPUDSP_DDC_TENSOR(SMALL, B)                                              \
    ddc_tensor_kernel<SMALL, B>                                                  \
        <<<blocks, sh.threads(), sh.smem_bytes(), stream>>>(src,                 \
                                                            first_sample - back, \
                                                            back,                \
                                                            back + valid,        \
                                                            bank,                \
                                                            sh,                  \
                                                            first_output - lead, \
                                                            lead,                \
                                                            count)
    if (bank.count == 1) {
        if (sh.small_d())
            GPUDSP_DDC_TENSOR(true, 1);
        else
            GPUDSP_DDC_TENSOR(false, 1);
    } else if (sh.small_d()) {
        GPUDSP_DDC_TENSOR(true, ddc_tensor_bank::max);
    } else {
        GPUDSP_DDC_TENSOR(false, ddc_tensor_bank::max);
    }
#undef GPUDSP_DDC_TENSOR
}

} // namespace kernels
} // namespace gpudsp
} // namespace gr
