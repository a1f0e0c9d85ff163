/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Internal: the backends behind ddc_plan. Each holds the premultiplied taps
// z[k] = h[k] exp(+2j pi f k) (float32, computed in float64 by the plan) and
// computes y[m] = exp(-2j pi phase(mD)) sum_k z[k] x[mD - k].

#ifndef INCLUDED_GPUDSP_KERNELS_DDC_IMPL_H
#define INCLUDED_GPUDSP_KERNELS_DDC_IMPL_H

#include <gnuradio/gpudsp/kernels/ddc.h>

namespace gr {
namespace gpudsp {
namespace kernels {

/*! One plan of a group run together (ddc_plan::execute_together). */
struct ddc_group_member {
    ddc_plan::impl* impl;
    const mixer_phase* phase;
    void* out;
};

struct ddc_plan::impl {
    virtual ~impl() = default;
    virtual void set_taps(const std::vector<std::complex<float>>& z) = 0;
    virtual void execute(const void* in,
                         int64_t first_sample,
                         uint64_t first_output,
                         std::size_t n_outputs,
                         void* out,
                         const mixer_phase& phase,
                         runtime::stream_handle stream) = 0;
    /*! Input bytes that stay in the device's cache between launches
     *  (execute_together runs plans of different shapes over chunks of
     *  that size); 0: no chunks. */
    virtual std::size_t cache_chunk_bytes() const { return 0; }
    /*! Runs \p members (this one among them) from one read of the input;
     *  false where this backend cannot (then each runs alone). */
    virtual bool execute_group(const std::vector<ddc_group_member>& members,
                               const void* in,
                               int64_t first_sample,
                               uint64_t first_output,
                               std::size_t n_outputs,
                               runtime::stream_handle stream)
    {
        (void)members, (void)in, (void)first_sample, (void)first_output, (void)n_outputs,
            (void)stream;
        return false;
    }

    /*! The configurations the tuner may time (ids, the first is the
     *  heuristic's); fewer than two: nothing to tune. */
    virtual std::vector<std::string> configurations() const { return {}; }
    /*! Runs configuration \p id from now on (one of configurations()). */
    virtual void use(const std::string& id) { (void)id; }
    /*! The configuration an environment variable forces ("" for none). */
    virtual std::string forced_configuration() const { return ""; }
    /*! Outputs per timed call: enough to fill the device several waves deep. */
    virtual std::size_t tuning_outputs() const { return 0; }
    /*! Waves of the launch over \p n outputs (0: no kernels). */
    virtual double launch_waves(std::size_t n) const
    {
        (void)n;
        return 0;
    }
};

/*! The CPU implementation, its vectors at most \p max_lanes floats wide
 *  (16: AVX-512, 8: AVX2, 4: the baseline), within what the CPU runs. */
std::unique_ptr<ddc_plan::impl> make_ddc_cpu(const ddc_config& config,
                                             int max_lanes = 16);
/*! The lane counts the CPU runs, widest first. */
std::vector<int> ddc_cpu_lane_options();

// The CUDA simple kernel's launch geometry (ddc_cuda.cu; the tile kernel's
// is ddc_tile.h's), here so that scripts/kernel-report.sh reads the same
// numbers: the premultiplied taps go to shared memory when there are at
// most ddc_cuda_max_shared_taps of them (32 KiB of complex float).
constexpr int ddc_cuda_threads = 256;
constexpr int ddc_cuda_max_shared_taps = 4096;
constexpr std::size_t ddc_cuda_shared_bytes(int taps)
{
    return taps <= ddc_cuda_max_shared_taps ? std::size_t(taps) * 8 : 0;
}
#ifdef GPUDSP_HAVE_CUDA
std::unique_ptr<ddc_plan::impl> make_ddc_cuda(const ddc_config& config,
                                              runtime::device_context::sptr ctx,
                                              const std::string& who);
#endif

} // namespace kernels
} // namespace gpudsp
} // namespace gr

#endif
