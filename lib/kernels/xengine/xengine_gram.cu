/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The X-engine's Gram form on CUDA (docs/xengine.md, "Gram form"): the
// library candidate, so that a GPU where our tensor kernels lose still gets
// cuBLASLt's speed. Per launch (a block of channels, up to all the call's
// spectra):
//   xgr_pack        [t][channel][input] ci8 -> Y [channel][row][t], rows
//                   2a (re) and 2a + 1 (im), through shared memory (8-byte
//                   stores of 32 spectra of a row);
//   cuBLASLt        G = Y Y^T per channel, int8 in, int32 out, batched;
//   xgr_combine     (re, im) of each pair a >= b from G, added to the int32
//                   partials: one coalesced 8-byte read-modify-write per
//                   pair, no dependent chain.
// The GEMM forms the full square, twice the needed products, and G passes
// through memory: the form's price for a library's tuned main loop.
// With our kernels the last two steps are one, forming only the lower
// triangle's tiles and adding them straight to the partials, so that the
// workspace holds Y alone: engine "mma" (sm_80 on, xcorr_gram_mma below)
// or the persistent sm_90a kernel (xengine_ws.cu, "wgmma gram"; engine =
// its B tiles' rows, 128 or 256).

#include "kernels/common/cp_async.cuh"
#include "runtime/autotune.h"
#include "runtime/cuda_check.h"
#include "xengine_gram.h"
#include "xengine_gram_cuda.h"
#include "xengine_impl.h"
#include "xengine_mma.cuh"
#include "xengine_ws.h"
#include "xengine_ws_cuda.h"
#include <cublasLt.h>
#include <algorithm>
#include <map>

