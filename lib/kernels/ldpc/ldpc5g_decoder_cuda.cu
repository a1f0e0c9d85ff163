/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The LDPC decoder on CUDA. Fixed-point layered decoding runs the pair
// kernel (ldpc5g_pair_cuda.cu: two codewords per thread block in int16x2
// SIMD, compressed messages in global memory, fp16/int8 LLRs read as such;
// a launch of one codeword there takes its latency kernel);
// float and flooding run the kernel below: one thread block per codeword (one thread per
// lift index z), every iteration inside one launch. The a-posteriori values
// live in shared memory (float, or int16 in fixed point); the compressed
// check messages (two minima, their edge, signs) per (row, z) in global
// memory (global memory where shared memory cannot hold them: float with
// BG1 Z >= 256 or BG2 Z >= 320 on sm_75, float BG1 Z=384 on sm_86/89;
// ldpc5g_impl.h). Layered schedule: rows in order, each row's Z checks in parallel
// (they touch distinct variables), a barrier between rows; flooding: all
// checks, then every variable sums its messages in row order (the CPU's
// order). The parity checks are evaluated in the kernel after every
// iteration (__syncthreads_or) for early termination. De-rate-matching
// (repetitions added, punctured bits 0, fillers certain) is the kernel's
// prologue. Batches are cut into chunks on two streams, so one chunk's
// upload overlaps the previous chunk's decoding. The arithmetic is
// ldpc5g_impl.h's, shared with the CPU: fixed point is bit-exact.
//
// The maximum dynamic shared memory is a per-kernel, process-wide attribute:
// every plan sets it to the device's opt-in limit (never lower), so that a
// plan made later for a smaller code cannot shrink it under a live one.

