/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The F-engine on CUDA. Where it can (real input, N = 256 .. 4096, T <= 16;
// clusters above N = 512 need sm_90), one kernel does everything
// (fengine_onepass.cu). Otherwise katgpucbf's shape: (1) a polyphase FIR with the
// decode fused in, one thread per column and input, the window of MAXT taps
// held right-aligned in registers and slid one spectrum at a time; (2) cuFFT
// (R2C of 2N points, or C2C of N) over all inputs and spectra of the chunk;
// (3) the post-processing: gain and delay rotation, dither, quantisation,
// saturation counts, and the transpose to [spectrum][channel][input] —
// fused into the FFT as cuFFT LTO store callbacks (fengine_store_callback.cu)
// where cuFFT accepts them, else one kernel transposing through a
// shared-memory tile. Real input above 4096 channels takes the split form
// instead (fengine_split.h): the FIR writes U rows per spectrum, cuFFT runs
// N/U-point complex transforms (one pass where N would take two), and the
// post-processing kernel (fengine_split.cuh) does the FFT's last radix-U
// stage and the real fold first. Every form runs the same per-value code
// (fengine_postproc.cuh).

#include "fengine_fftpost_cuda.h"
#include "fengine_fir.h"
#include "fengine_inputs.cuh"
#include "fengine_onepass_cuda.h"
#include "fengine_postproc.cuh"
#include "fengine_split.cuh"
#include "fengine_stages.h"
#include "pfb_fengine_impl.h"
#include "runtime/autotune.h"
#include "runtime/stage_clock.h"
#include <cuComplex.h>
#include <cuda_runtime.h>
#include <cufft.h>
#include <cufftXt.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#ifdef GPUDSP_HAVE_FENGINE_CALLBACK
#include "fengine_store_callback_fatbin.h" // gpudsp_fengine_store_fatbin (lib/CMakeLists.txt)
#endif
#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <vector>

namespace gr {
namespace gpudsp {
namespace kernels {

namespace {

using runtime::device_error;

// One launch's inputs: views[i0 .. i0 + count) (count <= max_inputs).
input_table table_of(const std::vector<fengine_input_view>& views, int i0, int count)
{
    input_table tab{};
    for (int i = 0; i < count; ++i) {
        tab.data[i] = views[i0 + i].data;
        tab.first[i] = views[i0 + i].first_sample;
    }
    return tab;
}

const char* cufft_error_name(cufftResult r)
{
    switch (r) {
    case CUFFT_SUCCESS:
        return "CUFFT_SUCCESS";
    case CUFFT_INVALID_PLAN:
        return "CUFFT_INVALID_PLAN";
    case CUFFT_ALLOC_FAILED:
        return "CUFFT_ALLOC_FAILED";
    case CUFFT_INVALID_VALUE:
        return "CUFFT_INVALID_VALUE";
    case CUFFT_INTERNAL_ERROR:
        return "CUFFT_INTERNAL_ERROR";
    case CUFFT_EXEC_FAILED:
        return "CUFFT_EXEC_FAILED";
    case CUFFT_SETUP_FAILED:
        return "CUFFT_SETUP_FAILED";
    case CUFFT_INVALID_SIZE:
        return "CUFFT_INVALID_SIZE";
    default:
        return "cuFFT error";
    }
}

void check_cufft(cufftResult r, const char* op, const std::string& who)
{
    if (r != CUFFT_SUCCESS)
        throw device_error(who + ": " + op + " failed: " + cufft_error_name(r) + " (" +
                           std::to_string(int(r)) + ")");
}

#ifdef GPUDSP_HAVE_FENGINE_CALLBACK
// Whether cuFFT links LTO callbacks at all in this process, found once, when
// a plan's own callbacks are refused: a trivial one (same fatbin) is tried on
// a 64-point plan. Refused with a link-time error too, the reason is kept
// and later plans skip the attempt, whose cost (a JIT link, and host memory
// cuFFT keeps from each failed one) would come every time; accepted, the
// refusals are each plan's own. Seen on an H100 machine (2026-11-24):
// cuFFT 12.0.0.61 asked libnvJitLink 13.0.88 for 13.1 symbols.
class cufft_lto
{
public:
    //! The kept reason, "" while cuFFT may link callbacks.
    static std::string unavailable()
    {
        auto& st = state();
        std::lock_guard<std::mutex> lock(st.mutex);
        return st.reason;
    }

    //! After \p refusal of a plan's callbacks: the reason when cuFFT links
    //! none in this process, else "".
    static std::string probe_after(const std::string& refusal)
    {
        auto& st = state();
        std::lock_guard<std::mutex> lock(st.mutex);
        if (st.probed)
            return st.reason;
        cufftHandle h;
        if (cufftCreate(&h) != CUFFT_SUCCESS)
            return "";
        void* info = nullptr;
        cufftResult r = cufftSetAutoAllocation(h, 0); // plans only: no work area
        if (r == CUFFT_SUCCESS)
            r = cufftXtSetJITCallback(h,
                                      "gpudsp_cufft_lto_probe",
                                      gpudsp_fengine_store_fatbin,
                                      sizeof gpudsp_fengine_store_fatbin,
                                      CUFFT_CB_ST_COMPLEX,
                                      &info);
        std::size_t bytes = 0;
        if (r == CUFFT_SUCCESS)
            r = cufftMakePlan1d(h, 64, CUFFT_C2C, 1, &bytes);
        cufftDestroy(h);
        // Only what a link refusal returns is the machine's for good.
        if (r != CUFFT_SUCCESS && r != CUFFT_INTERNAL_ERROR && r != CUFFT_NOT_SUPPORTED)
            return "";
        st.probed = true;
        if (r == CUFFT_SUCCESS)
            return "";
        int v[3] = { 0, 0, 0 };
        cufftGetProperty(MAJOR_VERSION, &v[0]);
        cufftGetProperty(MINOR_VERSION, &v[1]);
        cufftGetProperty(PATCH_LEVEL, &v[2]);
        st.reason =
            "cuFFT " + std::to_string(v[0]) + "." + std::to_string(v[1]) + "." +
            std::to_string(v[2]) +
            " links no LTO callback in this process: a trivial one is refused "
            "too (" +
            cufft_error_name(r) +
            "; an nvJitLink older than cuFFT is one cause); first refusal: " + refusal;
        return st.reason;
    }

private:
    struct probe_state {
        std::mutex mutex;
        bool probed = false;
        std::string reason;
    };
    static probe_state& state()
    {
        static probe_state st;
        return st;
    }
};
#endif

constexpr int fir_threads = 128;

// One thread: column j of input blockIdx.y, spectra [s_begin, s_end), its
// taps and its last MAXT samples in registers (fir::column_run: a ring, no
// moves). The weights are right-aligned in w[] with zeros in front, so one
// unrolled loop serves every T <= MAXT. Real input for the split form
// (unzip_shift > 0) is written as its rows of unzip_row pairs
// (split::fir_position).
// The column's blocks in order (fir::column_run): a cursor advanced by
// the row step, so no index is multiplied per sample; the packed format
// keeps a bit offset.
template <fengine_input F>
struct fir_rows {
    using T = typename loader<F>::type;
    using raw = typename loader<F>::raw;
    const void* src;
    int64_t n;      // the next block's sample
    int64_t step;   // samples per block
    T* o;           // the column's output of spectrum 0
    int64_t stride; // between spectra
    __device__ raw fetch(bool present)
    {
        const raw r = present ? loader<F>::fetch(src, n) : raw{};
        n += step;
        return r;
    }
    __device__ T value(raw r) const { return loader<F>::value(r); }
    __device__ void store(int s, T y) const { o[s * stride] = y; }
};
// The 10-bit rows fetch a block's two bytes and decode them on use
// (packed10_walk: blocks are decoded in the order fetched, fir::column_run).
template <>
struct fir_rows<fengine_input::packed10> {
    struct raw {
        unsigned b0, b1;
    };
    const uint8_t* src;
    packed10_walk walk;
    float* o;
    int64_t stride;
    __device__ raw fetch(bool present)
    {
        raw r{ 0u, 0u }; // (decodes to 0 at any phase)
        const int64_t b = walk.next_byte();
        if (present)
            r = { __ldg(src + b), __ldg(src + b + 1) };
        return r;
    }
    __device__ float value(raw r) { return float(walk.decode(r.b0, r.b1)); }
    __device__ void store(int s, float y) const { o[s * stride] = y; }
};
template <fengine_input F>
__device__ fir_rows<F>
rows_at(const void* src, int64_t n, int step, void* o, int64_t stride)
{
    using T = typename loader<F>::type;
    if constexpr (F == fengine_input::packed10)
        return { static_cast<const uint8_t*>(src),
                 packed10_walk::from(n, step),
                 static_cast<T*>(o),
                 stride };
    else
        return { src, n, step, static_cast<T*>(o), stride };
}

template <int MAXT, fengine_input F>
__global__ void __launch_bounds__(fir_threads, 1)
    pfb_fir_registers(input_table in,
                      int input_offset,
                      int n_inputs,
                      const float* __restrict__ weights,
                      int step,
                      int taps,
                      int n_spectra,
                      int spectra_per_section,
                      int unzip_shift,
                      int unzip_row,
                      typename loader<F>::type* __restrict__ out)
{
    using T = typename loader<F>::type;
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= step)
        return;
    const int i = blockIdx.y;
    const int s_begin = blockIdx.z * spectra_per_section;
    const int s_end = min(n_spectra, s_begin + spectra_per_section);
    if (s_begin >= s_end)
        return;
    float w[MAXT];
#pragma unroll
    for (int t = 0; t < MAXT; ++t) {
        const int tap = t - (MAXT - taps);
        w[t] = tap >= 0 ? weights[tap * step + j] : 0.0f;
    }
    // Output of spectrum s at o[s * stride] (fmath::scratch_index; the split
    // form's rows: fengine_split.h).
    auto rows = rows_at<F>(
        in.data[i],
        in.first[i] + j + int64_t(fir::first_block(s_begin, taps, MAXT)) * step,
        step,
        out + fmath::scratch_index(0,
                                   input_offset + i,
                                   n_inputs,
                                   step,
                                   split::fir_position(j, unzip_shift, unzip_row)),
        int64_t(n_inputs) * step);
    fir::column_run<MAXT, T>(w, taps, s_begin, s_end, rows);
}

// More than 16 taps: the window is read from memory (through the cache).
template <fengine_input F>
__global__ void __launch_bounds__(fir_threads)
    pfb_fir_generic(input_table in,
                    int input_offset,
                    int n_inputs,
                    const float* __restrict__ weights,
                    int step,
                    int taps,
                    int n_spectra,
                    int spectra_per_section,
                    int unzip_shift,
                    int unzip_row,
                    typename loader<F>::type* __restrict__ out)
{
    using T = typename loader<F>::type;
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= step)
        return;
    const int i = blockIdx.y;
    const int s_begin = blockIdx.z * spectra_per_section;
    const int s_end = min(n_spectra, s_begin + spectra_per_section);
    const void* src = in.data[i];
    const int64_t first = in.first[i] + j;
    T* o = out + fmath::scratch_index(0,
                                      input_offset + i,
                                      n_inputs,
                                      step,
                                      split::fir_position(j, unzip_shift, unzip_row));
    const int64_t stride = int64_t(n_inputs) * step;
    for (int s = s_begin; s < s_end; ++s) {
        T acc = fir::zero_of(T());
        for (int t = 0; t < taps; ++t)
            acc = fir::fma_w(weights[t * step + j],
                             loader<F>::load(src, first + int64_t(s + t) * step),
                             acc);
        o[s * stride] = acc;
    }
}

// ---------------------------------------------------------------------------
// Post-processing. A block: one spectrum, a tile of 1024 (channel, input)
// values shaped by the input count (fmath::postproc_tile: 512 channels x 2
// inputs for a dual-pol antenna, 32 x 32 from 32 inputs on), 4 per thread:
// read channel-contiguous, corrected and quantised, transposed through
// shared memory, written input-contiguous.
constexpr int postproc_threads = 256;

// (The pointers also in p come as __restrict__ arguments: read through p,
// sm_80 takes 34 registers and 75% occupancy instead of 32 and 100%.)
template <bool CI8>
__global__ void __launch_bounds__(postproc_threads)
    postproc(const cuFloatComplex* __restrict__ spectra, // [s][input][N+1]
             const postproc_params p,
             void* __restrict__ out,     // [s][channel][input]
             unsigned* __restrict__ sat) // [s][input]; or null
{
    constexpr int per_thread = fmath::postproc_elems / postproc_threads;
    const int n_channels = p.n_channels, n_inputs = p.n_inputs;
    const fmath::postproc_tile t = p.tile;
    __shared__ float2 tile_c[CI8 ? 1 : fmath::postproc_smem_elems];
    __shared__ char2 tile_q[CI8 ? fmath::postproc_smem_elems : 1];
    const int s = blockIdx.z;
    const int k0 = blockIdx.x * t.channels, i0 = blockIdx.y * t.inputs;
    // Every load first: a thread's values and rotations are all in flight
    // at once. Loaded and used in one loop, each value waited for the last
    // one's atomic (SASS: load, compute, REDG, four times over), a quarter
    // of the bytes in flight a memory-bound kernel needs (ncu, H200
    // 2026-11-27: 28% of DRAM peak at 89% occupancy).
    cuFloatComplex x[per_thread], rot[per_thread];
    float2 drift[per_thread] = {}; // (delay tracking only; else unused)
#pragma unroll
    for (int j = 0; j < per_thread; ++j) {
        const int e = threadIdx.x + j * postproc_threads;
        const int i = i0 + t.load_input(e), k = k0 + t.load_channel(e);
        if (i < n_inputs && k < n_channels) {
            x[j] = spectra[fmath::scratch_index(s, i, n_inputs, n_channels + 1, k)];
            rot[j] = p.rot[int64_t(k) * n_inputs + i];
            if (p.drift)
                drift[j] = p.drift[i];
        }
    }
#pragma unroll
    for (int j = 0; j < per_thread; ++j) {
        const int e = threadIdx.x + j * postproc_threads;
        const int il = t.load_input(e), kl = t.load_channel(e);
        const int i = i0 + il, k = k0 + kl;
        bool clamped = false;
        if (i < n_inputs && k < n_channels) {
            const cuFloatComplex v =
                postproc_corrected(p, x[j], rot[j], drift[j], s, i, k);
            if (CI8) {
                tile_q[t.smem_index(il, kl)] = postproc_quantised(p, v, s, i, k, clamped);
            } else {
                tile_c[t.smem_index(il, kl)] = make_float2(cuCrealf(v), cuCimagf(v));
            }
        }
        if (CI8) {
            // A warp reads 32 channels of one input (t.channels >= 32):
            // count its clamped values.
            const unsigned n = __popc(__ballot_sync(0xffffffffu, clamped));
            if (threadIdx.x % 32 == 0 && n && i < n_inputs && sat)
                atomicAdd(sat + int64_t(s) * n_inputs + i, n);
        }
    }
    __syncthreads();
    for (int j = 0; j < per_thread; ++j) {
        const int e = threadIdx.x + j * postproc_threads;
        const int il = t.store_input(e), kl = t.store_channel(e);
        const int i = i0 + il, k = k0 + kl;
        if (i >= n_inputs || k >= n_channels)
            continue;
        const int64_t o = (int64_t(s) * n_channels + k) * n_inputs + i;
        if (CI8)
            static_cast<char2*>(out)[o] = tile_q[t.smem_index(il, kl)];
        else
            static_cast<float2*>(out)[o] = tile_c[t.smem_index(il, kl)];
    }
}

// The fused form's chunk parameters into the slot the callbacks read.
__global__ void put_params(postproc_params* slot, const postproc_params p) { *slot = p; }

// ---------------------------------------------------------------------------

class fengine_cuda : public fengine_plan::impl
{
public:
    fengine_cuda(const fengine_config& c,
                 const std::vector<float>& w,
                 runtime::device_context::sptr ctx,
                 const std::string& who)
        : d_c(c),
          d_ctx(std::move(ctx)),
          d_who(who),
          d_step(c.step()),
          d_chunk(fengine_chunk_spectra(c, d_ctx->info().total_memory)),
          d_run_chunk(d_chunk),
          d_weights(d_ctx, w.size() * sizeof(float), who),
          d_rot(d_ctx,
                std::size_t(c.n_channels) * c.n_inputs * sizeof(cuFloatComplex),
                who),
          d_drift(d_ctx, std::size_t(c.n_inputs) * sizeof(float2), who),
          d_fir(d_ctx, fir_bytes(c, d_chunk), who),
          d_spec(d_ctx,
                 std::size_t(c.n_inputs) * d_chunk * (c.n_channels + 1) *
                     sizeof(cuFloatComplex),
                 who),
          d_setup(d_ctx, who),
          d_params(d_ctx, sizeof(postproc_params), who),
          d_scratch_free(d_ctx, who),
          d_clock(d_ctx, who),
          d_multiprocessors(d_ctx->info().multiprocessors)
    {
        d_ctx->copy_async(d_weights.get(),
                          w.data(),
                          w.size() * sizeof(float),
                          runtime::copy_kind::host_to_device,
                          d_setup.get(),
                          who);
        try {
            make_plans();
            setup_onepass();
            d_split_refused = split_refusal();
            setup_fftpost();
            if (const int u = heuristic_unzip())
                use_split(u); // the heuristic's form: configurations()[0]
            d_setup.synchronize();
        } catch (...) {
            destroy_plans(); // no destructor runs for a constructor that throws
            throw;
        }
        // What every chunk's post-processing shares (params() adds the rest).
        d_fixed.rot = reinterpret_cast<const cuFloatComplex*>(d_rot.get());
        d_fixed.n_channels = c.n_channels;
        d_fixed.n_inputs = c.n_inputs;
        d_fixed.axis = channel_axis_of(c);
        d_fixed.dither = c.dither && c.output == fengine_output::ci8;
        d_fixed.seed = c.dither_seed;
        d_fixed.tile = fmath::postproc_tile_for(c.n_inputs);
        d_fixed.spec = reinterpret_cast<const cuFloatComplex*>(d_spec.get());
        d_fixed.layout = fmath::scratch_layout::of(c.n_channels + 1, c.n_inputs);
    }

    ~fengine_cuda() override
    {
        d_ctx->try_make_current(); // teardown never throws
        destroy_plans();
    }

    // How a call of n spectra launches the FIR kernel (the one that reads
    // the input): chunks, blocks and waves a launch (the benchmark prints it).
    std::string launch_shape(std::size_t n) const override
    {
        if (n == 0 || d_onepass)
            return d_onepass ? "one pass: one kernel a chunk" : "";
        d_ctx->make_current();
        const int ns = int(std::min<std::size_t>(d_run_chunk, n));
        const std::size_t chunks = (n + d_run_chunk - 1) / d_run_chunk;
        const int count = std::min(input_table::max_inputs, d_c.n_inputs);
        const int groups = (d_c.n_inputs + input_table::max_inputs - 1) /
                           input_table::max_inputs; // FIR launches a chunk
        const fir_launch l = fir_grid(count, ns);
        const long long blocks = (long long)l.grid.x * l.grid.y * l.grid.z;
        int per_sm = 0;
        auto occupancy = [&](const void* kernel) {
            if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                    &per_sm, kernel, fir_threads, 0) != cudaSuccess) {
                cudaGetLastError();
                per_sm = 0;
            }
        };
        switch (d_c.input) {
        case fengine_input::packed10:
            occupancy(
                reinterpret_cast<const void*>(fir_kernel<fengine_input::packed10>()));
            break;
        case fengine_input::int16:
            occupancy(reinterpret_cast<const void*>(fir_kernel<fengine_input::int16>()));
            break;
        case fengine_input::float32:
            occupancy(
                reinterpret_cast<const void*>(fir_kernel<fengine_input::float32>()));
            break;
        case fengine_input::complex64:
            occupancy(
                reinterpret_cast<const void*>(fir_kernel<fengine_input::complex64>()));
            break;
        }
        char text[160];
        std::snprintf(text,
                      sizeof text,
                      "%zu chunk%s of %d spectra; FIR: %d launch%s a chunk, %lld blocks "
                      "a launch, %.1f waves",
                      chunks,
                      chunks > 1 ? "s" : "",
                      ns,
                      groups,
                      groups > 1 ? "es" : "",
                      blocks,
                      per_sm > 0 && d_multiprocessors > 0
                          ? double(blocks) / (double(per_sm) * d_multiprocessors)
                          : 0.0);
        return text;
    }

    // The FIR kernel for format F and this plan's taps: the taps in
    // registers up to 16 (MAXT, rounded up to a power of two), else the
    // generic one. fir_for launches it; launch_shape asks its occupancy.
    template <fengine_input F>
    using fir_fn = decltype(&pfb_fir_generic<F>);
    template <fengine_input F>
    fir_fn<F> fir_kernel() const
    {
        const int taps = d_c.n_taps;
        if (taps <= 1)
            return pfb_fir_registers<1, F>;
        if (taps <= 2)
            return pfb_fir_registers<2, F>;
        if (taps <= 4)
            return pfb_fir_registers<4, F>;
        if (taps <= 8)
            return pfb_fir_registers<8, F>;
        if (taps <= 16)
            return pfb_fir_registers<16, F>;
        return pfb_fir_generic<F>;
    }

    std::string kernel_form() const override
    {
        if (d_run_chunk < d_chunk && !d_onepass)
            return form_name() + ", in L2-resident chunks of " +
                   std::to_string(d_run_chunk) + " spectra";
        return form_name();
    }
    std::string form_name() const
    {
        if (d_onepass)
            return "one pass: FIR, FFT and post-processing in one kernel (" +
                   std::to_string(d_onepass_cluster) + " CTA" +
                   (d_onepass_cluster > 1 ? "s a cluster" : " a section") + ")";
        const std::string why = d_onepass_refused.empty()
                                    ? std::string("")
                                    : "; one pass: " + d_onepass_refused;
        if (d_fftpost_rows)
            return "FIR kernel + fused FFT and post-processing kernel (" +
                   std::to_string(d_fftpost_rows) + " input" +
                   (d_fftpost_rows > 1 ? "s" : "") + " a CTA" +
                   (d_fftpost_cluster > 1
                        ? ", outputs staged by clusters of " +
                              std::to_string(d_fftpost_cluster) + " CTAs"
                        : std::string()) +
                   why + ")";
        if (d_unzip)
            return "cuFFT on " + std::to_string(d_unzip) + " rows of " +
                   std::to_string(d_c.n_channels / d_unzip) +
                   " points + post-processing kernel (" +
                   (d_unzip > 1 ? "last radix-" + std::to_string(d_unzip) + " stage and "
                                : std::string()) +
                   "real fold" + why + ")";
        return d_fused ? "cuFFT, post-processing fused (LTO store callback" + why + ")"
                       : "cuFFT + post-processing kernel (" +
                             (d_refused.empty() ? std::string("fusion: a tuner candidate")
                                                : "fusion: " + d_refused) +
                             why + ")";
    }

    // Forms, the heuristic's first: cuFFT with the post-processing as a
    // kernel of its own (x the FIR's shortest section, in units of
    // max(T, 16) spectra); then the one-pass kernel where it runs (x spectra
    // per CTA and round: the heuristic's and twice that; x sections 1 or 4
    // times the heuristic's length), a candidate only: on an H200
    // (2026-11-26) it ran 2.6-4.3x slower than cuFFT and the kernel
    // (docs/fengine.md); then, as candidates only, cuFFT with the
    // post-processing fused into it (LTO callbacks, linked by cuFFT at run
    // time: made when first used, so a plan that never runs them never
    // links them).
    std::vector<std::string> configurations() const override
    {
        std::vector<std::string> ids;
        const int h = heuristic_unzip();
        if (h)
            ids.push_back(split_id(h));
        for (const int sec : { 1, 4 })
            ids.push_back(id_of(false, sec));
        if (d_split_refused.empty())
            for (const int u : split::unzip_factors(d_c.n_channels))
                if (u != h)
                    ids.push_back(split_id(u));
        if (d_onepass_refused.empty())
            for (const int g : onepass_rounds())
                for (const int sec : { 1, 4 })
                    ids.push_back(onepass_id(g, sec));
        for (const auto& f : d_fftpost_ok)
            ids.push_back(fftpost_id(f.first, f.second));
        if (d_refused.empty())
            for (const int sec : { 1, 4 })
                ids.push_back(id_of(true, sec));
        // The L2-resident variants (fengine_l2_chunk_spectra): of the
        // heuristic's form (cuFFT and the kernel, or the split form) and of
        // the unstaged fused FFT forms, where
        // their chunk's intermediates fit half the L2 in chunks long enough
        // for the FIR's priming.
        const std::vector<std::string> forms = ids;
        for (const auto& id : forms)
            if ((id == forms[0] &&
                 (id.rfind("kernel ", 0) == 0 || id.rfind("split ", 0) == 0)) ||
                (id.rfind("fftpost ", 0) == 0 && id.find(" q=") == std::string::npos))
                if (l2_chunk_of(id) > 0)
                    ids.push_back(id + l2_suffix);
        return ids;
    }
    std::string forced_configuration() const override
    {
        const char* one = std::getenv("GPUDSP_FENGINE_ONEPASS");
        if (one && std::strcmp(one, "1") == 0 && d_onepass_refused.empty())
            return onepass_id(onepass::default_per_round(d_c.n_channels), 1);
        const char* fftpost_env = std::getenv("GPUDSP_FENGINE_FFTPOST");
        if (fftpost_env)
            for (const auto& f : d_fftpost_ok)
                if (fftpost_env_value(f.first, f.second) == fftpost_env)
                    return fftpost_id(f.first, f.second);
        const char* split_env = std::getenv("GPUDSP_FENGINE_SPLIT");
        if (split_env && d_split_refused.empty())
            for (const int u : split::unzip_factors(d_c.n_channels))
                if (std::to_string(u) == split_env)
                    return split_id(u);
        const char* env = std::getenv("GPUDSP_FENGINE_FUSED");
        if (env && std::strcmp(env, "0") == 0)
            return id_of(false, 1);
        if (env && std::strcmp(env, "1") == 0)
            return id_of(true, 1);
        return "";
    }
    void use(const std::string& id) override
    {
        // An L2-resident variant: its form, in shorter chunks.
        const std::size_t n = id.size(), m = std::char_traits<char>::length(l2_suffix);
        if (n > m && id.compare(n - m, m, l2_suffix) == 0) {
            const std::string form = id.substr(0, n - m);
            const int chunk = l2_chunk_of(form);
            if (chunk == 0)
                throw std::invalid_argument(d_who + ": no F-engine configuration \"" +
                                            id + "\"");
            use_form(form);
            d_run_chunk = chunk;
            return;
        }
        use_form(id);
        d_run_chunk = d_chunk;
    }
    std::size_t tuning_spectra() const override { return std::size_t(d_chunk); }

private:
    // The configuration ids' mark of the L2-resident variants.
    static constexpr const char* l2_suffix = " l2";
    // Their chunk for form \p id (0: none): the FIR's output, and cuFFT's
    // spectra for the cuFFT and split forms, in half the L2.
    int l2_chunk_of(const std::string& id) const
    {
        const bool spectra = id.rfind("fftpost ", 0) != 0;
        return fengine_l2_chunk_spectra(d_c, d_ctx->info().l2_bytes, spectra, d_chunk);
    }

    void use_form(const std::string& id)
    {
        if (d_onepass_refused.empty())
            for (const int g : onepass_rounds())
                for (const int sec : { 1, 4 })
                    if (id == onepass_id(g, sec)) {
                        d_unzip = 0;
                        d_fftpost_rows = 0;
                        d_fftpost_cluster = 1;
                        d_onepass = true;
                        d_onepass_per_round = g;
                        d_section_factor = sec;
                        return;
                    }
        for (const bool fused : { false, true })
            for (const int sec : { 1, 4 })
                if (id == id_of(fused, sec)) {
                    if (fused)
                        make_fused_plans(); // throws, with the reason, if cuFFT refuses
                    d_unzip = 0;
                    d_fftpost_rows = 0;
                    d_fftpost_cluster = 1;
                    d_onepass = false;
                    d_fused = fused;
                    d_section_factor = sec;
                    return;
                }
        if (d_split_refused.empty())
            for (const int u : split::unzip_factors(d_c.n_channels))
                if (id == split_id(u)) {
                    use_split(u);
                    return;
                }
        for (const auto& f : d_fftpost_ok)
            if (id == fftpost_id(f.first, f.second)) {
                ensure_fft_tables();
                d_fftpost_rows = f.first;
                d_fftpost_cluster = f.second;
                d_unzip = 0;
                d_onepass = false;
                d_fused = false;
                d_section_factor = 1;
                return;
            }
        throw std::invalid_argument(d_who + ": no F-engine configuration \"" + id + "\"");
    }

public:
    void set_rotations(const std::vector<std::complex<float>>& rot) override
    {
        // Uploaded by the next execute(), on its stream, so launches still in
        // flight keep the table they were given.
        d_rot_host.resize(rot.size());
        for (std::size_t j = 0; j < rot.size(); ++j)
            d_rot_host[j] = make_cuFloatComplex(rot[j].real(), rot[j].imag());
        if (d_rot_by_input) { // the one-pass kernel's copy, [input][channel]
            const std::size_t N = d_c.n_channels, I = d_c.n_inputs;
            d_rot_by_input_host.resize(rot.size());
            for (std::size_t k = 0; k < N; ++k)
                for (std::size_t i = 0; i < I; ++i)
                    d_rot_by_input_host[i * N + k] = d_rot_host[k * I + i];
        }
        d_rot_dirty = true;
    }
    void set_drift(const std::vector<float>& rates, uint64_t reference) override
    {
        // The kernel takes phase rates in half turns (fmath::drift_halfturns).
        d_drift_host = rates;
        for (std::size_t j = 1; j < d_drift_host.size(); j += 2)
            d_drift_host[j] = float(double(rates[j]) / M_PI);
        d_reference = reference;
        d_rot_dirty = true;
    }

    void execute(const std::vector<fengine_input_view>& inputs,
                 void* out,
                 uint32_t* saturation,
                 std::size_t n_spectra,
                 uint64_t first_spectrum,
                 runtime::stream_handle stream_handle) override
    {
        d_ctx->make_current();
        auto stream = static_cast<cudaStream_t>(stream_handle);
        const std::size_t I = d_c.n_inputs;
        const std::size_t out_item = d_c.output_item_size();
        if (d_rot_dirty) {
            // Pageable source: the call returns once the bytes are staged.
            d_ctx->copy_async(d_rot.get(),
                              d_rot_host.data(),
                              d_rot_host.size() * sizeof(cuFloatComplex),
                              runtime::copy_kind::host_to_device,
                              stream,
                              d_who);
            if (d_rot_by_input)
                d_ctx->copy_async(d_rot_by_input->get(),
                                  d_rot_by_input_host.data(),
                                  d_rot_by_input_host.size() * sizeof(cuFloatComplex),
                                  runtime::copy_kind::host_to_device,
                                  stream,
                                  d_who);
            if (!d_drift_host.empty())
                d_ctx->copy_async(d_drift.get(),
                                  d_drift_host.data(),
                                  d_drift_host.size() * sizeof(float),
                                  runtime::copy_kind::host_to_device,
                                  stream,
                                  d_who);
            d_rot_dirty = false;
        }
        d_clock.begin_call();
        for (std::size_t s0 = 0; s0 < n_spectra; s0 += d_run_chunk) {
            const int ns = int(std::min<std::size_t>(d_run_chunk, n_spectra - s0));
            std::vector<fengine_input_view> views = inputs;
            for (auto& v : views)
                v.first_sample += int64_t(s0) * d_step;
            // The plan's scratch (FIR output, spectra, cuFFT's work area,
            // the callbacks' parameters) serves every call: a call on
            // another stream starts once the previous chunk is done with it.
            d_ctx->stream_wait_event(stream, d_scratch_free.get(), d_who);
            uint32_t* sat = saturation ? saturation + s0 * I : nullptr;
            if (sat)
                d_ctx->memset_async(sat, 0, ns * I * sizeof(uint32_t), stream, d_who);
            const postproc_params p =
                params(static_cast<char*>(out) + s0 * out_item, sat, first_spectrum + s0);
            d_clock.start(stream);
            if (d_onepass) {
                run_onepass(views, ns, p, stream);
                timed(fengine_stage::one_pass, ns, stream);
                d_scratch_free.record(stream);
                continue;
            }
            launch_fir(views, ns, stream);
            d_ctx->check_last_error("pfb_fengine FIR kernel launch", d_who);
            timed(fengine_stage::fir, ns, stream);
            if (d_fftpost_rows) {
                launch_fftpost(fftpost::make_shape(
                                   d_c.n_channels, d_fftpost_rows, d_fftpost_cluster),
                               d_c.output == fengine_output::ci8,
                               reinterpret_cast<const fft::cpx*>(d_fir.get()),
                               ns,
                               twiddles(),
                               fold(),
                               p,
                               stream);
                d_ctx->check_last_error("pfb_fengine fused FFT kernel launch", d_who);
                timed(fengine_stage::fft_post, ns, stream);
            } else if (d_unzip) {
                run_split_fft(ns, stream);
                timed(fengine_stage::split_fft, ns, stream);
                launch_postproc_split(p, ns, stream);
                d_ctx->check_last_error("pfb_fengine split post-processing kernel launch",
                                        d_who);
                timed(fengine_stage::split_post, ns, stream);
            } else if (d_fused) {
                // The callbacks read the chunk's parameters from one
                // device-memory slot, written in stream order by a
                // one-thread kernel (its argument travels with the launch:
                // a pageable copy would make the host wait for the stream).
                put_params<<<1, 1, 0, stream>>>(
                    reinterpret_cast<postproc_params*>(d_params.get()), p);
                d_ctx->check_last_error("pfb_fengine parameter kernel launch", d_who);
                run_fft(ns, stream);
                timed(fengine_stage::fft_callback, ns, stream);
            } else {
                run_fft(ns, stream);
                timed(fengine_stage::fft, ns, stream);
                launch_postproc(p, ns, stream);
                d_ctx->check_last_error("pfb_fengine post-processing kernel launch",
                                        d_who);
                timed(fengine_stage::post, ns, stream);
            }
            d_scratch_free.record(stream);
        }
        d_clock.end_call();
    }

    void time_stages(bool on) override { d_clock.enable(on); }
    std::vector<runtime::stage_time> stage_times() override { return d_clock.times(); }

private:
    // A stage of this chunk ends (fengine_plan::time_stages).
    void timed(fengine_stage stage, int ns, cudaStream_t stream)
    {
        if (d_clock.recording())
            d_clock.stage(fengine_stage_name(stage),
                          fengine_stage_bytes(d_c, stage, std::size_t(ns)),
                          stream);
    }

    static std::string onepass_id(int per_round, int section_factor)
    {
        return "onepass g=" + std::to_string(per_round) +
               " sec=" + std::to_string(section_factor);
    }
    // The one-pass candidates' spectra per CTA and round: the heuristic's,
    // and twice that where a thread still holds at most 16 points.
    std::vector<int> onepass_rounds() const
    {
        const int g = onepass::default_per_round(d_c.n_channels);
        std::vector<int> out{ g };
        if (g < 4 &&
            onepass::make_geometry(d_c.n_channels, d_c.n_taps, 2 * g, 1).per_round ==
                2 * g)
            out.push_back(2 * g);
        return out;
    }

    // The one-pass kernel's tables (its FFT's twiddles and fold, in float64
    // rounded once), where it runs (a candidate; GPUDSP_FENGINE_ONEPASS=1
    // forces it, =0 leaves it out).
    void setup_onepass()
    {
        const char* env = std::getenv("GPUDSP_FENGINE_ONEPASS");
        d_onepass_refused = env && std::strcmp(env, "0") == 0
                                ? std::string("GPUDSP_FENGINE_ONEPASS=0")
                                : onepass_refusal(d_c, d_ctx->info());
        if (!d_onepass_refused.empty())
            return;
        ensure_fft_tables();
        d_rot_by_input = std::make_unique<runtime::device_memory>(
            d_ctx, std::size_t(d_c.n_channels) * d_c.n_inputs * sizeof(fft::cpx), d_who);
        d_onepass_per_round = onepass::default_per_round(d_c.n_channels);
        d_onepass_cluster =
            onepass::make_geometry(d_c.n_channels, d_c.n_taps, d_onepass_per_round, 1)
                .cluster;
    }

    void run_onepass(const std::vector<fengine_input_view>& views,
                     int ns,
                     const postproc_params& p,
                     cudaStream_t stream)
    {
        const onepass_tables t{ reinterpret_cast<const float*>(d_weights.get()),
                                twiddles(),
                                fold(),
                                reinterpret_cast<const fft::cpx*>(
                                    d_rot_by_input->get()) };
        for (int i0 = 0; i0 < d_c.n_inputs; i0 += input_table::max_inputs) {
            const int count = std::min(input_table::max_inputs, d_c.n_inputs - i0);
            const input_table tab = table_of(views, i0, count);
            const auto g = onepass_geometry(
                d_c, ns, count, d_multiprocessors, d_onepass_per_round, d_section_factor);
            launch_onepass(d_c, g, tab, i0, count, ns, t, p, stream);
            d_ctx->check_last_error("pfb_fengine one-pass kernel launch", d_who);
        }
    }

    // ---- The fused FFT and post-processing form (fengine_fftpost.h) ----
    static std::string fftpost_id(int rows, int cluster)
    {
        return "fftpost r=" + std::to_string(rows) +
               (cluster > 1 ? " q=" + std::to_string(cluster) : std::string());
    }
    // What GPUDSP_FENGINE_FFTPOST says to force it: the rows ("2"), and
    // the cluster of the staged form ("2x8").
    static std::string fftpost_env_value(int rows, int cluster)
    {
        return std::to_string(rows) +
               (cluster > 1 ? "x" + std::to_string(cluster) : std::string());
    }
    // Its candidates: 1, 2 and 4 inputs a CTA, no more than the inputs
    // round up to, where the kernel takes them on this device; and, where
    // the inputs take more than one CTA, each of those with its outputs
    // staged by clusters (fftpost::cluster_for; ci8, sm_90)
    // (GPUDSP_FENGINE_FFTPOST=0 leaves the form out).
    void setup_fftpost()
    {
        const char* env = std::getenv("GPUDSP_FENGINE_FFTPOST");
        if (env && std::strcmp(env, "0") == 0)
            return;
        std::vector<std::pair<int, int>> staged;
        for (const int rows : { 1, 2, 4 })
            if (rows == 1 || rows / 2 < d_c.n_inputs) {
                if (!fftpost_refusal(d_c, rows, 1, d_ctx->info()).empty())
                    continue;
                d_fftpost_ok.emplace_back(rows, 1);
                const int q = fftpost::cluster_for(d_c.n_inputs, rows);
                if (q > 1 && fftpost_refusal(d_c, rows, q, d_ctx->info()).empty())
                    staged.emplace_back(rows, q);
            }
        d_fftpost_ok.insert(d_fftpost_ok.end(), staged.begin(), staged.end());
    }

    // ---- The split form (fengine_split.h) ----
    static std::string split_id(int u) { return "split u=" + std::to_string(u); }
    std::string split_refusal() const
    {
        if (d_c.complex_input())
            return "complex input (no real fold)";
        const char* env = std::getenv("GPUDSP_FENGINE_SPLIT");
        if (env && std::strcmp(env, "0") == 0)
            return "GPUDSP_FENGINE_SPLIT=0";
        if (split::unzip_factors(d_c.n_channels).empty())
            return "N has no factor 1, 2, 4 or 8 leaving rows of 32 points or more";
        return "";
    }
    //! The heuristic's rows per spectrum, 0 where its form is another.
    int heuristic_unzip() const
    {
        return d_split_refused.empty() ? split::heuristic_unzip(d_c.n_channels) : 0;
    }
    // The FFT tables the one-pass, split and fused-FFT forms share, made
    // once: exp(-2 pi i q / N) and exp(-i pi k / N) in float64, rounded once.
    void ensure_fft_tables()
    {
        if (d_twiddles && d_fold)
            return;
        const auto tw = fft::twiddle_table(d_c.n_channels);
        const auto fold = fft::fold_table(d_c.n_channels);
        auto dtw = std::make_unique<runtime::device_memory>(
            d_ctx, tw.size() * sizeof(fft::cpx), d_who);
        auto dfold = std::make_unique<runtime::device_memory>(
            d_ctx, fold.size() * sizeof(fft::cpx), d_who);
        for (const auto& t :
             { std::make_pair(dtw.get(), &tw), std::make_pair(dfold.get(), &fold) })
            d_ctx->copy_async(t.first->get(),
                              t.second->data(),
                              t.second->size() * sizeof(fft::cpx),
                              runtime::copy_kind::host_to_device,
                              d_setup.get(),
                              d_who);
        d_setup.synchronize(); // pageable sources: the host waits, once
        d_twiddles = std::move(dtw); // kept only when filled
        d_fold = std::move(dfold);
    }
    const fft::cpx* twiddles() const
    {
        return reinterpret_cast<const fft::cpx*>(d_twiddles->get());
    }
    const fft::cpx* fold() const
    {
        return reinterpret_cast<const fft::cpx*>(d_fold->get());
    }

    // The form with \p u rows: its tables and its cuFFT plans (one per
    // power of two up to the chunk, as the other forms', made the first
    // time u is used and kept: the tuner interleaves candidates without
    // waiting for their kernels).
    void use_split(int u)
    {
        const int N = d_c.n_channels;
        ensure_fft_tables();
        if (d_split_plans.find(u) == d_split_plans.end()) {
            // Made aside and kept only whole: a failure leaves no partial
            // set behind for the next use to run.
            std::vector<cufftHandle> plans;
            std::size_t work_bytes = 0;
            try {
                for (int k = 0; (1 << k) <= d_chunk; ++k) {
                    cufftHandle h;
                    check_cufft(cufftCreate(&h), "cufftCreate", d_who);
                    plans.push_back(h);
                    check_cufft(
                        cufftSetAutoAllocation(h, 0), "cufftSetAutoAllocation", d_who);
                    int n = N / u;
                    std::size_t bytes = 0;
                    check_cufft(cufftMakePlanMany(h,
                                                  1,
                                                  &n,
                                                  nullptr,
                                                  1,
                                                  n,
                                                  nullptr,
                                                  1,
                                                  n,
                                                  CUFFT_C2C,
                                                  (1 << k) * d_c.n_inputs * u,
                                                  &bytes),
                                "cufftMakePlanMany",
                                d_who);
                    d_ctx->note_plan(d_who);
                    work_bytes = std::max(work_bytes, bytes);
                }
                d_split_plans[u] = plans;
                set_work_area(work_bytes);
            } catch (...) {
                d_split_plans.erase(u);
                for (cufftHandle h : plans)
                    cufftDestroy(h);
                throw;
            }
        }
        d_unzip = u;
        d_fftpost_rows = 0;
        d_fftpost_cluster = 1;
        d_onepass = false;
        d_fused = false;
        d_section_factor = 1;
    }

    // The rows' transforms: [s][input][r][N/U] complex, FIR scratch to spectra.
    void run_split_fft(int ns, cudaStream_t stream)
    {
        const int64_t per_spectrum = int64_t(d_c.n_inputs) * d_c.n_channels;
        for (const auto& run : fmath::fft_runs(ns)) {
            cufftHandle h = d_split_plans.at(d_unzip)[run.log2_count];
            check_cufft(cufftSetStream(h, stream), "cufftSetStream", d_who);
            check_cufft(cufftExecC2C(h,
                                     reinterpret_cast<cufftComplex*>(d_fir.get()) +
                                         run.begin * per_spectrum,
                                     reinterpret_cast<cufftComplex*>(d_spec.get()) +
                                         run.begin * per_spectrum,
                                     CUFFT_FORWARD),
                        "cufftExecC2C",
                        d_who);
        }
    }

    // Blocks of the tile's pairs x inputs, each over up to 8 spectra: the
    // most spectra per block that still give every SM about 8 blocks (the
    // blocks of a pair range re-read its twiddles and fold factors, from L1).
    void launch_postproc_split(const postproc_params& p, int ns, cudaStream_t stream)
    {
        const int N = d_c.n_channels, I = d_c.n_inputs, u = d_unzip, n2 = N / u;
        const split::tile t = split::tile_for(I, split::threads_for(u));
        const int bx = (split::pairs(n2) + t.pairs - 1) / t.pairs;
        const int by = (I + t.inputs - 1) / t.inputs;
        const int64_t per_spectrum = int64_t(bx) * by;
        const int spb = int(std::clamp<int64_t>(
            per_spectrum * ns / (8 * int64_t(d_multiprocessors)), 1, 8));
        const dim3 grid(bx, by, (ns + spb - 1) / spb);
        const auto* spec = reinterpret_cast<const fft::cpx*>(d_spec.get());
        const fft::cpx* tw = twiddles();
        const fft::cpx* fold = this->fold();
        const bool ci8 = d_c.output == fengine_output::ci8;
#define GPUDSP_SPLIT(U)                                                           \
    do {                                                                          \
        if (ci8)                                                                  \
            postproc_split<U, true><<<grid, split::threads_for(U), 0, stream>>>(  \
                spec, tw, fold, n2, ns, spb, p, p.out, p.sat);                    \
        else                                                                      \
            postproc_split<U, false><<<grid, split::threads_for(U), 0, stream>>>( \
                spec, tw, fold, n2, ns, spb, p, p.out, nullptr);                  \
    } while (0)
        switch (u) {
        case 1:
            GPUDSP_SPLIT(1);
            break;
        case 2:
            GPUDSP_SPLIT(2);
            break;
        case 4:
            GPUDSP_SPLIT(4);
            break;
        default:
            GPUDSP_SPLIT(8);
        }
#undef GPUDSP_SPLIT
    }

    static std::string id_of(bool fused, int section_factor)
    {
        return std::string(fused ? "fused" : "kernel") +
               " sec=" + std::to_string(section_factor);
    }

    static std::size_t fir_bytes(const fengine_config& c, int chunk)
    {
        return std::size_t(c.n_inputs) * chunk * c.step() * (c.complex_input() ? 8 : 4);
    }

    // The FIR kernel's grid for count inputs and ns spectra: (columns,
    // inputs, sections along time).
    struct fir_launch {
        dim3 grid;
        int per_section;
    };
    fir_launch fir_grid(int count, int ns) const
    {
        constexpr int threads = fir_threads;
        const int taps = d_c.n_taps;
        // Sections along time: enough threads in all to fill the GPU (2^18,
        // about 2000 per SM of an H100), each at least max(T, 16) spectra
        // long: its warm-up (MAXT - 1 <= 15 blocks in registers, T - 1 from
        // memory above 16 taps) is then at most one extra read of the input
        // (1.25 B per 10-bit sample of the 18.25 moved). The first H100 run
        // (2026-11-24) had sections of at least 8T and 2^17 threads: ncu saw
        // the host-fed pieces' FIR launches at 128 blocks, 6% achieved
        // occupancy and 3% of DRAM bandwidth: latency-bound.
        const int64_t columns = int64_t(d_step) * count;
        const int want_sections = int(std::max<int64_t>(1, (int64_t(1) << 18) / columns));
        const int min_len = std::max(taps, 16) * d_section_factor;
        const int sections =
            std::max(1, std::min(want_sections, (ns + min_len - 1) / min_len));
        const int per_section = (ns + sections - 1) / sections;
        return { dim3((d_step + threads - 1) / threads, count, sections), per_section };
    }

    template <fengine_input F>
    void
    fir_for(const input_table& tab, int offset, int count, int ns, cudaStream_t stream)
    {
        using T = typename loader<F>::type;
        constexpr int threads = fir_threads;
        const int taps = d_c.n_taps;
        const fir_launch l = fir_grid(count, ns);
        const dim3 grid = l.grid;
        const int per_section = l.per_section;
        auto* o = static_cast<T*>(static_cast<void*>(d_fir.get()));
        const int shift = d_unzip > 1 ? fft::log2_of(d_unzip) : 0;
        const int row = d_unzip > 1 ? d_c.n_channels / d_unzip : 0;
        const float* w = reinterpret_cast<const float*>(d_weights.get());
        fir_kernel<F>()<<<grid, threads, 0, stream>>>(
            tab, offset, d_c.n_inputs, w, d_step, taps, ns, per_section, shift, row, o);
    }

    void
    launch_fir(const std::vector<fengine_input_view>& views, int ns, cudaStream_t stream)
    {
        for (int i0 = 0; i0 < d_c.n_inputs; i0 += input_table::max_inputs) {
            const int count = std::min(input_table::max_inputs, d_c.n_inputs - i0);
            const input_table tab = table_of(views, i0, count);
            switch (d_c.input) {
            case fengine_input::packed10:
                fir_for<fengine_input::packed10>(tab, i0, count, ns, stream);
                break;
            case fengine_input::int16:
                fir_for<fengine_input::int16>(tab, i0, count, ns, stream);
                break;
            case fengine_input::float32:
                fir_for<fengine_input::float32>(tab, i0, count, ns, stream);
                break;
            case fengine_input::complex64:
                fir_for<fengine_input::complex64>(tab, i0, count, ns, stream);
                break;
            }
        }
    }

    // Why the post-processing cannot be fused into cuFFT here, as far as is
    // known before cuFFT tries to link it; empty: it may be.
    std::string fusion_refused() const
    {
#ifndef GPUDSP_HAVE_FENGINE_CALLBACK
        return "built without cuFFT LTO callbacks (CUDA < 13 or no nvJitLink)";
#else
        const char* env = std::getenv("GPUDSP_FENGINE_FUSED");
        if (env && std::strcmp(env, "0") == 0)
            return "GPUDSP_FENGINE_FUSED=0";
        // The callbacks index the chunk's scratch with 32 bits.
        if (uint64_t(d_chunk) * d_c.n_inputs * (d_c.n_channels + 1) > 0xFFFFFFFFull)
            return "spectra scratch over 2^32 values";
        return cufft_lto::unavailable();
#endif
    }

    // One cuFFT plan per power of two up to the chunk, made now, sharing one
    // work area this plan owns: execute() then plans and allocates nothing,
    // and a call of any size is at most log2(chunk) + 1 transforms
    // (fmath::fft_runs over the spectrum-major scratch). These are for the
    // post-processing kernel; the fused set (make_fused_plans) is made only
    // when the tuner or GPUDSP_FENGINE_FUSED=1 asks for it.
    void make_plans()
    {
        d_refused = fusion_refused();
        set_work_area(make_plan_set(false, d_plain_plans));
    }

    // The plans with the post-processing fused in (cuFFT JIT-links the
    // callbacks into its kernels here, so a refusal shows now, once: it is
    // kept, and a later call throws it again without another attempt).
    void make_fused_plans()
    {
        if (!d_fused_plans.empty())
            return;
        // Refused before: by this plan's own earlier attempt (a defect, as
        // then), or without trying (the probe, the environment, the scratch
        // size) or by a machine that links no callback at all: the form
        // cannot run here, which is no defect.
        if (!d_refused.empty()) {
            const std::string why =
                d_who + ": post-processing fused into cuFFT: " + d_refused;
            if (d_refused_by_plan)
                throw device_error(why);
            throw runtime::candidate_unavailable(why);
        }
        try {
            set_work_area(make_plan_set(true, d_fused_plans));
        } catch (const device_error& e) {
            for (cufftHandle h : d_fused_plans)
                cufftDestroy(h);
            d_fused_plans.clear();
            d_refused = e.what();
#ifdef GPUDSP_HAVE_FENGINE_CALLBACK
            const std::string everywhere = cufft_lto::probe_after(d_refused);
            if (!everywhere.empty()) {
                // cuFFT links no callback at all in this process: the
                // machine's libraries, not this plan (a plan-specific
                // refusal stays a failure).
                d_refused = everywhere;
                throw runtime::candidate_unavailable(
                    d_who + ": post-processing fused into cuFFT: " + d_refused);
            }
#endif
            d_refused_by_plan = true;
            throw device_error(d_who +
                               ": post-processing fused into cuFFT: " + d_refused);
        }
    }

    void destroy_plans()
    {
        for (const auto* set : plan_sets())
            for (cufftHandle h : *set)
                cufftDestroy(h); // teardown: nothing to report an error to
    }

    // Every cuFFT plan set made so far.
    std::vector<const std::vector<cufftHandle>*> plan_sets() const
    {
        std::vector<const std::vector<cufftHandle>*> sets{ &d_fused_plans,
                                                           &d_plain_plans };
        for (const auto& u : d_split_plans)
            sets.push_back(&u.second);
        return sets;
    }

    // One work area for every plan made so far, at least \p bytes.
    void set_work_area(std::size_t bytes)
    {
        if (!d_work || d_work_bytes < bytes) {
            const std::size_t b = std::max<std::size_t>(bytes, 1);
            d_work = std::make_unique<runtime::device_memory>(d_ctx, b, d_who);
            d_work_bytes = b; // only once it exists
        }
        for (const auto* set : plan_sets())
            for (cufftHandle h : *set)
                check_cufft(
                    cufftSetWorkArea(h, d_work->get()), "cufftSetWorkArea", d_who);
    }

    // The plans, with the store callback when \p fused, into \p plans;
    // returns the largest work area they need.
    std::size_t make_plan_set(bool fused, std::vector<cufftHandle>& plans)
    {
        std::size_t work_bytes = 0;
        for (int k = 0; (1 << k) <= d_chunk; ++k) {
            cufftHandle h;
            check_cufft(cufftCreate(&h), "cufftCreate", d_who);
            plans.push_back(h);
            check_cufft(cufftSetAutoAllocation(h, 0), "cufftSetAutoAllocation", d_who);
            if (fused)
                set_store_callback(h);
            int n = d_step;
            int inembed = d_step, onembed = d_c.n_channels + 1;
            std::size_t bytes = 0;
            check_cufft(cufftMakePlanMany(h,
                                          1,
                                          &n,
                                          &inembed,
                                          1,
                                          d_step,
                                          &onembed,
                                          1,
                                          d_c.n_channels + 1,
                                          d_c.complex_input() ? CUFFT_C2C : CUFFT_R2C,
                                          (1 << k) * d_c.n_inputs,
                                          &bytes),
                        "cufftMakePlanMany",
                        d_who);
            d_ctx->note_plan(d_who);
            work_bytes = std::max(work_bytes, bytes);
        }
        return work_bytes;
    }

    // Before planning (cuFFT's rule for LTO callbacks): the callback for the
    // output format, its caller info the parameter slot.
    void set_store_callback(cufftHandle h)
    {
#ifdef GPUDSP_HAVE_FENGINE_CALLBACK
        void* info = d_params.get();
        check_cufft(cufftXtSetJITCallback(h,
                                          d_c.output == fengine_output::ci8
                                              ? "gpudsp_fengine_store_ci8"
                                              : "gpudsp_fengine_store_cf32",
                                          gpudsp_fengine_store_fatbin,
                                          sizeof gpudsp_fengine_store_fatbin,
                                          CUFFT_CB_ST_COMPLEX,
                                          &info),
                    "cufftXtSetJITCallback",
                    d_who);
#else
        (void)h;
#endif
    }

    void run_fft(int ns, cudaStream_t stream)
    {
        const int I = d_c.n_inputs;
        for (const auto& run : fmath::fft_runs(ns)) {
            cufftHandle h = (d_fused ? d_fused_plans : d_plain_plans)[run.log2_count];
            check_cufft(cufftSetStream(h, stream), "cufftSetStream", d_who);
            auto* spec = reinterpret_cast<cufftComplex*>(d_spec.get()) +
                         fmath::scratch_index(run.begin, 0, I, d_c.n_channels + 1, 0);
            if (d_c.complex_input())
                check_cufft(
                    cufftExecC2C(h,
                                 reinterpret_cast<cufftComplex*>(d_fir.get()) +
                                     fmath::scratch_index(run.begin, 0, I, d_step, 0),
                                 spec,
                                 CUFFT_FORWARD),
                    "cufftExecC2C",
                    d_who);
            else
                check_cufft(
                    cufftExecR2C(h,
                                 reinterpret_cast<cufftReal*>(d_fir.get()) +
                                     fmath::scratch_index(run.begin, 0, I, d_step, 0),
                                 spec),
                    "cufftExecR2C",
                    d_who);
        }
    }

    // The post-processing of a chunk whose output is \p out, its
    // saturation counts \p sat (or null) and its first spectrum \p first.
    postproc_params params(void* out, uint32_t* sat, uint64_t first) const
    {
        postproc_params p = d_fixed;
        p.drift = d_drift_host.empty() ? nullptr
                                       : reinterpret_cast<const float2*>(d_drift.get());
        p.drift_offset = (long long)(int64_t(first - d_reference));
        p.first_spectrum = first;
        p.out = out;
        p.sat = sat;
        return p;
    }

    void launch_postproc(const postproc_params& p, int ns, cudaStream_t stream)
    {
        dim3 block(postproc_threads);
        dim3 grid((d_c.n_channels + p.tile.channels - 1) / p.tile.channels,
                  (d_c.n_inputs + p.tile.inputs - 1) / p.tile.inputs,
                  ns);
        if (d_c.output == fengine_output::ci8)
            postproc<true><<<grid, block, 0, stream>>>(p.spec, p, p.out, p.sat);
        else
            postproc<false><<<grid, block, 0, stream>>>(p.spec, p, p.out, nullptr);
    }

    fengine_config d_c;
    runtime::device_context::sptr d_ctx;
    std::string d_who;
    int d_step;
    int d_chunk;     // spectra the scratch holds
    int d_run_chunk; // spectra a chunk runs: d_chunk, or an L2-resident variant's
    runtime::device_memory d_weights, d_rot, d_drift, d_fir, d_spec;
    runtime::device_stream d_setup;
    runtime::device_memory d_params;      // the fused form's postproc_params slot
    runtime::device_event d_scratch_free; // after the last chunk's kernels
    runtime::stage_clock d_clock;         // time_stages: events between stages
    int d_multiprocessors;
    bool d_onepass = false; // the one-pass kernel runs (else cuFFT and the FIR kernel)
    std::string d_onepass_refused; // why it cannot (empty: it can)
    int d_onepass_per_round = 1;   // its spectra per CTA and round
    int d_onepass_cluster = 1;     // its CTAs per cluster
    std::unique_ptr<runtime::device_memory> d_twiddles, d_fold; // ensure_fft_tables()
    std::unique_ptr<runtime::device_memory> d_rot_by_input;     // [input][channel]
    std::vector<cuFloatComplex> d_rot_by_input_host;
    int d_unzip = 0; // the split form's rows per spectrum (0: another form runs)
    std::string d_split_refused; // why the split form cannot run (empty: it can)
    std::map<int, std::vector<cufftHandle>> d_split_plans; // [u][k]: 2^k spectra
    // The fused FFT's (rows a CTA, cluster) that can run here (cluster 1:
    // not staged).
    std::vector<std::pair<int, int>> d_fftpost_ok;
    int d_fftpost_rows = 0;    // the fused FFT form runs, with these rows (0: not)
    int d_fftpost_cluster = 1; // and its outputs staged by clusters of this many CTAs
    bool d_fused = false;      // the fused plans run (else the plain ones and the kernel)
    std::string d_refused;     // why there are no fused plans (empty: there are)
    bool d_refused_by_plan = false; // d_refused: this plan's own link failed
    int d_section_factor = 1;  // the FIR's shortest section, in max(T, 16) spectra
    postproc_params d_fixed{}; // the chunk-independent post-processing parameters
    std::vector<cufftHandle> d_fused_plans, d_plain_plans; // [k]: 2^k spectra
    std::unique_ptr<runtime::device_memory> d_work;
    std::size_t d_work_bytes = 0;
    std::vector<cuFloatComplex> d_rot_host;
    std::vector<float> d_drift_host; // [input] (delay rate, phase rate); empty: none
    uint64_t d_reference = 0;
    bool d_rot_dirty = false;
};

} // namespace

std::unique_ptr<fengine_plan::impl> make_fengine_cuda(const fengine_config& config,
                                                      const std::vector<float>& weights,
                                                      runtime::device_context::sptr ctx,
                                                      const std::string& who)
{
    return std::make_unique<fengine_cuda>(config, weights, std::move(ctx), who);
}

} // namespace kernels
} // namespace gpudsp
} // namespace gr
