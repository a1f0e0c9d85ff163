/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUDSP_RUNTIME_DEVICE_BUFFER_H
#define INCLUDED_GPUDSP_RUNTIME_DEVICE_BUFFER_H

#include <gnuradio/buffer_single_mapped.h>
#include <gnuradio/buffer_type.h>
#include <gnuradio/gpudsp/api.h>
#include <gnuradio/gpudsp/runtime/device_context.h>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace gr {
namespace gpudsp {
namespace runtime {

/*!
 * \brief Implemented by every GPU block: the CUDA device its buffers live on.
 */
class GPUDSP_API device_block
{
public:
    virtual ~device_block() = default;
    virtual int device_index() const = 0;
};

/*!
 * \brief A GNU Radio 3.10 custom buffer holding a stream in device memory.
 *
 * GPU blocks declare it on their ports
 * (`io_signature::make(1, 1, itemsize, device_buffer::type)`); adjacent GPU
 * blocks then exchange device pointers with no host copy, and a host/device
 * boundary copies each item exactly once (in post_work()).
 *
 * Ordering uses events, not stream synchronisation: a GPU writer records
 * "written" after enqueueing its work, a GPU reader's stream waits on it; a
 * GPU reader records "read" per reader, the writer's stream waits on those
 * before reusing space. Each upload from a host writer records its own
 * event for the region it reads, so the host writer waits only when it is
 * about to overwrite pinned memory an upload still reads (in steady state
 * never: uploads of consecutive calls overlap the readers' kernels). The CPU
 * also waits where a host reader needs the bytes (device-to-host edges) and
 * in the rare realignment callbacks. GPU blocks use gpudsp::runtime::device_io
 * rather than calling the ordering methods directly.
 *
 * Device memory is allocated with the buffer and zeroed, so history preload
 * reads zeros; the pinned host mirror only when a host writer or reader
 * first uses it (the transfer type is not known at allocation), zeroed too.
 * After a realignment the two copies are made equal again.
 *
 * The buffer size has a floor, GPUDSP_MIN_BUFFER_BYTES in the environment
 * (default 4 MiB; 0 turns it off), so GPU blocks see large batches.
 */
class GPUDSP_API device_buffer : public gr::buffer_single_mapped
{
public:
    static gr::buffer_type type;          //!< on a CUDA device
    static gr::buffer_type emulated_type; //!< on the emulated device (tests)

    /*! \brief The port buffer type for a backend (the default
     *  double-mapped buffer for the CPU backend). */
    static gr::buffer_type type_for(backend_kind kind);

    ~device_buffer() override;

    void* write_pointer() override;
    const void* _read_pointer(unsigned int read_index) override;
    void post_work(int nitems) override;
    bool input_blocked_callback(int items_required,
                                int items_avail,
                                unsigned read_index) override;
    bool output_blocked_callback(int output_multiple, bool force) override;

    // Ordering for GPU blocks (see device_io).
    void wait_for_data(stream_handle reader_stream);
    void mark_read(const gr::buffer_reader* reader, stream_handle reader_stream);
    void wait_for_space(stream_handle writer_stream);
    void mark_written(stream_handle writer_stream);

    /*! \brief Copies this buffer made between host and device for the
     *  stream itself (post_work: each item once). The copies GNU Radio's
     *  realignment callbacks force are counted by realignments() instead. */
    transfer_counters counters() const;
    uint64_t realignments() const;
    /*! \brief Times the host writer (write_pointer()) waited for uploads
     *  still reading the part of the pinned mirror it was about to fill. */
    uint64_t writer_waits() const;

    const device_context::sptr& context() const { return d_ctx; }
    char* device_base() const { return d_device->get(); }

    /*! \brief Empty, or why this buffer will never be written (its writer's
     *  output was replaced again) and what to do instead. Topologies that can
     *  be recognised while the flowgraph is set up are refused then, by an
     *  exception from top_block::start(). */
    std::string topology_error();

    /*! \brief Smallest buffer in bytes (GPUDSP_MIN_BUFFER_BYTES). */
    static std::size_t min_buffer_bytes();

protected:
    bool do_allocate_buffer(size_t final_nitems, size_t sizeof_item) override;

private:
    template <backend_kind K>
    friend struct device_buffer_factory;

    device_buffer(device_context::sptr ctx,
                  int nitems,
                  size_t sizeof_item,
                  uint64_t downstream_lcm_nitems,
                  uint32_t downstream_max_out_mult,
                  gr::block_sptr link,
                  gr::block_sptr buf_owner);

    static void refuse_orphaning_replacement(const gr::block_sptr& link,
                                             const gr::block_sptr& owner,
                                             int nitems,
                                             size_t sizeof_item,
                                             uint64_t downstream_lcm_nitems,
                                             uint32_t downstream_max_out_mult);
    void require_transfer_type(const char* where) const;
    void quiesce();
    void device_move(char* dst, const char* src, std::size_t bytes);
    void propagate_host_to_device();
    void count(copy_kind kind, std::size_t bytes);
    char* host_mirror();
    bool wait_for_uploads_reading_from(std::size_t offset);

    // An upload in flight from host bytes [begin, end) of the mirror.
    struct upload {
        std::size_t begin, end;
        std::unique_ptr<device_event> done;
    };

    device_context::sptr d_ctx;
    std::string d_who;
    std::unique_ptr<device_memory> d_device;
    std::unique_ptr<pinned_memory> d_host; // host writer or reader only
    std::deque<upload> d_uploads;
    std::vector<std::unique_ptr<device_event>> d_spare_events;
    std::unique_ptr<device_memory> d_scratch; // lazily, for overlapping device moves
    device_stream d_stream;                   // this buffer's copies and moves
    device_event d_written; // device data up to the write index is valid
    device_event d_copied;  // last post_work copy completed
    std::mutex d_event_mutex;
    std::map<const gr::buffer_reader*, std::unique_ptr<device_event>> d_read_events;
    mutable std::mutex d_count_mutex;
    transfer_counters d_counters;
    uint64_t d_realignments = 0;
    uint64_t d_writer_waits = 0;
};

} // namespace runtime
} // namespace gpudsp
} // namespace gr

#endif /* INCLUDED_GPUDSP_RUNTIME_DEVICE_BUFFER_H */