#include "kernels/common/interval_union.h"
#include "ldpc5g_impl.h"
#include "ldpc5g_pair_cuda.h"
#include "runtime/cuda_check.h"
#include <cuda_runtime.h>
#include <type_traits>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace gr {
namespace gpudsp {
namespace kernels {

namespace {

constexpr int chunk_default = 512;

// The pair kernel's view plus the tables this kernel's edge gathers and
// flooding schedule read.
struct dev_layout : ldpc_pair_config {
    const int32_t* edge_col;
    const int32_t* edge_shift;
    const int32_t* col_start;
    const int32_t* col_row;
    const int32_t* col_edge;
    const int32_t* col_shift;
};
// (a kernel parameter: within the 4 KiB every architecture takes, with room
// for the kernel's other arguments)
static_assert(sizeof(dev_layout) + 128 <= 4096, "LDPC kernel parameters exceed 4 KiB");

template <typename T>
__device__ __forceinline__ T quantise(float llr, float scale);
template <>
__device__ __forceinline__ float quantise<float>(float llr, float)
{
    return ldpc_llr_in(llr);
}
template <>
__device__ __forceinline__ int32_t quantise<int32_t>(float llr, float scale)
{
    const int q = __float2int_rn(ldpc_llr_in(llr) * scale); // half to even, as lrint
    return q > ldpc_msg_max ? ldpc_msg_max : q < -ldpc_msg_max ? -ldpc_msg_max : q;
}
template <typename T>
__device__ __forceinline__ T certain();
template <>
__device__ __forceinline__ float certain<float>()
{
    return ldpc_float_certain;
}
template <>
__device__ __forceinline__ int32_t certain<int32_t>()
{
    return ldpc_app_max;
}

// Where edge e (of a row) meets the variables at lift index z. Recomputed
// where needed rather than kept: 19 more registers per thread would halve
// the resident blocks; the edge tables are the same for the whole block
// (broadcast loads).
__device__ __forceinline__ int var_index(const dev_layout& l, int e, int z)
{
    int zz = z + l.edge_shift[e];
    zz = zz >= l.Z ? zz - l.Z : zz;
    return l.edge_col[e] * l.Z + zz;
}

// Row r's variable-to-check values at lift index z into t[i]; returns the
// row's degree.
template <typename T, typename S>
__device__ __forceinline__ int gather_v2c(
    const dev_layout& l, const S* app, const ldpc_check_state<T>& old, int r, int z, T* t)
{
    const int e0 = l.row_start[r], deg = l.row_start[r + 1] - e0;
LDPC_UNROLL
    for (int i = 0; i < ldpc_max_degree; ++i)
        if (i < deg)
            t[i] = T(app[var_index(l, e0 + i, z)]) - ldpc_c2v(old, i);
    return deg;
}

template <typename T, typename S, bool LAYERED>
__global__ void __launch_bounds__(ldpc5g_cuda_max_threads, 1)
    decode_kernel(dev_layout l,
                  const float* __restrict__ llrs,
                  ldpc_check_state<T>* __restrict__ states, // [cw][2][rows][Z]
                  T* __restrict__ channel,                  // [cw][cols Z] (flooding)
                  S* __restrict__ app_global, // [cw][cols Z]; null: shared memory
                  uint8_t* __restrict__ bits,
                  int32_t* __restrict__ iterations,
                  uint8_t* __restrict__ ok)
{
    extern __shared__ unsigned char smem[];
    const int Z = l.Z, cw = blockIdx.x, n_vars = l.cols_used * Z;
    S* app = app_global ? app_global + std::size_t(cw) * n_vars : reinterpret_cast<S*>(smem);
    const float* llr = llrs + (long long)cw * l.E;
    const std::size_t per_cw = std::size_t(l.rows_used) * Z;
    ldpc_check_state<T>* st = states + std::size_t(cw) * 2 * per_cw;
    ldpc_check_state<T>* next = st + per_cw;
    T* ch = channel ? channel + std::size_t(cw) * n_vars : nullptr;
    const float sign = l.positive_is_zero ? 1.f : -1.f;

    for (int n = threadIdx.x; n < n_vars; n += blockDim.x) {
        const int j = n - 2 * Z;
        T v = T(0);
        if (n >= l.K && n < l.K_ldpc)
            v = certain<T>();
        else if (j >= 0 && j < l.Ncb && l.first_read[j] >= 0)
            for (int e = l.first_read[j]; e < l.E; e += l.period)
                v += quantise<T>(sign * llr[l.interleaved[e]], l.fixed_scale);
        v = ldpc_clamp_app(v);
        app[n] = S(v);
        if (ch)
            ch[n] = v;
    }
    for (std::size_t k = threadIdx.x; k < per_cw; k += blockDim.x)
        st[k] = ldpc_check_state<T>{ T(0), T(0), 0u, 0 };
    __syncthreads();

    const int z = threadIdx.x;
    int it = 0;
    bool pass = false;
    while (it < l.max_iterations) {
        if (LAYERED) {
            for (int r = 0; r < l.rows_used; ++r) {
                if (z < Z) {
                    T t[ldpc_max_degree];
                    const int deg = gather_v2c(l, app, st[r * Z + z], r, z, t);
                    const ldpc_check_state<T> nw = ldpc_check_update(t, deg, l.norm);
                    const int e0 = l.row_start[r];
LDPC_UNROLL
                    for (int i = 0; i < ldpc_max_degree; ++i)
                        if (i < deg)
                            app[var_index(l, e0 + i, z)] =
                                S(ldpc_clamp_app(t[i] + ldpc_c2v(nw, i)));
                    st[r * Z + z] = nw;
                }
                __syncthreads();
            }
        } else {
            for (int r = 0; r < l.rows_used; ++r)
                if (z < Z) {
                    T t[ldpc_max_degree];
                    const int deg = gather_v2c(l, app, st[r * Z + z], r, z, t);
                    next[r * Z + z] = ldpc_check_update(t, deg, l.norm);
                }
            __syncthreads();
            for (int n = threadIdx.x; n < n_vars; n += blockDim.x) {
                const int col = n / Z, zz = n % Z;
                T v = ch[n];
                for (int k = l.col_start[col]; k < l.col_start[col + 1]; ++k) {
                    int zc = zz - l.col_shift[k];
                    zc = zc < 0 ? zc + Z : zc;
                    v += ldpc_c2v(next[l.col_row[k] * Z + zc], l.col_edge[k]);
                }
                app[n] = S(ldpc_clamp_app(v));
            }
            ldpc_check_state<T>* tmp = st;
            st = next;
            next = tmp;
            __syncthreads();
        }
        ++it;
        if (l.early || it == l.max_iterations) {
            int bad = 0;
            if (z < Z)
                for (int r = 0; r < l.rows_used && !bad; ++r) {
                    unsigned parity = 0;
                    for (int e = l.row_start[r]; e < l.row_start[r + 1]; ++e)
                        parity ^= app[var_index(l, e, z)] < S(0);
                    bad = int(parity);
                }
            pass = !__syncthreads_or(bad);
            if (l.early && pass)
                break;
        }
    }
    for (int i = threadIdx.x; i < l.K; i += blockDim.x)
        bits[std::size_t(cw) * l.K + i] = app[i] < S(0) ? 1 : 0;
    if (threadIdx.x == 0) {
        iterations[cw] = it;
        ok[cw] = pass ? 1 : 0;
    }
}

template <typename T>
class decoder_cuda : public ldpc5g_decoder_plan::impl
{
    using S =
        typename std::conditional<std::is_same<T, float>::value, float, int16_t>::type;

public:
    decoder_cuda(const ldpc5g_layout& l,
                 runtime::device_context::sptr ctx,
                 const std::string& who)
        : d_l(l), d_ctx(std::move(ctx)), d_who(who)
    {
        d_ctx->make_current();
        std::vector<int32_t> edges(l.edge_col.size());
        for (std::size_t e = 0; e < edges.size(); ++e)
            edges[e] = l.edge_col[e] << 16 | l.edge_shift[e];
        const std::vector<const std::vector<int32_t>*> tables = {
            &l.row_start, &l.edge_col,  &l.edge_shift, &l.col_start,   &l.col_row,
            &l.col_edge,  &l.col_shift, &l.first_read, &l.interleaved, &edges
        };
        std::size_t total = 0;
        for (auto* t : tables)
            total += (t->size() + 1) * 4;
        d_tables = std::make_unique<runtime::device_memory>(d_ctx, total, who);
        std::vector<int32_t> packed;
        const int32_t* ptrs[10];
        for (std::size_t k = 0; k < tables.size(); ++k) {
            ptrs[k] = reinterpret_cast<const int32_t*>(d_tables->get()) + packed.size();
            packed.insert(packed.end(), tables[k]->begin(), tables[k]->end());
            packed.push_back(0);
        }
        {
            runtime::device_stream s(d_ctx, who);
            d_ctx->copy_async(d_tables->get(),
                              packed.data(),
                              packed.size() * 4,
                              runtime::copy_kind::host_to_device,
                              s.get(),
                              who);
            s.synchronize();
        }
        const auto& p = l.p;
        ldpc_pair_config common{ p.Z,
                                 p.K,
                                 p.K_ldpc,
                                 p.E,
                                 p.Ncb,
                                 l.period,
                                 p.rows_used,
                                 l.cols_used,
                                 l.c.max_iterations,
                                 l.c.early_termination,
                                 l.c.positive_is_zero,
                                 l.c.fixed_scale,
                                 l.norm,
                                 ptrs[0],
                                 ptrs[9],
                                 ptrs[7],
                                 ptrs[8] };
        common.bg = p.bg;
        common.bg_shifts = ldpc_bg_shifts_of(p.bg, p.Z);
        if (p.Z % 2 == 0)
            common.bg_halves = ldpc_bg_halves_of(p.bg, p.Z);
        d_dev = dev_layout{ common, ptrs[1], ptrs[2], ptrs[3], ptrs[4], ptrs[5], ptrs[6] };
        static_assert(sizeof(S) == (std::is_same<T, float>::value ? 4 : 2),
                      "ldpc5g_cuda_shared_bytes counts float or int16 values");
        int optin = 0;
        check(cudaDeviceGetAttribute(
                  &optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, d_ctx->device()),
              "cudaDeviceGetAttribute (shared memory per block, opt-in)");
        // Tests lower the limit (GPUDSP_LDPC_SHARED_LIMIT, bytes) to run the
        // global-memory path on GPUs whose shared memory holds every code.
        int limit = optin;
        if (const char* e = std::getenv("GPUDSP_LDPC_SHARED_LIMIT"))
            limit = std::max(0, std::min(optin, std::atoi(e)));
        // Fixed-point layered decoding runs the pair kernel, except where
        // its values (4 bytes per variable: two int16, as float) would go to
        // global memory while one codeword's (2 bytes) fit shared memory
        // (full-length BG1 Z=384 on sm_86/89, large codes on sm_75): there
        // the one-codeword kernel is faster.
        d_pair_smem = ldpc5g_cuda_shared_bytes(p.Z, l.cols_used, false, limit);
        d_codeword_smem =
            ldpc5g_cuda_shared_bytes(p.Z, l.cols_used, l.c.fixed_point, limit);
        d_pair_possible = l.c.fixed_point && l.c.layered;
        d_pair_heuristic = d_pair_possible && (d_pair_smem > 0 || d_codeword_smem == 0);
        use_form(d_pair_heuristic, chunk_default);
        d_threads = ldpc5g_cuda_threads(p.Z);
        auto kernel =
            l.c.layered ? decode_kernel<T, S, true> : decode_kernel<T, S, false>;
        // The device's limit, whatever this plan needs, for each kernel the
        // tuner may choose.
        if (d_pair_possible && d_pair_smem > 0)
            check(ldpc_pair_allow_shared(optin),
                  "cudaFuncSetAttribute (shared memory for the LDPC pair decoder)");
        if (d_codeword_smem > 0)
            check(cudaFuncSetAttribute(
                      kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, optin),
                  "cudaFuncSetAttribute (shared memory for the LDPC decoder)");
        check(cudaEventCreate(&d_first_begin), "cudaEventCreate");
        for (auto& lane : d_lanes) {
            lane.stream = std::make_unique<runtime::device_stream>(d_ctx, who);
            check(cudaEventCreate(&lane.begin), "cudaEventCreate");
            check(cudaEventCreate(&lane.end), "cudaEventCreate");
        }
    }

