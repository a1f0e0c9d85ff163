/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The X-engine's persistent warp-specialized Gram kernel for Hopper
// (sm_90a; docs/xengine.md, "wgmma gram"): TMA loads into a ring of
// 128-byte-swizzled stages on mbarriers, one producer thread, two wgmma
// warpgroups, a persistent grid over the lower-triangular tiles of every
// launch channel, and an epilogue of bulk reduction copies that runs while
// the warpgroup's next tile computes; its direct variant (the producer
// warpgroup transposes the input itself) and its channel variant (a block
// forms all of a channel's rows, up to 128 inputs, its two warpgroups
// transposing; the blocks share the channels' stages). Index arithmetic: xengine_ws.h
// (emulated on the host by qa_xengine_gram). Compiled only as sm_90a code (wgmma and
// setmaxnreg exist only in the arch-specific target), like xengine_wgmma.cu.

#include "xengine_ws.h"
#include "xengine_ws_cuda.h"
#include <cuda.h>
#include <cuda/ptx>
#include <cudaTypedefs.h>
#include <type_traits>
#include <mutex>

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define GPUDSP_WS_BODY 1
#include "xengine_wgmma_ops.cuh"
#endif

namespace gr {
namespace gpudsp {
namespace kernels {

static_assert(sizeof(xws_map) == sizeof(CUtensorMap) &&
                  alignof(xws_map) >= alignof(CUtensorMap),
              "xws_map holds a CUtensorMap");

namespace {

#ifdef GPUDSP_WS_BODY
namespace ptx = cuda::ptx;

template <int N>
__device__ __forceinline__ void wgmma(int (&d)[N / 2], uint64_t a, uint64_t b, int acc)
{
    static_assert(N == 64 || N == 128 || N == 192 || N == 256, "the wgmma shapes built");
    if constexpr (N == 64)
        wgmma_m64n64(d, a, b, acc);
    else if constexpr (N == 128)
        wgmma_m64n128(d, a, b, acc);
    else if constexpr (N == 192)
        wgmma_m64n192(d, a, b, acc);
    else
        wgmma_m64n256(d, a, b, acc);
}

__device__ __forceinline__ void named_barrier(int id)
{
    // The 128 threads of one warpgroup (barrier 0 is __syncthreads).
    asm volatile("bar.sync %0, 128;\n" ::"r"(id) : "memory");
}

// Barrier 0 for the whole block where its warpgroups reach it from
// different code (the channel kernel's two instantiations of channel_loop):
// PTX's aligned form (__syncthreads) asks every thread to execute the same
// instruction.
__device__ __forceinline__ void block_barrier()
{
    asm volatile("barrier.sync 0;\n" ::: "memory");
}

// The accumulators are written by the MMAs behind the compiler's back: pin
// every read of them below the wait (wgmma.wait_group) that precedes this.
template <int K>
__device__ __forceinline__ void pin(int (&d)[K])
{
#pragma unroll
    for (int i = 0; i < K; ++i)
        asm volatile("" : "+r"(d[i])::"memory");
}

// A stage's wait lasts microseconds; one of seconds is a broken protocol.
// Trap then (the launch fails with an error the plan reports) rather than
// hang the process: this kernel has not run on a GPU yet, and a hung tuner
// sweep would cost a GPU session its minutes.
constexpr long long wait_limit_clocks = 1ll << 33; // ~4 s at 2 GHz

__device__ __forceinline__ void wait_parity(uint64_t* bar, uint32_t parity)
{
    if (ptx::mbarrier_try_wait_parity(bar, parity))
        return;
    const long long start = clock64();
    while (!ptx::mbarrier_try_wait_parity(bar, parity))
        if (clock64() - start > wait_limit_clocks)
            __trap();
}

// An MMA warpgroup's epilogue (xengine_ws.h): its results G(a, b) for the
// 32 inputs a0 .. and the N / 2 inputs b0 .. combined into (re, im) pairs,
// staged as the runs of pairs the partials hold, each run added by one bulk
// reduction copy (its unaligned ends by atomics). Warpgroup h's staging is
// free once its previous bulk copies have read it.
template <int N>
__device__ __forceinline__ void epilogue(const int (&d)[N / 2],
                                         int a0,
                                         int b0,
                                         int n_inputs,
                                         long long channel_pairs0,
                                         unsigned char* staging,
                                         int* part,
                                         int h)
{
    const int warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
    if (warp == 0)
        ptx::cp_async_bulk_wait_group_read(ptx::n32_t<0>{});
    named_barrier(1 + h);
    // This thread's two rows' shifts (accumulators i with (i / 2) % 2 = 0
    // and 1).
    int shift[2];
#pragma unroll
    for (int r = 0; r < 2; ++r)
        shift[r] = xws_row_run(a0 + xws_result(warp, lane, 2 * r).a_local,
                               b0,
                               N,
                               n_inputs,
                               channel_pairs0)
                       .shift;
#pragma unroll
    for (int i = 0; i < N / 2; i += 2) {
        const int32_t other = __shfl_xor_sync(0xffffffffu, d[i + 1], 4);
        const xws_result_at at = xws_result(warp, lane, i);
        *reinterpret_cast<int32_t*>(
            staging +
            xws_staging_offset<N>(at.a_local, at.b_local, at.part, shift[(i >> 1) & 1])) =
            xws_combine(at.part, d[i], other);
    }
    // Generic-proxy writes, read next by the bulk copies (async proxy).
    ptx::fence_proxy_async(ptx::space_shared);
    named_barrier(1 + h);
    if (warp == 0) {
        // Lane = staging row = input a0 + lane: its run of pairs.
        const xws_run run = xws_row_run(a0 + lane, b0, N, n_inputs, channel_pairs0);
        const int32_t* row =
            reinterpret_cast<const int32_t*>(staging + lane * xws_staging_pitch(N)) +
            2 * run.shift;
        int* p = part + 2 * run.pair0;
        if (run.head) {
            atomicAdd(p, row[0]);
            atomicAdd(p + 1, row[1]);
        }
        if (run.body > 0)
            ptx::cp_reduce_async_bulk(ptx::space_global,
                                      ptx::space_shared,
                                      ptx::op_add,
                                      p + 2 * run.head,
                                      row + 2 * run.head,
                                      uint32_t(run.body * 8));
        if (run.tail) {
            const int e = 2 * (run.head + run.body);
            atomicAdd(p + e, row[e]);
            atomicAdd(p + e + 1, row[e + 1]);
        }
        ptx::cp_async_bulk_commit_group();
    }
}

// 8 x 8-byte blocks of raw boxes into their operand rows (xengine_ws.h,
// "The direct variant"): block k's raw rows at from[k] + 128 i, its rows of
// Y at to[k] + xwd_store_offset(store[k], j); every load issued before the
// first permute.
template <int NB>
__device__ __forceinline__ void transpose_blocks(const unsigned char* const (&from)[NB],
                                                 unsigned char* const (&to)[NB],
                                                 const int (&store)[NB])
{
    uint2 in[NB][8];
#pragma unroll
    for (int k = 0; k < NB; ++k)
#pragma unroll
        for (int i = 0; i < 8; ++i)
            in[k][i] = *reinterpret_cast<const uint2*>(from[k] + 128 * i);
#pragma unroll
    for (int k = 0; k < NB; ++k) {
        uint32_t words[16], out[16];
#pragma unroll
        for (int i = 0; i < 8; ++i) {
            words[2 * i] = in[k][i].x;
            words[2 * i + 1] = in[k][i].y;
        }
        xwd_transpose8(words, out);
#pragma unroll
        for (int j = 0; j < 8; ++j)
            *reinterpret_cast<uint2*>(to[k] + xwd_store_offset(store[k], j)) =
                make_uint2(out[2 * j], out[2 * j + 1]);
    }
}

// The direct kernel's producer warpgroup (xengine_ws.h, "The direct
// variant"): thread 0 keeps raw_stages - 1 iterations of TMA boxes of the
// input in flight; all 128 threads transpose each iteration's boxes into
// its operand stage and thread 0 signals it.
//
// A stage's work is short (one or two boxes: 8 or 16 loads, 32 or 64 byte
// permutes and 8 or 16 stores a thread) and one warp of each scheduler does
// it, so it is written for latency: the thread's addresses are computed
// once (xwd_blocks_of), a box's 16 loads issue before its first permute,
// and the tiles and ring slots advance by counters (no 64-bit division or
// tile decode a stage).
template <int BN>
__device__ __forceinline__ void produce_direct(const CUtensorMap& x_map,
                                               unsigned char* ring,
                                               uint64_t* full,
                                               uint64_t* empty,
                                               uint64_t* raw_full,
                                               long long n_tiles,
                                               long long per_channel,
                                               int k_blocks,
                                               int n_rows,
                                               int channel0)
{
    using S = xws_shape<BN, true>;
    constexpr int box_bytes = xws_box_rows * xws_bk;
    const int ptid = threadIdx.x; // 0 .. 127
    const long long my_tiles =
        n_tiles > blockIdx.x ? (n_tiles - blockIdx.x + gridDim.x - 1) / gridDim.x : 0;
    unsigned char* raw_ring = ring + S::stages * S::stage_bytes;
    // This block's iterations in order (xwd_walk) with their tile, decoded
    // once per tile.
    struct walk : xwd_walk {
        xws_tile w{};
    };
    auto decode = [&](walk& v) {
        if (v.tile < my_tiles)
            v.w = xws_tile_at(blockIdx.x + v.tile * gridDim.x, per_channel, BN);
    };
    auto step = [&](walk& v, int ring_slots) {
        if (v.advance(k_blocks, ring_slots))
            decode(v);
    };
    auto issue = [&](const walk& v) {
        int b_boxes;
        const uint32_t tx = uint32_t(xws_stage_tx(v.w, BN, n_rows, b_boxes));
        ptx::mbarrier_arrive_expect_tx(
            ptx::sem_release, ptx::scope_cta, ptx::space_shared, &raw_full[v.slot], tx);
        unsigned char* slot = raw_ring + v.slot * S::stage_bytes;
        const int t0 = v.kb * xws_bk, c = channel0 + v.w.lc;
        if (!v.w.inner) {
            const int32_t at[3] = { v.w.i * xws_bm, c, t0 };
            ptx::cp_async_bulk_tensor(ptx::space_cluster,
                                      ptx::space_global,
                                      slot,
                                      &x_map,
                                      at,
                                      &raw_full[v.slot]);
        }
        for (int q = 0; q < b_boxes; ++q) {
            const int32_t at[3] = { v.w.j * BN + q * xws_box_rows, c, t0 };
            ptx::cp_async_bulk_tensor(ptx::space_cluster,
                                      ptx::space_global,
                                      slot + S::a_bytes + q * box_bytes,
                                      &x_map,
                                      at,
                                      &raw_full[v.slot]);
        }
    };
    const xwd_thread_blocks mine = xwd_blocks_of(ptid);
    const long long total = my_tiles * k_blocks;
    // TMA's next iteration, and this one: its raw slot and operand stage
    // are the same slot of rings of the same length.
    static_assert(S::raw_stages == S::stages, "one slot counter for both rings");
    walk issued, cur;
    if (ptid == 0)
        decode(issued);
    decode(cur);
    if (ptid == 0)
        for (long long j = 0; j < S::raw_stages - 1 && j < total; ++j) {
            issue(issued);
            step(issued, S::raw_stages);
        }
    for (long long it = 0; it < total; ++it) {
        // The raw slot it refills was read in iteration it - 1: every
        // producer thread's reads of it are ordered before this async-proxy
        // write by its fence.proxy.async and the barrier that ended that
        // iteration (the fence below must stay after the reads and
        // unconditional).
        if (ptid == 0 && it + S::raw_stages - 1 < total) {
            issue(issued);
            step(issued, S::raw_stages);
        }
        wait_parity(&raw_full[cur.slot], cur.phase);
        wait_parity(&empty[cur.slot], cur.phase ^ 1);
        const unsigned char* slot = raw_ring + cur.slot * S::stage_bytes;
        unsigned char* stage = ring + cur.slot * S::stage_bytes;
        // Boxes in the slot and the stage at the same offsets: A (unless
        // inner), then B's (one: BN = 128, and a B box starts at or below
        // the A rows, inside them).
        for (int box = cur.w.inner ? 1 : 0; box < 2; ++box) {
            const unsigned char* from = slot + box * box_bytes;
            unsigned char* to = stage + box * box_bytes;
            transpose_blocks<2>({ from + mine.load[0], from + mine.load[1] },
                                { to, to },
                                { mine.store[0], mine.store[1] });
        }
        // Generic-proxy writes, read next by the wgmma (async proxy); and
        // the raw slot's generic reads before TMA refills it.
        ptx::fence_proxy_async(ptx::space_shared);
        named_barrier(3);
        if (ptid == 0)
            ptx::mbarrier_arrive(&full[cur.slot]);
        step(cur, S::stages);
    }
}
#endif

// DIRECT: y_map is the input's map (xwd_map_for), the producer warpgroup
// packs (produce_direct); else Y's (xws_map_for), TMA alone.
template <int BN, bool DIRECT>
__global__ void __launch_bounds__(xws_threads, 1)
    xcorr_ws(const __grid_constant__ CUtensorMap y_map,
             long long n_tiles,     // tiles of the launch (every channel)
             long long per_channel, // tiles of one launch channel
             int k_blocks,          // stages of xws_bk spectra
             int n_rows,            // rows of Y
             int n_inputs,
             int channel0,
             int* __restrict__ part) // int32 partials [c][pair][re, im]
{
#ifdef GPUDSP_WS_BODY
    using S = xws_shape<BN, DIRECT>;
    extern __shared__ unsigned char smem_raw[];
    // The ring 1024-byte aligned: the swizzle's atom (TMA writes and wgmma
    // reads the pattern from address bits 4..9).
    const uint32_t raw = uint32_t(__cvta_generic_to_shared(smem_raw));
    unsigned char* ring = smem_raw + ((1024 - raw % 1024) % 1024);
    unsigned char* staging = ring + S::ring_bytes;
    uint64_t* full = reinterpret_cast<uint64_t*>(staging + 2 * S::staging_bytes);
    uint64_t* empty = full + S::stages;
    uint64_t* raw_full = empty + S::stages; // DIRECT
    if (threadIdx.x == 0) {
        for (int s = 0; s < S::stages; ++s) {
            ptx::mbarrier_init(&full[s], 1); // the producer's arrive (+ bytes)
            ptx::mbarrier_init(&empty[s], xws_consumer_warps);
        }
        for (int r = 0; r < S::raw_stages; ++r)
            ptx::mbarrier_init(&raw_full[r], 1); // arrive + bytes
        ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
    }
    __syncthreads();
    const int wg = threadIdx.x / 128;

    if constexpr (DIRECT) {
        // The producer warpgroup transposes a box's two blocks with their 16
        // loads in flight: it keeps S::producer_regs (104).
        if (wg == 0) {
            asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(S::producer_regs)
                         : "memory");
            produce_direct<BN>(y_map,
                               ring,
                               full,
                               empty,
                               raw_full,
                               n_tiles,
                               per_channel,
                               k_blocks,
                               n_rows,
                               channel0);
            return;
        }
        asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(S::mma_regs)
                     : "memory");
    } else if (wg == 0) {
        // Producer: one thread issues every copy; the warpgroup gives its
        // registers to the MMA warpgroups.
        asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(S::producer_regs)
                     : "memory");
        if (threadIdx.x != 0)
            return;
        uint32_t it = 0;
        for (long long t = blockIdx.x; t < n_tiles; t += gridDim.x) {
            const xws_tile w = xws_tile_at(t, per_channel, BN);
            int b_boxes;
            const uint32_t tx = uint32_t(xws_stage_tx(w, BN, n_rows, b_boxes));
            for (int kb = 0; kb < k_blocks; ++kb, ++it) {
                const int s = int(it % S::stages);
                // Free once the MMAs of its previous round are done (a new
                // barrier's "previous phase", parity 1, counts as done).
                wait_parity(&empty[s], ((it / S::stages) & 1) ^ 1);
                ptx::mbarrier_arrive_expect_tx(
                    ptx::sem_release, ptx::scope_cta, ptx::space_shared, &full[s], tx);
                unsigned char* stage = ring + s * S::stage_bytes;
                const int k0 = kb * xws_bk;
                if (!w.inner) {
                    const int32_t at[3] = { k0, w.i * xws_bm, w.lc };
                    ptx::cp_async_bulk_tensor(ptx::space_cluster,
                                              ptx::space_global,
                                              stage,
                                              &y_map,
                                              at,
                                              &full[s]);
                }
                for (int q = 0; q < b_boxes; ++q) {
                    const int32_t at[3] = { k0, w.j * BN + q * xws_box_rows, w.lc };
                    ptx::cp_async_bulk_tensor(ptx::space_cluster,
                                              ptx::space_global,
                                              stage + S::a_bytes +
                                                  q * xws_box_rows * xws_bk,
                                              &y_map,
                                              at,
                                              &full[s]);
                }
            }
        }
        return;
    } else {
        asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(S::mma_regs)
                     : "memory");
    }