namespace gr {
namespace gpudsp {
namespace kernels {

namespace {

constexpr std::size_t lt_workspace_bytes = std::size_t(32) << 20;
constexpr int combine_threads = 256;

__global__ void __launch_bounds__(xgr_pack_threads) xgr_pack(const char2* __restrict__ x,
                                                             int n_time,
                                                             int n_channels,
                                                             int channel0,
                                                             int n_inputs,
                                                             int n_rows,
                                                             int t_pad,
                                                             signed char* __restrict__ y)
{
    // Rows 2 a_local + part of the block's 64 inputs, 32 spectra each.
    __shared__ __align__(16) signed char s[2 * xgr_pack_inputs * xgr_pack_pitch];
    const int g = blockIdx.x, tb = blockIdx.y, lc = blockIdx.z;
    constexpr int loads = xgr_k * xgr_pack_inputs / xgr_pack_threads;
    GPUDSP_UNROLL
    for (int k = 0; k < loads; ++k) {
        int a_local, tt;
        const long long from = xgr_pack_load(threadIdx.x + k * xgr_pack_threads,
                                             g,
                                             tb,
                                             channel0 + lc,
                                             n_time,
                                             n_channels,
                                             n_inputs,
                                             a_local,
                                             tt);
        const char2 v = from >= 0 ? x[from] : make_char2(0, 0);
        s[(2 * a_local) * xgr_pack_pitch + tt] = v.x;
        s[(2 * a_local + 1) * xgr_pack_pitch + tt] = v.y;
    }
    __syncthreads();
    constexpr int stores = 2 * xgr_pack_inputs * 4 / xgr_pack_threads;
    GPUDSP_UNROLL
    for (int k = 0; k < stores; ++k) {
        int row_local, row, quarter;
        xgr_pack_store(threadIdx.x + k * xgr_pack_threads, g, row_local, row, quarter);
        if (row < n_rows)
            *reinterpret_cast<uint2*>(
                y + xgr_y_offset(lc, row, tb * xgr_k + 8 * quarter, n_rows, t_pad)) =
                *reinterpret_cast<const uint2*>(s + row_local * xgr_pack_pitch +
                                                8 * quarter);
    }
}

__global__ void __launch_bounds__(combine_threads)
    xgr_combine_pairs(const int* __restrict__ g,
                      int n_rows,
                      int channel0,
                      int n_inputs,
                      int* __restrict__ part)
{
    const long long pairs = (long long)n_inputs * (n_inputs + 1) / 2;
    const int lc = blockIdx.y;
    int2* p = reinterpret_cast<int2*>(part) + (long long)(channel0 + lc) * pairs;
    for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; k < pairs;
         k += (long long)gridDim.x * blockDim.x) {
        int a, b;
        xgr_pair(k, a, b);
        const int2 cr =
            *reinterpret_cast<const int2*>(g + xgr_g_offset(lc, 2 * b, 2 * a, n_rows));
        const int2 ci = *reinterpret_cast<const int2*>(
            g + xgr_g_offset(lc, 2 * b, 2 * a + 1, n_rows));
        const int2 before = p[k];
        int32_t v[2] = { before.x, before.y };
        xgr_combine(cr.x, cr.y, ci.x, ci.y, v);
        p[k] = make_int2(v[0], v[1]);
    }
}

// The Gram form on mma.sync (sm_80 and later; xengine_gram.h, "The Gram
// form on mma.sync"): tile blockIdx.x of launch channel blockIdx.y.
__global__ void __launch_bounds__(xgm_threads)
    xcorr_gram_mma(const signed char* __restrict__ y,
                   long long per_channel,
                   int n_rows,
                   int t_pad,
                   int n_inputs,
                   int channel0,
                   int* __restrict__ part)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    extern __shared__ __align__(16) unsigned char smem[];
    const xws_tile w = xws_tile_at(blockIdx.x, per_channel, xgm_tile);
    const int lc = blockIdx.y, warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const signed char* ylc = y + std::size_t(lc) * n_rows * t_pad;
    const int n_stages = (t_pad + xgm_k - 1) / xgm_k;
    // A diagonal tile's A rows are its B rows: copied once, read as B.
    const int a_side = w.inner ? 1 : 0;
    auto issue = [&](int st) {
        unsigned char* stage = smem + (st % xgm_stages) * xgm_stage_bytes;
        for (int e = threadIdx.x; e < 2 * xgm_tile * (xgm_k / 16); e += xgm_threads) {
            const xgm_copy c = xgm_copy_of(e);
            if (c.side == 0 && w.inner)
                continue;
            const int row = (c.side ? w.j : w.i) * xgm_tile + c.row;
            const int k = st * xgm_k + 16 * c.chunk;
            // t_pad is a multiple of 32: a chunk is inside or past it whole.
            const bool inside = row < n_rows && k < t_pad;
            copy16_async_zfill(stage + xgm_smem_offset(c.side, c.row, 16 * c.chunk),
                               inside ? ylc + std::size_t(row) * t_pad + k : ylc,
                               inside ? 16 : 0);
        }
    };
    int acc[xgm_regs / 4][4] = {};
    copy_prologue(issue, n_stages);
    for (int st = 0; st < n_stages; ++st) {
        copy_wait<1>();
        __syncthreads(); // stage st landed; stage st - 1's reads are done
        if (st + 2 < n_stages)
            issue(st + 2);
        copy_commit();
        const unsigned char* stage = smem + (st % xgm_stages) * xgm_stage_bytes;
#pragma unroll
        for (int kk = 0; kk < xgm_k / 32; ++kk) {
            uint32_t a[4][4], b[4][2];
#pragma unroll
            for (int mi = 0; mi < 4; ++mi)
#pragma unroll
                for (int i = 0; i < 4; ++i)
                    a[mi][i] = *reinterpret_cast<const uint32_t*>(
                        stage +
                        xgm_smem_offset(a_side,
                                        64 * (warp >> 2) + 16 * mi + xtc_a_row(lane, i),
                                        32 * kk + xtc_a_k(lane, i)));
#pragma unroll
            for (int nj = 0; nj < 4; ++nj)
#pragma unroll
                for (int i = 0; i < 2; ++i)
                    b[nj][i] = *reinterpret_cast<const uint32_t*>(
                        stage +
                        xgm_smem_offset(1,
                                        32 * (warp & 3) + 8 * nj + xtc_b_col(lane),
                                        32 * kk + xtc_b_k(lane, i)));
#pragma unroll
            for (int mi = 0; mi < 4; ++mi)
#pragma unroll
                for (int nj = 0; nj < 4; ++nj)
                    mma_s8(acc[4 * mi + nj], a[mi], b[nj]);
        }
    }
    copy_wait<0>();
    // (re, im) with one shuffle, then one atomic add a result.
    const long long pairs = (long long)n_inputs * (n_inputs + 1) / 2;
    const long long channel_pairs0 = (long long)(channel0 + lc) * pairs;
    const int a0 = w.i * (xgm_tile / 2), b0 = w.j * (xgm_tile / 2);
#pragma unroll
    for (int r = 0; r < xgm_regs; r += 2) {
        const int other = __shfl_xor_sync(0xffffffffu, acc[r / 4][(r + 1) % 4], 4);
        const int row = xgm_row_of(warp, lane, r), col = xgm_col_of(warp, lane, r);
        const int a = a0 + row / 2, b = b0 + col / 2, half = row & 1;
        if (a < n_inputs && b <= a)
            atomicAdd(part + 2 * (channel_pairs0 + (long long)a * (a + 1) / 2 + b) + half,
                      xws_combine(half, acc[r / 4][r % 4], other));
    }
#endif
}

std::string lt_status(cublasStatus_t st)
{
    return "cuBLASLt status " + std::to_string(int(st));
}

} // namespace

struct xengine_gram_cuda::impl {
    impl(runtime::device_context::sptr c, int nc, int na, const std::string& w, int e)
        : ctx(std::move(c)),
          n_channels(nc),
          n_inputs(na),
          n_rows(xgr_rows(na)),
          engine(e),
          who(w),
          work(ctx, xgr_workspace(nc, na, e == xengine_gram_cuda::cublaslt), who),
          lt_work(ctx, e == xengine_gram_cuda::cublaslt ? lt_workspace_bytes : 16, who)
    {
        if (engine != xengine_gram_cuda::cublaslt) {
            sm_count = std::max(1, ctx->info().multiprocessors);
            return; // no cuBLASLt handle
        }
        try {
            create();
        } catch (...) {
            destroy(); // the destructor does not run for a constructor that throws
            throw;
        }
    }
    void create()
    {
        ctx->make_current();
        check(cublasLtCreate(&lt), "cublasLtCreate");
        check(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32I, CUDA_R_32I),
              "cublasLtMatmulDescCreate");
        // G = op(Y)^T op(Y): Y stored [row][t] is a column-major t x R
        // matrix (ld = t_pad), so "TN" gives R x R.
        const cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
        check(cublasLtMatmulDescSetAttribute(
                  op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta),
              "cublasLtMatmulDescSetAttribute");
        check(cublasLtMatmulDescSetAttribute(
                  op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb),
              "cublasLtMatmulDescSetAttribute");
        check(cublasLtMatmulPreferenceCreate(&pref), "cublasLtMatmulPreferenceCreate");
        check(
            cublasLtMatmulPreferenceSetAttribute(pref,
                                                 CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                 &lt_workspace_bytes,
                                                 sizeof lt_workspace_bytes),
            "cublasLtMatmulPreferenceSetAttribute");
    }
    ~impl() { destroy(); }
    void destroy() noexcept
    {
        for (auto& l : layouts) {
            cublasLtMatrixLayoutDestroy(l.second.ly);
            cublasLtMatrixLayoutDestroy(l.second.lg);
        }
        layouts.clear();
        if (pref)
            cublasLtMatmulPreferenceDestroy(pref);
        if (op)
            cublasLtMatmulDescDestroy(op);
        if (lt)
            cublasLtDestroy(lt);
        pref = nullptr;
        op = nullptr;
        lt = nullptr;
    }

