/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The DDC's tensor-core form (docs/ddc.md, "Tensor cores"): a block decodes
// the 10-bit samples its outputs need into shared memory as FP16 (exact),
// and each warp computes 64 (128) consecutive outputs as a chain of
// mma.sync.m16n8k16 GEMMs of a Hankel arrangement of the samples by the
// taps shifted by 0..3 (0..7) decimations, the taps in two FP16 parts
// (ddc_tensor.h, which qa_ddc_tensor emulates warp by warp); the two
// parts' FP32 sums are combined, unscaled and rotated by the mixer's exact
// phase; a warp's lanes write runs of consecutive outputs (coalesced).

#include "ddc_ring.cuh"
#include "ddc_tensor_cuda.h"
#include "kernels/common/cp_async.cuh"
#include "kernels/common/packed10.h"
#include <cuda_fp16.h>
#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

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

// A 32-bit shared-memory load from a shared-window address (computed once
// from the tile's, so no generic-to-shared conversion in the loop).
__device__ __forceinline__ uint32_t lds32(uint32_t addr)
{
    uint32_t v;
    asm volatile("ld.shared.b32 %0, [%1];\n" : "=r"(v) : "r"(addr));
    return v;
}

// SMALL_D: KD < 16 (ddc_tensor::a_cursor; else one a_walker). NT: the MMA column tiles a
// chunk (ddc_tensor::shape::nt; the tap block K = 4 NT decimations), each
// with its own B fragments and accumulators, one A fragment for all.
// MT: row tiles a warp (shape::mt), each B fragment for all of them.
// BANK: the most outputs of one input a launch computes (1 or
// ddc_tensor_bank_max(NT, MT)): each chunk's A
// fragments are loaded once for all of them, each output has its own B
// fragments, scale, accumulators, phase and destination. RING: the ring
// form (ddc_tensor.h): persistent, each block tile's bytes staged by
// cp.async while the block computes the tile before.
template <bool SMALL_D, int BANK, bool RING, int NT, int MT>
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
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    // The block tile from output m_blk's samples, a quad a thread at a
    // time from three aligned words (words(bw): word w of the block's, from
    // global memory or the ring's stage), at their padded places
    // (ddc_tensor::decode_block).
    const int mis = int(reinterpret_cast<uintptr_t>(in) & 3);
    const uint32_t tile_s = uint32_t(__cvta_generic_to_shared(tile));
    auto decode = [&](long long m_blk, auto words) {
        const long long a0 = first_sample + m_blk * sh.D;
        const ddc_tensor::block_words bw =
            ddc_tensor::block_words_of(sh, first_sample, valid_from, valid_to, a0, mis);
        ddc_tensor::decode_block(
            sh,
            bw,
            a0,
            threadIdx.x,
            blockDim.x,
            words(bw),
            [&](long long g) { return packed10_sample(in, g); },
            [&](int at, const int(&x)[4]) {
                const __half2 lo = __halves2half2(__int2half_rn(x[0]),
                                                  __int2half_rn(x[1])),
                              hi = __halves2half2(__int2half_rn(x[2]),
                                                  __int2half_rn(x[3]));
                // One 64-bit store (at: a multiple of 4 halves).
                asm volatile("st.shared.v2.b32 [%0], {%1, %2};\n" ::"r"(
                                 tile_s + 2u * uint32_t(at)),
                             "r"(*reinterpret_cast<const uint32_t*>(&lo)),
                             "r"(*reinterpret_cast<const uint32_t*>(&hi))
                             : "memory");
            });
    };

    // The block tile from output m_blk: its decoded samples in `tile`.
    constexpr int warp_outputs = ddc_tensor::rows * MT * ddc_tensor::tile_shifts * NT;
    auto compute = [&](long long m_blk) {
        const int wo = warp * warp_outputs * sh.D; // the warp's first sample
        float hi[BANK][MT][NT][4], lo[BANK][MT][NT][4];
#pragma unroll
        for (int o = 0; o < BANK; ++o)
#pragma unroll
            for (int rt = 0; rt < MT; ++rt)
#pragma unroll
                for (int n = 0; n < NT; ++n)
#pragma unroll
                    for (int i = 0; i < 4; ++i)
                        hi[o][rt][n][i] = lo[o][rt][n][i] = 0.0f;
        // Each image: its header, then [chunk][n][lane].
        constexpr int skip = ddc_tensor::header_words / 4;
        // A chunk's MMAs, its A fragments (one a row tile) loaded, each B
        // fragment loaded once for them (a bank of one always has its
        // output: launch_ddc_tensor checks).
        auto mma_chunk = [&](int chunk, const uint32_t(&a)[MT][4]) {
            const int at = skip + chunk * NT * 32 + lane;
#pragma unroll
            for (int o = 0; o < BANK; ++o)
                if (BANK == 1 || o < bank.count) {
#pragma unroll
                    for (int n = 0; n < NT; ++n) {
                        const uint4 b = __ldg(bank.taps[o] + at + n * 32);
#pragma unroll
                        for (int rt = 0; rt < MT; ++rt) {
                            mma_f16(hi[o][rt][n], a[rt], b.x, b.y);
                            mma_f16(lo[o][rt][n], a[rt], b.z, b.w);
                        }
                    }
                }
        };
        if constexpr (SMALL_D) { // several paddings a chunk: four cursors
            ddc_tensor::a_cursor cur[4];
#pragma unroll
            for (int q = 0; q < 4; ++q)
                cur[q].start(sh, wo + ddc_tensor::a_sample(sh, lane, q, 0));
            for (int chunk = 0; chunk < sh.chunks; ++chunk) {
                uint32_t a[MT][4]; // (MT = 1: make_shape)
#pragma unroll
                for (int q = 0; q < 4; ++q) {
                    a[0][q] = *reinterpret_cast<const uint32_t*>(tile + cur[q].at);
                    cur[q].advance(sh);
                }
                mma_chunk(chunk, a);
            }
        } else { // one cursor for the four pairs (ddc_tensor::a_walker)
            const uint32_t base = uint32_t(__cvta_generic_to_shared(tile));
            ddc_tensor::a_walker wk;
            wk.start(sh, wo + ddc_tensor::a_sample(sh, lane, 0, 0));
            // A chunk's A fragments, the walker moved on to the next chunk.
            auto load_a = [&](uint32_t(&a)[MT][4]) {
                // a_walker::place, in bytes from the two cursors' addresses
                // (the row offsets are loop-invariant).
                const uint32_t a0 = base + 2u * uint32_t(wk.at),
                               a2 = base + 2u * uint32_t(wk.at2(sh));
#pragma unroll
                for (int rt = 0; rt < MT; ++rt)
#pragma unroll
                    for (int q = 0; q < 4; ++q)
                        a[rt][q] = lds32(((q >> 1) ? a2 : a0) +
                                         2u * uint32_t(wk.row_offset(q, rt)));
                wk.advance(sh);
            };
            if constexpr (BANK > 1) {
                for (int chunk = 0; chunk < sh.chunks; ++chunk) {
                    uint32_t a[MT][4];
                    load_a(a);
                    mma_chunk(chunk, a);
                }
            } else {
                // One output, pipelined by one chunk: chunk c + 1's A
                // fragments (shared memory) and B fragments (the taps
                // image) are loaded before chunk c's MMAs, in source order,
                // which the volatile A loads and MMAs keep (the SASS shows
                // it held): the sm_90 SASS of 2026-11-28 had each chunk's B
                // load reach its HMMA 16-24 instructions later and its A
                // loads 4-12, the next chunk's loads waiting for registers.
                // The same MMAs in the same order: the same sums. (Not for
                // a bank: its B fragments for 8 outputs would take ~50 more
                // registers and halve its blocks an SM.)
                auto load_b = [&](int chunk, uint4(&b)[NT]) {
                    const int at = skip + chunk * NT * 32 + lane;
#pragma unroll
                    for (int n = 0; n < NT; ++n)
                        b[n] = __ldg(bank.taps[0] + at + n * 32);
                };
                uint32_t a[MT][4];
                uint4 b[NT];
                load_a(a);
                load_b(0, b);
                for (int chunk = 0; chunk < sh.chunks; ++chunk) {
                    uint32_t a_next[MT][4];
                    uint4 b_next[NT];
                    const bool more = chunk + 1 < sh.chunks;
                    if (more) {
                        load_a(a_next);
                        load_b(chunk + 1, b_next);
                    }
#pragma unroll
                    for (int n = 0; n < NT; ++n)
#pragma unroll
                        for (int rt = 0; rt < MT; ++rt) {
                            mma_f16(hi[0][rt][n], a[rt], b[n].x, b[n].y);
                            mma_f16(lo[0][rt][n], a[rt], b[n].z, b[n].w);
                        }
                    if (more) {
#pragma unroll
                        for (int rt = 0; rt < MT; ++rt)
#pragma unroll
                            for (int q = 0; q < 4; ++q)
                                a[rt][q] = a_next[rt][q];
#pragma unroll
                        for (int n = 0; n < NT; ++n)
                            b[n] = b_next[n];
                    }
                }
            }
        }

#pragma unroll
        for (int o = 0; o < BANK; ++o) {
            if (o >= bank.count)
                break;
            const float unscale = __ldg(reinterpret_cast<const float*>(bank.taps[o]));
#pragma unroll
            for (int rt = 0; rt < MT; ++rt)
#pragma unroll
                for (int n = 0; n < NT; ++n)
#pragma unroll
                    for (int half = 0; half < 2; ++half) {
                        const unsigned long long m =
                            (unsigned long long)(m_blk + warp * warp_outputs +
                                                 ddc_tensor::out_of(
                                                     sh, lane, half, n, rt));
                        if (m < (unsigned long long)lead || m >= n_outputs)
                            continue; // the lead's outputs only align the others
                        const ddc_cf y = ddc_rotate_output(
                            ddc_tensor::combine(hi[o][rt][n][2 * half],
                                                hi[o][rt][n][2 * half + 1],
                                                lo[o][rt][n][2 * half],
                                                lo[o][rt][n][2 * half + 1],
                                                unscale),
                            first_output + m,
                            sh.D,
                            bank.phase_step[o],
                            bank.phase_offset[o]);
                        bank.out[o][m - lead] = make_float2(y.re, y.im);
                    }
        }
    };

    if constexpr (!RING) {
        const long long m_blk = (long long)blockIdx.x * sh.outputs();
        decode(m_blk, [&](const ddc_tensor::block_words& bw) {
            const auto* w0 = reinterpret_cast<const uint32_t*>(in + bw.byte_of(0, mis));
            return [w0](int w) { return __ldg(w0 + w); };
        });
        __syncthreads();
        compute(m_blk);
    } else {
        // One stage (ddc_ring.h's schedule with stages = 1): tile j + 1's
        // bytes fly while tile j is computed.
        constexpr int stages = 1;
        unsigned char* stage = smem + ddc_tensor::ring_stage_offset(sh);
        const long long tiles =
            (long long)((n_outputs + sh.outputs() - 1) / sh.outputs());
        const int addr16 = int(reinterpret_cast<uintptr_t>(in) & 15);
        const ddc_ring_bytes readable =
            ddc_tensor::launch_bytes(first_sample, valid_from, valid_to);
        auto window_of = [&](long long i) {
            return ddc_ring_window_of(
                ddc_tensor::ring_needed(sh,
                                        first_sample,
                                        valid_from,
                                        valid_to,
                                        first_sample + i * sh.outputs() * sh.D,
                                        mis),
                addr16);
        };
        auto issue = [&](int j) {
            const long long i = ddc_ring_tile(blockIdx.x, j, gridDim.x);
            if (i < tiles)
                ddc_ring_fill(stage, in, window_of(i), readable, threadIdx.x, blockDim.x);
            copy_commit();
        };
        for (int j = 0; j < stages; ++j)
            issue(j);
        for (int j = 0;; ++j) {
            const long long i = ddc_ring_tile(blockIdx.x, j, gridDim.x);
            if (i >= tiles)
                break;
            copy_wait<ddc_ring_in_flight(stages)>();
            __syncthreads(); // the bytes landed; the last tile's MMAs are done
            const long long m_blk = i * sh.outputs();
            const long long base = window_of(i).base;
            decode(m_blk, [&](const ddc_tensor::block_words& bw) {
                // (4-byte aligned in the stage as in memory)
                const auto* w0 = reinterpret_cast<const uint32_t*>(
                    stage + (bw.byte_of(0, mis) - base));
                return [w0](int w) { return w0[w]; };
            });
            __syncthreads(); // the tile is whole, the stage free
            issue(ddc_ring_next(j, stages));
            compute(m_blk);
        }
    }