    ~decoder_cuda() override
    {
        d_ctx->try_make_current(); // teardown never throws
        cudaEventDestroy(d_first_begin);
        for (auto& lane : d_lanes) {
            cudaEventDestroy(lane.begin);
            cudaEventDestroy(lane.end);
        }
    }

    double last_kernel_seconds() const override { return d_kernel_seconds; }

    // How a decode of \p batch codewords (float LLRs) launches: its chunks
    // (one kernel each, alternating between two streams), a launch's blocks
    // and its waves (the benchmark prints it).
    std::string launch_shape(int batch) const override
    {
        if (batch <= 0)
            return "";
        d_ctx->make_current();
        const int chunk = std::min(batch, d_chunk);
        const int chunks = (batch + chunk - 1) / chunk;
        int blocks = chunk, per_sm = 0;
        if (d_pair) {
            const pair_launch l = pair_launch_of(d_dev, chunk, d_smem);
            blocks = l.blocks;
            per_sm = pair_blocks_per_sm(d_dev, ldpc5g_llr_format::f32, l);
        } else {
            const void* k =
                d_l.c.layered ? reinterpret_cast<const void*>(decode_kernel<T, S, true>)
                              : reinterpret_cast<const void*>(decode_kernel<T, S, false>);
            if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                    &per_sm, k, d_threads, d_smem) != cudaSuccess) {
                cudaGetLastError(); // (a figure for a note)
                per_sm = 0;
            }
        }
        const double fit = double(per_sm) * d_ctx->info().multiprocessors;
        char text[160];
        std::snprintf(text,
                      sizeof text,
                      "%d chunk%s of %d codewords on two streams, %d blocks a launch, "
                      "%.2f waves",
                      chunks,
                      chunks > 1 ? "s" : "",
                      chunk,
                      blocks,
                      fit > 0 ? blocks / fit : 0.0);
        return text;
    }

