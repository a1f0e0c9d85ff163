/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Internal: the backends behind gnss_correlator_plan. They receive jobs
// already checked and in fixed point, and tap offsets in chips * 2^32.

#ifndef INCLUDED_GPUDSP_KERNELS_GNSS_CORRELATOR_IMPL_H
#define INCLUDED_GPUDSP_KERNELS_GNSS_CORRELATOR_IMPL_H

#include <gnuradio/gpudsp/kernels/gnss_correlator.h>

namespace gr {
namespace gpudsp {
namespace kernels {

constexpr int gnss_n_systems = 2;

struct gnss_correlator_plan::impl {
    virtual ~impl() = default;
    virtual void execute(const std::vector<const void*>& antennas,
                         const std::vector<gnss_fixed_job>& jobs,
                         std::complex<float>* out,
                         runtime::stream_handle stream) = 0;
    virtual double last_kernel_seconds() const { return 0; }
};

std::unique_ptr<gnss_correlator_plan::impl> make_gnss_correlator_cpu(
    int n_antennas, const std::vector<int64_t>& taps, gnss_input input);
#ifdef GPUDSP_HAVE_CUDA
std::unique_ptr<gnss_correlator_plan::impl>
make_gnss_correlator_cuda(int n_antennas,
                          const std::vector<int64_t>& taps,
                          gnss_input input,
                          runtime::device_context::sptr ctx,
                          const std::string& who);
#endif

} // namespace kernels
} // namespace gpudsp
} // namespace gr

#endif
