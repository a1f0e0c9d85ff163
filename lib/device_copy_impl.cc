/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "device_copy_impl.h"
#include <gnuradio/io_signature.h>
#include <cstring>
#include <stdexcept>

namespace gr {
namespace gpudsp {

device_copy::sptr
device_copy::make(size_t itemsize, const std::string& backend, int device)
{
    if (itemsize == 0 || itemsize > 0x7fffffff) // GNU Radio's item size is an int
        throw std::invalid_argument("device_copy: itemsize must lie in 1..2^31-1 bytes, got " +
                                    std::to_string(itemsize));
    const auto choice = runtime::resolve_backend(backend, device, "device_copy");
    return gnuradio::make_block_sptr<device_copy_impl>(itemsize, choice);
}

device_copy_impl::device_copy_impl(size_t itemsize, const runtime::backend_choice& choice)
    : gr::sync_block("device_copy",
                     gr::io_signature::make(
                         1, 1, itemsize, runtime::device_buffer::type_for(choice.kind)),
                     gr::io_signature::make(
                         1, 1, itemsize, runtime::device_buffer::type_for(choice.kind))),
      block_backend(choice),
      d_itemsize(itemsize)
{
    open_backend(*this, d_logger);
}

bool device_copy_impl::start()
{
    check_backend_topology(*this);
    return sync_block::start();
}

int device_copy_impl::work(int noutput_items,
                           gr_vector_const_void_star& input_items,
                           gr_vector_void_star& output_items)
{
    const std::size_t bytes = std::size_t(noutput_items) * d_itemsize;
    if (!d_io) {
        std::memcpy(output_items[0], input_items[0], bytes);
        return noutput_items;
    }
    d_io->begin(*this);
    d_io->context()->copy_async(output_items[0],
                                input_items[0],
                                bytes,
                                runtime::copy_kind::device_to_device,
                                d_io->stream(),
                                identifier());
    d_io->end(*this);
    return noutput_items;
}

} // namespace gpudsp
} // namespace gr