    // The kernel (fixed-point layered decoding: two codewords a block, or
    // one) and the codewords per chunk (a chunk's upload overlaps the other
    // lane's decoding), the heuristic's first.
    std::vector<std::string> configurations() const override
    {
        std::vector<std::string> ids{ id_of(d_pair_heuristic, chunk_default) };
        for (const bool pair : { d_pair_heuristic, !d_pair_heuristic })
            for (const int chunk : { 128, 256, 512, 1024 })
                if ((!pair || d_pair_possible) && id_of(pair, chunk) != ids[0])
                    ids.push_back(id_of(pair, chunk));
        return ids;
    }
    void use(const std::string& id) override
    {
        for (const bool pair : { false, true })
            for (const int chunk : { 128, 256, 512, 1024 })
                if (id == id_of(pair, chunk) && (!pair || d_pair_possible))
                    use_form(pair, chunk);
    }
    void reserve(int batch) override
    {
        d_ctx->make_current();
        for (auto& lane : d_lanes)
            reserve(lane, std::min(batch, d_chunk));
    }

    void decode(
        const float* llrs, int batch, uint8_t* bits, int32_t* its, uint8_t* ok) override
    {
        run(llrs, ldpc5g_llr_format::f32, batch, bits, false, its, ok);
    }

    bool decode_any(const void* llrs,
                    ldpc5g_llr_format format,
                    int batch,
                    uint8_t* bits,
                    bool packed_bits,
                    int32_t* its,
                    uint8_t* ok) override
    {
        if (!d_pair)
            return false;
        run(llrs, format, batch, bits, packed_bits, its, ok);
        return true;
    }

private:
    void run(const void* llrs,
             ldpc5g_llr_format format,
             int batch,
             uint8_t* bits,
             bool packed_bits,
             int32_t* its,
             uint8_t* ok)
    {
        d_ctx->make_current();
        d_kernel_seconds = 0; // (a decode that throws leaves no stale time)
        const auto& p = d_l.p;
        const std::size_t llr_size = format == ldpc5g_llr_format::f32   ? 4
                                     : format == ldpc5g_llr_format::f16 ? 2
                                                                        : 1;
        const std::size_t bits_per_cw = packed_bits ? (p.K + 7) / 8 : p.K;
        const int chunk = std::min(batch, d_chunk);
        for (auto& lane : d_lanes)
            reserve(lane, chunk);
        int lane_of_chunk = 0;
        std::vector<std::pair<int, int>> pending(2,
                                                 { -1, 0 }); // (first cw, count) per lane
        // Each chunk's kernel interval, in seconds from the first kernel's
        // start, read before its lane's events are recorded again.
        std::vector<std::pair<double, double>> kernel_intervals;
        auto finish = [&](int k) {
            auto& lane = d_lanes[k];
            if (pending[k].first < 0)
                return;
            lane.stream->synchronize();
            float begin_ms = 0, end_ms = 0;
            check(cudaEventElapsedTime(&begin_ms, d_first_begin, lane.begin),
                  "cudaEventElapsedTime");
            check(cudaEventElapsedTime(&end_ms, d_first_begin, lane.end),
                  "cudaEventElapsedTime");
            kernel_intervals.emplace_back(begin_ms * 1e-3, end_ms * 1e-3);
            const int b0 = pending[k].first, n = pending[k].second;
            std::memcpy(
                bits + b0 * bits_per_cw, lane.h_bits->get(), n * bits_per_cw);
            std::memcpy(its + b0, lane.h_its->get(), std::size_t(n) * 4);
            std::memcpy(ok + b0, lane.h_ok->get(), std::size_t(n));
            pending[k].first = -1;
        };
        for (int b0 = 0; b0 < batch; b0 += chunk) {
            const int n = std::min(chunk, batch - b0);
            const int k = lane_of_chunk;
            lane_of_chunk ^= 1;
            finish(k); // its buffers are free again
            auto& lane = d_lanes[k];
            const auto s = lane.stream->get();
            const auto cs = static_cast<cudaStream_t>(s);
            std::memcpy(lane.h_llr->get(),
                        static_cast<const char*>(llrs) + std::size_t(b0) * p.E * llr_size,
                        std::size_t(n) * p.E * llr_size);
            d_ctx->copy_async(lane.d_llr->get(),
                              lane.h_llr->get(),
                              std::size_t(n) * p.E * llr_size,
                              runtime::copy_kind::host_to_device,
                              s,
                              d_who);
            if (b0 == 0)
                check(cudaEventRecord(d_first_begin, cs), "cudaEventRecord");
            check(cudaEventRecord(lane.begin, cs), "cudaEventRecord");
            launch(n, lane, cs, format, packed_bits);
            check(cudaEventRecord(lane.end, cs), "cudaEventRecord");
            d_ctx->copy_async(lane.h_bits->get(),
                              lane.d_bits->get(),
                              n * bits_per_cw,
                              runtime::copy_kind::device_to_host,
                              s,
                              d_who);
            d_ctx->copy_async(lane.h_its->get(),
                              lane.d_its->get(),
                              std::size_t(n) * 4,
                              runtime::copy_kind::device_to_host,
                              s,
                              d_who);
            d_ctx->copy_async(lane.h_ok->get(),
                              lane.d_ok->get(),
                              std::size_t(n),
                              runtime::copy_kind::device_to_host,
                              s,
                              d_who);
            pending[k] = { b0, n };
        }
        finish(0);
        finish(1);
        // The batch's kernel time: the union of its chunks' kernel
        // intervals. Kernels on the two streams may overlap (their times do
        // not add), and the host stages the next chunk's LLRs between them
        // (that gap is host-to-host time, not the kernels').
        d_kernel_seconds = interval_union_length(std::move(kernel_intervals));
    }