#endif
}

// The kernel for one form: a bank of ddc_tensor_bank_max(NT, MT) outputs
// or one.
template <bool BANK, bool RING, int NT, int MT, bool SMALL_D = false>
const void* kernel_of()
{
    constexpr int bank = BANK ? ddc_tensor_bank_max(NT, MT) : 1;
    return reinterpret_cast<const void*>(ddc_tensor_kernel<SMALL_D, bank, RING, NT, MT>);
}
template <bool BANK, bool RING>
const void* kernel_of(const ddc_tensor::shape& sh)
{
    if (sh.nt == 2)
        return sh.mt == 2 ? kernel_of<BANK, RING, 2, 2>() : kernel_of<BANK, RING, 2, 1>();
    if (sh.mt == 2)
        return kernel_of<BANK, RING, 1, 2>();
    return sh.small_d() ? kernel_of<BANK, RING, 1, 1, true>()
                        : kernel_of<BANK, RING, 1, 1>();
}
// The kernel for a shape (its SMALL_D, NT and MT; NT or MT = 2 only where
// KD >= 16, make_shape), a bank or one output, the ring form or not.
const void* kernel_for(const ddc_tensor::shape& sh, bool ring, bool bank)
{
    return ring ? (bank ? kernel_of<true, true>(sh) : kernel_of<false, true>(sh))
                : (bank ? kernel_of<true, false>(sh) : kernel_of<false, false>(sh));
}

} // namespace

