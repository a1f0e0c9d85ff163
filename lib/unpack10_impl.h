/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUDSP_UNPACK10_IMPL_H
#define INCLUDED_GPUDSP_UNPACK10_IMPL_H

#include "block_backend.h"
#include <gnuradio/gpudsp/kernels/unpack10.h>
#include <gnuradio/gpudsp/unpack10.h>

namespace gr {
namespace gpudsp {

class unpack10_impl : public unpack10, public block_backend
{
public:
    unpack10_impl(kernels::sample_format format, const runtime::backend_choice& choice);

    std::string backend() const override { return runtime::to_string(d_choice.kind); }
    std::string configuration() const override { return d_plan.tuning().describe(); }
    bool start() override;
    void forecast(int noutput_items, gr_vector_int& ninput_items_required) override;
    int general_work(int noutput_items,
                     gr_vector_int& ninput_items,
                     gr_vector_const_void_star& input_items,
                     gr_vector_void_star& output_items) override;

private:
    void map_tags(uint64_t first_byte, uint64_t n_bytes);
    kernels::unpack10_plan d_plan;
};

} // namespace gpudsp
} // namespace gr

#endif