    struct lane_t {
        std::unique_ptr<runtime::device_stream> stream;
        cudaEvent_t begin = nullptr, end = nullptr; // around the chunk's kernel
        int capacity = 0;
        std::unique_ptr<runtime::device_memory> d_llr, d_states, d_channel, d_app, d_bits,
            d_its, d_ok;
        std::unique_ptr<runtime::pinned_memory> h_llr, h_bits, h_its, h_ok;
    };

    void reserve(lane_t& lane, int n)
    {
        if (lane.capacity >= n)
            return;
        const auto& p = d_l.p;
        auto dev = [&](std::size_t bytes) {
            return std::make_unique<runtime::device_memory>(
                d_ctx, std::max<std::size_t>(bytes, 4), d_who);
        };
        auto host = [&](std::size_t bytes) {
            return std::make_unique<runtime::pinned_memory>(
                d_ctx, std::max<std::size_t>(bytes, 4), d_who);
        };
        lane.d_llr = dev(std::size_t(n) * p.E * 4);
        lane.d_states =
            d_pair ? dev(ldpc_pair_state_bytes(d_dev, n))
                   : dev(std::size_t(n) * 2 * p.rows_used * p.Z *
                         sizeof(ldpc_check_state<T>));
        lane.d_channel = d_l.c.layered
                             ? dev(4)
                             : dev(std::size_t(n) * d_l.cols_used * p.Z * sizeof(T));
        lane.d_app = d_pair ? dev(ldpc_pair_app_bytes(d_dev, n, d_smem))
                     : d_smem ? dev(4)
                              : dev(std::size_t(n) * d_l.cols_used * p.Z * sizeof(S));
        lane.d_bits = dev(std::size_t(n) * p.K);
        lane.d_its = dev(std::size_t(n) * 4);
        lane.d_ok = dev(std::size_t(n));
        lane.h_llr = host(std::size_t(n) * p.E * 4);
        lane.h_bits = host(std::size_t(n) * p.K);
        lane.h_its = host(std::size_t(n) * 4);
        lane.h_ok = host(std::size_t(n));
        lane.capacity = n;
    }