    // MMA warpgroup h: rows 64 h .. 64 h + 63 of each tile.
    const int h = wg - 1, warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
    unsigned char* my_staging = staging + h * S::staging_bytes;
    const uint32_t ring_at = uint32_t(__cvta_generic_to_shared(ring));
    const long long pairs = (long long)n_inputs * (n_inputs + 1) / 2;
    int d[S::regs];
    uint32_t it = 0;
    for (long long t = blockIdx.x; t < n_tiles; t += gridDim.x) {
        const xws_tile w = xws_tile_at(t, per_channel, BN);
        const uint32_t a_off =
            (w.inner ? S::a_bytes + w.a_in_b * xws_bk : 0) + h * xws_rows_per_wg * xws_bk;
        for (int kb = 0; kb < k_blocks; ++kb, ++it) {
            const int s = int(it % S::stages);
            wait_parity(&full[s], (it / S::stages) & 1);
            const uint32_t stage = ring_at + s * S::stage_bytes;
            const uint64_t da = xws_desc(stage + a_off),
                           db = xws_desc(stage + S::a_bytes);
            asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll
            for (int kk = 0; kk < xws_bk / xws_k_step; ++kk)
                wgmma<BN>(d, da + 2 * kk, db + 2 * kk, (kb | kk) != 0);
            asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
            // The previous stage's MMAs are done (the wait is warp-wide):
            // one arrival a warp frees it.
            asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory");
            if (kb > 0 && lane == 0)
                ptx::mbarrier_arrive(&empty[(it - 1) % S::stages]);
        }
        asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
        pin(d);
        if (lane == 0)
            ptx::mbarrier_arrive(&empty[(it - 1) % S::stages]);

        // Epilogue.
        epilogue<BN>(d,
                     w.i * (xws_bm / 2) + h * xws_inputs_per_wg,
                     w.j * (BN / 2),
                     n_inputs,
                     (long long)(channel0 + w.lc) * pairs,
                     my_staging,
                     part,
                     h);
    }
    // The last bulk copies complete before the kernel ends.
    if (warp == 0)
        ptx::cp_async_bulk_wait_group(ptx::n32_t<0>{});
#endif
}

