/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUDSP_UNPACK10_H
#define INCLUDED_GPUDSP_UNPACK10_H

#include <gnuradio/block.h>
#include <gnuradio/gpudsp/api.h>
#include <string>

namespace gr {
namespace gpudsp {

/*!
 * \brief Unpacks packed 10-bit two's-complement samples (MeerKAT digitiser
 * format) to float or short.
 * \ingroup gpudsp
 *
 * \details
 * Input: a byte stream in which sample i occupies bits [10i, 10i+10), most
 * significant bit first, 4 samples per 5 bytes. Output: float32 (values
 * -512.0..511.0) or int16 (`out_type="short"`). Only whole 5-byte groups are
 * consumed: bytes of an incomplete group wait for the next call. A tag on
 * byte b moves to sample floor(4b/5), the sample holding the byte's first
 * bit.
 *
 * With backend "cuda" the output port is a device buffer (adjacent GPU
 * blocks read it without a host copy); the input is uploaded once per item.
 */
class GPUDSP_API unpack10 : virtual public gr::block
{
public:
    typedef std::shared_ptr<unpack10> sptr;

    /*!
     * \param out_type "float" or "short"
     * \param backend "auto", "cuda" or "cpu" ("emulated" for tests)
     * \param device CUDA device index
     */
    static sptr make(const std::string& out_type = "float",
                     const std::string& backend = "auto",
                     int device = 0);

    /*! \brief The backend in use ("cuda", "cpu" or "emulated"). */
    virtual std::string backend() const = 0;
    /*! \brief The configuration that runs (CUDA: samples per thread) and
     *  where it came from: tuned, cached, shipped, the heuristic
     *  (docs/gpu.md, "Tuning"); the block logs it when made. */
    virtual std::string configuration() const = 0;
};

} // namespace gpudsp
} // namespace gr

#endif /* INCLUDED_GPUDSP_UNPACK10_H */