    void check(cublasStatus_t st, const char* what) const
    {
        if (st != CUBLAS_STATUS_SUCCESS)
            throw runtime::device_error(who + ": " + what +
                                        " (X-engine Gram form) failed: " + lt_status(st));
    }

    // Layouts and the algorithm of launches of t_pad spectra x nc channels,
    // made once per shape (a plan sees a few: full launches and the rests
    // of its call sizes).
    struct shape {
        cublasLtMatrixLayout_t ly = nullptr, lg = nullptr;
        cublasLtMatmulAlgo_t algo{};
    };
    const shape& shape_for(int t_pad, int nc)
    {
        const auto key = std::make_pair(t_pad, nc);
        const auto found = layouts.find(key);
        if (found != layouts.end())
            return found->second;
        shape sh;
        auto drop = [&] {
            if (sh.ly)
                cublasLtMatrixLayoutDestroy(sh.ly);
            if (sh.lg)
                cublasLtMatrixLayoutDestroy(sh.lg);
        };
        try {
            check(
                cublasLtMatrixLayoutCreate(
                    &sh.ly, CUDA_R_8I, uint64_t(t_pad), uint64_t(n_rows), int64_t(t_pad)),
                "cublasLtMatrixLayoutCreate");
            check(cublasLtMatrixLayoutCreate(&sh.lg,
                                             CUDA_R_32I,
                                             uint64_t(n_rows),
                                             uint64_t(n_rows),
                                             int64_t(n_rows)),
                  "cublasLtMatrixLayoutCreate");
            const int32_t batch = nc;
            const int64_t y_stride = int64_t(n_rows) * t_pad,
                          g_stride = int64_t(n_rows) * n_rows;
            for (const auto& [l, stride] :
                 { std::make_pair(sh.ly, y_stride), std::make_pair(sh.lg, g_stride) }) {
                check(cublasLtMatrixLayoutSetAttribute(
                          l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batch, sizeof batch),
                      "cublasLtMatrixLayoutSetAttribute");
                check(cublasLtMatrixLayoutSetAttribute(
                          l,
                          CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
                          &stride,
                          sizeof stride),
                      "cublasLtMatrixLayoutSetAttribute");
            }
            cublasLtMatmulHeuristicResult_t heur{};
            int found_algos = 0;
            const cublasStatus_t st = cublasLtMatmulAlgoGetHeuristic(
                lt, op, sh.ly, sh.ly, sh.lg, sh.lg, pref, 1, &heur, &found_algos);
            if (st != CUBLAS_STATUS_SUCCESS || found_algos == 0)
                throw runtime::candidate_unavailable(
                    who + ": cuBLASLt has no int8 GEMM for the X-engine's Gram form (" +
                    std::to_string(n_rows) + " rows, " + std::to_string(t_pad) +
                    " spectra, " + std::to_string(nc) + " channels): " + lt_status(st));
            sh.algo = heur.algo;
        } catch (...) {
            drop();
            throw;
        }
        return layouts.emplace(key, sh).first->second;
    }