#ifdef GPUDSP_WS_BODY
// The channel kernel (xengine_ws.h, "The channel variant"), warpgroup h of
// the two: its row groups' wgmmas (N0 and N1 B rows; 0: none), its share of
// every stage's transpose (block threadIdx.x of each box), its epilogues.
// x_map is the input's map (xwd_map_for); block b forms its share of the
// channels' stages (xwc_share_of).
template <int N0, int N1>
__device__ __forceinline__ void channel_loop(int h,
                                             const CUtensorMap& x_map,
                                             unsigned char* ring,
                                             unsigned char* staging,
                                             uint64_t* raw_full,
                                             long long n_channels,
                                             int k_blocks,
                                             int boxes,
                                             int n_inputs,
                                             int* part)
{
    using S = xwc_shape;
    constexpr int g0 = N0 / xwc_group_rows - 1, g1 = N1 / xwc_group_rows - 1;
    constexpr bool any = N0 > 0 || N1 > 0;
    const int tid = threadIdx.x;
    unsigned char* raw_ring = ring + S::stages * S::stage_bytes;
    const uint32_t ring_at = uint32_t(__cvta_generic_to_shared(ring));
    // This block's stages (xwc_share_of), from stage kb_first of channel
    // c_first on.
    const xwc_share share = xwc_share_of(n_channels * k_blocks, blockIdx.x, gridDim.x);
    const long long total = share.end - share.begin,
                    pairs = (long long)n_inputs * (n_inputs + 1) / 2;
    const long long c_first = share.begin / k_blocks;
    const int kb_first = int(share.begin - c_first * k_blocks);
    const uint32_t tx = uint32_t(boxes * S::box_bytes);
    // Thread 0: TMA's copies of iteration `issued` (channel tile, stage kb)
    // into its raw slot.
    xwd_walk issued;
    issued.tile = c_first;
    issued.kb = kb_first;
    long long n_issued = 0;
    auto issue = [&] {
        if (tid != 0 || n_issued >= total)
            return;
        ptx::mbarrier_arrive_expect_tx(ptx::sem_release,
                                       ptx::scope_cta,
                                       ptx::space_shared,
                                       &raw_full[issued.slot],
                                       tx);
        unsigned char* slot = raw_ring + issued.slot * S::stage_bytes;
        const int c = int(issued.tile);
        for (int q = 0; q < boxes; ++q) {
            const int32_t at[3] = { q * xws_box_rows, c, issued.kb * xws_bk };
            ptx::cp_async_bulk_tensor(ptx::space_cluster,
                                      ptx::space_global,
                                      slot + q * S::box_bytes,
                                      &x_map,
                                      at,
                                      &raw_full[issued.slot]);
        }
        issued.advance(k_blocks, S::raw_stages);
        ++n_issued;
    };
    // Every thread: its block of each box of iteration `next` into operand
    // stage o, once the copies have landed.
    const xwd_block_at mine = xwd_block_of(tid);
    xwd_walk next;
    auto transpose = [&](int o) {
        wait_parity(&raw_full[next.slot], next.phase);
        const unsigned char* raw = raw_ring + next.slot * S::stage_bytes + mine.load;
        unsigned char* op = ring + o * S::stage_bytes;
        if (boxes == 2)
            transpose_blocks<2>({ raw, raw + S::box_bytes },
                                { op, op + S::box_bytes },
                                { mine.store, mine.store });
        else
            transpose_blocks<1>({ raw }, { op }, { mine.store });
        next.advance(k_blocks, S::raw_stages);
    };
    for (int j = 0; j < S::raw_stages; ++j)
        issue();
    if (total > 0)
        transpose(0);
    // Generic-proxy writes, read next by the wgmmas (async proxy); and the
    // raw slot's generic reads before TMA refills it.
    ptx::fence_proxy_async(ptx::space_shared);
    block_barrier();
    issue();

    int d0[N0 > 0 ? N0 / 2 : 1], d1[N1 > 0 ? N1 / 2 : 1];
    long long it = 0;
    for (long long c = c_first; it < total; ++c) {
        // The channel's stages in this block's share.
        const int kb0 = c == c_first ? kb_first : 0;
        const int kb1 = int(min((long long)k_blocks, kb0 + (total - it)));
        for (int kb = kb0; kb < kb1; ++kb, ++it) {
            const uint32_t stage = ring_at + uint32_t(it & 1) * S::stage_bytes;
            const uint64_t db = xws_desc(stage);
            // (A warpgroup without a group, at 32 inputs or fewer, issues
            // no wgmma: an empty commit group would make ptxas add one.)
            if constexpr (any)
                asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll
            for (int kk = 0; kk < xws_bk / xws_k_step; ++kk) {
                if constexpr (N0 > 0)
                    wgmma<N0>(d0,
                              xws_desc(stage + xwc_a_offset(g0)) + 2 * kk,
                              db + 2 * kk,
                              kb != kb0 || kk != 0);
                if constexpr (N1 > 0)
                    wgmma<N1>(d1,
                              xws_desc(stage + xwc_a_offset(g1)) + 2 * kk,
                              db + 2 * kk,
                              kb != kb0 || kk != 0);
            }
            if constexpr (any) {
                asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
                asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory");
            }
            // Both warpgroups' wgmmas of iteration it - 1 are done: its
            // operand stage takes iteration it + 1 while these run.
            block_barrier();
            if (it + 1 < total)
                transpose(int((it + 1) & 1));
            if (kb + 1 < kb1) {
                ptx::fence_proxy_async(ptx::space_shared);
                block_barrier();
                issue();
            }
        }
        if constexpr (any)
            asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
        if constexpr (N0 > 0)
            pin(d0);
        if constexpr (N1 > 0)
            pin(d1);
        const long long channel_pairs0 = c * pairs;
        if constexpr (N0 > 0)
            epilogue<N0>(d0,
                         g0 * xws_inputs_per_wg,
                         0,
                         n_inputs,
                         channel_pairs0,
                         staging,
                         part,
                         h);
        if constexpr (N1 > 0)
            epilogue<N1>(d1,
                         g1 * xws_inputs_per_wg,
                         0,
                         n_inputs,
                         channel_pairs0,
                         staging,
                         part,
                         h);
        // The share's last stage of the channel: the barrier after its
        // transpose.
        ptx::fence_proxy_async(ptx::space_shared);
        block_barrier();
        issue();
    }
    // The last bulk copies complete before the kernel ends.
    if (tid % 128 < 32)
        ptx::cp_async_bulk_wait_group(ptx::n32_t<0>{});
}
#endif

