/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUDSP_PFB_FENGINE_IMPL_H
#define INCLUDED_GPUDSP_PFB_FENGINE_IMPL_H

#include "block_backend.h"
#include "kernels/fengine/fengine_schedule.h"
#include <gnuradio/gpudsp/kernels/pfb_fengine.h>
#include <gnuradio/gpudsp/pfb_fengine.h>
#include <pmt/pmt.h>

namespace gr {
namespace gpudsp {

class pfb_fengine_impl : public pfb_fengine, public block_backend
{
public:
    pfb_fengine_impl(const kernels::fengine_config& config,
                     int max_coarse_delay,
                     fengine_delay_convention convention,
                     const runtime::backend_choice& choice);

    std::string backend() const override { return runtime::to_string(d_choice.kind); }
    std::string configuration() const override { return d_plan.tuning().describe(); }
    std::vector<double> weights() const override;
    std::string delay_convention() const override;
    std::string channel_order() const override
    {
        return d_config.centred_channels ? "centred" : "natural";
    }

    void set_gains(const std::vector<std::complex<float>>& gains,
                   int64_t at_sample) override;
    void set_fine_delays(const std::vector<double>& delays, int64_t at_sample) override;
    void set_phases(const std::vector<double>& phases, int64_t at_sample) override;
    void set_coarse_delays(const std::vector<int>& delays, int64_t at_sample) override;
    void set_delay_model(const std::vector<double>& delays,
                         const std::vector<double>& delay_rates,
                         const std::vector<double>& phases,
                         const std::vector<double>& phase_rates,
                         int64_t at_sample) override;
    std::vector<std::complex<float>> gains() const override;
    std::vector<double> fine_delays() const override;
    std::vector<double> phases() const override;
    std::vector<int> coarse_delays() const override;

    bool start() override;
    void forecast(int noutput_items, gr_vector_int& ninput_items_required) override;
    int work(int noutput_items,
             gr_vector_const_void_star& input_items,
             gr_vector_void_star& output_items) override;

private:
    void schedule(int64_t at_sample, fengine_schedule::change change);
    void handle_delays_message(const pmt::pmt_t& msg);
    void run_segment(const gr_vector_const_void_star& in,
                     char* out,
                     uint32_t* saturation,
                     int first,
                     int count,
                     uint64_t first_spectrum);
    void map_tags(int noutput_items, const std::vector<uint32_t>& saturation);
    void apply_corrections(uint64_t m);

    kernels::fengine_config d_config;
    fengine_delay_convention d_convention;
    kernels::fengine_plan d_plan;
    int d_max_delay;      // samples, a multiple of 4
    int64_t d_step;       // samples per spectrum
    int64_t d_step_items; // input items per spectrum
    fengine_schedule d_schedule;
    fengine_state d_applied; // what the plan has now
    uint64_t d_segment_end = 0; // with a delay model: where its next segment starts
    missing_tracker d_missing;
    std::unique_ptr<runtime::device_memory> d_device_saturation;
    std::unique_ptr<runtime::pinned_memory> d_host_saturation;
    std::size_t d_saturation_capacity = 0;
    std::vector<uint32_t> d_saturation; // this call's counts, on the host
    // Spectra a call waits for while the stream goes on (the plan's
    // preferred_spectra(), within what the input buffers hold).
    int d_min_call = 1;
    std::vector<int64_t> d_fresh; // forecast(): each input's unconsumed items
    std::vector<char> d_done;     // forecast(): whether each input's writer is done
};

} // namespace gpudsp
} // namespace gr

#endif
