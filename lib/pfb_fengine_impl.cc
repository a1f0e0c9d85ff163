/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "pfb_fengine_impl.h"
#include "tag_values.h"
#include <gnuradio/block_detail.h>
#include <gnuradio/buffer.h>
#include <gnuradio/io_signature.h>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <stdexcept>

namespace gr {
namespace gpudsp {

using kernels::fengine_input;

namespace {

const pmt::pmt_t missing_key = pmt::intern("gpudsp.missing");
const pmt::pmt_t saturated_key = pmt::intern("gpudsp.saturated");
const pmt::pmt_t rx_rate_key = pmt::intern("rx_rate");
const pmt::pmt_t delays_port = pmt::intern("delays");

int input_item_size(fengine_input f)
{
    switch (f) {
    case fengine_input::packed10:
        return 1;
    case fengine_input::int16:
        return 2;
    case fengine_input::float32:
        return 4;
    case fengine_input::complex64:
        return 8;
    }
    return 0;
}

// Samples <-> input items (bytes of packed 10-bit data hold 4/5 sample each).
int64_t items_to_samples(fengine_input f, int64_t items)
{
    return f == fengine_input::packed10 ? items * 4 / 5 : items;
}
int64_t samples_to_items(fengine_input f, int64_t samples)
{
    return f == fengine_input::packed10 ? samples * 5 / 4 : samples;
}

std::vector<double> to_doubles(const pmt::pmt_t& v, const char* what)
{
    std::vector<double> out;
    if (pmt::is_f64vector(v))
        return pmt::f64vector_elements(v);
    if (pmt::is_f32vector(v)) {
        for (float x : pmt::f32vector_elements(v))
            out.push_back(x);
        return out;
    }
    if (pmt::is_s32vector(v)) {
        for (int32_t x : pmt::s32vector_elements(v))
            out.push_back(x);
        return out;
    }
    if (pmt::is_s64vector(v)) {
        for (int64_t x : pmt::s64vector_elements(v))
            out.push_back(double(x));
        return out;
    }
    if (pmt::is_vector(v)) {
        for (std::size_t i = 0; i < pmt::length(v); ++i)
            out.push_back(pmt::to_double(pmt::vector_ref(v, i)));
        return out;
    }
    if (pmt::is_pair(v)) { // a PMT list
        for (std::size_t i = 0; i < pmt::length(v); ++i)
            out.push_back(pmt::to_double(pmt::nth(i, v)));
        return out;
    }
    throw std::invalid_argument(std::string("pfb_fengine: \"") + what +
                                "\" must be a vector of numbers");
}

} // namespace

pfb_fengine::sptr pfb_fengine::make(int n_inputs,
                                    int n_channels,
                                    int n_taps,
                                    const std::string& input_format,
                                    const std::string& output_format,
                                    double w_cutoff,
                                    const std::vector<double>& weights,
                                    bool dither,
                                    const std::string& backend,
                                    int device,
                                    int max_coarse_delay,
                                    const std::string& delay_convention,
                                    const std::string& channel_order)
{
    const std::string who = "pfb_fengine";
    kernels::fengine_config c;
    c.n_inputs = n_inputs;
    c.n_channels = n_channels;
    c.n_taps = n_taps;
    c.input = kernels::parse_fengine_input(input_format, who);
    c.output = kernels::parse_fengine_output(output_format, who);
    c.w_cutoff = w_cutoff;
    c.weights = weights;
    c.dither = dither;
    if (c.input == fengine_input::packed10 && n_channels % 2 != 0)
        throw std::invalid_argument(who +
                                    ": packed10 input needs an even n_channels (a "
                                    "spectrum must span whole 5-byte groups), got " +
                                    std::to_string(n_channels));
    if (max_coarse_delay < 0 || max_coarse_delay > (1 << 26))
        throw std::invalid_argument(who + ": max_coarse_delay must lie in 0..2^26, got " +
                                    std::to_string(max_coarse_delay));
    fengine_delay_convention convention;
    if (delay_convention == "gpudsp")
        convention = fengine_delay_convention::gpudsp;
    else if (delay_convention == "katgpucbf")
        convention = fengine_delay_convention::katgpucbf;
    else
        throw std::invalid_argument(
            who +
            ": delay_convention must be \"gpudsp\" or \"katgpucbf\", "
            "got \"" +
            delay_convention + "\"");
    if (channel_order != "natural" && channel_order != "centred")
        throw std::invalid_argument(
            who + ": channel_order must be \"natural\" or \"centred\", got \"" +
            channel_order + "\"");
    c.centred_channels = channel_order == "centred";
    // Validated before the block exists: its ports' item sizes come from it.
    kernels::fengine_plan::validate(c, who);
    const auto choice = runtime::resolve_backend(backend, device, who);
    return gnuradio::make_block_sptr<pfb_fengine_impl>(
        c, max_coarse_delay, convention, choice);
}

namespace {

// The spectra a call waits for: $GPUDSP_FENGINE_CALL_SPECTRA (1 .. 65536:
// lower latency, or tests), else the plan's preferred_spectra().
int min_call_spectra(const kernels::fengine_plan& plan, const std::string& who)
{
    const char* e = std::getenv("GPUDSP_FENGINE_CALL_SPECTRA");
    if (!e || !*e)
        return int(plan.preferred_spectra());
    char* end = nullptr;
    const long v = std::strtol(e, &end, 10);
    // GNU Radio sizes buffers in int items: two calls of input and the
    // history must stay well within 2^31.
    const double bytes = double(v) * double(plan.input_bytes(plan.config().step()));
    if (*end || v < 1 || v > 65536 || bytes > double(1 << 28))
        throw std::invalid_argument(
            who +
            ": GPUDSP_FENGINE_CALL_SPECTRA must be a whole number in 1..65536 whose "
            "spectra's input stays under 2^28 bytes an input, got \"" +
            e + "\"");
    return int(v);
}

} // namespace

pfb_fengine_impl::pfb_fengine_impl(const kernels::fengine_config& config,
                                   int max_coarse_delay,
                                   fengine_delay_convention convention,
                                   const runtime::backend_choice& choice)
    : gr::sync_decimator(
          "pfb_fengine",
          gr::io_signature::make(config.n_inputs,
                                 config.n_inputs,
                                 input_item_size(config.input),
                                 runtime::device_buffer::type_for(choice.kind)),
          gr::io_signature::make(1,
                                 1,
                                 config.output_item_size(),
                                 runtime::device_buffer::type_for(choice.kind)),
          unsigned(samples_to_items(config.input, config.step()))),
      block_backend(choice),
      d_config(config),
      d_convention(convention),
      d_plan(config, choice, identifier()),
      d_max_delay((max_coarse_delay + 3) / 4 * 4),
      d_step(config.step()),
      d_step_items(samples_to_items(config.input, config.step())),
      d_schedule(
          fengine_state{ std::vector<std::complex<float>>(
                             std::size_t(config.n_channels) * config.n_inputs, 1.0f),
                         std::vector<double>(config.n_inputs, 0.0),
                         std::vector<double>(config.n_inputs, 0.0),
                         std::vector<int>(config.n_inputs, 0) }),
      d_applied(d_schedule.latest())
{
    // The window reaches T-1 spectra back, and a coarse delay D further.
    const int64_t history_samples = int64_t(config.window()) - d_step + d_max_delay;
    set_history(unsigned(samples_to_items(config.input, history_samples)) + 1);
    // Large calls on a device (docs/fengine.md, "The block in a stream"):
    // GNU Radio sizes each upstream buffer for two of 1 / relative rate
    // items plus the history, so a relative rate of two calls' worth lets a
    // call of d_min_call spectra fit a quarter of it (start()); forecast()
    // then waits for that many.
    d_min_call = min_call_spectra(d_plan, identifier());
    if (d_min_call > 1) {
        set_relative_rate(1, 2 * uint64_t(d_step_items) * uint64_t(d_min_call));
        // GNU Radio sizes a call from its fullest input and halves it until
        // every input has enough: without a cap a call lands anywhere
        // between half the wait and the wait (on the H200 of 2026-11-27, 26
        // calls where 21 were due). With it, a call is the wait exactly.
        // The scheduler reads it before start() (so start()'s clamp cannot
        // lower it); a setting of the user's on this block wins.
        if (!is_set_max_noutput_items())
            set_max_noutput_items(d_min_call);
    }
    set_tag_propagation_policy(TPP_DONT);
    message_port_register_in(delays_port);
    set_msg_handler(delays_port,
                    [this](const pmt::pmt_t& msg) { handle_delays_message(msg); });
    open_backend(*this, d_logger);
    log_tuning(d_logger, d_plan.tuning());
    const std::string form = d_plan.kernel_form();
    if (!form.empty())
        d_logger->info("{}", form);
}

std::vector<double> pfb_fengine_impl::weights() const
{
    return { d_plan.weights().begin(), d_plan.weights().end() };
}

std::string pfb_fengine_impl::delay_convention() const
{
    return d_convention == fengine_delay_convention::katgpucbf ? "katgpucbf" : "gpudsp";
}

bool pfb_fengine_impl::start()
{
    check_backend_topology(*this);
    // Every run counts items from 0 (GNU Radio gives the block a new
    // detail): the delay model's segment and the missing runs of a previous
    // run are dropped; settings applied or scheduled stay.
    d_segment_end = 0;
    d_missing = missing_tracker();
    // Saturation counts of a whole call, sized once: a call never produces
    // more spectra than the output buffer holds, so work() allocates nothing.
    if (d_io && d_config.output == kernels::fengine_output::ci8) {
        const std::size_t n = std::size_t(detail()->output(0)->bufsize()) * d_config.n_inputs;
        if (d_saturation_capacity < n) {
            d_saturation_capacity = n;
            d_device_saturation = std::make_unique<runtime::device_memory>(
                d_io->context(), n * sizeof(uint32_t), identifier());
            d_host_saturation = std::make_unique<runtime::pinned_memory>(
                d_io->context(), n * sizeof(uint32_t), identifier());
        }
    }
    d_saturation.reserve(d_saturation_capacity);
    // The wait stays within a quarter of every input buffer beyond its
    // history (GNU Radio sizes it for the history and two of 1 / relative
    // rate items, that is four calls; a user's
    // max_output_buffer upstream may make one smaller than GNU Radio's
    // sizing; a single-mapped device buffer shows a reader only the part up
    // to its end once the writer has wrapped) and half the output buffer
    // (the most GNU Radio gives a call): else wait for less.
    d_min_call = min_call_spectra(d_plan, identifier());
    for (int i = 0; i < d_config.n_inputs && d_min_call > 1; ++i) {
        const int64_t room =
            (int64_t(detail()->input(i)->max_possible_items_available()) + 1 -
             int64_t(history())) /
            4;
        d_min_call = int(std::clamp<int64_t>(room / d_step_items, 1, d_min_call));
    }
    d_min_call =
        std::clamp(int(detail()->output(0)->bufsize() / 2), 1, std::max(d_min_call, 1));
    return sync_decimator::start();
}

void pfb_fengine_impl::forecast(int noutput_items, gr_vector_int& ninput_items_required)
{
    // Wait until every input holds d_min_call spectra's worth, so that
    // calls stay large (GNU Radio otherwise calls with whatever the slowest
    // input has, tens of spectra, each call costing the host its scheduling
    // and one synchronisation). One short input is enough to wait: a call
    // is as long as its shortest input, and inputs fed by separate writers
    // run ahead of each other. An input whose writer is done caps the call
    // at what it still holds (waiting for more there would wait for ever,
    // and asking more than it holds would end the stream early); at the end
    // of every input, take what there is.
    // Only while an input is truly short: where its writer has written
    // enough but wrapped around a single-mapped buffer, what the reader sees
    // is short for that reason alone, and asking for more than it sees
    // would wait for a move GNU Radio may never make.
    int n = noutput_items;
    const int64_t history_items = int64_t(history()) - 1;
    if (d_min_call > n) {
        // An input's fresh items: written, not yet consumed (the history
        // before them is already in the buffer); a call of k spectra needs
        // k steps of them.
        // The writers' counts and done flags under their buffers' locks
        // (other threads change them), each read once.
        const int ni = d_config.n_inputs;
        d_fresh.resize(std::size_t(ni));
        d_done.resize(std::size_t(ni));
        int64_t cap = d_min_call; // spectra
        for (int i = 0; i < ni; ++i) {
            const auto& reader = detail()->input(i);
            {
                gr::thread::scoped_lock lock(*reader->mutex());
                d_fresh[std::size_t(i)] =
                    int64_t(reader->buffer()->nitems_written()) - int64_t(nitems_read(i));
                d_done[std::size_t(i)] = reader->done();
            }
            if (d_done[std::size_t(i)])
                cap = std::min(cap, d_fresh[std::size_t(i)] / d_step_items);
        }
        if (cap > n) {
            bool any_short = false;
            for (int i = 0; i < ni; ++i)
                any_short = any_short || (!d_done[std::size_t(i)] &&
                                          d_fresh[std::size_t(i)] < cap * d_step_items);
            if (any_short)
                n = int(cap);
        }
    }
    const int64_t need = int64_t(n) * d_step_items + history_items;
    for (auto& r : ninput_items_required)
        r = int(std::min<int64_t>(need, std::numeric_limits<int>::max()));
}

// ---------------------------------------------------------------------------
// Corrections

void pfb_fengine_impl::schedule(int64_t at_sample, fengine_schedule::change change)
{
    gr::thread::scoped_lock guard(d_setlock);
    // The first spectrum whose first sample, (m - T + 1) step, is >= at_sample.
    uint64_t m = 0;
    if (at_sample >= 0)
        m = uint64_t((at_sample + d_step - 1) / d_step) + d_config.n_taps - 1;
    if (at_sample >= 0 && m < nitems_written(0))
        d_logger->warn(
            "a correction for sample {} arrived after spectrum {} was produced; "
            "it applies from the next spectrum",
            at_sample,
            m);
    d_schedule.add(m, change);
}

void pfb_fengine_impl::set_gains(const std::vector<std::complex<float>>& gains,
                                 int64_t at_sample)
{
    const std::size_t want = std::size_t(d_config.n_channels) * d_config.n_inputs;
    if (gains.size() != want)
        throw std::invalid_argument(
            "pfb_fengine: gains must hold n_channels x n_inputs = " +
            std::to_string(want) + " values, got " + std::to_string(gains.size()));
    for (auto g : gains)
        if (!std::isfinite(g.real()) || !std::isfinite(g.imag()))
            throw std::invalid_argument("pfb_fengine: gains must be finite");
    schedule(at_sample, [gains](fengine_state& s) { s.gains = gains; });
}

void pfb_fengine_impl::set_fine_delays(const std::vector<double>& delays,
                                       int64_t at_sample)
{
    if (delays.size() != std::size_t(d_config.n_inputs))
        throw std::invalid_argument(
            "pfb_fengine: fine delays must hold one value per input");
    for (double t : delays)
        if (!(std::fabs(t) <= 0.5))
            throw std::invalid_argument(
                "pfb_fengine: fine delays must lie in [-0.5, 0.5] samples (the rest is a "
                "coarse delay)");
    schedule(at_sample, [delays](fengine_state& s) {
        s.fine_delays = delays;
        s.model = {};
    });
}

void pfb_fengine_impl::set_phases(const std::vector<double>& phases, int64_t at_sample)
{
    if (phases.size() != std::size_t(d_config.n_inputs))
        throw std::invalid_argument("pfb_fengine: phases must hold one value per input");
    for (double p : phases)
        if (!std::isfinite(p))
            throw std::invalid_argument("pfb_fengine: phases must be finite");
    schedule(at_sample, [phases](fengine_state& s) {
        s.phases = phases;
        s.model = {};
    });
}

void pfb_fengine_impl::set_coarse_delays(const std::vector<int>& delays,
                                         int64_t at_sample)
{
    if (delays.size() != std::size_t(d_config.n_inputs))
        throw std::invalid_argument(
            "pfb_fengine: coarse delays must hold one value per input");
    for (int d : delays)
        if (d < 0 || d > d_max_delay)
            throw std::invalid_argument("pfb_fengine: coarse delays must lie in 0.." +
                                        std::to_string(d_max_delay) +
                                        " samples (max_coarse_delay), got " +
                                        std::to_string(d));
    schedule(at_sample, [delays](fengine_state& s) {
        s.coarse_delays = delays;
        s.model = {};
    });
}

void pfb_fengine_impl::set_delay_model(const std::vector<double>& delays,
                                       const std::vector<double>& delay_rates,
                                       const std::vector<double>& phases,
                                       const std::vector<double>& phase_rates,
                                       int64_t at_sample)
{
    const std::size_t I = d_config.n_inputs;
    auto fail = [](const std::string& what) {
        throw std::invalid_argument("pfb_fengine: delay model: " + what);
    };
    if (at_sample < 0)
        fail("at_sample must be >= 0 (the sample where the model holds)");
    fengine_delay_model m;
    m.at_sample = at_sample;
    m.convention = d_convention;
    m.real_input = !d_config.complex_input();
    auto take = [&](const std::vector<double>& v, const char* name, std::vector<double>& out) {
        if (!v.empty() && v.size() != I)
            fail(std::string(name) + " must hold one value per input (" + std::to_string(I) +
                 "), got " + std::to_string(v.size()));
        out = v.empty() ? std::vector<double>(I, 0.0) : v;
        for (double x : out)
            if (!std::isfinite(x))
                fail(std::string(name) + " must be finite");
    };
    if (delays.size() != I)
        fail("delays must hold one value per input (" + std::to_string(I) + "), got " +
             std::to_string(delays.size()));
    take(delays, "delays", m.delay);
    take(delay_rates, "delay_rates", m.delay_rate);
    take(phases, "phases", m.phase);
    take(phase_rates, "phase_rates", m.phase_rate);
    for (std::size_t i = 0; i < I; ++i) {
        if (m.delay[i] < 0 || m.delay[i] > d_max_delay)
            fail("delays must lie in 0.." + std::to_string(d_max_delay) +
                 " samples (max_coarse_delay) at at_sample");
        if (std::fabs(m.delay_rate[i]) > 1e-3)
            fail("delay_rates must lie in [-1e-3, 1e-3] samples per sample");
    }
    // The state the getters report: the model's values at at_sample.
    std::vector<double> fine(I), phase(I);
    std::vector<int> coarse(I);
    for (std::size_t i = 0; i < I; ++i) {
        coarse[i] = int(fengine_coarse(m.delay[i], d_convention));
        fine[i] = m.delay[i] - coarse[i];
        phase[i] = m.phase[i];
    }
    schedule(at_sample, [m, fine, phase, coarse](fengine_state& s) {
        s.model = m;
        s.fine_delays = fine;
        s.phases = phase;
        s.coarse_delays = coarse;
    });
}

std::vector<std::complex<float>> pfb_fengine_impl::gains() const
{
    gr::thread::scoped_lock guard(const_cast<gr::thread::mutex&>(d_setlock));
    return d_schedule.latest().gains;
}
std::vector<double> pfb_fengine_impl::fine_delays() const
{
    gr::thread::scoped_lock guard(const_cast<gr::thread::mutex&>(d_setlock));
    return d_schedule.latest().fine_delays;
}
std::vector<double> pfb_fengine_impl::phases() const
{
    gr::thread::scoped_lock guard(const_cast<gr::thread::mutex&>(d_setlock));
    return d_schedule.latest().phases;
}
std::vector<int> pfb_fengine_impl::coarse_delays() const
{
    gr::thread::scoped_lock guard(const_cast<gr::thread::mutex&>(d_setlock));
    return d_schedule.latest().coarse_delays;
}

// A dict: any of "gains" (complex, [channel][input] flattened), "fine_delays",
// "phases", "coarse_delays" (one per input), and "at_sample" (integer).
void pfb_fengine_impl::handle_delays_message(const pmt::pmt_t& msg)
{
    try {
        if (!pmt::is_dict(msg))
            throw std::invalid_argument("a \"delays\" message must be a dict");
        const pmt::pmt_t none = pmt::PMT_NIL;
        const pmt::pmt_t at = pmt::dict_ref(msg, pmt::intern("at_sample"), none);
        const int64_t at_sample = pmt::is_null(at) ? -1 : pmt::to_long(at);
        const pmt::pmt_t g = pmt::dict_ref(msg, pmt::intern("gains"), none);
        if (!pmt::is_null(g)) {
            std::vector<std::complex<float>> gains;
            if (pmt::is_c32vector(g))
                gains = pmt::c32vector_elements(g);
            else if (pmt::is_c64vector(g))
                for (auto v : pmt::c64vector_elements(g))
                    gains.emplace_back(v);
            else
                throw std::invalid_argument("\"gains\" must be a c32vector or c64vector");
            set_gains(gains, at_sample);
        }
        const pmt::pmt_t f = pmt::dict_ref(msg, pmt::intern("fine_delays"), none);
        if (!pmt::is_null(f))
            set_fine_delays(to_doubles(f, "fine_delays"), at_sample);
        const pmt::pmt_t p = pmt::dict_ref(msg, pmt::intern("phases"), none);
        if (!pmt::is_null(p))
            set_phases(to_doubles(p, "phases"), at_sample);
        const pmt::pmt_t model = pmt::dict_ref(msg, pmt::intern("delay"), none);
        if (!pmt::is_null(model)) {
            auto optional = [&](const char* key) {
                const pmt::pmt_t v = pmt::dict_ref(msg, pmt::intern(key), none);
                return pmt::is_null(v) ? std::vector<double>{} : to_doubles(v, key);
            };
            set_delay_model(to_doubles(model, "delay"),
                            optional("delay_rate"),
                            optional("phase"),
                            optional("phase_rate"),
                            at_sample);
        }
        const pmt::pmt_t c = pmt::dict_ref(msg, pmt::intern("coarse_delays"), none);
        if (!pmt::is_null(c)) {
            std::vector<int> d;
            for (double v : to_doubles(c, "coarse_delays"))
                d.push_back(int(std::lround(v)));
            set_coarse_delays(d, at_sample);
        }
    } catch (const std::exception& e) {
        d_logger->error("ignored a \"delays\" message: {}", e.what());
    }
}

// The plan's corrections from spectrum m on: the state's, or with a delay
// model its segment from m (coarse delays that stay until d_segment_end,
// fine delay and phase drifting per spectrum). A model delay beyond
// 0..max_coarse_delay is clamped there, logged, and the segment's spectra
// are flagged missing: they are not what the model asked for.
void pfb_fengine_impl::apply_corrections(uint64_t m)
{
    kernels::fengine_corrections c{ d_applied.gains, d_applied.fine_delays, d_applied.phases };
    // Constant corrections in the block's convention, as the plan applies them.
    for (int i = 0; i < d_config.n_inputs; ++i)
        c.phases[i] = fengine_dc_phase(d_applied.phases[i],
                                       d_applied.fine_delays[i],
                                       d_applied.coarse_delays[i],
                                       d_convention,
                                       !d_config.complex_input());
    if (d_applied.model.active()) {
        const auto seg = fengine_segment(d_applied.model, m, d_step, d_config.n_taps);
        bool clamped = false;
        for (int i = 0; i < d_config.n_inputs; ++i) {
            const int64_t D = std::clamp<int64_t>(seg.coarse[i], 0, d_max_delay);
            clamped |= D != seg.coarse[i];
            d_applied.coarse_delays[i] = int(D);
        }
        if (clamped) {
            d_logger->error("the delay model leaves 0..{} samples (max_coarse_delay) from "
                            "spectrum {}: clamped, spectra flagged gpudsp.missing",
                            d_max_delay,
                            m);
            d_missing.add(m, seg.end - 1);
        }
        d_segment_end = seg.end;
        c.fine_delays = seg.fine;
        c.phases = seg.phase;
        c.delay_rates = seg.fine_rate;
        c.phase_rates = seg.phase_rate;
        c.reference_spectrum = m;
        for (double& f : c.fine_delays) // the plan's check; floor() keeps it in range
            f = std::clamp(f, -0.5, 0.5);
    }
    d_plan.set_corrections(c);
}

// ---------------------------------------------------------------------------
// Work

void pfb_fengine_impl::run_segment(const gr_vector_const_void_star& in,
                                   char* out,
                                   uint32_t* saturation,
                                   int first,
                                   int count,
                                   uint64_t first_spectrum)
{
    // Spectra whose window (after its input's coarse delay) reaches before
    // the stream's first sample read zeros, not data: flagged missing.
    const int64_t D = *std::max_element(d_applied.coarse_delays.begin(),
                                        d_applied.coarse_delays.end());
    const uint64_t first_whole = uint64_t((D + d_step - 1) / d_step) + d_config.n_taps - 1;
    if (first_spectrum < first_whole)
        d_missing.add(first_spectrum,
                      std::min<uint64_t>(first_whole, first_spectrum + count) - 1);
    // in[i] starts (history) samples before the first spectrum's newest
    // step: spectrum j of input i starts at sample max_delay - D_i + j step.
    std::vector<kernels::fengine_input_view> views(d_config.n_inputs);
    for (int i = 0; i < d_config.n_inputs; ++i)
        views[i] = { in[i],
                     int64_t(d_max_delay) - d_applied.coarse_delays[i] +
                         int64_t(first) * d_step };
    d_plan.execute(views,
                   out + std::size_t(first) * d_config.output_item_size(),
                   saturation ? saturation + std::size_t(first) * d_config.n_inputs
                              : nullptr,
                   count,
                   first_spectrum,
                   d_io ? d_io->stream() : nullptr);
}

int pfb_fengine_impl::work(int noutput_items,
                           gr_vector_const_void_star& input_items,
                           gr_vector_void_star& output_items)
{
    gr::thread::scoped_lock guard(d_setlock);
    const bool ci8 = d_config.output == kernels::fengine_output::ci8;
    const std::size_t n_sat = std::size_t(noutput_items) * d_config.n_inputs;
    // Host copy of this call's saturation counts (capacity kept across calls).
    std::vector<uint32_t>& saturation = d_saturation;
    saturation.assign(ci8 ? n_sat : 0, 0);
    uint32_t* sat_ptr = saturation.data();
    if (ci8 && d_io)
        sat_ptr = reinterpret_cast<uint32_t*>(d_device_saturation->get());

    if (d_io)
        d_io->begin(*this);
    const uint64_t m0 = nitems_written(0);
    int done = 0;
    while (done < noutput_items) {
        const uint64_t m = m0 + done;
        if (d_schedule.apply_due(m, d_applied) ||
            (d_applied.model.active() && m >= d_segment_end))
            apply_corrections(m);
        uint64_t next = d_schedule.next_after(m);
        if (d_applied.model.active())
            next = std::min(next, d_segment_end);
        const int count =
            int(std::min<uint64_t>(noutput_items - done, next - (m0 + done)));
        run_segment(input_items,
                    static_cast<char*>(output_items[0]),
                    ci8 ? sat_ptr : nullptr,
                    done,
                    count,
                    m0 + done);
        done += count;
    }
    if (d_io) {
        if (ci8) {
            // Saturation counts become tags now, so the CPU waits for this
            // call's kernels (documented: ci8 on the GPU syncs once per call).
            d_io->context()->copy_async(d_host_saturation->get(),
                                        d_device_saturation->get(),
                                        n_sat * sizeof(uint32_t),
                                        runtime::copy_kind::device_to_host,
                                        d_io->stream(),
                                        identifier());
            d_io->synchronize();
            std::copy_n(reinterpret_cast<const uint32_t*>(d_host_saturation->get()),
                        n_sat,
                        saturation.begin());
        }
        d_io->end(*this);
    }
    map_tags(noutput_items, saturation);
    return noutput_items;
}

void pfb_fengine_impl::map_tags(int noutput_items,
                                const std::vector<uint32_t>& saturation)
{
    const uint64_t m0 = nitems_written(0);
    const uint64_t m_end = m0 + noutput_items;
    const auto f = d_config.input;
    const int T = d_config.n_taps;
    std::vector<gr::tag_t> tags;
    for (int i = 0; i < d_config.n_inputs; ++i) {
        const uint64_t r0 = nitems_read(i);
        get_tags_in_range(tags, i, r0, r0 + uint64_t(noutput_items) * d_step_items);
        for (const auto& tag : tags) {
            const int64_t sample = items_to_samples(f, int64_t(tag.offset));
            if (pmt::eqv(tag.key, missing_key)) {
                // Samples [a, b) are bad; delayed by D they reach the windows
                // of spectra floor((a+D)/step) .. floor((b+D-1)/step) + T - 1.
                const int64_t count = int64_t(missing_items(tag.value, d_logger));
                const int64_t end_sample =
                    f == fengine_input::packed10
                        ? (int64_t(tag.offset + count) * 8 + 9) / 10
                        : sample + count;
                const int64_t D = d_applied.coarse_delays[i];
                d_missing.add(uint64_t((sample + D) / d_step),
                              uint64_t((end_sample + D - 1) / d_step) + T - 1);
            } else if (i == 0) {
                gr::tag_t out = tag;
                out.offset = uint64_t(sample / d_step);
                double rate = 0; // a malformed one is logged and passed on unchanged
                if (pmt::eqv(tag.key, rx_rate_key) && tag_number(tag.value, rate, d_logger))
                    out.value = pmt::from_double(rate / d_step);
                add_item_tag(0, out);
            }
        }
    }
    for (const auto& run : d_missing.take(m0, m_end))
        add_item_tag(
            0, run.first, missing_key, pmt::from_uint64(run.second), alias_pmt());
    if (saturation.empty())
        return;
    const std::size_t I = d_config.n_inputs;
    for (int j = 0; j < noutput_items; ++j) {
        const uint32_t* s = saturation.data() + std::size_t(j) * I;
        if (std::any_of(s, s + I, [](uint32_t v) { return v != 0; }))
            add_item_tag(
                0, m0 + j, saturated_key, pmt::init_u32vector(I, s), alias_pmt());
    }
}

} // namespace gpudsp
} // namespace gr
