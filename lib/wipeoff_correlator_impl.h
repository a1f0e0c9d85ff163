/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUDSP_WIPEOFF_CORRELATOR_IMPL_H
#define INCLUDED_GPUDSP_WIPEOFF_CORRELATOR_IMPL_H

#include "block_backend.h"
#include "kernels/gnss/gnss_schedule.h"
#include <gnuradio/gpudsp/kernels/gnss_correlator.h>
#include <gnuradio/gpudsp/wipeoff_correlator.h>
#include <pmt/pmt.h>
#include <atomic>
#include <map>

namespace gr {
namespace gpudsp {

class wipeoff_correlator_impl : public wipeoff_correlator, public block_backend
{
public:
    wipeoff_correlator_impl(double samp_rate,
                            int n_antennas,
                            const std::vector<double>& taps_chips,
                            kernels::gnss_input input,
                            int integration_periods,
                            const runtime::backend_choice& choice);

    std::string backend() const override { return runtime::to_string(d_choice.kind); }
    std::string configuration() const override { return d_plan.tuning().describe(); }
    int record_size() const override { return d_record_size; }
    void add_satellite(const std::string& system,
                       int prn,
                       double carrier_freq,
                       double code_freq,
                       double carrier_phase,
                       double code_phase,
                       int64_t at_sample) override;
    void update_satellite(const std::string& system,
                          int prn,
                          double carrier_freq,
                          double code_freq,
                          double carrier_phase_correction,
                          double code_phase_correction) override;
    void remove_satellite(const std::string& system, int prn) override;
    std::vector<std::string> satellites() const override;
    void set_cpu_threads(int n) override;
    void set_secondary_chip(const std::string& system,
                            int prn,
                            int chip,
                            int64_t epoch) override;
    // epoch: none for the next period (the method's -1), else exact.
    void apply_secondary_chip(const std::string& system,
                              int prn,
                              int chip,
                              std::optional<int64_t> epoch);

    bool start() override;
    bool stop() override;
    void forecast(int noutput_items, gr_vector_int& ninput_items_required) override;
    int general_work(int noutput_items,
                     gr_vector_int& ninput_items,
                     gr_vector_const_void_star& input_items,
                     gr_vector_void_star& output_items) override;

private:
    using key = std::pair<int, int>; // system, prn

    key key_of(const std::string& system, long prn) const;
    //! The satellite's scheduler (call with d_setlock held); throws
    //! std::invalid_argument when it is not being correlated.
    gnss_tracker& correlated(const std::string& system, int prn);
    void size_buffers_for_integrations();
    void handle_control(const pmt::pmt_t& msg);
    void read_tags(uint64_t begin, uint64_t end);
    //! A corr message without its correlations (made while they are computed).
    pmt::pmt_t message_fields(const gnss_integration& job, uint64_t missing) const;
    //! The corr message: \p fields and the correlations \p sums.
    pmt::pmt_t message(const pmt::pmt_t& fields, const std::complex<float>* sums) const;
    void write_record(char* out,
                      const gnss_integration& job,
                      const std::complex<float>* sums,
                      uint64_t missing) const;

    std::atomic<int> d_cpu_threads{ 1 }; // applied by work() (set from any thread)
    kernels::gnss_correlator_plan d_plan;
    int d_periods;
    int d_record_size;
    int64_t d_max_length; // samples of the longest integration allowed
    std::map<key, gnss_tracker> d_sats;
    gnss_missing_runs d_missing;
    uint64_t d_tags_read = 0;
    bool d_have_time = false;
    bool d_between_runs = false; // stopped: "now" is the next run's sample 0
    uint64_t d_time_offset = 0;
    double d_time = 0;         // rx_time at d_time_offset, seconds
    pmt::pmt_t d_message_base; // the fields every "corr" message shares
};

} // namespace gpudsp
} // namespace gr

#endif
