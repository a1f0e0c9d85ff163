/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUDSP_DDC_IMPL_H
#define INCLUDED_GPUDSP_DDC_IMPL_H

#include "block_backend.h"
#include "kernels/fengine/fengine_schedule.h"
#include <gnuradio/gpudsp/ddc.h>
#include <gnuradio/gpudsp/kernels/ddc.h>
#include <pmt/pmt.h>
#include <map>

namespace gr {
namespace gpudsp {

class ddc_impl : public ddc, public block_backend
{
public:
    ddc_impl(const std::vector<kernels::ddc_config>& outputs,
             const runtime::backend_choice& choice);

    std::string backend() const override { return runtime::to_string(d_choice.kind); }
    std::string configuration(int output) const override;
    void set_center_freq(double freq, int output, int64_t at_sample) override;
    double center_freq(int output) const override;

    bool start() override;
    bool stop() override;
    void forecast(int noutput_items, gr_vector_int& ninput_items_required) override;
    int general_work(int noutput_items,
                     gr_vector_int& ninput_items,
                     gr_vector_const_void_star& input_items,
                     gr_vector_void_star& output_items) override;

private:
    struct output_state {
        std::unique_ptr<kernels::ddc_plan> plan;
        uint64_t next = 0;                       // next output index
        std::multimap<uint64_t, double> retunes; // sample -> new centre frequency
        double requested_freq = 0;               // the latest asked for (getter)
        missing_tracker missing;
    };

    int64_t samples_of(uint64_t items) const;
    uint64_t items_of(int64_t samples) const;
    void map_tags(uint64_t first_item, uint64_t end_item);
    void handle_freq_message(const pmt::pmt_t& msg);
    kernels::ddc_input d_input;
    std::vector<output_state> d_out;
    int64_t d_history; // samples kept before the read position
    int d_min_decimation;
    double d_rx_freq = 0; // latest rx_freq of the input, if any
    bool d_have_rx_freq = false;
    uint64_t d_tags_mapped = 0; // input items whose tags were mapped
};

} // namespace gpudsp
} // namespace gr

#endif
