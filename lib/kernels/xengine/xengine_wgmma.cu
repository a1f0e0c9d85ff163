/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The X-engine's tensor kernel for Hopper (sm_90a): warpgroup MMAs
// (wgmma.mma_async m64n128k32, s8 operands straight from shared memory,
// s32 accumulators), the instruction that reaches Hopper's tensor peak;
// mma.sync (xengine_cuda.cu's xcorr_tc80) cannot. Compiled only as sm_90a
// code (lib/CMakeLists.txt: wgmma exists only in the arch-specific target),
// so a GPU other than compute capability 9.0 has no image of it and the
// plan keeps the mma.sync kernel there (xengine_wgmma_usable).
//
// Layout and arithmetic: xengine_tile.h ("The wgmma kernel"). The pack
// kernel (xengine_cuda.cu, 3 parts) writes re, im and ~re planes; a block of
// two warpgroups streams 32-spectrum stages of its two 128-input tiles
// through a 4-stage cp.async pipeline (copies two stages ahead); per stage
// each warpgroup issues four m64n128k32 MMAs (re += Ar Br + Ai Bi,
// im += Ai Br + (~Ar) Bi) and keeps one group of them in flight while the
// next stage is awaited. The epilogue adds the column input's imaginary sum
// (the complement trick) and the 64 x 128 square into the int32 partials.

#include "kernels/common/cp_async.cuh"
#include "xengine_tile.h"
#include "xengine_wgmma.h"

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define GPUDSP_WGMMA_BODY 1
#include "xengine_wgmma_ops.cuh" // d += a b: accumulate = 1 (zeroed at start)
#endif

namespace gr {
namespace gpudsp {
namespace kernels {

namespace {


__global__ void __launch_bounds__(xwg_threads, 1)
    xcorr_wgmma(const signed char* __restrict__ packed,
                const int* __restrict__ im_sum, // [launch channel][a_pad]
                int n_blocks,
                int a_pad,
                int channel0,
                int n_inputs,
                int* __restrict__ part) // int32 partials [c][pair][2]
{
#ifdef GPUDSP_WGMMA_BODY
    extern __shared__ __align__(128) unsigned char smem[];
    int I, J;
    xengine_tile_pair(blockIdx.x, I, J);
    const int lc = blockIdx.y;
    const int h = threadIdx.x / 128, warp = (threadIdx.x / 32) % 4,
              lane = threadIdx.x % 32;
    const uint32_t base = uint32_t(__cvta_generic_to_shared(smem));

    auto issue = [&](int tb) {
        unsigned char* stage = smem + (tb % xwg_stages) * xwg_stage_bytes;
#pragma unroll
        for (int k = 0; k < xwg_copies_per_thread; ++k) {
            const xtc_copy_at at = xwg_copy_offsets(
                threadIdx.x + k * xwg_threads, I, J, lc, tb, n_blocks, a_pad);
            copy16_async(stage + at.smem, packed + at.packed);
        }
    };

    int re[xwg_regs] = {}, im[xwg_regs] = {};
    copy_prologue(issue, n_blocks);
    for (int tb = 0; tb < n_blocks; ++tb) {
        copy_wait<1>(); // this thread's stage tb landed
        // cp.async writes are generic-proxy writes; wgmma reads through the
        // async proxy.
        asm volatile("fence.proxy.async.shared::cta;\n" ::);
        __syncthreads(); // everyone's landed; stage tb - 2's MMAs are done
        if (tb + 2 < n_blocks)
            issue(tb + 2);
        copy_commit();
        asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
        xwg_products(
            base + (tb % xwg_stages) * xwg_stage_bytes,
            h,
            re,
            im,
            [](int(&d)[xwg_regs], uint64_t a, uint64_t b) { wgmma_m64n128(d, a, b, 1); });
        asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
        // Keep this stage's group in flight; the previous one is done, so
        // its buffer (refilled two iterations later) is free.
        asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory");
    }
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
    copy_wait<0>();
    // The accumulators into the partials by atomic adds (RED: nothing
    // waits for them, no read-modify-write), 16 pairs at a time: their
    // column sums loaded first (in flight together), then the adds.
    constexpr int batch = 16;
#pragma unroll
    for (int i0 = 0; i0 < xwg_regs; i0 += batch) {
        int col[batch];
#pragma unroll
        for (int j = 0; j < batch; ++j) {
            const int i = i0 + j;
            const int a = I * xtc_tile + 64 * h + xwg_d_row(warp, lane, i);
            const int b = J * xtc_tile + xwg_d_col(lane, i);
            if (a < n_inputs && b <= a)
                col[j] = im_sum[xtc_pair_addresses(channel0, lc, a, b, n_inputs, a_pad)
                                    .im_sum];
        }
#pragma unroll
        for (int j = 0; j < batch; ++j) {
            const int i = i0 + j;
            const int a = I * xtc_tile + 64 * h + xwg_d_row(warp, lane, i);
            const int b = J * xtc_tile + xwg_d_col(lane, i);
            if (a < n_inputs && b <= a) {
                int* at = part +
                          xtc_pair_addresses(channel0, lc, a, b, n_inputs, a_pad).partial;
                atomicAdd(at, re[i]);
                atomicAdd(at + 1, im[i] + col[j]);
            }
        }
    }
#endif
}

} // namespace

bool xengine_wgmma_usable(int device)
{
    int major = 0, minor = 0;
    if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) !=
            cudaSuccess ||
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) !=
            cudaSuccess)
        return false;
    if (major != 9 || minor != 0)
        return false;
    cudaFuncAttributes attr{};
    if (cudaFuncGetAttributes(&attr, xcorr_wgmma) != cudaSuccess) {
        cudaGetLastError(); // no image for this device: not an error here
        return false;
    }
    if (cudaFuncSetAttribute(xcorr_wgmma,
                             cudaFuncAttributeMaxDynamicSharedMemorySize,
                             xwg_smem_bytes) != cudaSuccess) {
        cudaGetLastError(); // the plan keeps the mma.sync kernel
        return false;
    }
    return true;
}

void xengine_wgmma_launch(unsigned tile_pairs,
                          int n_channels,
                          cudaStream_t stream,
                          const signed char* packed,
                          const int* im_sum,
                          int n_blocks,
                          int a_pad,
                          int channel0,
                          int n_inputs,
                          int* part)
{
    xcorr_wgmma<<<dim3(tile_pairs, n_channels), xwg_threads, xwg_smem_bytes, stream>>>(
        packed, im_sum, n_blocks, a_pad, channel0, n_inputs, part);
}

} // namespace kernels
} // namespace gpudsp
} // namespace gr