template <int G> // row groups: Y's rows, 64 a group
__global__ void __launch_bounds__(xwc_threads, 1)
    xcorr_wsc(const __grid_constant__ CUtensorMap x_map,
              long long n_channels,
              int k_blocks, // stages of xws_bk spectra
              int n_inputs,
              int* __restrict__ part) // int32 partials [c][pair][re, im]
{
#ifdef GPUDSP_WS_BODY
    using S = xwc_shape;
    extern __shared__ unsigned char smem_raw[];
    // The ring 1024-byte aligned: the swizzle's atom.
    const uint32_t raw = uint32_t(__cvta_generic_to_shared(smem_raw));
    unsigned char* ring = smem_raw + ((1024 - raw % 1024) % 1024);
    unsigned char* staging = ring + S::ring_bytes;
    uint64_t* raw_full =
        reinterpret_cast<uint64_t*>(staging + S::staging0_bytes + S::staging1_bytes);
    if (threadIdx.x == 0) {
        for (int r = 0; r < S::raw_stages; ++r)
            ptx::mbarrier_init(&raw_full[r], 1); // arrive + bytes
        ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
    }
    __syncthreads();
    constexpr int boxes = xwc_boxes(G * xwc_group_rows);
    // Warpgroup h's row groups, as template arguments (xwc_slot_n).
    const auto run = [&](auto n0, auto n1, int h, unsigned char* my_staging) {
        channel_loop<decltype(n0)::value, decltype(n1)::value>(h,
                                                               x_map,
                                                               ring,
                                                               my_staging,
                                                               raw_full,
                                                               n_channels,
                                                               k_blocks,
                                                               boxes,
                                                               n_inputs,
                                                               part);
    };
    using std::integral_constant;
    if (threadIdx.x < 128)
        run(integral_constant<int, xwc_slot_n(G, 0, 0)>{},
            integral_constant<int, xwc_slot_n(G, 0, 1)>{},
            0,
            staging);
    else
        run(integral_constant<int, xwc_slot_n(G, 1, 0)>{},
            integral_constant<int, xwc_slot_n(G, 1, 1)>{},
            1,
            staging + S::staging0_bytes);
#endif
}

