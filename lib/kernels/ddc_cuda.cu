/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The DDC on CUDA: one thread per kept output (only those are computed),
// the premultiplied taps in shared memory when they fit (else read through
// the cache), the input decoded as it is read (packed 10-bit, int16, float
// or complex float), neighbouring threads reading overlapping windows
// through L1/L2, and one rotation per output from the exact 64-bit phase.

#include "ddc_impl.h"
#include "sample_load.cuh"
#include <cuda_runtime.h>

namespace gr {
namespace gpudsp {
namespace kernels {

namespace {

constexpr int threads = ddc_cuda_threads;

__device__ __forceinline__ float2 mac(float2 acc, float2 z, float x)
{
    return make_float2(fmaf(z.x, x, acc.x), fmaf(z.y, x, acc.y));
}
__device__ __forceinline__ float2 mac(float2 acc, float2 z, float2 x)
{
    return make_float2(fmaf(z.x, x.x, fmaf(-z.y, x.y, acc.x)),
                       fmaf(z.x, x.y, fmaf(z.y, x.x, acc.y)));
}

// zr: the reversed taps (output m reads x[m D + j] against zr[j], relative to
// the first window sample).
template <sample_kind K, bool SHARED>
__global__ void __launch_bounds__(threads) ddc_kernel(const void* __restrict__ in,
                                                      long long first_sample,
                                                      const float2* __restrict__ zr,
                                                      int taps,
                                                      int decimation,
                                                      unsigned long long first_output,
                                                      unsigned long long n_outputs,
                                                      unsigned long long phase_step,
                                                      unsigned long long phase_offset,
                                                      float2* __restrict__ out)
{
    extern __shared__ float2 z_shared[];
    const float2* z = zr;
    if (SHARED) {
        for (int j = threadIdx.x; j < taps; j += blockDim.x)
            z_shared[j] = zr[j];
        __syncthreads();
        z = z_shared;
    }
    const unsigned long long m =
        (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (m >= n_outputs)
        return;
    const long long base = first_sample + (long long)m * decimation;
    float2 acc = make_float2(0.0f, 0.0f);
    for (int j = 0; j < taps; ++j)
        acc = mac(acc, z[j], sample_loader<K>::load(in, base + j));
    // exp(-2j pi phase(mD)), phase exact in 64-bit fixed point.
    const unsigned long long p =
        phase_step * ((first_output + m) * (unsigned long long)decimation) + phase_offset;
    const float cycles = float((long long)p) * 0x1p-64f; // in [-0.5, 0.5)
    float s, c;
    sincospif(-2.0f * cycles, &s, &c);
    out[m] = make_float2(acc.x * c - acc.y * s, acc.x * s + acc.y * c);
}

sample_kind kind_of(ddc_input f)
{
    switch (f) {
    case ddc_input::packed10:
        return sample_kind::packed10;
    case ddc_input::int16:
        return sample_kind::int16;
    case ddc_input::float32:
        return sample_kind::float32;
    case ddc_input::complex64:
        break;
    }
    return sample_kind::complex64;
}

class ddc_cuda : public ddc_plan::impl
{
public:
    ddc_cuda(const ddc_config& c,
             runtime::device_context::sptr ctx,
             const std::string& who)
        : d_c(c),
          d_ctx(std::move(ctx)),
          d_who(who),
          d_taps(d_ctx, c.taps.size() * sizeof(float2), who)
    {
    }

    void set_taps(const std::vector<std::complex<float>>& z) override
    {
        // Reversed; uploaded by the next execute() on its stream, so work in
        // flight keeps the taps it was given.
        d_host.resize(z.size());
        for (std::size_t j = 0; j < z.size(); ++j)
            d_host[j] =
                make_float2(z[z.size() - 1 - j].real(), z[z.size() - 1 - j].imag());
        d_dirty = true;
    }

    void execute(const void* in,
                 int64_t first_sample,
                 uint64_t first_output,
                 std::size_t n,
                 void* out,
                 const mixer_phase& phase,
                 runtime::stream_handle sh) override
    {
        d_ctx->make_current();
        auto stream = static_cast<cudaStream_t>(sh);
        if (d_dirty) {
            // Pageable source: the call returns once the bytes are staged.
            d_ctx->copy_async(d_taps.get(),
                              d_host.data(),
                              d_host.size() * sizeof(float2),
                              runtime::copy_kind::host_to_device,
                              sh,
                              d_who);
            d_dirty = false;
        }
        const int T = int(d_host.size());
        const std::size_t smem = ddc_cuda_shared_bytes(T);
        const bool shared = smem > 0;
        const auto* z = reinterpret_cast<const float2*>(d_taps.get());
        auto* y = static_cast<float2*>(out);
        // Launches of at most 2^31 - 1 blocks' worth of outputs.
        const std::size_t per_launch = std::size_t(threads) * 0x7fffffff;
        for (std::size_t m0 = 0; m0 < n; m0 += per_launch) {
            const std::size_t count = std::min(per_launch, n - m0);
            const unsigned blocks = unsigned((count + threads - 1) / threads);
            const long long first = first_sample + (long long)(m0 * d_c.decimation);
            launch(kind_of(d_c.input),
                   shared,
                   blocks,
                   smem,
                   stream,
                   in,
                   first,
                   z,
                   T,
                   first_output + m0,
                   count,
                   phase,
                   y + m0);
            d_ctx->check_last_error("ddc kernel launch", d_who);
        }
    }

private:
    void launch(sample_kind k,
                bool shared,
                unsigned blocks,
                std::size_t smem,
                cudaStream_t stream,
                const void* in,
                long long first,
                const float2* z,
                int T,
                uint64_t first_output,
                std::size_t count,
                const mixer_phase& ph,
                float2* y)
    {
#define GPUDSP_DDC(KIND)                                                          \
    if (shared)                                                                   \
        ddc_kernel<KIND, true><<<blocks, threads, smem, stream>>>(in,             \
                                                                  first,          \
                                                                  z,              \
                                                                  T,              \
                                                                  d_c.decimation, \
                                                                  first_output,   \
                                                                  count,          \
                                                                  ph.step,        \
                                                                  ph.offset,      \
                                                                  y);             \
    else                                                                          \
        ddc_kernel<KIND, false><<<blocks, threads, 0, stream>>>(                  \
            in, first, z, T, d_c.decimation, first_output, count, ph.step, ph.offset, y)
        switch (k) {
        case sample_kind::packed10:
            GPUDSP_DDC(sample_kind::packed10);
            break;
        case sample_kind::int16:
            GPUDSP_DDC(sample_kind::int16);
            break;
        case sample_kind::float32:
            GPUDSP_DDC(sample_kind::float32);
            break;
        case sample_kind::complex64:
            GPUDSP_DDC(sample_kind::complex64);
            break;
        }
#undef GPUDSP_DDC
    }

    ddc_config d_c;
    runtime::device_context::sptr d_ctx;
    std::string d_who;
    runtime::device_memory d_taps;
    std::vector<float2> d_host;
    bool d_dirty = false;
};

} // namespace

std::unique_ptr<ddc_plan::impl> make_ddc_cuda(const ddc_config& config,
                                              runtime::device_context::sptr ctx,
                                              const std::string& who)
{
    return std::make_unique<ddc_cuda>(config, std::move(ctx), who);
}

} // namespace kernels
} // namespace gpudsp
} // namespace gr
