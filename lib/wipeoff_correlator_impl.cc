/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "tag_values.h"
#include "wipeoff_correlator_impl.h"
#include <gnuradio/io_signature.h>
#include <algorithm>
#include <climits>
#include <cstring>
#include <stdexcept>

namespace gr {
namespace gpudsp {

namespace {

const pmt::pmt_t missing_key = pmt::intern("gpudsp.missing");
const pmt::pmt_t rx_time_key = pmt::intern("rx_time");
const pmt::pmt_t control_port = pmt::intern("control");
const pmt::pmt_t corr_port = pmt::intern("corr");
// The most samples one integration may span: what the input buffer,
// sized for it (twice), holds comfortably.
constexpr int64_t max_integration_samples = int64_t(1) << 23;

int sample_size(kernels::gnss_input input)
{
    return input == kernels::gnss_input::complex64 ? 8 : 4;
}

double dict_double(const pmt::pmt_t& d, const char* k, double def)
{
    // dict_has_key, not a NIL default: a key given the value NIL is an error.
    if (!pmt::dict_has_key(d, pmt::intern(k)))
        return def;
    const pmt::pmt_t v = pmt::dict_ref(d, pmt::intern(k), pmt::PMT_NIL);
    // NaN is the methods' "keep this value"; in a message it is an error.
    if ((!pmt::is_real(v) && !pmt::is_integer(v)) || !std::isfinite(pmt::to_double(v)))
        throw std::invalid_argument(std::string("\"") + k + "\" must be a finite number");
    return pmt::to_double(v);
}

// Every key a control dict may hold. An unknown one (a typo such as
// "carrier_frq") would otherwise be dropped silently and the satellite
// steered with a default: the whole message is refused instead.
void check_control_keys(const pmt::pmt_t& msg)
{
    static const char* const known[] = { "system",        "prn",        "remove",
                                         "carrier_freq",  "code_freq",  "carrier_phase",
                                         "code_phase",    "sample",     "secondary_chip",
                                         "epoch" };
    for (pmt::pmt_t ks = pmt::dict_keys(msg); !pmt::is_null(ks); ks = pmt::cdr(ks)) {
        const pmt::pmt_t k = pmt::car(ks);
        const bool ok = pmt::is_symbol(k) &&
                        std::any_of(std::begin(known), std::end(known), [&](const char* n) {
                            return pmt::symbol_to_string(k) == n;
                        });
        if (!ok)
            throw std::invalid_argument("unknown key " + pmt::write_string(k) +
                                        " (known: system, prn, remove, carrier_freq, "
                                        "code_freq, carrier_phase, code_phase, sample, "
                                        "secondary_chip, epoch)");
    }
}

} // namespace

wipeoff_correlator::sptr wipeoff_correlator::make(double samp_rate,
                                                  int n_antennas,
                                                  const std::vector<double>& taps_chips,
                                                  const std::string& input_format,
                                                  int integration_periods,
                                                  const std::string& backend,
                                                  int device)
{
    const std::string who = "wipeoff_correlator";
    const auto input = kernels::parse_gnss_input(input_format, who);
    if (integration_periods < 1)
        throw std::invalid_argument(who + ": integration_periods must be >= 1");
    kernels::gnss_correlator_plan::validate(n_antennas, taps_chips, samp_rate, who);
    const auto choice = runtime::resolve_backend(backend, device, who);
    return gnuradio::make_block_sptr<wipeoff_correlator_impl>(
        samp_rate, n_antennas, taps_chips, input, integration_periods, choice);
}

wipeoff_correlator_impl::wipeoff_correlator_impl(double samp_rate,
                                                 int n_antennas,
                                                 const std::vector<double>& taps_chips,
                                                 kernels::gnss_input input,
                                                 int integration_periods,
                                                 const runtime::backend_choice& choice)
    : gr::block(
          "wipeoff_correlator",
          gr::io_signature::make(n_antennas,
                                 n_antennas,
                                 sample_size(input),
                                 runtime::device_buffer::type_for(choice.kind)),
          gr::io_signature::make(0, 1, 64 + 8 * n_antennas * int(taps_chips.size()))),
      block_backend(choice),
      d_plan(n_antennas, taps_chips, samp_rate, input, choice, identifier()),
      d_periods(integration_periods),
      d_record_size(64 + 8 * n_antennas * int(taps_chips.size()))
{
    // The longest integration: E1-B's 4 ms code periods with code Doppler
    // (the code rate may sit 1% below nominal).
    double longest = 0;
    for (int sys = 0; sys < kernels::gnss_n_systems; ++sys) {
        const auto& s = kernels::gnss_signal(kernels::gnss_system(sys));
        longest = std::max(longest, s.code_length / s.chip_rate);
    }
    const double samples = longest * integration_periods * samp_rate * 1.01;
    if (samples > double(max_integration_samples))
        throw std::invalid_argument(
            "wipeoff_correlator: integration_periods " +
            std::to_string(integration_periods) + " at " + std::to_string(samp_rate) +
            " samples/s spans up to " + std::to_string(int64_t(samples)) +
            " samples, more than the buffers hold (" +
            std::to_string(max_integration_samples) + ")");
    d_max_length = int64_t(samples) + 1;
    size_buffers_for_integrations();
    set_tag_propagation_policy(TPP_DONT);
    message_port_register_in(control_port);
    message_port_register_out(corr_port);
    set_msg_handler(control_port, [this](const pmt::pmt_t& msg) { handle_control(msg); });
    d_message_base = pmt::make_dict();
    d_message_base = pmt::dict_add(
        d_message_base, pmt::intern("samp_rate"), pmt::from_double(samp_rate));
    d_message_base = pmt::dict_add(
        d_message_base, pmt::intern("n_antennas"), pmt::from_long(n_antennas));
    d_message_base = pmt::dict_add(d_message_base,
                                   pmt::intern("taps_chips"),
                                   pmt::init_f64vector(taps_chips.size(), taps_chips));
    open_backend(*this, d_logger);
    log_tuning(d_logger, d_plan.tuning());
}

// Buffers of at least two integrations: GNU Radio sizes a block's input
// buffers from its decimation (1 / relative rate) when the flowgraph starts.
void wipeoff_correlator_impl::size_buffers_for_integrations()
{
    set_relative_rate(1, uint64_t(d_max_length));
}

bool wipeoff_correlator_impl::start()
{
    check_backend_topology(*this);
    // The buffers exist now. Running, the rate must be 1: GNU Radio asks a
    // block without outputs (messages only) for (items available x relative
    // rate) items, which the sizing rate rounds to 0 below one longest
    // integration, so the block would wait forever on a source that waits
    // for its messages, or end without reading a short stream.
    set_relative_rate(1.0);
    gr::thread::scoped_lock guard(d_setlock);
    d_between_runs = false;
    return block::start();
}

bool wipeoff_correlator_impl::stop()
{
    size_buffers_for_integrations(); // for the next start
    // A run again counts samples from 0 (GNU Radio gives the block a new
    // detail): each satellite's replica continues as if the next run's
    // sample 0 followed this run's last sample read; satellites added or
    // changed from now on count the next run's samples. Tags, missing runs
    // and the rx_time reference belong to this run.
    gr::thread::scoped_lock guard(d_setlock);
    const uint64_t end = nitems_read(0);
    for (auto& s : d_sats)
        s.second.renumber_from(end);
    d_tags_read = 0;
    d_missing = gnss_missing_runs();
    d_have_time = false;
    d_time_offset = 0;
    d_time = 0;
    d_between_runs = true;
    return block::stop();
}

wipeoff_correlator_impl::key wipeoff_correlator_impl::key_of(const std::string& system,
                                                             long prn) const
{
    const auto sys = kernels::parse_gnss_system(system, "wipeoff_correlator");
    const auto& s = kernels::gnss_signal(sys);
    if (prn < 1 || prn > s.n_prns)
        throw std::invalid_argument("wipeoff_correlator: prn must lie in 1.." +
                                    std::to_string(s.n_prns) + " for " + system +
                                    ", got " + std::to_string(prn));
    return { int(sys), int(prn) };
}

void wipeoff_correlator_impl::add_satellite(const std::string& system,
                                            int prn,
                                            double carrier_freq,
                                            double code_freq,
                                            double carrier_phase,
                                            double code_phase,
                                            int64_t at_sample)
{
    const key k = key_of(system, prn);
    if (!std::isfinite(carrier_phase) || !std::isfinite(code_phase))
        throw std::invalid_argument("wipeoff_correlator: phases must be finite");
    gr::thread::scoped_lock guard(d_setlock);
    const uint64_t now = d_between_runs ? 0 : nitems_read(0);
    const uint64_t at = at_sample < 0 ? now : uint64_t(at_sample);
    gnss_tracker t(kernels::gnss_system(k.first),
                   prn,
                   d_plan.samp_rate(),
                   d_periods,
                   carrier_freq,
                   code_freq,
                   carrier_phase,
                   code_phase,
                   at);
    d_sats.erase(k);
    d_sats.emplace(k, t);
}

gnss_tracker& wipeoff_correlator_impl::correlated(const std::string& system, int prn)
{
    auto it = d_sats.find(key_of(system, prn));
    if (it == d_sats.end())
        throw std::invalid_argument("wipeoff_correlator: " + system + " PRN " +
                                    std::to_string(prn) + " is not being correlated");
    return it->second;
}

void wipeoff_correlator_impl::update_satellite(const std::string& system,
                                               int prn,
                                               double carrier_freq,
                                               double code_freq,
                                               double carrier_phase_correction,
                                               double code_phase_correction)
{
    gr::thread::scoped_lock guard(d_setlock);
    auto& t = correlated(system, prn);
    // All checks before any change: a refused update leaves the satellite as
    // it was.
    if (!std::isfinite(carrier_phase_correction) || !std::isfinite(code_phase_correction))
        throw std::invalid_argument("wipeoff_correlator: corrections must be finite");
    t.set_freqs(std::isnan(carrier_freq) ? t.carrier_freq() : carrier_freq,
                std::isnan(code_freq) ? t.code_freq() : code_freq);
    if (carrier_phase_correction != 0 || code_phase_correction != 0)
        t.correct(carrier_phase_correction, code_phase_correction);
}

void wipeoff_correlator_impl::set_secondary_chip(const std::string& system,
                                                 int prn,
                                                 int chip,
                                                 int64_t epoch)
{
    // The method's -1 is "the next period" (its documented default); a
    // control message can name period -1 itself.
    apply_secondary_chip(
        system, prn, chip, epoch == -1 ? std::nullopt : std::optional<int64_t>(epoch));
}

void wipeoff_correlator_impl::apply_secondary_chip(const std::string& system,
                                                   int prn,
                                                   int chip,
                                                   std::optional<int64_t> epoch)
{
    gr::thread::scoped_lock guard(d_setlock);
    auto& t = correlated(system, prn);
    try {
        t.set_secondary_chip(chip, epoch);
    } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(std::string("wipeoff_correlator: ") + e.what());
    }
}

void wipeoff_correlator_impl::remove_satellite(const std::string& system, int prn)
{
    const key k = key_of(system, prn);
    gr::thread::scoped_lock guard(d_setlock);
    d_sats.erase(k);
}

void wipeoff_correlator_impl::set_cpu_threads(int n)
{
    kernels::gnss_correlator_plan::check_cpu_threads(n, identifier());
    d_cpu_threads = n;
}

std::vector<std::string> wipeoff_correlator_impl::satellites() const
{
    gr::thread::scoped_lock guard(const_cast<gr::thread::mutex&>(d_setlock));
    std::vector<std::string> out;
    for (const auto& s : d_sats)
        out.push_back(std::string(kernels::gnss_signal(s.second.system()).name) + ":" +
                      std::to_string(s.first.second));
    return out;
}

// {system, prn} plus: "remove" -> removed; a satellite not yet correlated
// -> added with carrier_freq, code_freq (nominal), carrier_phase,
// code_phase (at "sample", default the first sample not yet read); one
// already correlated -> carrier_freq / code_freq replace, carrier_phase /
// code_phase are corrections added to its replica.
void wipeoff_correlator_impl::handle_control(const pmt::pmt_t& msg)
{
    try {
        if (!pmt::is_dict(msg))
            throw std::invalid_argument("a control message is a dict");
        check_control_keys(msg);
        const pmt::pmt_t sys = pmt::dict_ref(msg, pmt::intern("system"), pmt::PMT_NIL);
        const pmt::pmt_t prn = pmt::dict_ref(msg, pmt::intern("prn"), pmt::PMT_NIL);
        if (!pmt::is_symbol(sys) || !pmt::is_integer(prn))
            throw std::invalid_argument(
                "it needs \"system\" (symbol) and \"prn\" (integer)");
        const std::string system = pmt::symbol_to_string(sys);
        // Range-checked before narrowing: PRN 2^32 + 3 is not PRN 3.
        const key k = key_of(system, pmt::to_long(prn));
        const int p = k.second;
        const pmt::pmt_t rm = pmt::dict_ref(msg, pmt::intern("remove"), pmt::PMT_F);
        if (!pmt::is_bool(rm))
            throw std::invalid_argument("\"remove\" must be a boolean");
        const bool has_sample = pmt::dict_has_key(msg, pmt::intern("sample"));
        const pmt::pmt_t at = pmt::dict_ref(msg, pmt::intern("sample"), pmt::PMT_NIL);
        if (pmt::is_true(rm)) {
            remove_satellite(system, p);
            return;
        }
        // The secondary code keys are checked before anything changes (a
        // refused message changes nothing) and applied last.
        const bool has_secondary = pmt::dict_has_key(msg, pmt::intern("secondary_chip"));
        long chip = -1;
        std::optional<int64_t> epoch; // absent: the next period
        if (has_secondary) {
            const pmt::pmt_t c = pmt::dict_ref(msg, pmt::intern("secondary_chip"), pmt::PMT_NIL);
            if (!pmt::is_integer(c) || pmt::to_long(c) < -1 || pmt::to_long(c) > INT_MAX)
                throw std::invalid_argument("\"secondary_chip\" must be an integer >= -1");
            chip = pmt::to_long(c);
            if (pmt::dict_has_key(msg, pmt::intern("epoch"))) {
                const pmt::pmt_t e = pmt::dict_ref(msg, pmt::intern("epoch"), pmt::PMT_NIL);
                if (!pmt::is_integer(e))
                    throw std::invalid_argument("\"epoch\" must be an integer >= -1");
                epoch = pmt::to_long(e);
            }
            gnss_tracker::check_secondary_chip(kernels::gnss_system(k.first), chip, epoch);
        } else if (pmt::dict_has_key(msg, pmt::intern("epoch"))) {
            throw std::invalid_argument("\"epoch\" goes with \"secondary_chip\"");
        }
        bool known;
        {
            gr::thread::scoped_lock guard(d_setlock);
            known = d_sats.count(k) != 0;
        }
        if (known) {
            if (has_sample)
                throw std::invalid_argument(system + " PRN " + std::to_string(p) +
                                            " is already correlated: \"sample\" "
                                            "applies only when adding a satellite");
            update_satellite(system,
                             p,
                             dict_double(msg, "carrier_freq", NAN),
                             dict_double(msg, "code_freq", NAN),
                             dict_double(msg, "carrier_phase", 0),
                             dict_double(msg, "code_phase", 0));
        } else {
            int64_t at_sample = -1;
            if (has_sample) {
                // pmt::to_uint64 takes longs >= 0 and uint64s; the latter must
                // also fit the signed sample counter.
                if (!pmt::is_integer(at) && !pmt::is_uint64(at))
                    throw std::invalid_argument("\"sample\" must be an integer");
                const uint64_t v = pmt::to_uint64(at);
                if (v > uint64_t(INT64_MAX))
                    throw std::invalid_argument("\"sample\" must lie in 0..2^63-1");
                at_sample = int64_t(v);
            }
            add_satellite(
                system,
                p,
                dict_double(msg, "carrier_freq", 0),
                dict_double(
                    msg,
                    "code_freq",
                    kernels::gnss_signal(kernels::gnss_system(k.first)).chip_rate),
                dict_double(msg, "carrier_phase", 0),
                dict_double(msg, "code_phase", 0),
                at_sample);
        }
        if (has_secondary)
            apply_secondary_chip(system, p, int(chip), epoch);
    } catch (const std::exception& e) {
        d_logger->error("ignored a control message: {}", e.what());
    }
}

void wipeoff_correlator_impl::forecast(int, gr_vector_int& ninput_items_required)
{
    // Enough for the earliest pending integration to complete.
    const uint64_t r0 = nitems_read(0);
    int64_t need = INT_MAX;
    for (const auto& s : d_sats) {
        const uint64_t start = std::max(s.second.next_start(), r0);
        need = std::min<int64_t>(need, int64_t(start - r0) + s.second.next_length());
    }
    // A satellite starting far ahead: read up to one integration at a time
    // (consumed up to its start) rather than wait for more than fits.
    need = std::clamp<int64_t>(need, 1, d_max_length);
    for (auto& n : ninput_items_required)
        n = int(need);
}

void wipeoff_correlator_impl::read_tags(uint64_t begin, uint64_t end)
{
    std::vector<gr::tag_t> tags;
    for (int port = 0; port < d_plan.n_antennas(); ++port) {
        get_tags_in_range(tags, port, begin, end);
        for (const auto& tag : tags) {
            if (pmt::eqv(tag.key, missing_key)) {
                const uint64_t n = missing_items(tag.value, d_logger);
                d_missing.add(tag.offset, tag.offset + n);
            } else if (pmt::eqv(tag.key, rx_time_key) && port == 0 &&
                       rx_time_seconds(tag.value, d_time, d_logger)) {
                d_time_offset = tag.offset;
                d_have_time = true;
            }
        }
    }
}

// Keys interned once; the fields every message shares (samp_rate,
// n_antennas, taps_chips) are in d_message_base, made by the constructor.
// acons is dict_add for a key the dict does not hold yet (these keys are
// distinct and not in the base), without dict_add's scan for the key: the
// scans (pmt::assv, a dynamic_cast per step) cost more than the correlation
// itself on the CPU. (Two steps: the fields are made while a GPU computes
// the correlations.)
pmt::pmt_t wipeoff_correlator_impl::message(const pmt::pmt_t& fields,
                                            const std::complex<float>* sums) const
{
    static const pmt::pmt_t correlations = pmt::intern("correlations");
    const std::size_t n_sums = std::size_t(d_plan.n_antennas()) * d_plan.n_taps();
    return pmt::acons(correlations, pmt::init_c32vector(n_sums, sums), fields);
}

pmt::pmt_t wipeoff_correlator_impl::message_fields(const gnss_integration& g,
                                                   uint64_t missing) const
{
    static const pmt::pmt_t system = pmt::intern("system"), prn = pmt::intern("prn"),
                            start = pmt::intern("start"), length = pmt::intern("length"),
                            integration = pmt::intern("integration"),
                            carrier_freq = pmt::intern("carrier_freq"),
                            carrier_phase = pmt::intern("carrier_phase"),
                            code_freq = pmt::intern("code_freq"),
                            code_phase = pmt::intern("code_phase"),
                            missing_samples = pmt::intern("missing"),
                            secondary = pmt::intern("secondary_chip"),
                            epoch = pmt::intern("epoch"),
                            time = pmt::intern("time");
    pmt::pmt_t d = d_message_base;
    d = pmt::acons(system, pmt::intern(kernels::gnss_signal(g.system).name), d);
    d = pmt::acons(prn, pmt::from_long(g.prn), d);
    d = pmt::acons(start, pmt::from_uint64(g.start), d);
    d = pmt::acons(length, pmt::from_long(g.length), d);
    d = pmt::acons(integration, pmt::from_uint64(g.index), d);
    d = pmt::acons(carrier_freq, pmt::from_double(g.carrier_freq), d);
    d = pmt::acons(carrier_phase, pmt::from_double(g.carrier_cycles()), d);
    d = pmt::acons(code_freq, pmt::from_double(g.code_freq), d);
    d = pmt::acons(code_phase, pmt::from_double(g.code_chips()), d);
    d = pmt::acons(missing_samples, pmt::from_uint64(missing), d);
    d = pmt::acons(secondary, pmt::from_long(g.secondary_chip), d);
    d = pmt::acons(epoch, pmt::from_long(g.epoch), d);
    if (d_have_time)
        d = pmt::acons(
            time,
            pmt::from_double(d_time + (double(g.start) - double(d_time_offset)) /
                                          d_plan.samp_rate()),
            d);
    return d;
}

void wipeoff_correlator_impl::write_record(char* out,
                                           const gnss_integration& g,
                                           const std::complex<float>* sums,
                                           uint64_t missing) const
{
    // Layout (docs/gnss.md): int32 system, int32 prn, int64 start, int64
    // length, float64 carrier_freq, carrier_phase, code_freq, code_phase,
    // uint32 flags (bit 0: samples missing), uint32 integration index, then
    // complex float32 [antenna][tap].
    std::memset(out, 0, 64);
    const int32_t sys = int32_t(g.system), prn = g.prn;
    const int64_t start = int64_t(g.start), len = g.length;
    const double f[4] = {
        g.carrier_freq, g.carrier_cycles(), g.code_freq, g.code_chips()
    };
    const uint32_t flags = missing ? 1u : 0u, index = uint32_t(g.index);
    std::memcpy(out, &sys, 4);
    std::memcpy(out + 4, &prn, 4);
    std::memcpy(out + 8, &start, 8);
    std::memcpy(out + 16, &len, 8);
    std::memcpy(out + 24, f, 32);
    std::memcpy(out + 56, &flags, 4);
    std::memcpy(out + 60, &index, 4);
    std::memcpy(out + 64, sums, std::size_t(d_record_size - 64));
}

int wipeoff_correlator_impl::general_work(int noutput_items,
                                          gr_vector_int& ninput_items,
                                          gr_vector_const_void_star& input_items,
                                          gr_vector_void_star& output_items)
{
    gr::thread::scoped_lock guard(d_setlock);
    const uint64_t r0 = nitems_read(0);
    // All antennas advance together: the shortest decides.
    const int n = *std::min_element(ninput_items.begin(), ninput_items.end());
    const uint64_t end = r0 + uint64_t(n);
    read_tags(std::max(r0, d_tags_read), end);
    d_tags_read = std::max(d_tags_read, end);

    const bool records = !output_items.empty();
    const std::size_t max_jobs = records ? std::size_t(noutput_items) : SIZE_MAX;
    std::vector<gnss_integration> sched;
    // Integrations in order of their last sample (then system, PRN): the
    // order does not depend on how the stream is cut into calls.
    bool progress = true;
    while (progress && sched.size() < max_jobs) {
        progress = false;
        gnss_tracker* earliest = nullptr;
        for (auto& s : d_sats) {
            auto& t = s.second;
            if (t.next_start() < r0) {
                d_logger->warn("{} PRN {}: samples before {} are gone; it restarts at "
                               "its next code epoch",
                               kernels::gnss_signal(t.system()).name,
                               t.prn(),
                               r0);
                t.skip_to(r0);
            }
            const uint64_t t_end = t.next_start() + uint64_t(t.next_length());
            if (t_end <= end &&
                (!earliest ||
                 t_end < earliest->next_start() + uint64_t(earliest->next_length())))
                earliest = &t;
        }
        if (earliest) {
            sched.push_back(earliest->take());
            progress = true;
        }
    }

    if (!sched.empty()) {
        if (d_cpu_threads.load() != d_plan.cpu_threads())
            d_plan.set_cpu_threads(d_cpu_threads.load());
        if (d_io)
            d_io->begin(*this);
        std::vector<kernels::gnss_job> jobs;
        for (const auto& g : sched)
            jobs.push_back(g.job(r0));
        std::vector<const void*> ants(input_items.begin(), input_items.end());
        int64_t n_read = n;
        // On a device: the inputs from the first sample read (host-fed ones
        // uploaded by device_io::device_inputs), the jobs counted from it.
        if (d_io) {
            int64_t lo = n, hi = 0;
            for (const auto& j : jobs) {
                lo = std::min(lo, j.start);
                hi = std::max(hi, j.start + j.length);
            }
            ants = d_io->device_inputs(*this, input_items, lo, hi);
            for (auto& j : jobs)
                j.start -= lo;
            n_read = hi - lo;
        }
        const std::size_t per = std::size_t(d_plan.n_antennas()) * d_plan.n_taps();
        std::vector<std::complex<float>> sums(jobs.size() * per);
        std::vector<uint64_t> missing(sched.size());
        std::vector<pmt::pmt_t> fields(sched.size());
        // The messages' other fields are made while a GPU computes the sums
        // (the per-integration host work off the critical path).
        d_plan.execute(
            ants, n_read, jobs, sums.data(), d_io ? d_io->stream() : nullptr, [&] {
                for (std::size_t j = 0; j < sched.size(); ++j) {
                    missing[j] = d_missing.overlap(sched[j].start,
                                                   sched[j].start + sched[j].length);
                    fields[j] = message_fields(sched[j], missing[j]);
                }
            });
        if (d_io)
            d_io->end(*this);
        for (std::size_t j = 0; j < sched.size(); ++j) {
            if (records)
                write_record(static_cast<char*>(output_items[0]) + j * d_record_size,
                             sched[j],
                             sums.data() + j * per,
                             missing[j]);
            message_port_pub(corr_port, message(fields[j], sums.data() + j * per));
        }
    }

    // Keep every sample a pending integration still needs.
    uint64_t keep = end;
    for (const auto& s : d_sats)
        keep = std::min(keep, std::max(s.second.next_start(), r0));
    d_missing.forget_before(keep);
    consume_each(int(keep - r0));
    if (records)
        produce(0, int(sched.size()));
    return WORK_CALLED_PRODUCE;
}

} // namespace gpudsp
} // namespace gr
