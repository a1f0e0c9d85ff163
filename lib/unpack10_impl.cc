/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "unpack10_impl.h"
#include <gnuradio/io_signature.h>
#include <algorithm>
#include <stdexcept>

namespace gr {
namespace gpudsp {

namespace {
constexpr int bytes_per_group = 5;
constexpr int samples_per_group = 4;
} // namespace

unpack10::sptr
unpack10::make(const std::string& out_type, const std::string& backend, int device)
{
    kernels::sample_format format;
    if (out_type == "float")
        format = kernels::sample_format::float32;
    else if (out_type == "short")
        format = kernels::sample_format::int16;
    else
        throw std::invalid_argument(
            "unpack10: out_type must be \"float\" or \"short\", got \"" + out_type +
            "\"");
    const auto choice = runtime::resolve_backend(backend, device, "unpack10");
    return gnuradio::make_block_sptr<unpack10_impl>(format, choice);
}

unpack10_impl::unpack10_impl(kernels::sample_format format,
                             const runtime::backend_choice& choice)
    : gr::block("unpack10",
                gr::io_signature::make(
                    1, 1, sizeof(uint8_t), runtime::device_buffer::type_for(choice.kind)),
                gr::io_signature::make(1,
                                       1,
                                       format == kernels::sample_format::float32
                                           ? sizeof(float)
                                           : sizeof(int16_t),
                                       runtime::device_buffer::type_for(choice.kind))),
      block_backend(choice),
      d_plan(format, choice, identifier())
{
    set_relative_rate(samples_per_group, bytes_per_group);
    set_output_multiple(samples_per_group);
    // Tags move by the byte -> sample rule, not by relative rate.
    set_tag_propagation_policy(TPP_DONT);
    open_backend(*this, d_logger);
    log_tuning(d_logger, d_plan.tuning());
}

bool unpack10_impl::start()
{
    check_backend_topology(*this);
    return block::start();
}

void unpack10_impl::forecast(int noutput_items, gr_vector_int& ninput_items_required)
{
    ninput_items_required[0] = (noutput_items / samples_per_group) * bytes_per_group;
}

void unpack10_impl::map_tags(uint64_t first_byte, uint64_t n_bytes)
{
    std::vector<gr::tag_t> tags;
    get_tags_in_range(tags, 0, first_byte, first_byte + n_bytes);
    for (auto& tag : tags) {
        // Byte b holds bits [8b, 8b+8): its first bit is in sample 8b/10.
        tag.offset = (tag.offset * samples_per_group) / bytes_per_group;
        add_item_tag(0, tag);
    }
}

int unpack10_impl::general_work(int noutput_items,
                                gr_vector_int& ninput_items,
                                gr_vector_const_void_star& input_items,
                                gr_vector_void_star& output_items)
{
    const int groups =
        std::min(noutput_items / samples_per_group, ninput_items[0] / bytes_per_group);
    if (groups <= 0)
        return 0;
    const std::size_t n_samples = std::size_t(groups) * samples_per_group;
    if (d_io) {
        d_io->begin(*this);
        d_plan.execute(input_items[0], output_items[0], n_samples, d_io->stream());
        d_io->end(*this);
    } else {
        d_plan.execute(input_items[0], output_items[0], n_samples, nullptr);
    }
    map_tags(nitems_read(0), std::size_t(groups) * bytes_per_group);
    consume_each(groups * bytes_per_group);
    return static_cast<int>(n_samples);
}

} // namespace gpudsp
} // namespace gr
