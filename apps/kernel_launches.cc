/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// gpudsp_kernel_launches: the launches whose shared memory is chosen at run
// time, at every configuration the documentation allows, as JSON for
// scripts/kernel-report.sh (which checks them against each architecture's
// limit). The numbers come from the same functions the launch code calls.
// Needs no GPU. Not installed.

#include "kernels/ddc/ddc_impl.h"
#include "kernels/ddc/ddc_ring.h"
#include "kernels/ddc/ddc_tensor.h"
#include "kernels/ddc/ddc_tile.h"
#include "kernels/fengine/fengine_fftpost.h"
#include "kernels/fengine/fengine_onepass.h"
#include "kernels/gnss/gnss_correlator_impl.h"
#include "kernels/ldpc/ldpc5g_impl.h"
#include "kernels/ldpc/ldpc5g_pair_bg.h"
#include "kernels/xengine/xengine_tile.h"
#include "kernels/xengine/xengine_ws.h"
#include <gnuradio/gpudsp/kernels/ldpc5g.h>
#include <cstdio>
#include <string>

namespace {

using namespace gr::gpudsp::kernels;

bool first = true;

// kernel: a regular expression on the kernel's short name
// ("decode_kernel<float, float, true>"), as the report prints it.
// smem_limit: the launch is chosen for devices allowing this many bytes of
// shared memory per block (0: for every device); the report matches it
// against each architecture's limit.
void emit(const char* kernel,
          const std::string& config,
          int threads,
          std::size_t bytes,
          std::size_t smem_limit = 0)
{
    std::printf("%s\n  {\"kernel\": \"%s\", \"config\": \"%s\", \"threads\": %d, "
                "\"dynamic_shared\": %zu, \"smem_limit\": %zu}",
                first ? "" : ",",
                kernel,
                config.c_str(),
                threads,
                bytes,
                smem_limit);
    first = false;
}

} // namespace

