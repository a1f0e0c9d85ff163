/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "ddc_impl.h"
#include "tag_values.h"
#include <gnuradio/io_signature.h>
#include <algorithm>
#include <climits>
#include <stdexcept>

namespace gr {
namespace gpudsp {

using kernels::ddc_input;

namespace {

const pmt::pmt_t missing_key = pmt::intern("gpudsp.missing");
const pmt::pmt_t center_freq_key = pmt::intern("gpudsp.center_freq");
const pmt::pmt_t rx_freq_key = pmt::intern("rx_freq");
const pmt::pmt_t rx_rate_key = pmt::intern("rx_rate");
const pmt::pmt_t freq_port = pmt::intern("freq");

int item_size(ddc_input f)
{
    switch (f) {
    case ddc_input::complex64:
        return 8;
    case ddc_input::float32:
        return 4;
    case ddc_input::int16:
        return 2;
    case ddc_input::packed10:
        return 1;
    }
    return 0;
}

} // namespace

constexpr int max_outputs = 1024;

ddc::sptr ddc::make(int decimation,
                    const std::vector<gr_complex>& taps,
                    double center_freq,
                    double samp_rate,
                    const std::string& input_format,
                    int n_outputs,
                    const std::string& backend,
                    int device,
                    const std::vector<double>& center_freqs,
                    const std::vector<int>& decimations,
                    const std::vector<std::vector<gr_complex>>& output_taps)
{
    const std::string who = "ddc";
    // Each output is a stream port with its own plan and buffers: 1024 is
    // far beyond any channeliser a DDC bank is used as, and keeps a typo
    // from allocating gigabytes.
    if (n_outputs < 1 || n_outputs > max_outputs)
        throw std::invalid_argument(who + ": n_outputs must lie in 1.." +
                                    std::to_string(max_outputs) + ", got " +
                                    std::to_string(n_outputs));
    auto per_output = [&](std::size_t n, const char* what) {
        if (n != 0 && n != std::size_t(n_outputs))
            throw std::invalid_argument(who + ": " + what +
                                        " must be empty or hold one entry "
                                        "per output");
    };
    per_output(center_freqs.size(), "center_freqs");
    per_output(decimations.size(), "decimations");
    per_output(output_taps.size(), "output_taps");
    std::vector<kernels::ddc_config> configs(n_outputs);
    for (int j = 0; j < n_outputs; ++j) {
        auto& c = configs[j];
        c.input = kernels::parse_ddc_input(input_format, who);
        c.samp_rate = samp_rate;
        c.center_freq = center_freqs.empty() ? center_freq : center_freqs[j];
        c.decimation = decimations.empty() ? decimation : decimations[j];
        const auto& t = output_taps.empty() ? taps : output_taps[j];
        c.taps.assign(t.begin(), t.end());
    }
    const auto choice = runtime::resolve_backend(backend, device, who);
    return gnuradio::make_block_sptr<ddc_impl>(configs, choice);
}

ddc_impl::ddc_impl(const std::vector<kernels::ddc_config>& outputs,
                   const runtime::backend_choice& choice)
    : gr::block("ddc",
                gr::io_signature::make(1,
                                       1,
                                       item_size(outputs[0].input),
                                       runtime::device_buffer::type_for(choice.kind)),
                gr::io_signature::make(int(outputs.size()),
                                       int(outputs.size()),
                                       sizeof(gr_complex),
                                       runtime::device_buffer::type_for(choice.kind))),
      block_backend(choice),
      d_input(outputs[0].input),
      d_out(outputs.size())
{
    int max_taps = 1, max_dec = 1;
    d_min_decimation = outputs[0].decimation;
    for (std::size_t j = 0; j < outputs.size(); ++j) {
        d_out[j].plan = std::make_unique<kernels::ddc_plan>(
            outputs[j], choice, identifier() + " output " + std::to_string(j));
        d_out[j].requested_freq = outputs[j].center_freq;
        max_taps = std::max(max_taps, outputs[j].n_taps());
        max_dec = std::max(max_dec, outputs[j].decimation);
        d_min_decimation = std::min(d_min_decimation, outputs[j].decimation);
    }
    // Windows reach T - 1 samples back; packed 10-bit history is whole groups.
    d_history =
        d_input == ddc_input::packed10 ? (max_taps - 1 + 3) / 4 * 4 : max_taps - 1;
    set_history(unsigned(items_of(d_history)) + 1);
    set_relative_rate(1, uint64_t(max_dec)); // buffers sized for the slowest output
    set_tag_propagation_policy(TPP_DONT);
    message_port_register_in(freq_port);
    set_msg_handler(freq_port,
                    [this](const pmt::pmt_t& msg) { handle_freq_message(msg); });
    open_backend(*this, d_logger);
    for (const auto& o : d_out)
        log_tuning(d_logger, o.plan->tuning());
}

std::string ddc_impl::configuration(int output) const
{
    if (output < 0 || output >= int(d_out.size()))
        throw std::invalid_argument(identifier() + ": no output " +
                                    std::to_string(output));
    return d_out[std::size_t(output)].plan->tuning().describe();
}

bool ddc_impl::start()
{
    check_backend_topology(*this);
    // Every run counts items from 0 (GNU Radio gives the block a new
    // detail), so a flowgraph run again, or the block moved to another,
    // starts over: output 0 next, each output's mixer at its current
    // frequency with phase 0 at sample 0. Retunes asked for since the last
    // run stopped count samples of the new run.
    gr::thread::scoped_lock guard(d_setlock);
    for (auto& o : d_out) {
        o.next = 0;
        o.missing = missing_tracker();
        o.plan->restart();
    }
    d_tags_mapped = 0;
    d_rx_freq = 0;
    d_have_rx_freq = false;
    return block::start();
}

bool ddc_impl::stop()
{
    // Retunes the run did not reach were numbered in its samples: they
    // become the current frequencies (in the order asked) for the next run,
    // whose sample 0 is "now" for retunes asked from here on.
    gr::thread::scoped_lock guard(d_setlock);
    for (auto& o : d_out) {
        for (const auto& r : o.retunes)
            o.plan->retune(r.second, 0);
        o.retunes.clear();
        o.next = 0;
    }
    return block::stop();
}

int64_t ddc_impl::samples_of(uint64_t items) const
{
    return d_input == ddc_input::packed10 ? int64_t(items / 5 * 4) : int64_t(items);
}

uint64_t ddc_impl::items_of(int64_t samples) const
{
    return d_input == ddc_input::packed10 ? uint64_t(samples) / 4 * 5 : uint64_t(samples);
}

void ddc_impl::forecast(int, gr_vector_int& ninput_items_required)
{
    // The history in front, plus the samples up to the next output of the
    // output that is furthest along in its input (in whole packed groups):
    // with less, no output can be produced.
    const int64_t s0 = samples_of(nitems_read(0));
    int64_t need = INT64_MAX;
    for (const auto& o : d_out)
        need = std::min<int64_t>(need,
                                 int64_t(o.next) * o.plan->config().decimation + 1 - s0);
    need = std::max<int64_t>(need, 1);
    if (d_input == ddc_input::packed10)
        need = (need + 3) / 4 * 4;
    ninput_items_required[0] = int(history() - 1 + items_of(need));
}

void ddc_impl::set_center_freq(double freq, int output, int64_t at_sample)
{
    if (output < 0 || output >= int(d_out.size()))
        throw std::invalid_argument("ddc: no output " + std::to_string(output));
    const auto& c = d_out[output].plan->config();
    if (!std::isfinite(freq) || (!c.complex_input() && std::fabs(freq) > c.samp_rate / 2))
        throw std::invalid_argument("ddc: center_freq " + std::to_string(freq) +
                                    " Hz is out of range");
    gr::thread::scoped_lock guard(d_setlock);
    auto& o = d_out[output];
    const uint64_t now = o.next * uint64_t(c.decimation);
    const uint64_t n0 =
        at_sample < 0 ? now : std::max<uint64_t>(uint64_t(at_sample), now);
    if (at_sample >= 0 && uint64_t(at_sample) < now)
        d_logger->warn(
            "output {}: retune for sample {} arrived after sample {} was produced; "
            "it applies from there",
            output,
            at_sample,
            now);
    o.retunes.emplace(n0, freq);
    o.requested_freq = freq;
}

double ddc_impl::center_freq(int output) const
{
    if (output < 0 || output >= int(d_out.size()))
        throw std::invalid_argument("ddc: no output " + std::to_string(output));
    return d_out[output].requested_freq;
}

// A number (all outputs), or a dict with "freq" and optionally "output" and
// "at_sample"; GNU Radio's {"freq": f} command dicts work as they are.
void ddc_impl::handle_freq_message(const pmt::pmt_t& msg)
{
    try {
        if (pmt::is_number(msg)) {
            for (int j = 0; j < int(d_out.size()); ++j)
                set_center_freq(pmt::to_double(msg), j, -1);
            return;
        }
        if (!pmt::is_dict(msg))
            throw std::invalid_argument("a \"freq\" message is a number or a dict");
        const pmt::pmt_t f = pmt::dict_ref(msg, pmt::intern("freq"), pmt::PMT_NIL);
        if (pmt::is_null(f))
            throw std::invalid_argument("the dict has no \"freq\"");
        const pmt::pmt_t o = pmt::dict_ref(msg, pmt::intern("output"), pmt::PMT_NIL);
        const pmt::pmt_t at = pmt::dict_ref(msg, pmt::intern("at_sample"), pmt::PMT_NIL);
        const int64_t at_sample = pmt::is_null(at) ? -1 : pmt::to_long(at);
        if (pmt::is_null(o))
            for (int j = 0; j < int(d_out.size()); ++j)
                set_center_freq(pmt::to_double(f), j, at_sample);
        else
            set_center_freq(pmt::to_double(f), int(pmt::to_long(o)), at_sample);
    } catch (const std::exception& e) {
        d_logger->error("ignored a \"freq\" message: {}", e.what());
    }
}

void ddc_impl::map_tags(uint64_t first_item, uint64_t end_item)
{
    std::vector<gr::tag_t> tags;
    get_tags_in_range(tags, 0, first_item, end_item);
    for (const auto& tag : tags) {
        const int64_t n = d_input == ddc_input::packed10 ? int64_t(tag.offset * 4 / 5)
                                                         : int64_t(tag.offset);
        // A malformed rx_freq / rx_rate is logged and passed on unchanged.
        double number = 0;
        const bool is_number =
            (pmt::eqv(tag.key, rx_freq_key) || pmt::eqv(tag.key, rx_rate_key)) &&
            tag_number(tag.value, number, d_logger);
        if (is_number && pmt::eqv(tag.key, rx_freq_key)) {
            d_rx_freq = number;
            d_have_rx_freq = true;
        }
        for (std::size_t j = 0; j < d_out.size(); ++j) {
            const auto& c = d_out[j].plan->config();
            const int64_t D = c.decimation, T = c.n_taps();
            const uint64_t m =
                uint64_t((n + D - 1) / D); // first output whose window holds n
            if (pmt::eqv(tag.key, missing_key)) {
                const int64_t count = int64_t(missing_items(tag.value, d_logger));
                const int64_t end = d_input == ddc_input::packed10
                                        ? (int64_t(tag.offset + count) * 8 + 9) / 10
                                        : n + count;
                d_out[j].missing.add(m, uint64_t((end - 1 + T - 1) / D));
                continue;
            }
            gr::tag_t out = tag;
            out.offset = m;
            if (is_number && pmt::eqv(tag.key, rx_rate_key))
                out.value = pmt::from_double(number / D);
            else if (is_number && pmt::eqv(tag.key, rx_freq_key))
                out.value = pmt::from_double(d_rx_freq + c.center_freq);
            add_item_tag(int(j), out);
        }
    }
}

int ddc_impl::general_work(int noutput_items,
                           gr_vector_int& ninput_items,
                           gr_vector_const_void_star& input_items,
                           gr_vector_void_star& output_items)
{
    gr::thread::scoped_lock guard(d_setlock);
    const uint64_t r0 = nitems_read(0);
    // A general block's count includes the history items in front.
    const int unread = std::max(0, ninput_items[0] - int(history() - 1));
    const int64_t s0 = samples_of(r0);             // first unread sample
    const int64_t s_end = s0 + samples_of(unread); // first sample not here
    const int64_t base = s0 - d_history;           // sample at input_items[0]
    if (d_io)
        d_io->begin(*this);
    // Unconsumed items come back next call: map each tag once.
    map_tags(std::max(r0, d_tags_mapped), r0 + unread);
    d_tags_mapped = std::max(d_tags_mapped, r0 + unread);
    std::vector<int> produced_of(d_out.size(), 0);
    std::vector<bool> done(d_out.size(), false);
    // Output j's missing-data tags for what it produced.
    auto finish = [&](std::size_t j, int produced) {
        const uint64_t w0 = nitems_written(int(j));
        for (const auto& run : d_out[j].missing.take(w0, w0 + produced))
            add_item_tag(int(j),
                         run.first,
                         missing_key,
                         pmt::from_uint64(run.second),
                         alias_pmt());
        produced_of[j] = produced;
        done[j] = true;
    };
    // Outputs m of output j with m D < s_end, at most noutput_items.
    auto available = [&](std::size_t j) {
        const int64_t D = d_out[j].plan->config().decimation;
        return std::max<int64_t>(
            0, std::min<int64_t>(noutput_items, (s_end - 1) / D - int64_t(d_out[j].next) + 1));
    };
    // Every output with no retune due among this call's outputs: one read
    // of the input for all (ddc_plan::execute_together).
    std::vector<kernels::ddc_plan::work> together;
    std::vector<std::size_t> members;
    for (std::size_t j = 0; j < d_out.size(); ++j) {
        auto& o = d_out[j];
        const auto& c = o.plan->config();
        const int64_t n = available(j);
        const bool steady =
            o.retunes.empty() || (o.retunes.begin()->first + c.decimation - 1) /
                                         c.decimation >= o.next + uint64_t(n);
        if (!steady)
            continue;
        together.push_back({ o.plan.get(),
                             int64_t(o.next) * c.decimation - c.n_taps() + 1 - base,
                             o.next,
                             std::size_t(n),
                             output_items[j] });
        members.push_back(j);
    }
    kernels::ddc_plan::execute_together(
        together, input_items[0], d_io ? d_io->stream() : nullptr);
    for (std::size_t i = 0; i < members.size(); ++i) {
        d_out[members[i]].next += together[i].n_outputs;
        finish(members[i], int(together[i].n_outputs));
    }
    // The others, up to and across their retunes.
    for (std::size_t j = 0; j < d_out.size(); ++j) {
        if (done[j])
            continue;
        auto& o = d_out[j];
        const int64_t D = o.plan->config().decimation, T = o.plan->config().n_taps();
        int64_t remaining = available(j);
        int produced = 0;
        while (remaining > 0) {
            uint64_t until = o.next + uint64_t(remaining);
            if (!o.retunes.empty()) {
                const uint64_t n0 = o.retunes.begin()->first;
                const uint64_t m_retune = (n0 + D - 1) / D;
                if (m_retune <= o.next) {
                    const double f = o.retunes.begin()->second;
                    o.plan->retune(f, n0);
                    o.retunes.erase(o.retunes.begin());
                    add_item_tag(int(j),
                                 m_retune,
                                 center_freq_key,
                                 pmt::from_double(f),
                                 alias_pmt());
                    if (d_have_rx_freq)
                        add_item_tag(int(j),
                                     m_retune,
                                     rx_freq_key,
                                     pmt::from_double(d_rx_freq + f),
                                     alias_pmt());
                    continue;
                }
                until = std::min(until, m_retune);
            }
            const std::size_t n = until - o.next;
            const int64_t first = int64_t(o.next) * D - T + 1 - base;
            o.plan->execute(input_items[0],
                            first,
                            o.next,
                            n,
                            static_cast<gr_complex*>(output_items[j]) + produced,
                            d_io ? d_io->stream() : nullptr);
            o.next += n;
            produced += int(n);
            remaining -= int64_t(n);
        }
        finish(j, produced);
    }
    // "Written" is recorded before produce(): GNU Radio runs a buffer's
    // post_work() (the copy to a host reader) inside produce(), and that copy
    // must wait for this call's kernels.
    if (d_io)
        d_io->end(*this);
    for (std::size_t j = 0; j < d_out.size(); ++j)
        produce(int(j), produced_of[j]);
    // Keep every sample a future output still needs as its newest one.
    int64_t keep = s_end;
    for (const auto& o : d_out)
        keep = std::min<int64_t>(keep, int64_t(o.next) * o.plan->config().decimation);
    const uint64_t consume_items = items_of(keep) > r0 ? items_of(keep) - r0 : 0;
    consume(0, int(std::min<uint64_t>(consume_items, unread)));
    return WORK_CALLED_PRODUCE;
}

} // namespace gpudsp
} // namespace gr