// The channel kernel's instance for a channel of \p groups row groups.
using channel_kernel = void (*)(CUtensorMap, long long, int, int, int*);
channel_kernel channel_kernel_for(int groups)
{
    switch (groups) {
    case 1:
        return xcorr_wsc<1>;
    case 2:
        return xcorr_wsc<2>;
    case 3:
        return xcorr_wsc<3>;
    default:
        return xcorr_wsc<4>;
    }
}

const void* kernel_for(int bn, bool direct)
{
    if (direct)
        return reinterpret_cast<const void*>(xcorr_ws<128, true>);
    return bn == 256 ? reinterpret_cast<const void*>(xcorr_ws<256, false>)
                     : reinterpret_cast<const void*>(xcorr_ws<128, false>);
}

int smem_for(int bn, bool direct)
{
    if (direct)
        return xws_shape<128, true>::smem_bytes;
    return bn == 256 ? xws_shape<256>::smem_bytes : xws_shape<128>::smem_bytes;
}

PFN_cuTensorMapEncodeTiled_v12000 encode_function()
{
    // The driver's entry point through the runtime: no link to libcuda.
    static PFN_cuTensorMapEncodeTiled_v12000 fn = nullptr;
    static std::once_flag once;
    std::call_once(once, [] {
        void* f = nullptr;
        cudaDriverEntryPointQueryResult q{};
        if (cudaGetDriverEntryPointByVersion(
                "cuTensorMapEncodeTiled", &f, 12000, cudaEnableDefault, &q) ==
                cudaSuccess &&
            q == cudaDriverEntryPointSuccess)
            fn = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(f);
        else
            cudaGetLastError();
    });
    return fn;
}

} // namespace

