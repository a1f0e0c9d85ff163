/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "xengine_impl.h"
#include "tag_values.h"
#include <gnuradio/io_signature.h>
#include <algorithm>
#include <stdexcept>

namespace gr {
namespace gpudsp {

namespace {
const pmt::pmt_t missing_key = pmt::intern("gpudsp.missing");
const pmt::pmt_t dump_start_key = pmt::intern("gpudsp.dump_start");
const pmt::pmt_t n_integrate_key = pmt::intern("gpudsp.n_integrate");
const pmt::pmt_t used_key = pmt::intern("gpudsp.spectra_used");
const pmt::pmt_t saturated_key = pmt::intern("gpudsp.saturated");
} // namespace

xengine::sptr xengine::make(int n_stations,
                            int n_pols,
                            int n_channels,
                            int n_integrate,
                            const std::string& input_format,
                            const std::string& output_format,
                            const std::string& backend,
                            int device,
                            const std::string& kernel)
{
    const std::string who = "xengine";
    kernels::xengine_config c;
    c.n_stations = n_stations;
    c.n_pols = n_pols;
    c.n_channels = n_channels;
    if (input_format == "ci8")
        c.input = kernels::xengine_input::ci8;
    else if (input_format == "cf32")
        c.input = kernels::xengine_input::cf32;
    else
        throw std::invalid_argument(who +
                                    ": input_format must be \"ci8\" or \"cf32\", got \"" +
                                    input_format + "\"");
    if (output_format == "auto")
        c.output = c.input == kernels::xengine_input::ci8 ? kernels::xengine_output::ci32
                                                          : kernels::xengine_output::cf32;
    else if (output_format == "ci32" && c.input == kernels::xengine_input::ci8)
        c.output = kernels::xengine_output::ci32;
    else if (output_format == "cf32")
        c.output = kernels::xengine_output::cf32;
    else
        throw std::invalid_argument(who +
                                    ": output_format must be \"auto\", \"cf32\" or, for "
                                    "ci8 input, \"ci32\"; got \"" +
                                    output_format + "\"");
    c.kernel = kernels::parse_xengine_kernel(kernel, who);
    if (n_integrate < 1)
        throw std::invalid_argument(who + ": n_integrate must be >= 1, got " +
                                    std::to_string(n_integrate));
    const auto choice = runtime::resolve_backend(backend, device, who);
    // Validated before the block exists: its ports' item sizes come from it.
    kernels::xengine_plan::validate(c, choice.kind, who);
    return gnuradio::make_block_sptr<xengine_impl>(c, n_integrate, choice);
}

xengine_impl::xengine_impl(const kernels::xengine_config& config,
                           int n_integrate,
                           const runtime::backend_choice& choice)
    : gr::block("xengine",
                gr::io_signature::make(1,
                                       1,
                                       int(config.input_item_size()),
                                       runtime::device_buffer::type_for(choice.kind)),
                gr::io_signature::make(1,
                                       1,
                                       int(config.output_item_size()),
                                       runtime::device_buffer::type_for(choice.kind))),
      block_backend(choice),
      d_config(config),
      d_plan(config, choice, identifier()),
      d_n_integrate(n_integrate),
      d_batch(int(std::min<std::size_t>(d_plan.preferred_spectra(), n_integrate)))
{
    // GNU Radio sizes the input buffer from the decimation (1 / relative
    // rate) to hold two of what the block needs at once: a batch of spectra,
    // not a whole dump (the sums stay on the device between calls).
    set_relative_rate(1, uint64_t(d_batch));
    set_tag_propagation_policy(TPP_DONT);
    open_backend(*this, d_logger);
    log_tuning(d_logger, d_plan.tuning());
    const std::string form = d_plan.kernel_variant(); // the tensor kernel's
    d_logger->info("{} stations x {} pols, {} channels, {} spectra per dump, {} kernel{}",
                   config.n_stations,
                   config.n_pols,
                   config.n_channels,
                   n_integrate,
                   d_plan.kernel_name(),
                   form.empty() ? std::string() : " (" + form + ")");
    if (d_io) {
        d_device_saturated = std::make_unique<runtime::device_memory>(
            d_io->context(), sizeof(uint64_t), identifier());
        d_host_saturated = std::make_unique<runtime::pinned_memory>(
            d_io->context(), sizeof(uint64_t), identifier());
    }
}

bool xengine_impl::start()
{
    check_backend_topology(*this);
    // Every run counts items from 0 (GNU Radio gives the block a new
    // detail): a dump the previous run left unfinished is dropped, sums and
    // missing-data state included.
    discard_partial_dump();
    d_in_dump = 0;
    d_used = 0;
    d_missing_until = 0;
    d_dump_tags.clear();
    return block::start();
}

void xengine_impl::discard_partial_dump()
{
    if (d_in_dump == 0)
        return;
    const std::size_t bytes = d_config.output_item_size();
    if (!d_io) {
        std::vector<char> scratch(bytes);
        d_plan.dump(scratch.data(), nullptr, nullptr);
        return;
    }
    // On the stream of the previous run's accumulations, which may still
    // be running: the dump follows them.
    runtime::device_memory scratch(d_io->context(), bytes, identifier());
    d_plan.dump(scratch.get(), nullptr, d_io->stream());
    d_io->synchronize();
}

void xengine_impl::forecast(int, gr_vector_int& ninput_items_required)
{
    // A batch at a time, so that GPU launches are large; the end of a dump
    // needs no more than it lacks.
    ninput_items_required[0] = std::min(d_batch, d_n_integrate - d_in_dump);
}

// Accumulates input spectra [first, first + count) (absolute indices; \p in
// points at spectrum \p first), leaving out those flagged missing.
void xengine_impl::accumulate_valid(const char* in, uint64_t first, int count)
{
    std::vector<gr::tag_t> tags;
    get_tags_in_range(tags, 0, first, first + count, missing_key);
    std::sort(tags.begin(), tags.end(), gr::tag_t::offset_compare);
    auto stream = d_io ? d_io->stream() : nullptr;
    uint64_t pos = first;
    std::size_t next_tag = 0;
    const uint64_t end = first + count;
    while (pos < end) {
        while (next_tag < tags.size() && tags[next_tag].offset <= pos) {
            const uint64_t n = missing_items(tags[next_tag].value, d_logger);
            d_missing_until = std::max(d_missing_until, tags[next_tag].offset + n);
            ++next_tag;
        }
        if (pos < d_missing_until) { // skip the missing run
            pos = std::min(end, d_missing_until);
            continue;
        }
        uint64_t run_end = end;
        if (next_tag < tags.size())
            run_end = std::min(run_end, tags[next_tag].offset);
        d_plan.accumulate(
            in + (pos - first) * d_config.input_item_size(), run_end - pos, stream);
        d_used += run_end - pos;
        pos = run_end;
    }
}

uint64_t xengine_impl::finish_dump(void* out)
{
    if (!d_io) {
        uint64_t saturated = 0;
        d_plan.dump(out, &saturated, nullptr);
        return saturated;
    }
    // Once per dump: the saturation count becomes a tag, so wait for it.
    d_plan.dump(
        out, reinterpret_cast<uint64_t*>(d_device_saturated->get()), d_io->stream());
    d_io->context()->copy_async(d_host_saturated->get(),
                                d_device_saturated->get(),
                                sizeof(uint64_t),
                                runtime::copy_kind::device_to_host,
                                d_io->stream(),
                                identifier());
    d_io->synchronize();
    return *reinterpret_cast<const uint64_t*>(d_host_saturated->get());
}

int xengine_impl::general_work(int noutput_items,
                               gr_vector_int& ninput_items,
                               gr_vector_const_void_star& input_items,
                               gr_vector_void_star& output_items)
{
    const auto* in = static_cast<const char*>(input_items[0]);
    auto* out = static_cast<char*>(output_items[0]);
    const uint64_t r0 = nitems_read(0);
    if (d_io)
        d_io->begin(*this);
    int consumed = 0, produced = 0;
    while (consumed < ninput_items[0] && produced < noutput_items) {
        const int take = std::min(ninput_items[0] - consumed, d_n_integrate - d_in_dump);
        accumulate_valid(
            in + std::size_t(consumed) * d_config.input_item_size(), r0 + consumed, take);
        // Other tags of these spectra (rx_time...) ride on the dump; kept
        // now, as GNU Radio may prune them once the spectra are consumed.
        std::vector<gr::tag_t> tags;
        get_tags_in_range(tags, 0, r0 + consumed, r0 + consumed + take);
        for (const auto& tag : tags)
            if (!pmt::eqv(tag.key, missing_key))
                d_dump_tags.push_back(tag);
        consumed += take;
        d_in_dump += take;
        if (d_in_dump < d_n_integrate)
            break;
        const uint64_t saturated =
            finish_dump(out + std::size_t(produced) * d_config.output_item_size());
        const uint64_t d = nitems_written(0) + produced;
        const uint64_t start = r0 + consumed - d_n_integrate;
        add_item_tag(0, d, dump_start_key, pmt::from_uint64(start), alias_pmt());
        add_item_tag(0, d, n_integrate_key, pmt::from_long(d_n_integrate), alias_pmt());
        add_item_tag(0, d, used_key, pmt::from_uint64(d_used), alias_pmt());
        add_item_tag(0, d, saturated_key, pmt::from_uint64(saturated), alias_pmt());
        for (auto tag : d_dump_tags) {
            tag.offset = d;
            add_item_tag(0, tag);
        }
        d_dump_tags.clear();
        d_in_dump = 0;
        d_used = 0;
        ++produced;
    }
    if (d_io)
        d_io->end(*this);
    consume(0, consumed);
    return produced;
}

} // namespace gpudsp
} // namespace gr