    // The persistent kernel's tensor map of launches of t_pad spectra x nc
    // channels (Y always at the workspace's start).
    const xws_map& map_for(int t_pad, int nc)
    {
        const auto key = std::make_pair(t_pad, nc);
        const auto found = maps.find(key);
        if (found != maps.end())
            return found->second;
        xws_map m{};
#ifdef GPUDSP_HAVE_XWS
        const std::string e = xengine_ws_encode(m, work.get(), t_pad, n_rows, nc);
#else
        const std::string e = "built without sm_90a code";
#endif
        if (!e.empty())
            throw runtime::device_error(who + ": X-engine wgmma Gram kernel: " + e);
        return maps.emplace(key, m).first->second;
    }

    // Our kernel: the lower triangle of every launch channel's G, tile by
    // tile on a persistent grid, into the partials.
    void launch_ws(int t_pad, int nc, int c0, int* part, cudaStream_t stream)
    {
        if (engine == xengine_gram_cuda::mma) { // sm_80 on: a block a tile
            const long long per_channel = xws_tiles_per_channel(n_rows, xgm_tile);
            xcorr_gram_mma<<<dim3(unsigned(per_channel), unsigned(nc)),
                             xgm_threads,
                             xgm_smem_bytes,
                             stream>>>(reinterpret_cast<const signed char*>(work.get()),
                                       per_channel,
                                       n_rows,
                                       t_pad,
                                       n_inputs,
                                       c0,
                                       part);
            ctx->check_last_error("xengine mma.sync Gram kernel launch", who);
            return;
        }
#ifdef GPUDSP_HAVE_XWS
        const long long per_channel = xws_tiles_per_channel(n_rows, engine);
        const long long tiles = per_channel * nc;
        const int grid = int(std::min<long long>(tiles, sm_count));
        xengine_ws_launch(engine,
                          false,
                          map_for(t_pad, nc),
                          grid,
                          tiles,
                          per_channel,
                          xws_k_blocks(t_pad),
                          n_rows,
                          n_inputs,
                          c0,
                          part,
                          stream);
        ctx->check_last_error("xengine wgmma Gram kernel launch", who);
#else
        (void)t_pad, (void)nc, (void)c0, (void)part, (void)stream;
#endif
    }