    void check(cudaError_t e, const char* what) const
    {
        runtime::cuda_check(e, what, d_ctx->device(), d_who);
    }

    static std::string id_of(bool pair, int chunk)
    {
        return std::string(pair ? "pair" : "codeword") +
               " chunk=" + std::to_string(chunk);
    }

    // The lanes' buffers are laid out for one kernel: another reallocates
    // them at the next decode.
    void use_form(bool pair, int chunk)
    {
        if (pair != d_pair)
            for (auto& lane : d_lanes)
                lane.capacity = 0;
        d_pair = pair;
        d_smem = pair ? d_pair_smem : d_codeword_smem;
        d_chunk = chunk;
    }

    void launch(int n, lane_t& lane, cudaStream_t s, ldpc5g_llr_format format, bool packed)
    {
        if (d_pair) {
            ldpc_pair_launch(d_dev,
                             lane.d_llr->get(),
                             format,
                             n,
                             lane.d_states->get(),
                             lane.d_app->get(),
                             d_smem,
                             reinterpret_cast<uint8_t*>(lane.d_bits->get()),
                             packed,
                             reinterpret_cast<int32_t*>(lane.d_its->get()),
                             reinterpret_cast<uint8_t*>(lane.d_ok->get()),
                             s);
            d_ctx->check_last_error("ldpc5g pair decoder kernel launch", d_who);
            return;
        }
        auto* llr = reinterpret_cast<const float*>(lane.d_llr->get());
        auto* st = reinterpret_cast<ldpc_check_state<T>*>(lane.d_states->get());
        auto* ch = d_l.c.layered ? nullptr : reinterpret_cast<T*>(lane.d_channel->get());
        auto* app = d_smem ? nullptr : reinterpret_cast<S*>(lane.d_app->get());
        auto* b = reinterpret_cast<uint8_t*>(lane.d_bits->get());
        auto* it = reinterpret_cast<int32_t*>(lane.d_its->get());
        auto* o = reinterpret_cast<uint8_t*>(lane.d_ok->get());
        if (d_l.c.layered)
            decode_kernel<T, S, true>
                <<<n, d_threads, d_smem, s>>>(d_dev, llr, st, ch, app, b, it, o);
        else
            decode_kernel<T, S, false>
                <<<n, d_threads, d_smem, s>>>(d_dev, llr, st, ch, app, b, it, o);
        d_ctx->check_last_error("ldpc5g decoder kernel launch", d_who);
    }

    const ldpc5g_layout d_l;
    runtime::device_context::sptr d_ctx;
    std::string d_who;
    std::unique_ptr<runtime::device_memory> d_tables;
    dev_layout d_dev;
    std::size_t d_pair_smem = 0, d_codeword_smem = 0; // each kernel's shared memory
    bool d_pair_possible = false, d_pair_heuristic = false;
    bool d_pair = false;         // the two-codeword kernel runs
    std::size_t d_smem = 0;      // the running kernel's shared memory (0: global)
    int d_chunk = chunk_default; // codewords per chunk
    int d_threads;
    lane_t d_lanes[2];
    cudaEvent_t d_first_begin = nullptr;
    double d_kernel_seconds = 0;
};

} // namespace

std::unique_ptr<ldpc5g_decoder_plan::impl> make_ldpc5g_cuda(
    const ldpc5g_layout& l, runtime::device_context::sptr ctx, const std::string& who)
{
    if (l.c.fixed_point)
        return std::make_unique<decoder_cuda<int32_t>>(l, std::move(ctx), who);
    return std::make_unique<decoder_cuda<float>>(l, std::move(ctx), who);
}

} // namespace kernels
} // namespace gpudsp
} // namespace gr