bool ddc_tensor_built()
{
    std::vector<const void*> kernels;
    for (const auto& sh : { ddc_tensor::make_shape(1, 1),
                            ddc_tensor::make_shape(16, 16, 1, 1),
                            ddc_tensor::make_shape(16, 16, 2, 1),
                            ddc_tensor::make_shape(16, 16, 1, 2),
                            ddc_tensor::make_shape(16, 16, 2, 2) })
        for (const bool ring : { false, true })
            for (const bool bank : { false, true })
                kernels.push_back(kernel_for(sh, ring, bank));
    for (const void* kernel : kernels) {
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

int ddc_tensor_blocks_per_sm(const ddc_tensor::shape& sh, bool ring, bool bank)
{
    int per_sm = 0;
    const void* kernel = kernel_for(sh, ring, bank);
    const cudaError_t r = cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &per_sm,
        kernel,
        sh.threads(),
        ring ? ddc_tensor::ring_smem_bytes(sh) : sh.smem_bytes());
    if (r != cudaSuccess) {
        cudaGetLastError(); // a refused query leaves nothing behind
        return 0;
    }
    return per_sm;
}

bool ddc_tensor_ring_prepare(const ddc_tensor::shape& sh, int optin)
{
    if (ddc_tensor::ring_smem_bytes(sh) > std::size_t(optin))
        return false;
    // Per kernel and process-wide: the device's limit, whatever this shape
    // needs, so that plans never lower it for others.
    for (const void* kernel : { kernel_for(sh, true, false), kernel_for(sh, true, true) })
        if (cudaFuncSetAttribute(kernel,
                                 cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 optin) != cudaSuccess) {
            cudaGetLastError();
            return false;
        }
    return true;
}

void launch_ddc_tensor(const ddc_tensor::shape& sh,
                       const void* in,
                       long long first_sample,
                       long long valid,
                       const ddc_tensor_bank& bank,
                       unsigned long long first_output,
                       std::size_t n,
                       unsigned ring_grid,
                       cudaStream_t stream)
{
    // The launch starts `lead` outputs early (ddc_tensor::lead_of): its
    // output 0 is absolute output first_output - lead, whose window starts
    // lead D samples before the caller's; those samples are never read.
    if (!sh.warps || bank.count < 1 || bank.count > ddc_tensor_bank_max(sh.nt, sh.mt))
        throw std::invalid_argument(
            "launch_ddc_tensor: a bank of " + std::to_string(bank.count) +
            " outputs for a shape of " + std::to_string(sh.nt) + " column tiles, " +
            std::to_string(sh.mt) + " row tiles and " + std::to_string(sh.warps) +
            " warps");
    const int lead = ddc_tensor::lead_of(sh, first_output);
    const unsigned long long count = n + lead;
    const unsigned tiles = unsigned((count + sh.outputs() - 1) / sh.outputs());
    // The ring form: at most the blocks that fit at once, persistent.
    const unsigned blocks = ring_grid ? std::min(tiles, ring_grid) : tiles;
    const std::size_t smem =
        ring_grid ? ddc_tensor::ring_smem_bytes(sh) : sh.smem_bytes();
    const uint8_t* src = static_cast<const uint8_t*>(in);
    const long long back = (long long)lead * sh.D;
    // The kernel for the shape, bank and form (kernel_for: its template
    // arguments), launched through its pointer; an error is the stream's
    // last error, as a <<<>>> launch's.
    const void* kernel = kernel_for(sh, ring_grid != 0, bank.count > 1);
    long long from = first_sample - back, valid_from = back, valid_to = back + valid;
    ddc_tensor_bank b = bank;
    ddc_tensor::shape shp = sh;
    unsigned long long first = first_output - lead, outputs = count;
    int lead_arg = lead;
    void* args[] = { &src, &from,  &valid_from, &valid_to, &b,
                     &shp, &first, &lead_arg,   &outputs };
    cudaLaunchKernel(
        kernel, dim3(blocks), dim3(unsigned(sh.threads())), args, smem, stream);
}

} // namespace kernels
} // namespace gpudsp
} // namespace gr
