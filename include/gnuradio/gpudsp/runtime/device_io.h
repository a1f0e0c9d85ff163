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

private:
    std::string d_who;
    device_stream d_stream;
};

} // namespace runtime
} // namespace gpudsp
} // namespace gr

#endif /* INCLUDED_GPUDSP_RUNTIME_DEVICE_IO_H */
