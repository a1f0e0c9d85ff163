/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// runtime::sync_costs: one small kernel per case, each timing its rounds
// with the SM's cycle counter and the global nanosecond timer, read by the
// first thread of the first CTA (a barrier round ends for every thread at
// once; a read chain is the same length in every warp).

#include "cuda_check.h"
#include <gnuradio/gpudsp/runtime/backend.h>
#include <gnuradio/gpudsp/runtime/sync_costs.h>
#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include <stdexcept>

namespace gr {
namespace gpudsp {
namespace runtime {

namespace {

namespace cg = cooperative_groups;

// cluster_barrier: cooperative groups' cluster.sync(), what a kernel
// written plainly uses; cluster_release: barrier.cluster.arrive (release)
// and wait (acquire), PTX's defaults, enough for distributed shared-memory
// writes before the barrier to be seen after it; cluster_relaxed: the
// barrier alone (arrive.relaxed), no memory ordering.
enum probe {
    block_barrier,
    cluster_barrier,
    cluster_release,
    cluster_relaxed,
    remote_reads,
    local_reads
};

constexpr int ring_words = 32;

__device__ __forceinline__ unsigned long long global_ns()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

template <probe P = cluster_barrier>
__device__ __forceinline__ void cluster_sync()
{
#if __CUDA_ARCH__ >= 900
    if constexpr (P == cluster_release)
        asm volatile("barrier.cluster.arrive.aligned;\n\tbarrier.cluster.wait.aligned;" ::
                         : "memory");
    else if constexpr (P == cluster_relaxed)
        asm volatile(
            "barrier.cluster.arrive.relaxed.aligned;\n\tbarrier.cluster.wait.aligned;" ::
                : "memory");
    else
        cg::this_cluster().sync();
#endif
}

// out[0]: cycles, out[1]: nanoseconds of the rounds; sink keeps the read
// chains alive.
template <probe P>
__global__ void sync_probe(int rounds, long long* out, unsigned* sink)
{
    // A ring of 32 words, word w holding (w + 5) mod 32: a read chain
    // v = ring[v] visits every word (5 is odd) and each read waits for the
    // last.
    __shared__ unsigned ring[ring_words];
    if (threadIdx.x < ring_words)
        ring[threadIdx.x] = (threadIdx.x + 5) % ring_words;
    __syncthreads();
    if (P != block_barrier)
        cluster_sync(); // every CTA's ring written before any is read
    const volatile unsigned* src = ring;
#if __CUDA_ARCH__ >= 900
    if (P == remote_reads) {
        cg::cluster_group c = cg::this_cluster();
        src = c.map_shared_rank(ring, (c.block_rank() + 1) % c.num_blocks());
    }
#endif
    unsigned v = threadIdx.x % ring_words;
    const long long c0 = clock64();
    const unsigned long long t0 = global_ns();
    for (int r = 0; r < rounds; ++r) {
        if constexpr (P == block_barrier)
            __syncthreads();
        else if constexpr (P == remote_reads || P == local_reads)
            v = src[v];
        else
            cluster_sync<P>();
    }
    const long long c1 = clock64();
    const unsigned long long t1 = global_ns();
    if (P != block_barrier)
        cluster_sync(); // no CTA leaves while its ring may be read
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        out[0] = c1 - c0;
        out[1] = (long long)(t1 - t0);
    }
    if (v == ring_words) // never: keeps the chain
        *sink = v;
}

} // namespace

std::vector<sync_cost> sync_costs(int device, int rounds)
{
    const std::string who = "sync_costs";
    if (rounds < 1)
        throw std::invalid_argument(who + ": rounds must be at least 1");
    const auto ctx =
        device_context::get(backend_kind::cuda, device); // device_error if absent
    ctx->make_current();
    device_memory out(ctx, 2 * sizeof(long long), who), sink(ctx, sizeof(unsigned), who);
    auto* times = reinterpret_cast<long long*>(out.get());
    auto* kept = reinterpret_cast<unsigned*>(sink.get());

    std::vector<sync_cost> costs;
    // One launch of one cluster of `ctas` CTAs (1: no cluster); a
    // non-portable size (above 8) the device refuses is left out.
    const auto run = [&](auto kernel, int threads, int ctas, const std::string& what) {
        cudaLaunchAttribute attr;
        const cudaLaunchConfig_t cfg =
            cluster_launch_config(dim3(unsigned(ctas)), threads, ctas, 0, attr);
        if (ctas > 8)
            cudaFuncSetAttribute(
                kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
        cudaError_t err = cudaLaunchKernelEx(&cfg, kernel, rounds, times, kept);
        if (err == cudaSuccess)
            err = cudaDeviceSynchronize();
        if (err != cudaSuccess) {
            (void)cudaGetLastError(); // a refused configuration is not sticky
            if (ctas > 8)
                return; // a non-portable size this device does not take
            cuda_check(err, "sync probe", device, who);
        }
        long long t[2];
        cuda_check(cudaMemcpy(t, times, sizeof t, cudaMemcpyDeviceToHost),
                   "cudaMemcpy",
                   device,
                   who);
        costs.push_back({ what, double(t[0]) / rounds, double(t[1]) / rounds });
    };
    run(sync_probe<block_barrier>, 192, 1, "block barrier, 192 threads");
    run(sync_probe<block_barrier>, 1024, 1, "block barrier, 1024 threads");
    run(sync_probe<local_reads>, 192, 1, "dependent shared-memory read, own CTA");
    // Clusters where the device has them and the probes that run were
    // compiled for them (a build for older GPUs alone runs PTX compiled
    // below sm_90 here, whose probes would time nothing).
    cudaFuncAttributes fa{};
    const bool clusters =
        ctx->info().compute_major >= 9 &&
        cudaFuncGetAttributes(&fa, (const void*)sync_probe<cluster_barrier>) ==
            cudaSuccess &&
        fa.ptxVersion >= 90;
    (void)cudaGetLastError();
    if (clusters) {
        for (int ctas : { 2, 4, 8, 16 }) {
            const std::string of = ", " + std::to_string(ctas) + " CTAs of 192 threads";
            run(sync_probe<cluster_barrier>, 192, ctas, "cluster barrier" + of);
            run(sync_probe<cluster_release>,
                192,
                ctas,
                "cluster barrier (PTX, release)" + of);
            run(sync_probe<cluster_relaxed>,
                192,
                ctas,
                "cluster barrier (PTX, relaxed)" + of);
        }
        run(sync_probe<remote_reads>,
            192,
            2,
            "dependent shared-memory read, another CTA of a cluster of 2");
    }
    return costs;
}

} // namespace runtime
} // namespace gpudsp
} // namespace gr
