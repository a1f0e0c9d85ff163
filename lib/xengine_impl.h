/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUDSP_XENGINE_IMPL_H
#define INCLUDED_GPUDSP_XENGINE_IMPL_H

#include "block_backend.h"
#include <gnuradio/gpudsp/kernels/xengine.h>
#include <gnuradio/gpudsp/xengine.h>

namespace gr {
namespace gpudsp {

class xengine_impl : public xengine, public block_backend
{
public:
    xengine_impl(const kernels::xengine_config& config,
                 int n_integrate,
                 const runtime::backend_choice& choice);

    std::string backend() const override { return runtime::to_string(d_choice.kind); }
    std::string configuration() const override { return d_plan.tuning().describe(); }
    std::string kernel() const override { return d_plan.kernel_name(); }
    std::string kernel_form() const override { return d_plan.kernel_variant(); }

    bool start() override;
    void forecast(int noutput_items, gr_vector_int& ninput_items_required) override;
    int general_work(int noutput_items,
                     gr_vector_int& ninput_items,
                     gr_vector_const_void_star& input_items,
                     gr_vector_void_star& output_items) override;

private:
    void accumulate_valid(const char* in, uint64_t first, int count);
    uint64_t finish_dump(void* out);
    void discard_partial_dump();

    kernels::xengine_config d_config;
    kernels::xengine_plan d_plan;
    int d_n_integrate;
    int d_batch; // spectra per call asked of the scheduler (the plan's preference)
    int d_in_dump = 0;                  // spectra of the current dump seen so far
    uint64_t d_used = 0;                // of them, not missing
    uint64_t d_missing_until = 0;       // input spectra before this index are missing
    std::vector<gr::tag_t> d_dump_tags; // tags of the current dump's spectra
    std::unique_ptr<runtime::device_memory> d_device_saturated;
    std::unique_ptr<runtime::pinned_memory> d_host_saturated;
};

} // namespace gpudsp
} // namespace gr

#endif