int main()
{
    std::printf("[");
    // DDC: taps in shared memory up to ddc_cuda_max_shared_taps (any count
    // is allowed; more are read through the cache with no shared memory).
    const int T = ddc_cuda_max_shared_taps;
    emit("^ddc_kernel<.*, true>$",
         "T = " + std::to_string(T) + " taps (the most held in shared memory)",
         ddc_cuda_threads,
         ddc_cuda_shared_bytes(T));
    // DDC tile kernel: the shapes the plan picks (ddc_tile_shape_for) for
    // the benchmark's filters and a short one (4 taps per phase: AC = 4),
    // real and complex input, at each per-block shared-memory limit, for
    // every number of outputs a thread the tuner may choose.
    for (const std::size_t limit : ldpc5g_cuda_smem_limits)
        for (const bool cplx : { false, true })
            for (const int lgR : ddc_tile_r_log2s(cplx, false))
                for (const auto& dt : { std::make_pair(16, 256),
                                        std::make_pair(8, 128),
                                        std::make_pair(64, 1024),
                                        std::make_pair(16, 55) }) {
                    const auto sh =
                        ddc_tile_shape_for(dt.first, dt.second, cplx, limit, lgR);
                    if (!sh.A || (lgR != 3 && sh.AC != 8))
                        continue; // the simple kernel's case; R = 4 with AC = 8 only
                    // ('.' for the parentheses: the pattern travels in JSON;
                    // complex input also mixing first, on the same shape)
                    const std::string kernel =
                        std::string("^ddc_tile_kernel<.sample_kind.") +
                        (cplx ? "3" : "[012]") + ", " + std::to_string(sh.R()) + ", " +
                        std::to_string(sh.AC) + (cplx ? ", (false|true)>$" : ", false>$");
                    emit(kernel.c_str(),
                         "D=" + std::to_string(dt.first) +
                             " T=" + std::to_string(dt.second) +
                             (cplx ? " complex" : " real") + ", " + std::to_string(sh.M) +
                             " outputs per tile, " + std::to_string(sh.G) +
                             " phase groups, R=" + std::to_string(sh.R()),
                         sh.threads(),
                         ddc_tile_shared_bytes(sh, cplx ? 8 : 4),
                         limit);
                }
    // DDC ring kernel: every candidate the tuner may time (ddc_ring.h) for
    // the same filters and a short one of few phases (D = 4, T = 16: a ring
    // with 4 taps a phase fits sm_75 for complex input too), per sample
    // format (the stage holds its bytes).
    for (const std::size_t limit : ldpc5g_cuda_smem_limits)
        for (const int kind : { 0, 1, 2, 3 })
            for (const auto& dt : { std::make_pair(16, 256),
                                    std::make_pair(8, 128),
                                    std::make_pair(64, 1024),
                                    std::make_pair(16, 55),
                                    std::make_pair(4, 16) }) {
                const int bits = kind == 0 ? 10 : kind == 1 ? 16 : kind == 2 ? 32 : 64;
                for (const auto& r :
                     ddc_ring_candidates(dt.first, dt.second, bits, limit)) {
                    const std::string kernel =
                        "^ddc_ring_kernel<.sample_kind." + std::to_string(kind) + ", " +
                        std::to_string(r.sh.R()) + ", " + std::to_string(r.sh.AC) +
                        (kind == 3 ? ", (false|true)>$" : ", false>$");
                    emit(kernel.c_str(),
                         "D=" + std::to_string(dt.first) +
                             " T=" + std::to_string(dt.second) + ", " + ddc_ring_id(r),
                         r.sh.threads(),
                         ddc_ring_shared_bytes(r.sh, bits, r.stages),
                         limit);
                }
            }
    // DDC tensor-core form (ddc_tensor.h): the FP16 tile of the shapes the
    // plan makes for the benchmark's filters, and its ring form's tile and
    // stage where they fit the limit (the plan leaves the form out where
    // not: ddc_tensor_ring_prepare).
    // Each warp tile (nt column tiles, mt row tiles: the kernel's NT and MT;
    // banks of 8 / (nt mt)) where make_shape offers it.
    for (const std::size_t limit : ldpc5g_cuda_smem_limits)
        for (const auto& dt : { std::make_pair(16, 256),
                                std::make_pair(8, 128),
                                std::make_pair(64, 1024),
                                std::make_pair(1, 1) })
            for (const int nt : { 1, 2 })
                for (const int mt : { 1, 2 }) {
                    const auto sh = ddc_tensor::make_shape(dt.first, dt.second, nt, mt);
                    if (!sh.warps)
                        continue;
                    const std::string tile =
                        std::to_string(nt) + ", " + std::to_string(mt) + ">$";
                    const std::string config = "D=" + std::to_string(dt.first) +
                                               " T=" + std::to_string(dt.second) + ", " +
                                               std::to_string(sh.warps) + " warps" +
                                               (nt == 2 ? ", 8D" : "") +
                                               (mt == 2 ? ", M=32" : "");
                    emit(("^ddc_tensor_kernel<(false|true), [1248], false, " + tile)
                             .c_str(),
                         config,
                         sh.threads(),
                         sh.smem_bytes(),
                         limit);
                    if (ddc_tensor::ring_smem_bytes(sh) <= limit)
                        emit(("^ddc_tensor_kernel<(false|true), [1248], true, " + tile)
                                 .c_str(),
                             config + ", ring: tile and stage",
                             sh.threads(),
                             ddc_tensor::ring_smem_bytes(sh),
                             limit);
                }
    // LDPC: every lifting size of both base graphs at the lowest rate (all
    // columns used), in float and in fixed point, for each per-block
    // shared-memory limit of sm_75, sm_86/89, sm_80 and sm_90: where the
    // a-posteriori values do not fit, the launch keeps them in global memory.
    for (const std::size_t limit : ldpc5g_cuda_smem_limits)
        for (const int bg : { 1, 2 })
            for (const int Z : ldpc5g_lifting_sizes())
                for (const bool fixed : { false, true }) {
                    const int cols = bg == 1 ? 68 : 52;
                    const std::size_t bytes =
                        ldpc5g_cuda_shared_bytes(Z, cols, fixed, limit);
                    emit(fixed ? "^decode_kernel<int, short, "
                               : "^decode_kernel<float, float, ",
                         "BG" + std::to_string(bg) + " Z=" + std::to_string(Z) +
                             (fixed ? " fixed point" : " float") + ", all " +
                             std::to_string(cols) + " columns" +
                             (bytes ? "" : ", a-posteriori values in global memory"),
                         ldpc5g_cuda_threads(Z),
                         bytes,
                         limit);
                    // Fixed-point layered: the pair kernel, two int16 per
                    // variable (4 bytes, as float); small lifts the group
                    // kernel (several pairs per warp, each pair's bytes).
                    const std::size_t pair =
                        ldpc5g_cuda_shared_bytes(Z, cols, false, limit);
                    const std::string code = "BG" + std::to_string(bg) +
                                             " Z=" + std::to_string(Z);
                    const std::string all = ", all " + std::to_string(cols) + " columns";
                    if (fixed && pair && Z <= ldpc_group_max_z)
                        emit(bg == 1 ? "^decode_group_kernel<.*, 1>"
                                     : "^decode_group_kernel<.*, 2>",
                             code + " " + std::to_string(ldpc_groups_per_warp(Z)) +
                                 " pairs per warp" + all,
                             32 * ldpc_group_warps,
                             pair * ldpc_group_warps * ldpc_groups_per_warp(Z),
                             limit);
                    else if (fixed && pair)
                        emit(bg == 1 ? "^decode_pair_kernel<.*, true, 1>"
                                     : "^decode_pair_kernel<.*, true, 2>",
                             code + " pair" + all,
                             ldpc5g_cuda_threads(Z),
                             pair,
                             limit);
                }
    // The latency kernel (one codeword, lifts z and z + Z/2 in the two
    // lanes): codes whose rows are all specialised (the 8 first rows), even
    // Z, values in shared memory (half the pair kernel's bytes).
    for (const std::size_t limit : ldpc5g_cuda_smem_limits)
        for (const int bg : { 1, 2 }) {
            const int cols = (bg == 1 ? 22 : 10) + ldpc_bg_rows, Z = 384;
            emit(bg == 1 ? "^decode_split_kernel<.*, 1>" : "^decode_split_kernel<.*, 2>",
                 "BG" + std::to_string(bg) + " Z=384 one codeword, " +
                     std::to_string(cols) + " columns",
                 ldpc5g_cuda_threads(Z / 2),
                 ldpc5g_cuda_shared_bytes(Z, cols, false, limit) / 2,
                 limit);
        }
    // The pair kernel with its values in global memory: where they exceed
    // the limit (BG1 Z=384 on sm_86/89, larger codes on sm_75), and on any
    // device under the GPUDSP_LDPC_SHARED_LIMIT test hook.
    emit("^decode_pair_kernel<.*, false, [12]>",
         "pairs in global memory",
         ldpc5g_cuda_threads(384),
         0);
    // GNSS correlator: a launch's code row (its longest code, twice, a byte
    // per chip) in dynamic shared memory; every system's length.
    for (int s = 0; s < gnss_n_systems; ++s) {
        const auto& spec = gnss_signal(gnss_system(s));
        emit("^correlate_kernel<",
             std::string("longest code ") + spec.name + ", " +
                 std::to_string(spec.code_length) + " chips",
             gnss_cuda_threads,
             gnss_code_row_bytes(uint32_t(spec.code_length)));
    }
    // X-engine tensor kernels: mma.sync on sm_80 and later (the plan runs the
    // WMMA kernel on sm_75), wgmma on sm_90 (its sm_90a image).
    for (std::size_t limit :
         { std::size_t(166912), std::size_t(101376), std::size_t(232448) })
        emit("^xcorr_tc80$", "3-stage pipeline", xtc_threads, xtc_smem_bytes, limit);
    emit("^xcorr_wgmma$", "4-stage pipeline", xwg_threads, xwg_smem_bytes, 232448);
    // The Gram form on mma.sync (sm_80 on; never launched on sm_75).
    for (std::size_t limit :
         { std::size_t(166912), std::size_t(101376), std::size_t(232448) })
        emit("^xcorr_gram_mma$", "3-stage ring", xgm_threads, xgm_smem_bytes, limit);
    // The persistent Gram kernel (sm_90a): ring, staging, mbarriers.
    emit("^xcorr_ws<128, false>$",
         "6 stages of 32 KiB + staging",
         xws_threads,
         xws_shape<128>::smem_bytes,
         232448);
    emit("^xcorr_ws<256, false>$",
         "3 stages of 48 KiB + staging",
         xws_threads,
         xws_shape<256>::smem_bytes,
         232448);
    emit("^xcorr_ws<128, true>$",
         "3 stages + 3 raw stages of 32 KiB + staging",
         xws_threads,
         xws_shape<128, true>::smem_bytes,
         232448);
    // Its channel variant: a block a channel, 1 to 4 row groups.
    emit("^xcorr_wsc<[1-4]>$",
         "2 stages + 3 raw stages of 32 KiB + staging",
         xwc_threads,
         xwc_shape::smem_bytes,
         232448);
    for (std::size_t limit :
         { std::size_t(166912), std::size_t(101376), std::size_t(232448) })
        emit("^xcorr_direct<3, false>$",
             "3 raw stages + planes",
             xtc_threads,
             xdr_smem_bytes,
             limit);
    // Its deeper tuner candidate only where 120 KiB a block fit (sm_80,
    // sm_90: the plan's opt-in check; never on sm_86/89).
    for (std::size_t limit : { std::size_t(166912), std::size_t(232448) })
        emit("^xcorr_direct<6, true>$",
             "6 raw stages + planes",
             xtc_threads,
             xdr_smem_bytes_for(xdr_deep_stages),
             limit);
    // The one-pass F-engine: two buffers of g spectra of N points and the
    // input's N rotations, at the largest g its heuristic or its tuner
    // candidates take, every N. The kernel is the same for every N;
    // clusters (N > 512) run only on sm_90 (its 227 KiB a block).
    for (int N = onepass::min_channels; N <= onepass::max_channels; N *= 2) {
        const auto g = onepass::make_geometry(N, 16, 4, 1);
        emit("^onepass_kernel<",
             "N = " + std::to_string(N) + ", " + std::to_string(g.per_round) +
                 " spectra per CTA and round, clusters of " + std::to_string(g.cluster),
             g.threads,
             std::size_t(g.smem_bytes()),
             g.cluster > 1 ? std::size_t(232448) : 0);
    }
    // The fused FFT and post-processing kernel: rows x N points, padded,
    // every shape it takes; fftpost_refusal leaves out a shape over the
    // device's limit, so each limit gets the shapes that fit it. Its staged
    // form (clusters: sm_90 only) adds the staging buffer, at every rows
    // with the largest cluster.
    for (const std::size_t limit : { 65536, 101376, 166912, 232448 })
        for (int N = fftpost::min_channels; N <= fftpost::max_points; N *= 2)
            for (const int rows : { 1, 2, 4 })
                if (fftpost::supported(N, rows)) {
                    const auto sh = fftpost::make_shape(N, rows);
                    if (std::size_t(sh.smem_bytes()) <= limit)
                        emit("^fftpost_kernel<(true|false), false>$",
                             "N = " + std::to_string(N) + ", " + std::to_string(rows) +
                                 " rows",
                             sh.threads(),
                             std::size_t(sh.smem_bytes()),
                             limit);
                }
    for (int N = fftpost::min_channels; N <= fftpost::max_points; N *= 2)
        for (const int rows : { 1, 2, 4 })
            if (fftpost::supported(N, rows, fftpost::max_cluster)) {
                const auto sh = fftpost::make_shape(N, rows, fftpost::max_cluster);
                emit("^fftpost_kernel<true, true>$",
                     "N = " + std::to_string(N) + ", " + std::to_string(rows) +
                         " rows, staged by clusters of " +
                         std::to_string(fftpost::max_cluster),
                     sh.threads(),
                     std::size_t(sh.smem_bytes()),
                     232448);
            }
    std::printf("\n]\n");
    return 0;
}
