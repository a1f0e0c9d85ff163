/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUDSP_LDPC5G_IMPL_H
#define INCLUDED_GPUDSP_LDPC5G_IMPL_H

#include <gnuradio/gpudsp/kernels/ldpc5g.h>
#include <gnuradio/gpudsp/ldpc5g.h>
#include <memory>

namespace gr {
namespace gpudsp {

class ldpc5g_encoder_impl : public ldpc5g_encoder
{
public:
    explicit ldpc5g_encoder_impl(const kernels::ldpc5g_params& p);
    void generic_work(void* in, void* out) override;
    double rate() override { return double(d_code.params().K) / d_code.params().E; }
    int get_input_size() override { return d_code.params().K; }
    int get_output_size() override { return d_code.params().E; }
    bool set_frame_size(unsigned int frame_size) override;

private:
    kernels::ldpc5g_encoder_core d_code;
};

class ldpc5g_decoder_impl : public ldpc5g_decoder
{
public:
    ldpc5g_decoder_impl(const kernels::ldpc5g_params& p,
                        const kernels::ldpc5g_decoder_config& c,
                        int batch,
                        bool char_input,
                        const runtime::backend_choice& where);
    void generic_work(void* in, void* out) override;
    double rate() override { return double(d_plan.params().K) / d_plan.params().E; }
    int get_input_size() override { return d_batch * d_plan.params().E; }
    int get_output_size() override { return d_batch * d_plan.params().K; }
    int get_input_item_size() override { return d_char_input ? 1 : sizeof(float); }
    int get_output_item_size() override { return 1; }
    bool set_frame_size(unsigned int frame_size) override;
    float get_iterations() override;
    std::vector<int> last_iterations() const override;
    std::vector<bool> last_ok() const override;

private:
    kernels::ldpc5g_decoder_plan d_plan;
    int d_batch;
    bool d_char_input;
    std::vector<int32_t> d_iterations;
    std::vector<uint8_t> d_ok;
};

class ldpc5g_encode_impl : public ldpc5g_encode
{
public:
    explicit ldpc5g_encode_impl(const kernels::ldpc5g_params& p);
    void forecast(int noutput_items, gr_vector_int& ninput_items_required) override;
    int general_work(int noutput_items,
                     gr_vector_int& ninput_items,
                     gr_vector_const_void_star& input_items,
                     gr_vector_void_star& output_items) override;

private:
    kernels::ldpc5g_encoder_core d_code;
};

class ldpc5g_decode_impl : public ldpc5g_decode
{
public:
    ldpc5g_decode_impl(const kernels::ldpc5g_params& p,
                       const kernels::ldpc5g_decoder_config& c,
                       bool char_input,
                       bool packed,
                       int batch,
                       const runtime::backend_choice& where);
    std::string backend() const override { return runtime::to_string(d_where.kind); }
    std::string configuration() const override { return d_plan.tuning().describe(); }
    void forecast(int noutput_items, gr_vector_int& ninput_items_required) override;
    int general_work(int noutput_items,
                     gr_vector_int& ninput_items,
                     gr_vector_const_void_star& input_items,
                     gr_vector_void_star& output_items) override;

private:
    int out_per_codeword() const;

    kernels::ldpc5g_decoder_plan d_plan;
    runtime::backend_choice d_where;
    bool d_char_input, d_packed;
    std::vector<uint8_t> d_ok;
    std::vector<int32_t> d_iterations;
};

} // namespace gpudsp
} // namespace gr

#endif