    void accumulate(const char2* x,
                    std::size_t n,
                    int* part,
                    cudaStream_t stream,
                    runtime::stage_clock& clock)
    {
        ctx->make_current();
        const xgr_launch_shape sh = xgr_launch_shape_for(
            n, n_channels, n_inputs, work.size(), engine == xengine_gram_cuda::cublaslt);
        auto* y = reinterpret_cast<signed char*>(work.get());
        for (std::size_t t0 = 0; t0 < n; t0 += std::size_t(sh.spectra)) {
            const int nt = int(std::min<std::size_t>(n - t0, std::size_t(sh.spectra)));
            const int t_pad = (nt + xgr_k - 1) / xgr_k * xgr_k;
            for (int c0 = 0; c0 < n_channels; c0 += sh.channels) {
                const int nc = std::min(sh.channels, n_channels - c0);
                auto* g =
                    reinterpret_cast<int*>(y + xgr_g_bytes_offset(nc, n_rows, t_pad));
                clock.start(stream);
                xgr_pack<<<dim3((n_rows + 2 * xgr_pack_inputs - 1) /
                                    (2 * xgr_pack_inputs),
                                t_pad / xgr_k,
                                nc),
                           xgr_pack_threads,
                           0,
                           stream>>>(x + t0 * std::size_t(n_channels) * n_inputs,
                                     nt,
                                     n_channels,
                                     c0,
                                     n_inputs,
                                     n_rows,
                                     t_pad,
                                     y);
                ctx->check_last_error("xengine Gram pack kernel launch", who);
                clock.stage("Gram pack", 0, stream);
                if (engine != xengine_gram_cuda::cublaslt) {
                    launch_ws(t_pad, nc, c0, part, stream);
                    clock.stage("Gram GEMM (ours)", 0, stream);
                    continue;
                }
                const shape& sh_lt = shape_for(t_pad, nc);
                const int32_t alpha = 1, beta = 0;
                check(cublasLtMatmul(lt,
                                     op,
                                     &alpha,
                                     y,
                                     sh_lt.ly,
                                     y,
                                     sh_lt.ly,
                                     &beta,
                                     g,
                                     sh_lt.lg,
                                     g,
                                     sh_lt.lg,
                                     &sh_lt.algo,
                                     lt_work.get(),
                                     lt_work.size(),
                                     stream),
                      "cublasLtMatmul");
                clock.stage("Gram GEMM (cuBLASLt)", 0, stream);
                const long long pairs = (long long)n_inputs * (n_inputs + 1) / 2;
                const unsigned blocks = unsigned(std::min<long long>(
                    (pairs + combine_threads - 1) / combine_threads, 4096));
                xgr_combine_pairs<<<dim3(blocks, nc), combine_threads, 0, stream>>>(
                    g, n_rows, c0, n_inputs, part);
                ctx->check_last_error("xengine Gram combine kernel launch", who);
                clock.stage("Gram combine", 0, stream);
            }
        }
    }

