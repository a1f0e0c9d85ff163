/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <gnuradio/block_detail.h>
#include <gnuradio/buffer_reader.h>
#include <gnuradio/gpudsp/runtime/device_io.h>
#include <stdexcept>

namespace gr {
namespace gpudsp {
namespace runtime {

device_io::device_io(device_context::sptr ctx, const std::string& who)
    : d_who(who), d_stream(std::move(ctx), who)
{
}

std::shared_ptr<device_buffer> device_io::input_buffer(gr::block& blk, int port)
{
    auto detail = blk.detail();
    if (!detail || port >= detail->ninputs() || !detail->input(port))
        return nullptr;
    return std::dynamic_pointer_cast<device_buffer>(detail->input(port)->buffer());
}

std::shared_ptr<device_buffer> device_io::output_buffer(gr::block& blk, int port)
{
    auto detail = blk.detail();
    if (!detail || port >= detail->noutputs())
        return nullptr;
    return std::dynamic_pointer_cast<device_buffer>(detail->output(port));
}

void device_io::begin(gr::block& blk)
{
    context()->make_current(); // scheduler threads differ from the constructor's
    auto detail = blk.detail();
    for (int i = 0; i < detail->ninputs(); ++i)
        if (auto buf = input_buffer(blk, i))
            buf->wait_for_data(stream());
    for (int o = 0; o < detail->noutputs(); ++o)
        if (auto buf = output_buffer(blk, o))
            buf->wait_for_space(stream());
}

void device_io::end(gr::block& blk)
{
    context()->check_last_error("kernel launch", d_who);
    auto detail = blk.detail();
    for (int i = 0; i < detail->ninputs(); ++i)
        if (auto buf = input_buffer(blk, i))
            buf->mark_read(detail->input(i).get(), stream());
    for (int o = 0; o < detail->noutputs(); ++o)
        if (auto buf = output_buffer(blk, o))
            buf->mark_written(stream());
}

void device_io::check_topology(gr::block& blk)
{
    auto detail = blk.detail();
    if (!detail)
        return;
    const auto* self = dynamic_cast<const device_block*>(&blk);
    for (int i = 0; i < detail->ninputs(); ++i) {
        auto buf = input_buffer(blk, i);
        if (!buf)
            continue;
        const std::string problem = buf->topology_error();
        if (!problem.empty())
            throw std::runtime_error(blk.alias() + ": input " + std::to_string(i) + ": " +
                                     problem);
        if (self && buf->context()->device() != self->device_index())
            throw std::runtime_error(
                blk.alias() + ": input " + std::to_string(i) +
                " comes from CUDA device " + std::to_string(buf->context()->device()) +
                " but this block runs on device " + std::to_string(self->device_index()) +
                "; connect blocks on different GPUs through a host block (e.g. "
                "blocks.copy)");
    }
}

} // namespace runtime
} // namespace gpudsp
} // namespace gr