namespace {

// Why \p kernel (\p smem bytes of shared memory a block, a register split
// of \p pool_needed registers a thread at entry) cannot run on \p device.
std::string unusable(int device, const void* kernel, int smem, int pool_needed)
{
    int major = 0, minor = 0;
    if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) !=
            cudaSuccess ||
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) !=
            cudaSuccess) {
        cudaGetLastError();
        return "cannot read the device's compute capability";
    }
    if (major != 9 || minor != 0)
        return "needs sm_90a (an H100 or H200)";
    cudaFuncAttributes attr{};
    if (cudaFuncGetAttributes(&attr, kernel) != cudaSuccess) {
        cudaGetLastError();
        return "no sm_90a image of the kernel in this build";
    }
    // setmaxnreg moves registers between the warpgroups within the block's
    // pool (registers at entry x 384): the MMA warpgroups' increase would
    // wait for ever on a smaller pool.
    if (attr.numRegs < pool_needed)
        return "compiled with " + std::to_string(attr.numRegs) +
               " registers a thread at entry, under the " + std::to_string(pool_needed) +
               " its register split needs";
    if (cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem) !=
        cudaSuccess) {
        cudaGetLastError();
        return "its " + std::to_string(smem) +
               " bytes of shared memory a block are refused";
    }
    if (!encode_function())
        return "the driver has no cuTensorMapEncodeTiled";
    return "";
}

} // namespace

