/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <gnuradio/block.h>
#include <gnuradio/block_detail.h>
#include <gnuradio/buffer_double_mapped.h>
#include <gnuradio/buffer_reader.h>
#include <gnuradio/gpudsp/runtime/device_buffer.h>
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <sstream>

namespace gr {
namespace gpudsp {
namespace runtime {

namespace {

// GNU Radio's unique name ("device_copy(40)"): aliases repeat, and the
// device's activity is counted per name.
std::string name_of(const gr::block_sptr& blk)
{
    return blk ? blk->identifier() : std::string("?");
}

} // namespace

// One factory per memory kind: GNU Radio tells buffer types apart by the
// name of the first template argument of buftype<>.
template <backend_kind K>
struct device_buffer_factory {
    static gr::buffer_sptr make_buffer(int nitems,
                                       size_t sizeof_item,
                                       uint64_t downstream_lcm_nitems,
                                       uint32_t downstream_max_out_mult,
                                       gr::block_sptr link,
                                       gr::block_sptr buf_owner)
    {
        // The buffer lives on the device of the GPU block that owns it: the
        // writer for an output buffer, the reader for a replaced one.
        auto* owner = dynamic_cast<device_block*>(buf_owner.get());
        const int device = owner ? owner->device_index() : 0;
        return gr::buffer_sptr(new device_buffer(device_context::get(K, device),
                                                 nitems,
                                                 sizeof_item,
                                                 downstream_lcm_nitems,
                                                 downstream_max_out_mult,
                                                 link,
                                                 buf_owner));
    }
};

gr::buffer_type
    device_buffer::type(gr::buftype<device_buffer_factory<backend_kind::cuda>,
                                    device_buffer_factory<backend_kind::cuda>>{});
gr::buffer_type device_buffer::emulated_type(
    gr::buftype<device_buffer_factory<backend_kind::emulated>,
                device_buffer_factory<backend_kind::emulated>>{});

gr::buffer_type device_buffer::type_for(backend_kind kind)
{
    switch (kind) {
    case backend_kind::cuda:
        return type;
    case backend_kind::emulated:
        return emulated_type;
    case backend_kind::cpu:
        break;
    }
    return gr::buffer_double_mapped::type;
}

std::size_t device_buffer::min_buffer_bytes()
{
    const char* env = std::getenv("GPUDSP_MIN_BUFFER_BYTES");
    if (env && *env)
        return static_cast<std::size_t>(std::strtoull(env, nullptr, 10));
    return std::size_t(4) << 20;
}

namespace {

int requested_items(int nitems, size_t sizeof_item)
{
    const std::size_t floor_bytes = device_buffer::min_buffer_bytes();
    const std::size_t floor_items = (floor_bytes + sizeof_item - 1) / sizeof_item;
    return static_cast<int>(std::max<std::size_t>(nitems, floor_items));
}

} // namespace

device_buffer::device_buffer(device_context::sptr ctx,
                             int nitems,
                             size_t sizeof_item,
                             uint64_t downstream_lcm_nitems,
                             uint32_t downstream_max_out_mult,
                             gr::block_sptr link,
                             gr::block_sptr buf_owner)
    : gr::buffer_single_mapped(requested_items(nitems, sizeof_item),
                               sizeof_item,
                               downstream_lcm_nitems,
                               downstream_max_out_mult,
                               link,
                               buf_owner),
      d_ctx(ctx),
      d_who("device_buffer of " + name_of(buf_owner)),
      d_stream(ctx, d_who),
      d_written(ctx, d_who),
      d_copied(ctx, d_who)
{
    if (link && buf_owner && link != buf_owner)
        refuse_orphaning_replacement(link,
                                     buf_owner,
                                     nitems,
                                     sizeof_item,
                                     downstream_lcm_nitems,
                                     downstream_max_out_mult);
    if (!allocate_buffer(requested_items(nitems, sizeof_item)))
        throw std::bad_alloc();
    // GNU Radio 3.10.5.1 keeps the owner block in a shared_ptr, closing a
    // cycle block -> detail -> buffer -> block that is never freed. Nothing
    // in 3.10.5.1 reads it beyond buf_owner(), so drop it.
    d_buf_owner.reset();
}

device_buffer::~device_buffer()
{
    try {
        quiesce();
    } catch (...) {
        // Destruction must not throw; the device error was already reported
        // to the block that caused it.
    }
}

bool device_buffer::do_allocate_buffer(size_t final_nitems, size_t sizeof_item)
{
    const std::size_t bytes = final_nitems * sizeof_item;
    d_device = std::make_unique<device_memory>(d_ctx, bytes, d_who);
    // Zeroed: history preload must read zeros.
    d_ctx->memset_async(d_device->get(), 0, bytes, d_stream.get(), d_who);
    d_stream.synchronize();
    // GNU Radio's own code never dereferences d_base of a buffer whose
    // pointers we hand out; it must not be null.
    d_base = d_device->get();
    return true;
}

char* device_buffer::host_mirror()
{
    if (!d_host) {
        const std::size_t bytes = std::size_t(d_bufsize) * d_sizeof_item;
        d_host = std::make_unique<pinned_memory>(d_ctx, bytes, d_who);
        std::memset(d_host->get(), 0, bytes); // as the device side
    }
    return d_host->get();
}

// The host writer will write from \p offset onwards (never past the end: no
// wrap in single-mapped buffers); uploads still reading that part of the
// mirror must finish first. Uploads complete in order (one stream), so
// waiting for the last one that reads there waits for all before it.
// Returns whether the host waited.
bool device_buffer::wait_for_uploads_reading_from(std::size_t offset)
{
    bool waited = false;
    for (auto it = d_uploads.rbegin(); it != d_uploads.rend(); ++it)
        if (it->end > offset) {
            if (!d_ctx->event_query(it->done->get(), d_who)) {
                it->done->synchronize();
                waited = true;
            }
            break;
        }
    while (!d_uploads.empty() &&
           d_ctx->event_query(d_uploads.front().done->get(), d_who)) {
        d_spare_events.push_back(std::move(d_uploads.front().done));
        d_uploads.pop_front();
    }
    return waited;
}

void device_buffer::require_transfer_type(const char* where) const
{
    if (d_transfer_type == gr::transfer_type::HOST_TO_DEVICE ||
        d_transfer_type == gr::transfer_type::DEVICE_TO_HOST ||
        d_transfer_type == gr::transfer_type::DEVICE_TO_DEVICE)
        return;
    std::ostringstream msg;
    msg << d_who << ": " << where << " with transfer type " << d_transfer_type
        << " (a device buffer joins a GPU block to another block; "
           "was the flowgraph reconfigured while locked?)";
    throw std::runtime_error(msg.str());
}

void* device_buffer::write_pointer()
{
    require_transfer_type("write_pointer");
    const std::size_t offset = std::size_t(d_write_index) * d_sizeof_item;
    if (d_transfer_type == gr::transfer_type::HOST_TO_DEVICE) {
        // The host writer is about to fill pinned memory: uploads still
        // reading it must have finished.
        char* host = host_mirror();
        if (wait_for_uploads_reading_from(offset)) {
            std::lock_guard<std::mutex> lock(d_count_mutex);
            d_writer_waits++;
        }
        return host + offset;
    }
    return d_device->get() + offset;
}

const void* device_buffer::_read_pointer(unsigned int read_index)
{
    require_transfer_type("read_pointer");
    const std::size_t offset = std::size_t(read_index) * d_sizeof_item;
    if (d_transfer_type == gr::transfer_type::DEVICE_TO_HOST) {
        // A host reader needs the bytes now: the CPU waits, unless the
        // copies are done already.
        char* host = host_mirror();
        if (!d_ctx->event_query(d_copied.get(), d_who))
            d_copied.synchronize();
        return host + offset;
    }
    return d_device->get() + offset;
}

void device_buffer::post_work(int nitems)
{
    if (nitems <= 0)
        return;
    require_transfer_type("post_work");
    // The write index has not advanced yet: [write index, +nitems) is new.
    const std::size_t offset = std::size_t(d_write_index) * d_sizeof_item;
    const std::size_t bytes = std::size_t(nitems) * d_sizeof_item;
    switch (d_transfer_type) {
    case gr::transfer_type::HOST_TO_DEVICE:
        // GNU Radio freed this space when the GPU readers' work() returned,
        // but their kernels may still be reading it: the upload waits.
        wait_for_space(d_stream.get());
        d_ctx->copy_async(d_device->get() + offset,
                          host_mirror() + offset,
                          bytes,
                          copy_kind::host_to_device,
                          d_stream.get(),
                          d_who);
        d_written.record(d_stream.get());
        {
            upload u{ offset, offset + bytes, nullptr };
            if (d_spare_events.empty()) {
                u.done = std::make_unique<device_event>(d_ctx, d_who);
            } else {
                u.done = std::move(d_spare_events.back());
                d_spare_events.pop_back();
            }
            u.done->record(d_stream.get());
            d_uploads.push_back(std::move(u));
        }
        count(copy_kind::host_to_device, bytes);
        break;
    case gr::transfer_type::DEVICE_TO_HOST:
        d_written.wait_in(d_stream.get());
        d_ctx->copy_async(host_mirror() + offset,
                          d_device->get() + offset,
                          bytes,
                          copy_kind::device_to_host,
                          d_stream.get(),
                          d_who);
        d_copied.record(d_stream.get());
        count(copy_kind::device_to_host, bytes);
        break;
    default: // device to device: the data is already where the reader reads
        break;
    }
}

void device_buffer::wait_for_data(stream_handle reader_stream)
{
    d_written.wait_in(reader_stream);
}

void device_buffer::mark_read(const gr::buffer_reader* reader,
                              stream_handle reader_stream)
{
    std::lock_guard<std::mutex> lock(d_event_mutex);
    auto& ev = d_read_events[reader];
    if (!ev)
        ev = std::make_unique<device_event>(d_ctx, d_who);
    ev->record(reader_stream);
}

void device_buffer::wait_for_space(stream_handle writer_stream)
{
    std::lock_guard<std::mutex> lock(d_event_mutex);
    for (auto& kv : d_read_events)
        kv.second->wait_in(writer_stream);
    // A device-to-host copy still reading the space also holds it.
    d_copied.wait_in(writer_stream);
}

void device_buffer::mark_written(stream_handle writer_stream)
{
    d_written.record(writer_stream);
}

void device_buffer::quiesce()
{
    d_written.synchronize();
    d_copied.synchronize();
    wait_for_uploads_reading_from(0);
    std::lock_guard<std::mutex> lock(d_event_mutex);
    for (auto& kv : d_read_events)
        kv.second->synchronize();
    d_stream.synchronize();
}

void device_buffer::count(copy_kind kind, std::size_t bytes)
{
    std::lock_guard<std::mutex> lock(d_count_mutex);
    if (kind == copy_kind::host_to_device) {
        d_counters.h2d_calls++;
        d_counters.h2d_bytes += bytes;
    } else if (kind == copy_kind::device_to_host) {
        d_counters.d2h_calls++;
        d_counters.d2h_bytes += bytes;
    } else {
        d_counters.d2d_calls++;
        d_counters.d2d_bytes += bytes;
    }
}

transfer_counters device_buffer::counters() const
{
    std::lock_guard<std::mutex> lock(d_count_mutex);
    return d_counters;
}

uint64_t device_buffer::realignments() const
{
    std::lock_guard<std::mutex> lock(d_count_mutex);
    return d_realignments;
}

uint64_t device_buffer::writer_waits() const
{
    std::lock_guard<std::mutex> lock(d_count_mutex);
    return d_writer_waits;
}

// memmove within device memory. Device copies must not overlap, so an
// overlapping move goes in chunks no longer than the distance moved (each
// chunk's source is read before a later chunk overwrites it: same stream,
// in order), or through a scratch area when that would take many chunks.
void device_buffer::device_move(char* dst, const char* src, std::size_t bytes)
{
    if (bytes == 0 || dst == src)
        return;
    const std::size_t distance = dst > src ? dst - src : src - dst;
    const auto d2d = copy_kind::device_to_device;
    if (distance >= bytes) {
        d_ctx->copy_async(dst, src, bytes, d2d, d_stream.get(), d_who);
    } else if (bytes <= 8 * distance) {
        // Forward when moving down, backward when moving up.
        const std::size_t n_chunks = (bytes + distance - 1) / distance;
        for (std::size_t i = 0; i < n_chunks; ++i) {
            const std::size_t k = dst < src ? i : n_chunks - 1 - i;
            const std::size_t off = k * distance;
            const std::size_t len = std::min(distance, bytes - off);
            d_ctx->copy_async(dst + off, src + off, len, d2d, d_stream.get(), d_who);
        }
    } else {
        if (!d_scratch)
            d_scratch = std::make_unique<device_memory>(d_ctx, d_device->size(), d_who);
        d_ctx->copy_async(d_scratch->get(), src, bytes, d2d, d_stream.get(), d_who);
        d_ctx->copy_async(dst, d_scratch->get(), bytes, d2d, d_stream.get(), d_who);
    }
}

void device_buffer::propagate_host_to_device()
{
    // Realignment leaves every item still to be read in [0, write index).
    d_ctx->copy_async(d_device->get(),
                      host_mirror(),
                      std::size_t(d_write_index) * d_sizeof_item,
                      copy_kind::host_to_device,
                      d_stream.get(),
                      d_who);
}

bool device_buffer::input_blocked_callback(int items_required,
                                           int items_avail,
                                           unsigned read_index)
{
    require_transfer_type("input_blocked_callback");
    quiesce();
    bool moved = false;
    if (d_transfer_type == gr::transfer_type::DEVICE_TO_DEVICE) {
        moved = input_blocked_callback_logic(
            items_required,
            items_avail,
            read_index,
            d_device->get(),
            [this](void* d, const void* s, std::size_t n) {
                device_move(static_cast<char*>(d), static_cast<const char*>(s), n);
                return d;
            },
            [this](void* d, const void* s, std::size_t n) {
                device_move(static_cast<char*>(d), static_cast<const char*>(s), n);
                return d;
            });
    } else {
        // Both sides hold every unread item: realign the host copy (plain
        // memmove), then make the device copy equal to it.
        moved = input_blocked_callback_logic(items_required,
                                             items_avail,
                                             read_index,
                                             host_mirror(),
                                             std::memcpy,
                                             std::memmove);
        if (moved)
            propagate_host_to_device();
    }
    if (moved) {
        d_stream.synchronize();
        std::lock_guard<std::mutex> lock(d_count_mutex);
        d_realignments++;
    }
    return moved;
}

bool device_buffer::output_blocked_callback(int output_multiple, bool force)
{
    require_transfer_type("output_blocked_callback");
    quiesce();
    bool moved = false;
    if (d_transfer_type == gr::transfer_type::DEVICE_TO_DEVICE) {
        moved = output_blocked_callback_logic(
            output_multiple,
            force,
            d_device->get(),
            [this](void* d, const void* s, std::size_t n) {
                device_move(static_cast<char*>(d), static_cast<const char*>(s), n);
                return d;
            });
    } else {
        moved = output_blocked_callback_logic(
            output_multiple, force, host_mirror(), std::memmove);
        if (moved)
            propagate_host_to_device();
    }
    if (moved) {
        d_stream.synchronize();
        std::lock_guard<std::mutex> lock(d_count_mutex);
        d_realignments++;
    }
    return moved;
}

namespace {

const char* const topology_advice =
    " GNU Radio 3.10.5.1 cannot run this: replacing a host block's buffer "
    "with a device buffer orphans the readers it already had. Connect the "
    "host output to ONE GPU block (gpudsp.device_copy moves a stream to the "
    "GPU) and fan out from that block's output; give host readers their own "
    "host path (e.g. a blocks.copy before the GPU branch).";

} // namespace

// Called for a buffer made by replace_buffer(): a host block (link) feeding
// a GPU block (owner). If the buffer being replaced already has readers,
// they would never see data again and the flowgraph would hang, so refuse
// now, while tb.start() can still report it. replace_buffer() does not say
// which port it replaces; it passes that buffer's own sizes, so a unique
// match among the writer's outputs identifies it.
void device_buffer::refuse_orphaning_replacement(const gr::block_sptr& link,
                                                 const gr::block_sptr& owner,
                                                 int nitems,
                                                 size_t sizeof_item,
                                                 uint64_t downstream_lcm_nitems,
                                                 uint32_t downstream_max_out_mult)
{
    auto detail = link->detail();
    if (!detail)
        return;
    gr::buffer_sptr replaced;
    int matches = 0;
    for (int p = 0; p < detail->noutputs(); ++p) {
        auto b = detail->output(p);
        if (b && static_cast<int>(b->bufsize()) == nitems &&
            b->get_sizeof_item() == sizeof_item &&
            b->get_downstream_lcm_nitems() == downstream_lcm_nitems &&
            b->get_max_reader_output_multiple() == downstream_max_out_mult) {
            replaced = b;
            ++matches;
        }
    }
    if (matches != 1 || replaced->nreaders() == 0)
        return;
    const bool gpu_readers = dynamic_cast<device_buffer*>(replaced.get()) != nullptr;
    throw std::runtime_error(
        owner->alias() + ": the output of '" + link->alias() + "' is read by " +
        (gpu_readers ? "several GPU blocks" : "both host and GPU blocks") + "." +
        topology_advice);
}

std::string device_buffer::topology_error()
{
    // The construction-time refusal cannot tell ports apart when a writer has
    // several outputs of identical size; an orphaned buffer is found here.
    auto writer = link();
    if (!writer || !writer->detail())
        return "";
    auto detail = writer->detail();
    for (int p = 0; p < detail->noutputs(); ++p)
        if (detail->output(p).get() == this)
            return "";
    return "the output of '" + writer->alias() +
           "' feeds several blocks through replaced buffers, so this one is no "
           "longer written." +
           topology_advice;
}

} // namespace runtime
} // namespace gpudsp
} // namespace gr
