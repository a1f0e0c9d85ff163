/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUDSP_DEVICE_COPY_H
#define INCLUDED_GPUDSP_DEVICE_COPY_H

#include <gnuradio/gpudsp/api.h>
#include <gnuradio/sync_block.h>
#include <string>

namespace gr {
namespace gpudsp {

/*!
 * \brief Copies a stream on the GPU, device buffer to device buffer.
 * \ingroup gpudsp
 *
 * \details
 * Moves a host stream onto the GPU (one upload) or back (one download),
 * and is the place to fan out: GNU Radio 3.10.5.1 cannot feed one host
 * output to several GPU blocks, but it can feed one device_copy whose
 * output then feeds them all.
 */
class GPUDSP_API device_copy : virtual public gr::sync_block
{
public:
    typedef std::shared_ptr<device_copy> sptr;

    /*!
     * \param itemsize bytes per item (e.g. 8 for complex float, times vlen)
     * \param backend "auto", "cuda" or "cpu" ("emulated" for tests)
     * \param device CUDA device index
     */
    static sptr
    make(size_t itemsize, const std::string& backend = "auto", int device = 0);

    virtual std::string backend() const = 0;
};

} // namespace gpudsp
} // namespace gr

#endif /* INCLUDED_GPUDSP_DEVICE_COPY_H */