std::string xengine_ws_unusable(int device, int bn, bool direct)
{
    const int pool_needed = direct      ? xws_shape<128, true>::entry_regs
                            : bn == 256 ? xws_shape<256>::entry_regs
                                        : xws_shape<128>::entry_regs;
    return unusable(device, kernel_for(bn, direct), smem_for(bn, direct), pool_needed);
}

std::string xengine_wsc_unusable(int device, int n_inputs)
{
    if (n_inputs < 1 || n_inputs > xwc_max_inputs)
        return "takes at most " + std::to_string(xwc_max_inputs) + " inputs";
    // No register split: any count at entry will do.
    return unusable(device,
                    reinterpret_cast<const void*>(
                        channel_kernel_for(xwc_groups(xgr_rows(n_inputs)))),
                    xwc_shape::smem_bytes,
                    0);
}

namespace {

std::string encode(xws_map& map,
                   const void* base,
                   const xws_map_shape& sh,
                   CUtensorMapSwizzle swizzle,
                   const std::string& what)
{
    const auto fn = encode_function();
    if (!fn)
        return "the driver has no cuTensorMapEncodeTiled";
    const cuuint64_t dims[3] = { sh.dims[0], sh.dims[1], sh.dims[2] };
    const cuuint64_t strides[2] = { sh.strides[0], sh.strides[1] };
    const cuuint32_t box[3] = { sh.box[0], sh.box[1], sh.box[2] };
    const cuuint32_t element_strides[3] = { 1, 1, 1 };
    const CUresult r = fn(reinterpret_cast<CUtensorMap*>(&map),
                          CU_TENSOR_MAP_DATA_TYPE_UINT8,
                          3,
                          const_cast<void*>(base),
                          dims,
                          strides,
                          box,
                          element_strides,
                          CU_TENSOR_MAP_INTERLEAVE_NONE,
                          swizzle,
                          CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                          CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS)
        return "cuTensorMapEncodeTiled failed (CUresult " + std::to_string(int(r)) +
               ") for " + what + " of " + std::to_string(sh.dims[0]) + " x " +
               std::to_string(sh.dims[1]) + " x " + std::to_string(sh.dims[2]) + " bytes";
    return "";
}

} // namespace

