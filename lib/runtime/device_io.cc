/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <gnuradio/block_detail.h>
#include <gnuradio/buffer.h>
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

std::vector<const void*> device_io::device_inputs(gr::block& blk,
                                                  const gr_vector_const_void_star& in,
                                                  int64_t lo,
                                                  int64_t hi)
{
    auto detail = blk.detail();
    std::vector<const void*> out(in.size());
    d_staged.resize(in.size());
    for (std::size_t m = 0; m < in.size(); ++m) {
        const auto& reader = detail->input(int(m));
        const std::size_t item = reader->get_sizeof_item();
        const char* first = static_cast<const char*>(in[m]) + std::size_t(lo) * item;
        if (input_buffer(blk, int(m))) {
            out[m] = first;
            continue;
        }
        auto& staged = d_staged[m];
        const std::size_t capacity = reader->buffer()->bufsize() * item;
        if (!staged || staged->size() < capacity)
            staged = std::make_unique<device_memory>(context(), capacity, d_who);
        if (hi > lo)
            context()->copy_async(staged->get(),
                                  first,
                                  std::size_t(hi - lo) * item,
                                  copy_kind::host_to_device,
                                  stream(),
                                  d_who);
        out[m] = staged->get();
    }
    return out;
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
