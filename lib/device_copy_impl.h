/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUDSP_DEVICE_COPY_IMPL_H
#define INCLUDED_GPUDSP_DEVICE_COPY_IMPL_H

#include "block_backend.h"
#include <gnuradio/gpudsp/device_copy.h>

namespace gr {
namespace gpudsp {

class device_copy_impl : public device_copy, public block_backend
{
public:
    device_copy_impl(size_t itemsize, const runtime::backend_choice& choice);

    std::string backend() const override { return runtime::to_string(d_choice.kind); }
    bool start() override;
    int work(int noutput_items,
             gr_vector_const_void_star& input_items,
             gr_vector_void_star& output_items) override;

private:
    size_t d_itemsize;
};

} // namespace gpudsp
} // namespace gr

#endif