std::string xengine_ws_encode(xws_map& map, const void* y, int t_pad, int n_rows, int nc)
{
    return encode(
        map, y, xws_map_for(t_pad, n_rows, nc), CU_TENSOR_MAP_SWIZZLE_128B, "Y");
}

std::string xengine_ws_encode_input(
    xws_map& map, const void* x, int n_spectra, int n_channels, int n_inputs)
{
    return encode(map,
                  x,
                  xwd_map_for(n_spectra, n_channels, n_inputs),
                  CU_TENSOR_MAP_SWIZZLE_NONE,
                  "the input");
}

void xengine_ws_launch(int bn,
                       bool direct,
                       const xws_map& map,
                       int grid,
                       long long n_tiles,
                       long long per_channel,
                       int k_blocks,
                       int n_rows,
                       int n_inputs,
                       int channel0,
                       int* part,
                       cudaStream_t stream)
{
    const auto& m = *reinterpret_cast<const CUtensorMap*>(&map);
    if (direct)
        xcorr_ws<128, true><<<grid, xws_threads, smem_for(128, true), stream>>>(
            m, n_tiles, per_channel, k_blocks, n_rows, n_inputs, channel0, part);
    else if (bn == 256)
        xcorr_ws<256, false><<<grid, xws_threads, smem_for(256, false), stream>>>(
            m, n_tiles, per_channel, k_blocks, n_rows, n_inputs, channel0, part);
    else
        xcorr_ws<128, false><<<grid, xws_threads, smem_for(128, false), stream>>>(
            m, n_tiles, per_channel, k_blocks, n_rows, n_inputs, channel0, part);
}

void xengine_wsc_launch(const xws_map& map,
                        int grid,
                        long long n_channels,
                        int k_blocks,
                        int n_inputs,
                        int* part,
                        cudaStream_t stream)
{
    const auto& m = *reinterpret_cast<const CUtensorMap*>(&map);
    channel_kernel_for(xwc_groups(xgr_rows(n_inputs)))<<<grid,
                                                         xwc_threads,
                                                         xwc_shape::smem_bytes,
                                                         stream>>>(
        m, n_channels, k_blocks, n_inputs, part);
}

} // namespace kernels
} // namespace gpudsp
} // namespace gr