    runtime::device_context::sptr ctx;
    int n_channels, n_inputs, n_rows;
    int engine;       // xengine_gram_cuda::cublaslt, or our kernel's B rows
    int sm_count = 0; // our kernel's persistent grid
    std::string who;
    runtime::device_memory work;    // Y of a launch (then its G for cuBLASLt)
    runtime::device_memory lt_work; // cuBLASLt's
    cublasLtHandle_t lt = nullptr;
    cublasLtMatmulDesc_t op = nullptr;
    cublasLtMatmulPreference_t pref = nullptr;
    std::map<std::pair<int, int>, shape> layouts; // by (t_pad, nc)
    std::map<std::pair<int, int>, xws_map> maps;  // by (t_pad, nc)
};

xengine_gram_cuda::xengine_gram_cuda(runtime::device_context::sptr ctx,
                                     int n_channels,
                                     int n_inputs,
                                     const std::string& who,
                                     int engine)
    : d(std::make_unique<impl>(std::move(ctx), n_channels, n_inputs, who, engine))
{
}

xengine_gram_cuda::~xengine_gram_cuda() = default;

namespace {

// Why the mma.sync Gram kernel cannot run on \p device (current); empty if
// it can (then its shared-memory limit is set, process-wide).
std::string mma_unusable(int device)
{
    int major = 0;
    if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) !=
        cudaSuccess) {
        cudaGetLastError();
        return "cannot read the device's compute capability";
    }
    if (major < 8)
        return "needs sm_80 or later (mma.sync m16n8k32, cp.async)";
    cudaFuncAttributes attr{};
    if (cudaFuncGetAttributes(&attr, xcorr_gram_mma) != cudaSuccess ||
        attr.ptxVersion < 80) { // an sm_75-only build would JIT an empty body
        cudaGetLastError();
        return "no sm_80+ image of the kernel in this build";
    }
    if (cudaFuncSetAttribute(xcorr_gram_mma,
                             cudaFuncAttributeMaxDynamicSharedMemorySize,
                             xgm_smem_bytes) != cudaSuccess) {
        cudaGetLastError();
        return "its " + std::to_string(xgm_smem_bytes) +
               " bytes of shared memory a block are refused";
    }
    return "";
}

} // namespace

std::string xengine_gram_cuda::unavailable(
    int n_channels, int n_inputs, std::size_t free_bytes, int engine, int device)
{
    if (engine == mma) {
        const std::string why = mma_unusable(device);
        if (!why.empty())
            return why;
    } else if (engine != cublaslt) {
#ifdef GPUDSP_HAVE_XWS
        const std::string why = xengine_ws_unusable(device, engine);
        if (!why.empty())
            return why;
#else
        (void)device;
        return "needs sm_90a (an H100 or H200) and a build for it";
#endif
    }
    if (engine != cublaslt) {
        const std::size_t need = xgr_workspace(n_channels, n_inputs, false);
        if (need > free_bytes / 2)
            return "the Gram form on our kernel needs " + std::to_string(need >> 20) +
                   " MiB of workspace, over half the device's free memory";
        return "";
    }
    const std::size_t need = xgr_workspace(n_channels, n_inputs) + lt_workspace_bytes;
    if (need > free_bytes / 2)
        return "the Gram form needs " + std::to_string(need >> 20) +
               " MiB of workspace (one channel's G alone is " +
               std::to_string(
                   (std::size_t(xgr_rows(n_inputs)) * xgr_rows(n_inputs) * 4) >> 20) +
               " MiB), over half the device's free memory";
    return "";
}

void xengine_gram_cuda::accumulate(const void* x,
                                   std::size_t n,
                                   int* part,
                                   cudaStream_t stream,
                                   runtime::stage_clock& clock)
{
    d->accumulate(static_cast<const char2*>(x), n, part, stream, clock);
}

} // namespace kernels
} // namespace gpudsp
} // namespace gr
