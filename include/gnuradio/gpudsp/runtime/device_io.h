/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUDSP_RUNTIME_DEVICE_IO_H
#define INCLUDED_GPUDSP_RUNTIME_DEVICE_IO_H

#include <gnuradio/block.h>
#include <gnuradio/gpudsp/api.h>
#include <gnuradio/gpudsp/runtime/device_buffer.h>
#include <memory>
#include <vector>

namespace gr {
namespace gpudsp {
namespace runtime {

/*!
 * \brief How a GPU block's work() is ordered against its neighbours.
 *
 * A GPU block owns one device_io. In work(): begin(), enqueue all its
 * device work on stream(), end(), then return (GNU Radio's produce/consume
 * follow). begin() makes the stream wait for the inputs' data and the
 * outputs' free space; end() records that the work read the inputs and
 * wrote the outputs. Nothing here blocks the CPU.
 */
class GPUDSP_API device_io
{
public:
    device_io(device_context::sptr ctx, const std::string& who);

    void begin(gr::block& blk);
    void end(gr::block& blk);
    stream_handle stream() const { return d_stream.get(); }
    const device_context::sptr& context() const { return d_stream.context(); }
    void synchronize() const { d_stream.synchronize(); }

    /*! \brief Throws std::runtime_error, with advice, when a port of \p blk
     *  sits in a topology the 3.10.5.1 runtime cannot run. Call in start(). */
    static void check_topology(gr::block& blk);

    /*! \brief The device buffer on an input or output port, or nullptr when
     *  the port has a host buffer (or the flowgraph is not set up). */
    static std::shared_ptr<device_buffer> input_buffer(gr::block& blk, int port);
    static std::shared_ptr<device_buffer> output_buffer(gr::block& blk, int port);

    /*! \brief Device pointers to item \p lo of each of \p blk's inputs
     *  \p in (call between begin() and end()).
     *
     * A device buffer is read in place. A host buffer (GNU Radio 3.10's
     * block::replace_buffer() gives a host writer's replacement the type of
     * the reader's *output* port, so a GPU block with a host output keeps
     * host inputs) has items [lo, hi) uploaded on stream() into a staging
     * area the size of that buffer, made on first use.
     */
    std::vector<const void*> device_inputs(gr::block& blk,
                                           const gr_vector_const_void_star& in,
                                           int64_t lo,
                                           int64_t hi);

private:
    std::string d_who;
    device_stream d_stream;
    std::vector<std::unique_ptr<device_memory>> d_staged; // per input, host-fed ones
};

} // namespace runtime
} // namespace gpudsp
} // namespace gr

#endif /* INCLUDED_GPUDSP_RUNTIME_DEVICE_IO_H */
