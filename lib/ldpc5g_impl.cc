/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The 5G LDPC code in GNU Radio: gr-fec encoder/decoder objects and the
// stream blocks, all thin layers over kernels::ldpc5g_*.

#include "block_backend.h"
#include "ldpc5g_impl.h"
#include <gnuradio/io_signature.h>
#include <algorithm>
#include <stdexcept>

namespace gr {
namespace gpudsp {

namespace {
const pmt::pmt_t iterations_key = pmt::intern("gpudsp.ldpc_iterations");
const pmt::pmt_t ok_key = pmt::intern("gpudsp.ldpc_ok");

bool char_llrs(const std::string& llr_format, const std::string& who)
{
    if (llr_format != "float" && llr_format != "char")
        throw std::invalid_argument(who + ": llr_format must be \"float\" or \"char\"");
    return llr_format == "char";
}

kernels::ldpc5g_decoder_config config_for(int max_iterations,
                                          const std::string& algorithm,
                                          float scaling,
                                          float offset,
                                          const std::string& arithmetic,
                                          const std::string& llr_sign,
                                          bool early_termination,
                                          bool char_input,
                                          const std::string& who)
{
    auto c = kernels::make_ldpc5g_decoder_config(max_iterations,
                                                 algorithm,
                                                 scaling,
                                                 offset,
                                                 arithmetic,
                                                 llr_sign,
                                                 early_termination,
                                                 who);
    if (char_input)
        c.fixed_scale = 1; // int8 LLRs are already in the fixed-point units
    return c;
}
} // namespace

// --- gr-fec encoder --------------------------------------------------------

ldpc5g_encoder::sptr ldpc5g_encoder::make(int K, int E, int rv, int Qm, int n_ref)
{
    return std::make_shared<ldpc5g_encoder_impl>(
        kernels::ldpc5g_params::make(K, E, rv, Qm, n_ref, "ldpc5g_encoder"));
}

ldpc5g_encoder_impl::ldpc5g_encoder_impl(const kernels::ldpc5g_params& p) : d_code(p) {}

void ldpc5g_encoder_impl::generic_work(void* in, void* out)
{
    d_code.encode(static_cast<const uint8_t*>(in), static_cast<uint8_t*>(out));
}

bool ldpc5g_encoder_impl::set_frame_size(unsigned int frame_size)
{
    // The code fixes its frame: K bits.
    return int(frame_size) == d_code.params().K;
}

// --- gr-fec decoder --------------------------------------------------------

ldpc5g_decoder::sptr ldpc5g_decoder::make(int K,
                                          int E,
                                          int rv,
                                          int Qm,
                                          int max_iterations,
                                          const std::string& algorithm,
                                          float scaling,
                                          int batch,
                                          const std::string& backend,
                                          int device,
                                          float offset,
                                          const std::string& arithmetic,
                                          const std::string& llr_sign,
                                          int n_ref,
                                          bool early_termination,
                                          const std::string& llr_format)
{
    const std::string who = "ldpc5g_decoder";
    if (batch < 1)
        throw std::invalid_argument(who + ": batch must be >= 1");
    const bool char_input = char_llrs(llr_format, who);
    return std::make_shared<ldpc5g_decoder_impl>(
        kernels::ldpc5g_params::make(K, E, rv, Qm, n_ref, who),
        config_for(max_iterations,
                   algorithm,
                   scaling,
                   offset,
                   arithmetic,
                   llr_sign,
                   early_termination,
                   char_input,
                   who),
        batch,
        char_input,
        runtime::resolve_backend(backend, device, who));
}

ldpc5g_decoder_impl::ldpc5g_decoder_impl(const kernels::ldpc5g_params& p,
                                         const kernels::ldpc5g_decoder_config& c,
                                         int batch,
                                         bool char_input,
                                         const runtime::backend_choice& where)
    : d_plan(p, c, where, "ldpc5g_decoder"),
      d_batch(batch),
      d_char_input(char_input),
      d_iterations(batch),
      d_ok(batch)
{
    if (d_logger) // (gr-fec's generic_decoder has a logger)
        log_tuning(d_logger, d_plan.tuning());
}

void ldpc5g_decoder_impl::generic_work(void* in, void* out)
{
    d_plan.decode(in,
                  d_char_input ? kernels::ldpc5g_llr_format::i8
                               : kernels::ldpc5g_llr_format::f32,
                  d_batch,
                  static_cast<uint8_t*>(out),
                  false,
                  d_iterations.data(),
                  d_ok.data());
}

bool ldpc5g_decoder_impl::set_frame_size(unsigned int frame_size)
{
    return int(frame_size) == d_batch * d_plan.params().K;
}

float ldpc5g_decoder_impl::get_iterations()
{
    float sum = 0;
    for (auto i : d_iterations)
        sum += float(i);
    return sum / float(d_batch);
}

std::vector<int> ldpc5g_decoder_impl::last_iterations() const
{
    return std::vector<int>(d_iterations.begin(), d_iterations.end());
}

std::vector<bool> ldpc5g_decoder_impl::last_ok() const
{
    return std::vector<bool>(d_ok.begin(), d_ok.end());
}

// --- stream encoder ----------------------------------------------------------

ldpc5g_encode::sptr ldpc5g_encode::make(int K, int E, int rv, int Qm, int n_ref)
{
    return gnuradio::make_block_sptr<ldpc5g_encode_impl>(
        kernels::ldpc5g_params::make(K, E, rv, Qm, n_ref, "ldpc5g_encode"));
}

ldpc5g_encode_impl::ldpc5g_encode_impl(const kernels::ldpc5g_params& p)
    : gr::block("ldpc5g_encode",
                gr::io_signature::make(1, 1, 1),
                gr::io_signature::make(1, 1, 1)),
      d_code(p)
{
    set_output_multiple(p.E);
    set_relative_rate(uint64_t(p.E), uint64_t(p.K));
}

void ldpc5g_encode_impl::forecast(int noutput_items, gr_vector_int& need)
{
    need[0] = noutput_items / d_code.params().E * d_code.params().K;
}

int ldpc5g_encode_impl::general_work(int noutput_items,
                                     gr_vector_int& ninput_items,
                                     gr_vector_const_void_star& input_items,
                                     gr_vector_void_star& output_items)
{
    const auto& p = d_code.params();
    const int n = std::min(noutput_items / p.E, ninput_items[0] / p.K);
    auto in = static_cast<const uint8_t*>(input_items[0]);
    auto out = static_cast<uint8_t*>(output_items[0]);
    for (int b = 0; b < n; ++b)
        d_code.encode(in + std::size_t(b) * p.K, out + std::size_t(b) * p.E);
    consume(0, n * p.K);
    produce(0, n * p.E);
    return WORK_CALLED_PRODUCE;
}

// --- stream decoder ----------------------------------------------------------

ldpc5g_decode::sptr ldpc5g_decode::make(int K,
                                        int E,
                                        int rv,
                                        int Qm,
                                        int max_iterations,
                                        const std::string& algorithm,
                                        float scaling,
                                        float offset,
                                        const std::string& arithmetic,
                                        const std::string& llr_format,
                                        const std::string& llr_sign,
                                        const std::string& output,
                                        int batch,
                                        const std::string& backend,
                                        int device,
                                        int n_ref,
                                        bool early_termination)
{
    const std::string who = "ldpc5g_decode";
    const bool char_input = char_llrs(llr_format, who);
    if (output != "unpacked" && output != "packed")
        throw std::invalid_argument(who + ": output must be \"unpacked\" or \"packed\"");
    if (batch < 1)
        throw std::invalid_argument(who + ": batch must be >= 1");
    return gnuradio::make_block_sptr<ldpc5g_decode_impl>(
        kernels::ldpc5g_params::make(K, E, rv, Qm, n_ref, who),
        config_for(max_iterations,
                   algorithm,
                   scaling,
                   offset,
                   arithmetic,
                   llr_sign,
                   early_termination,
                   char_input,
                   who),
        char_input,
        output == "packed",
        batch,
        runtime::resolve_backend(backend, device, who));
}

ldpc5g_decode_impl::ldpc5g_decode_impl(const kernels::ldpc5g_params& p,
                                       const kernels::ldpc5g_decoder_config& c,
                                       bool char_input,
                                       bool packed,
                                       int batch,
                                       const runtime::backend_choice& where)
    : gr::block("ldpc5g_decode",
                gr::io_signature::make(1, 1, char_input ? 1 : sizeof(float)),
                gr::io_signature::make(1, 1, 1)),
      d_plan(p, c, where, identifier()),
      d_where(where),
      d_char_input(char_input),
      d_packed(packed)
{
    set_output_multiple(out_per_codeword());
    set_relative_rate(uint64_t(out_per_codeword()), uint64_t(p.E));
    // Room for a whole batch per call: one launch for all of it.
    set_min_output_buffer(0, 2 * batch * out_per_codeword());
    set_tag_propagation_policy(TPP_DONT);
    d_logger->info("running on {}", where.describe());
    log_tuning(d_logger, d_plan.tuning());
}

int ldpc5g_decode_impl::out_per_codeword() const
{
    const int K = d_plan.params().K;
    return d_packed ? (K + 7) / 8 : K;
}

void ldpc5g_decode_impl::forecast(int noutput_items, gr_vector_int& need)
{
    need[0] = noutput_items / out_per_codeword() * d_plan.params().E;
}

int ldpc5g_decode_impl::general_work(int noutput_items,
                                     gr_vector_int& ninput_items,
                                     gr_vector_const_void_star& input_items,
                                     gr_vector_void_star& output_items)
{
    const auto& p = d_plan.params();
    const int per = out_per_codeword();
    const int n = std::min(noutput_items / per, ninput_items[0] / p.E);
    if (n <= 0)
        return 0;
    d_ok.resize(n);
    d_iterations.resize(n);
    // int8 LLRs travel as such (fixed_scale 1: they are the fixed-point steps).
    d_plan.decode(input_items[0],
                  d_char_input ? kernels::ldpc5g_llr_format::i8
                               : kernels::ldpc5g_llr_format::f32,
                  n,
                  static_cast<uint8_t*>(output_items[0]),
                  d_packed,
                  d_iterations.data(),
                  d_ok.data());
    const uint64_t w0 = nitems_written(0);
    for (int b = 0; b < n; ++b) {
        add_item_tag(0,
                     w0 + uint64_t(b) * per,
                     iterations_key,
                     pmt::from_long(d_iterations[b]),
                     alias_pmt());
        add_item_tag(
            0, w0 + uint64_t(b) * per, ok_key, pmt::from_bool(d_ok[b] != 0), alias_pmt());
    }
    consume(0, n * p.E);
    produce(0, n * per);
    return WORK_CALLED_PRODUCE;
}

} // namespace gpudsp
} // namespace gr
