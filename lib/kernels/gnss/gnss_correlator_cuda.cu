/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The GNSS correlator on CUDA: one launch for every satellite of every
// system. The grid is (chunk of samples, satellite, antenna/tap group), so
// a few satellites with long integrations still fill every SM. Each thread
// computes the carrier (__sincosf of the exact 64-bit phase) once per
// sample and each tap's code (64-bit fixed point, the chip's sign from a
// shared-memory table holding the code twice, so that no tap's phase needs
// a wrap; the CBOC sub-phase by one multiply-high) and applies them to up to
// 4 antennas x 8 taps held in registers (a one-antenna plan runs an instance
// with one antenna's accumulators: fewer registers, more blocks per SM).
// The sample loop is compiled per block kind (BOC or not; every tap and
// antenna of the thread's group in use or not), so it carries no per-tap
// branch. Blocks reduce with warp shuffles and write float
// partials; the last block of a satellite and group to finish (an atomic
// count) adds that satellite's partials in float64 in a fixed order, so
// one kernel does all and results do not depend on scheduling. A repeated
// call of the same shape (the per-millisecond call of a tracking loop)
// replays one CUDA graph: upload, kernel, download.

#include "gnss_correlator_impl.h"
#include "runtime/cuda_check.h"
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace gr {
namespace gpudsp {
namespace kernels {

namespace {

constexpr int threads = gnss_cuda_threads;
// Loads of a code row a thread: the longest row (L5 and E5a, 10230 chips:
// 20464 bytes) in 16-byte words over the block's threads.
constexpr int code_row_loads =
    int((gnss_code_row_bytes(10230) / 16 + threads - 1) / threads);

struct code_tables {
    const unsigned char* chips[gnss_n_systems]; // [prn][gnss_code_row_bytes(L)]
    int length[gnss_n_systems];
    double inv_length[gnss_n_systems]; // 1 / length (gnss_code_phase_near)
    int sub_phases[gnss_n_systems];
    float sub[gnss_n_systems][12];
};

struct launch_shape {
    int n_jobs;
    int n_antennas;
    int n_taps;
    int n_chunks;    // chunks per job (grid x)
    long long chunk; // samples per chunk, a multiple of threads
    int tap_groups;  // grid z = antenna group * tap_groups + tap group
};

template <gnss_input I>
__device__ __forceinline__ float2 load_sample(const void* p, long long n);
template <>
__device__ __forceinline__ float2 load_sample<gnss_input::complex64>(const void* p,
                                                                     long long n)
{
    return __ldg(static_cast<const float2*>(p) + n);
}
template <>
__device__ __forceinline__ float2 load_sample<gnss_input::complex_int16>(const void* p,
                                                                         long long n)
{
    const short2 s = __ldg(static_cast<const short2*>(p) + n);
    return make_float2(float(s.x), float(s.y));
}

// A block's code, twice, as sign bytes (0x80: chip -1, else 0; where float
// would need 4x the space), in dynamic shared memory sized per launch to its
// longest code's row (2 KB for L1 C/A, 8 KB for E1-B, 20 KB for L5 and E5a:
// an L1 or E1 launch is not held to the occupancy of a 20 KB one), and the S
// subcarrier values' float bits. (At namespace scope, so that the sample
// loop indexes them at fixed shared addresses.)
extern __shared__ int4 code_words[];
__shared__ uint32_t sub_bits[12];

// What a thread's sample loop reads besides its accumulators and the
// shared tables.
template <int GA, int TG>
struct sample_loop {
    unsigned S;
    int F;
    int na, nt;                // antennas and taps of the group in use
    const void* in[GA];        // antennas (start of the job's samples)
    unsigned long long toff[TG]; // tap offsets in [0, L 2^F)
    unsigned long long mod, q, q_adv, p, p_adv;
    long long i; // the thread's first sample (from the antennas' start)
    int n;       // its samples: i, i + threads, ...
};

// The n samples i, i + threads, ... of one thread into acc: BOC (a
// subcarrier of S phases) or BPSK; FULL: all GA antennas and TG taps in use
// (no guards). A tap's phase q + toff is below 2 L 2^F: the table holds the
// code twice, so its chip needs no wrap, and its sub-phase takes only the
// fractional bits, which a wrap would not change.
template <gnss_input I, int GA, int TG, bool BOC, bool FULL>
__device__ __forceinline__ void
accumulate(sample_loop<GA, TG> l, float2 (&x)[GA], float2 (&acc)[GA][TG])
{
    // x: the current sample of each antenna, loaded one sample ahead (the
    // caller loads the first): its latency hides behind a sample's work
    // instead of starting each one.
    for (int k = 0; k < l.n; ++k, l.i += threads) {
        float2 next[GA];
#pragma unroll
        for (int a = 0; a < GA; ++a)
            if (FULL || a < l.na)
                next[a] = k + 1 < l.n ? load_sample<I>(l.in[a], l.i + threads)
                                      : make_float2(0.f, 0.f);
        // exp(-2j pi phase), the phase in [-0.5, 0.5) cycles (its top 32
        // bits: 2^-32 cycle, far below float's resolution of the result).
        float s, c;
        __sincosf(float(int(l.p >> 32)) * (-6.283185307179586f * 0x1p-32f), &s, &c);
        float2 w[GA];
#pragma unroll
        for (int a = 0; a < GA; ++a)
            if (FULL || a < l.na)
                w[a] = make_float2(x[a].x * c - x[a].y * s, x[a].x * s + x[a].y * c);
#pragma unroll
        for (int t = 0; t < TG; ++t)
            if (FULL || t < l.nt) {
                const unsigned long long qt = l.q + l.toff[t];
                // +-1 or +-sub[j]: the sign bit from the table, exact
                const float v = __uint_as_float(
                    gnss_code_value_bits(reinterpret_cast<const uint8_t*>(code_words),
                                         sub_bits, BOC, qt, l.F, int(l.S)));
#pragma unroll
                for (int a = 0; a < GA; ++a)
                    if (FULL || a < l.na) {
                        acc[a][t].x = fmaf(w[a].x, v, acc[a][t].x);
                        acc[a][t].y = fmaf(w[a].y, v, acc[a][t].y);
                    }
            }
        l.q += l.q_adv;
        if (l.q >= l.mod)
            l.q -= l.mod;
        l.p += l.p_adv;
#pragma unroll
        for (int a = 0; a < GA; ++a)
            if (FULL || a < l.na)
                x[a] = next[a];
    }
}

// GA antennas (1 or 4) x TG taps (3, 5 or 8) per thread.
template <gnss_input I, int GA, int TG>
__global__ void __launch_bounds__(threads)
    correlate_kernel(const gnss_fixed_job* __restrict__ jobs,
                     const void* const* __restrict__ antennas,
                     const long long* __restrict__ taps, // [system][tap], chips * 2^F
                     const code_tables* __restrict__ tables, // device memory
                     launch_shape shape,
                     float2* __restrict__ partials, // [job][chunk][antenna][tap]
                     unsigned int* __restrict__ done, // [job][group], 0 between launches
                     float2* __restrict__ out)       // [job][antenna][tap]
{
    // (code_words and sub_bits: above)
    __shared__ float2 red[threads / 32][GA * TG];
    __shared__ bool last;

    const gnss_fixed_job job = jobs[blockIdx.y];
    const long long first = (long long)blockIdx.x * shape.chunk;
    // The whole block, when nothing of this job lies in this chunk (chunk 0
    // always runs: an empty job's zeros are written by it; gnss_chunks_of).
    if (blockIdx.x > 0 && first >= job.length)
        return;
    const int a0 = (blockIdx.z / shape.tap_groups) * GA;
    const int t0 = (blockIdx.z % shape.tap_groups) * TG;
    const int na = min(GA, shape.n_antennas - a0);
    const int nt = min(TG, shape.n_taps - t0);
    // The tables through the read-only path (a kernel parameter indexed by
    // the job's system would be copied to local memory), the code and the
    // subcarrier into shared memory.
    // Every load that depends only on the job's system, the block's
    // antennas and its taps is issued here, together, and the code row in
    // one round of loads before its stores: the sm_90 SASS (2026-11-28)
    // showed 7-8 dependent round trips before the first multiply-add (the
    // row copied in two load-store rounds; the taps, antenna pointers and
    // 1 / L only after the barrier, which no load crosses), in a launch of
    // one wave and ~10 samples a thread, where each round trip adds to the
    // kernel's time.
    const int sys = job.system;
    const int L = __ldg(&tables->length[sys]);
    const int S = __ldg(&tables->sub_phases[sys]);
    const double inv_length = __ldg(&tables->inv_length[sys]);
    const unsigned char* chip_rows = tables->chips[sys];
    const unsigned sub =
        threadIdx.x < 12 ? __float_as_uint(__ldg(&tables->sub[sys][threadIdx.x])) : 0u;
    sample_loop<GA, TG> l;
    l.S = unsigned(S);
    l.F = job.code_frac_bits;
    l.na = na;
    l.nt = nt;
    l.mod = job.code_modulus;
#pragma unroll
    for (int t = 0; t < TG; ++t) {
        const long long d = t < nt ? __ldg(&taps[sys * shape.n_taps + t0 + t]) : 0;
        l.toff[t] = d < 0 ? l.mod - (unsigned long long)(-d) : (unsigned long long)d;
    }
#pragma unroll
    for (int a = 0; a < GA; ++a)
        l.in[a] = a < na ? antennas[a0 + a] : nullptr;
    const long long i = first + threadIdx.x,
                    end = min((long long)(first + shape.chunk), (long long)job.length);
    l.i = job.start + i;
    l.n = i < end ? int((end - i + threads - 1) / threads) : 0;
    // The first sample of every antenna, in flight with the code row.
    float2 x0[GA];
#pragma unroll
    for (int a = 0; a < GA; ++a)
        x0[a] = a < na && l.n > 0 ? load_sample<I>(l.in[a], l.i) : make_float2(0.f, 0.f);
    // The code and the subcarrier into shared memory: every word of the row
    // loaded (at most code_row_loads a thread), then stored.
    const int words = int(gnss_code_row_bytes(L)) / 16;
    const int4* chips =
        reinterpret_cast<const int4*>(chip_rows) + (long long)(job.prn - 1) * words;
    int4 row[code_row_loads];
#pragma unroll
    for (int k = 0; k < code_row_loads; ++k) {
        const int c = int(threadIdx.x) + k * threads;
        row[k] = c < words ? __ldg(chips + c) : make_int4(0, 0, 0, 0);
    }
#pragma unroll
    for (int k = 0; k < code_row_loads; ++k) {
        const int c = int(threadIdx.x) + k * threads;
        if (c < words)
            code_words[c] = row[k];
    }
    if (threadIdx.x < 12)
        sub_bits[threadIdx.x] = sub;
    __syncthreads();

    // (i < 2^31 + 256 < 2^32: the plan limits integrations to 2^31 - 1
    // samples, and a thread past its job's end starts one round past it)
    l.q = gnss_code_phase_near(
        job.code_phase, job.code_step, l.F, unsigned(L), inv_length, unsigned(i));
    // (threads x step <= 256 chips, less than a code period: checked by the
    // plan; one conditional subtraction per advance)
    l.q_adv = job.code_step * threads;
    l.p = job.carrier_phase + job.carrier_step * (unsigned long long)i;
    l.p_adv = job.carrier_step * threads;

    float2 acc[GA][TG];
#pragma unroll
    for (int a = 0; a < GA; ++a)
#pragma unroll
        for (int t = 0; t < TG; ++t)
            acc[a][t] = make_float2(0.f, 0.f);
    const bool full = na == GA && nt == TG;
    if (S > 1) {
        if (full)
            accumulate<I, GA, TG, true, true>(l, x0, acc);
        else
            accumulate<I, GA, TG, true, false>(l, x0, acc);
    } else {
        if (full)
            accumulate<I, GA, TG, false, true>(l, x0, acc);
        else
            accumulate<I, GA, TG, false, false>(l, x0, acc);
    }

    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
#pragma unroll
    for (int a = 0; a < GA; ++a)
#pragma unroll
        for (int t = 0; t < TG; ++t) {
            if (a < na && t < nt) {
                float2 v = acc[a][t];
#pragma unroll
                for (int o = 16; o > 0; o /= 2) {
                    v.x += __shfl_xor_sync(0xffffffffu, v.x, o);
                    v.y += __shfl_xor_sync(0xffffffffu, v.y, o);
                }
                if (lane == 0)
                    red[warp][a * TG + t] = v;
            }
        }
    __syncthreads();
    const int r = threadIdx.x;
    if (r < GA * TG) {
        const int a = r / TG, t = r % TG;
        if (a < na && t < nt) {
            float2 sum = make_float2(0.f, 0.f);
            for (int w = 0; w < threads / 32; ++w) {
                sum.x += red[w][r].x;
                sum.y += red[w][r].y;
            }
            const long long slot =
                ((long long)blockIdx.y * shape.n_chunks + blockIdx.x) * shape.n_antennas +
                a0 + a;
            partials[slot * shape.n_taps + t0 + t] = sum;
        }
    }

    // The last of the job's chunks to finish (for this group) adds them.
    __threadfence(); // the partials above, visible device-wide before the count
    __syncthreads();
    const long long chunks = gnss_chunks_of(job.length, shape.chunk);
    unsigned int* count = done + (long long)blockIdx.y * gridDim.z + blockIdx.z;
    if (threadIdx.x == 0)
        last = atomicAdd(count, 1u) + 1 == (unsigned long long)chunks;
    __syncthreads();
    if (!last)
        return;
    __threadfence(); // (acquire: the other blocks' partials)
    // One warp per (antenna, tap): lane k adds chunks k, k + 32, ... in
    // float64, then a butterfly in a fixed order: the same sum whichever
    // block is last. __ldcg reads L2, where the other blocks' writes are.
    for (int o = warp; o < GA * TG; o += threads / 32) {
        const int a = o / TG, t = o % TG;
        if (a >= na || t >= nt)
            continue;
        double re = 0, im = 0;
        for (long long c = lane; c < chunks; c += 32) {
            const long long slot =
                ((long long)blockIdx.y * shape.n_chunks + c) * shape.n_antennas + a0 + a;
            const float2 v = __ldcg(&partials[slot * shape.n_taps + t0 + t]);
            re += v.x;
            im += v.y;
        }
#pragma unroll
        for (int s = 16; s > 0; s /= 2) {
            re += __shfl_xor_sync(0xffffffffu, re, s);
            im += __shfl_xor_sync(0xffffffffu, im, s);
        }
        if (lane == 0)
            out[((long long)blockIdx.y * shape.n_antennas + a0 + a) * shape.n_taps + t0 +
                t] = make_float2(float(re), float(im));
    }
    if (threadIdx.x == 0)
        *count = 0; // for the next launch (stream-ordered after this one)
}

using correlate_fn = void (*)(const gnss_fixed_job*,
                              const void* const*,
                              const long long*,
                              const code_tables*,
                              launch_shape,
                              float2*,
                              unsigned int*,
                              float2*);

// The instance for an input format, 1 or 4 antennas and 3, 5 or 8 taps per
// thread.
template <gnss_input I, int GA>
correlate_fn correlate_kernel_for(int tap_group)
{
    return tap_group == 3   ? correlate_kernel<I, GA, 3>
           : tap_group == 5 ? correlate_kernel<I, GA, 5>
                            : correlate_kernel<I, GA, 8>;
}
template <gnss_input I>
correlate_fn correlate_kernel_for(int antenna_group, int tap_group)
{
    return antenna_group == 1 ? correlate_kernel_for<I, 1>(tap_group)
                              : correlate_kernel_for<I, 4>(tap_group);
}
correlate_fn correlate_kernel_for(gnss_input input, int antenna_group, int tap_group)
{
    return input == gnss_input::complex64
               ? correlate_kernel_for<gnss_input::complex64>(antenna_group, tap_group)
               : correlate_kernel_for<gnss_input::complex_int16>(antenna_group, tap_group);
}

class gnss_correlator_cuda : public gnss_correlator_plan::impl
{
public:
    gnss_correlator_cuda(int n_antennas,
                         const std::vector<int64_t>& taps,
                         gnss_input input,
                         runtime::device_context::sptr ctx,
                         const std::string& who)
        : d_m(n_antennas),
          d_l(int(taps.size()) / gnss_n_systems), // taps per job (taps holds each system's)
          d_input(input),
          d_ctx(std::move(ctx)),
          d_who(who),
          d_taps(d_ctx, taps.size() * sizeof(long long), who),
          d_tables(d_ctx, sizeof(code_tables), who),
          d_antenna_group(n_antennas == 1 ? 1 : 4),
          d_tap_group(d_l <= 3 ? 3 : d_l <= 5 ? 5 : 8)
    {
        d_ctx->make_current();
        runtime::device_stream stream(d_ctx, who);
        code_tables codes{}; // staged here, read by the kernel from d_tables
        for (int s = 0; s < gnss_n_systems; ++s) // (a step is at most one chip)
            if (gnss_signal(gnss_system(s)).code_length <= threads)
                throw std::logic_error(who + ": the kernel advances a thread's code "
                                             "phase by under one period: " +
                                       gnss_signal(gnss_system(s)).name + " is too short");
            else if (gnss_code_row_bytes(
                         uint32_t(gnss_signal(gnss_system(s)).code_length)) >
                     16u * code_row_loads * threads)
                throw std::logic_error(who + ": the kernel copies a code row in " +
                                       std::to_string(code_row_loads) +
                                       " loads a thread: " +
                                       gnss_signal(gnss_system(s)).name + "'s is longer");
        std::vector<std::vector<uint8_t>> rows(gnss_n_systems); // (until synchronised)
        for (int s = 0; s < gnss_n_systems; ++s) {
            const auto sys = gnss_system(s);
            const auto& spec = gnss_signal(sys);
            const auto& chips = gnss_codes(sys);
            // Each PRN's code twice as sign bytes (0x80: chip -1), rows of
            // 16-byte words (zero padding): the kernel copies a row into
            // shared memory in 16-byte words.
            const std::size_t L = spec.code_length, row = gnss_code_row_bytes(L);
            rows[s].resize(std::size_t(spec.n_prns) * row);
            for (int p = 0; p < spec.n_prns; ++p)
                gnss_code_row(chips.data() + p * L, uint32_t(L), rows[s].data() + p * row);
            d_code_memory.emplace_back(std::make_unique<runtime::device_memory>(
                d_ctx, rows[s].size(), who));
            d_ctx->copy_async(d_code_memory.back()->get(),
                              rows[s].data(),
                              rows[s].size(),
                              runtime::copy_kind::host_to_device,
                              stream.get(),
                              who);
            codes.chips[s] =
                reinterpret_cast<const unsigned char*>(d_code_memory.back()->get());
            codes.length[s] = spec.code_length;
            codes.inv_length[s] = 1.0 / spec.code_length;
            codes.sub_phases[s] = spec.sub_phases;
            for (int j = 0; j < 12; ++j)
                codes.sub[s][j] =
                    j < spec.sub_phases ? float(gnss_subcarrier(sys, j)) : 0.f;
        }
        d_ctx->copy_async(d_tables.get(),
                          &codes,
                          sizeof(code_tables),
                          runtime::copy_kind::host_to_device,
                          stream.get(),
                          who);
        std::vector<long long> t(taps.begin(), taps.end());
        d_ctx->copy_async(d_taps.get(),
                          t.data(),
                          t.size() * sizeof(long long),
                          runtime::copy_kind::host_to_device,
                          stream.get(),
                          who);
        stream.synchronize();
        // Timing events (the runtime's own events disable timing).
        check(cudaEventCreate(&d_kernel_begin), "cudaEventCreate");
        check(cudaEventCreate(&d_kernel_end), "cudaEventCreate");
        d_sms = 132;
        for (const auto& d : runtime::devices())
            if (d.index == d_ctx->device())
                d_sms = std::max(1, d.multiprocessors);
        use_groups(d_antenna_group, d_tap_group);
    }

    // Antennas and taps per thread: 1 or 4 antennas (4 only with several),
    // 3, 5 or 8 taps (more taps than that take several groups). The
    // heuristic's first: 4 antennas where there are several, the fewest
    // taps per thread that hold the plan's.
    std::vector<std::string> configurations() const override
    {
        std::vector<std::string> ids{ id_of(d_m == 1 ? 1 : 4,
                                            d_l <= 3   ? 3
                                            : d_l <= 5 ? 5
                                                       : 8) };
        for (const int ga : { 4, 1 })
            for (const int tg : { 3, 5, 8 })
                if ((ga == 1 || d_m > 1) && id_of(ga, tg) != ids[0])
                    ids.push_back(id_of(ga, tg));
        return ids;
    }
    void use(const std::string& id) override
    {
        for (const int ga : { 4, 1 })
            for (const int tg : { 3, 5, 8 })
                if (id == id_of(ga, tg))
                    use_groups(ga, tg);
    }

    void execute(const std::vector<const void*>& antennas,
                 const std::vector<gnss_fixed_job>& jobs,
                 std::complex<float>* out,
                 runtime::stream_handle sh,
                 const std::function<void()>& meanwhile) override
    {
        if (jobs.empty()) { // (the plan does not call with none; no launch)
            if (meanwhile)
                meanwhile();
            return;
        }
        // At most 65535 jobs a launch (the grid's y extent); splitting at
        // epochs can turn a few long pilot integrations into more.
        constexpr std::size_t most = 65535;
        if (jobs.size() > most) {
            for (std::size_t first = 0; first < jobs.size(); first += most) {
                const std::vector<gnss_fixed_job> slice(
                    jobs.begin() + first, jobs.begin() + std::min(jobs.size(), first + most));
                execute(antennas, slice, out + first * d_m * d_l, sh,
                        first == 0 ? meanwhile : nullptr);
            }
            return;
        }
        d_ctx->make_current();
        auto stream = static_cast<cudaStream_t>(sh);
        const int tg = d_tap_group, ga = d_antenna_group;
        launch_shape shape;
        shape.n_jobs = int(jobs.size());
        shape.n_antennas = d_m;
        shape.n_taps = d_l;
        shape.tap_groups = (d_l + tg - 1) / tg;
        const int groups =
            shape.tap_groups * ((d_m + ga - 1) / ga);
        int64_t longest = 1;
        int widest = jobs[0].system; // the system of the longest code's row
        for (const auto& j : jobs) {
            longest = std::max<int64_t>(longest, j.length);
            if (row_bytes(j.system) > row_bytes(widest))
                widest = j.system;
        }
        // Every SM full (the occupancy the device reports for this kernel),
        // each thread taking at least four samples so the reduction stays a
        // small part of the work.
        const int64_t blocks_per_job = std::max<int64_t>(
            1,
            int64_t(d_blocks_per_sm[widest]) * d_sms / (int64_t(jobs.size()) * groups));
        int64_t chunk = (longest + blocks_per_job - 1) / blocks_per_job;
        chunk = std::max<int64_t>(4 * threads, (chunk + threads - 1) / threads * threads);
        shape.chunk = chunk;
        shape.n_chunks = int(gnss_chunks_of(longest, chunk));

        // One upload: antenna pointers, then the jobs.
        const std::size_t ptr_bytes = std::size_t(d_m) * sizeof(void*);
        const std::size_t job_bytes = jobs.size() * sizeof(gnss_fixed_job);
        const std::size_t result_bytes = jobs.size() * d_m * d_l * sizeof(float2);
        const std::size_t partial_bytes =
            std::size_t(shape.n_chunks) * jobs.size() * d_m * d_l * sizeof(float2);
        const std::size_t done_bytes = jobs.size() * groups * sizeof(unsigned int);
        reserve(d_upload_host, d_upload, ptr_bytes + job_bytes);
        reserve_device(d_results, result_bytes);
        reserve_pinned(d_results_host, result_bytes);
        reserve_device(d_partials, partial_bytes);
        if (reserve_device(d_done, done_bytes)) // the kernel keeps them 0 after
            d_ctx->memset_async(d_done->get(), 0, d_done->size(), sh, d_who);
        std::copy_n(reinterpret_cast<const char*>(antennas.data()),
                    ptr_bytes,
                    d_upload_host->get());
        std::copy_n(reinterpret_cast<const char*>(jobs.data()),
                    job_bytes,
                    d_upload_host->get() + ptr_bytes);
        const launch call{ dim3(unsigned(shape.n_chunks), unsigned(jobs.size()), unsigned(groups)),
                           shape,
                           ptr_bytes + job_bytes,
                           result_bytes,
                           d_upload_host->get(),
                           d_upload->get(),
                           d_results->get(),
                           d_results_host->get(),
                           d_partials->get(),
                           d_done->get(),
                           stream,
                           row_bytes(widest) };
        d_last_blocks = (long long)call.grid.x * call.grid.y * call.grid.z;
        d_last_per_sm = d_blocks_per_sm[widest];
        if (!replay_graph(call))
            enqueue(call, false);
        gnss_run_meanwhile(meanwhile, [&] { d_ctx->stream_synchronize(sh, d_who); });
        d_ctx->stream_synchronize(sh, d_who);
        float ms = 0;
        check(cudaEventElapsedTime(&ms, d_kernel_begin, d_kernel_end),
              "cudaEventElapsedTime");
        d_kernel_seconds = ms * 1e-3;
        std::copy_n(reinterpret_cast<const std::complex<float>*>(d_results_host->get()),
                    jobs.size() * d_m * d_l,
                    out);
    }

    ~gnss_correlator_cuda() override
    {
        d_ctx->try_make_current(); // teardown never throws
        if (d_graph)
            cudaGraphExecDestroy(d_graph);
        cudaEventDestroy(d_kernel_begin);
        cudaEventDestroy(d_kernel_end);
    }

    double last_kernel_seconds() const override { return d_kernel_seconds; }

    // The last call's launch: blocks and waves (blocks over what the SMs
    // hold at once, with the widest code row's shared memory).
    std::string last_launch_shape() const override
    {
        if (!d_last_blocks)
            return "";
        char text[96];
        std::snprintf(text,
                      sizeof text,
                      "%lld blocks of %d threads a launch, %.2f waves",
                      d_last_blocks,
                      threads,
                      double(d_last_blocks) / (double(d_sms) * d_last_per_sm));
        return text;
    }

private:
    // What one call enqueues; equal launches (operator==) replay one graph.
    struct launch {
        dim3 grid;
        launch_shape shape;
        std::size_t upload_bytes, result_bytes;
        char *upload_host, *upload, *results, *results_host, *partials, *done;
        cudaStream_t stream;
        std::size_t shared_bytes; // dynamic: the longest code's row

        // (grid and byte counts follow from the shape: antennas and taps
        // are the plan's)
        bool operator==(const launch& o) const
        {
            return shape.n_jobs == o.shape.n_jobs && shape.n_antennas == o.shape.n_antennas &&
                   shape.n_taps == o.shape.n_taps && shape.n_chunks == o.shape.n_chunks &&
                   shape.chunk == o.shape.chunk && shape.tap_groups == o.shape.tap_groups &&
                   upload_host == o.upload_host && upload == o.upload &&
                   results == o.results && results_host == o.results_host &&
                   partials == o.partials && done == o.done &&
                   shared_bytes == o.shared_bytes;
            // (not the stream: a graph runs on any; the antennas' pointers
            // are uploaded data, not part of the graph)
        }
    };

    // Upload, the timed kernel, download: on the stream, or (capturing)
    // into a graph being captured from it, whose copies are counted when it
    // is launched. The events are recorded with cudaEventRecordExternal: a
    // plain record during capture adds no node, and a replay would leave
    // them unrecorded (cudaEventElapsedTime: cudaErrorCapturedEvent).
    void enqueue(const launch& c, bool capturing)
    {
        copy(c.upload, c.upload_host, c.upload_bytes, runtime::copy_kind::host_to_device,
             c.stream, capturing);
        const auto* dev_ptrs = reinterpret_cast<const void* const*>(c.upload);
        const auto* dev_jobs = reinterpret_cast<const gnss_fixed_job*>(
            c.upload + std::size_t(d_m) * sizeof(void*));
        check(cudaEventRecordWithFlags(d_kernel_begin, c.stream, cudaEventRecordExternal),
              "cudaEventRecordWithFlags");
        d_kernel<<<c.grid, threads, c.shared_bytes, c.stream>>>(
            dev_jobs,
            dev_ptrs,
            reinterpret_cast<const long long*>(d_taps.get()),
            reinterpret_cast<const code_tables*>(d_tables.get()),
            c.shape,
            reinterpret_cast<float2*>(c.partials),
            reinterpret_cast<unsigned int*>(c.done),
            reinterpret_cast<float2*>(c.results));
        d_ctx->check_last_error("gnss correlation kernel launch", d_who);
        check(cudaEventRecordWithFlags(d_kernel_end, c.stream, cudaEventRecordExternal),
              "cudaEventRecordWithFlags");
        copy(c.results_host, c.results, c.result_bytes, runtime::copy_kind::device_to_host,
             c.stream, capturing);
    }

    void copy(void* dst,
              const void* src,
              std::size_t bytes,
              runtime::copy_kind kind,
              cudaStream_t stream,
              bool capturing)
    {
        if (!capturing) {
            d_ctx->copy_async(dst, src, bytes, kind, stream, d_who); // counted
            return;
        }
        check(cudaMemcpyAsync(dst,
                              src,
                              bytes,
                              kind == runtime::copy_kind::host_to_device
                                  ? cudaMemcpyHostToDevice
                                  : cudaMemcpyDeviceToHost,
                              stream),
              "cudaMemcpyAsync");
    }

    // Replays the graph of an equal earlier launch, or captures one; false
    // when the call is to be enqueued directly: the legacy default stream
    // (which cannot be captured), a stream the caller is capturing (the
    // call then joins the caller's graph), or a capture the device refused
    // (then never tried again by this plan).
    bool replay_graph(const launch& c)
    {
        if (!c.stream || !d_graphs_work)
            return false;
        cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
        check(cudaStreamIsCapturing(c.stream, &status), "cudaStreamIsCapturing");
        if (status != cudaStreamCaptureStatusNone)
            return false;
        if (!d_graph || !(d_graph_launch == c)) {
            if (!capture(c))
                return false;
            d_graph_launch = c;
        }
        check(cudaGraphLaunch(d_graph, c.stream), "cudaGraphLaunch");
        d_ctx->note_copy(runtime::copy_kind::host_to_device, c.upload_bytes);
        d_ctx->note_copy(runtime::copy_kind::device_to_host, c.result_bytes);
        return true;
    }

    // Captures the call's graph: into the instantiated graph of the previous
    // launch where cudaGraphExecUpdate can change it in place (new grid,
    // sizes or buffers: cheaper than instantiating again), else a new one.
    bool capture(const launch& c)
    {
        if (cudaStreamBeginCapture(c.stream, cudaStreamCaptureModeThreadLocal) !=
            cudaSuccess) {
            cudaGetLastError(); // (cleared: the direct path follows)
            d_graphs_work = false;
            return false;
        }
        cudaGraph_t graph = nullptr;
        try {
            enqueue(c, true);
        } catch (...) {
            cudaStreamEndCapture(c.stream, &graph);
            if (graph)
                cudaGraphDestroy(graph);
            throw;
        }
        const cudaError_t ended = cudaStreamEndCapture(c.stream, &graph);
        cudaError_t made = ended;
        if (ended == cudaSuccess && d_graph) {
            cudaGraphExecUpdateResultInfo info{};
            if (cudaGraphExecUpdate(d_graph, graph, &info) != cudaSuccess) {
                cudaGetLastError(); // (refused: instantiated anew below)
                cudaGraphExecDestroy(d_graph);
                d_graph = nullptr;
            }
        }
        if (ended == cudaSuccess && !d_graph)
            made = cudaGraphInstantiate(&d_graph, graph, 0);
        if (graph)
            cudaGraphDestroy(graph);
        if (made != cudaSuccess) {
            cudaGetLastError();
            if (d_graph)
                cudaGraphExecDestroy(d_graph);
            d_graph = nullptr;
            d_graphs_work = false;
            return false;
        }
        return true;
    }

    // The shared memory of a block correlating a system's code.
    static std::size_t row_bytes(int system)
    {
        return gnss_code_row_bytes(uint32_t(gnss_signal(gnss_system(system)).code_length));
    }

    void check(cudaError_t e, const char* what) const
    {
        runtime::cuda_check(e, what, d_ctx->device(), d_who);
    }

    void reserve(std::unique_ptr<runtime::pinned_memory>& host,
                 std::unique_ptr<runtime::device_memory>& dev,
                 std::size_t bytes)
    {
        reserve_pinned(host, bytes);
        reserve_device(dev, bytes);
    }
    void reserve_pinned(std::unique_ptr<runtime::pinned_memory>& m, std::size_t bytes)
    {
        // Earlier calls have finished with it (execute ends synchronised).
        if (!m || m->size() < bytes)
            m = std::make_unique<runtime::pinned_memory>(
                d_ctx, std::max<std::size_t>(bytes, 4096) * 2, d_who);
    }
    // True when it (re)allocated.
    bool reserve_device(std::unique_ptr<runtime::device_memory>& m, std::size_t bytes)
    {
        if (m && m->size() >= bytes)
            return false;
        m = std::make_unique<runtime::device_memory>(
            d_ctx, std::max<std::size_t>(bytes, 4096) * 2, d_who);
        return true;
    }

    static std::string id_of(int antenna_group, int tap_group)
    {
        return "GA=" + std::to_string(antenna_group) + " TG=" + std::to_string(tap_group);
    }

    // The kernel instance for these groups, and how many of its blocks an
    // SM holds (registers and shared memory of this instance on this
    // device, with each system's code row), to size the grid. A captured
    // launch of another instance is dropped.
    void use_groups(int antenna_group, int tap_group)
    {
        d_ctx->make_current();
        d_antenna_group = antenna_group;
        d_tap_group = tap_group;
        d_kernel = correlate_kernel_for(d_input, d_antenna_group, d_tap_group);
        for (int s = 0; s < gnss_n_systems; ++s) {
            check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                      &d_blocks_per_sm[s], d_kernel, threads, row_bytes(s)),
                  "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
            d_blocks_per_sm[s] = std::max(1, d_blocks_per_sm[s]);
        }
        if (d_graph) {
            cudaGraphExecDestroy(d_graph);
            d_graph = nullptr;
        }
    }

    int d_m, d_l;
    gnss_input d_input;
    runtime::device_context::sptr d_ctx;
    std::string d_who;
    runtime::device_memory d_taps;
    runtime::device_memory d_tables; // the code_tables the kernel reads
    std::vector<std::unique_ptr<runtime::device_memory>> d_code_memory;
    int d_antenna_group; // antennas per thread (heuristic: 1 for one antenna, else 4)
    int d_tap_group;     // taps per thread (heuristic: 3 up to 3 taps, 5 up to 5, else 8)
    int d_sms;
    correlate_fn d_kernel = nullptr;
    int d_blocks_per_sm[gnss_n_systems] = {}; // with each system's code row
    std::unique_ptr<runtime::pinned_memory> d_upload_host;
    std::unique_ptr<runtime::device_memory> d_upload, d_results, d_partials, d_done;
    std::unique_ptr<runtime::pinned_memory> d_results_host;
    cudaEvent_t d_kernel_begin = nullptr, d_kernel_end = nullptr;
    double d_kernel_seconds = 0;
    long long d_last_blocks = 0;       // the last call's grid
    int d_last_per_sm = 1;             // its blocks an SM
    cudaGraphExec_t d_graph = nullptr; // of d_graph_launch
    launch d_graph_launch{};
    bool d_graphs_work = true;
};

} // namespace

std::unique_ptr<gnss_correlator_plan::impl>
make_gnss_correlator_cuda(int n_antennas,
                          const std::vector<int64_t>& taps,
                          gnss_input input,
                          runtime::device_context::sptr ctx,
                          const std::string& who)
{
    return std::make_unique<gnss_correlator_cuda>(
        n_antennas, taps, input, std::move(ctx), who);
}

} // namespace kernels
} // namespace gpudsp
} // namespace gr
