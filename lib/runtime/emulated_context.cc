/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The emulated device: "device" memory is a separate host allocation,
// poisoned when allocated and freed, that the runtime must reach only
// through copy_async()/memset_async(). Every copy checks that its pointers
// lie on the side its kind says and that source and destination do not
// overlap (as cudaMemcpyAsync requires), so a host pointer used as a device
// pointer, or a device pointer handed to a host reader, is caught in CI.
// Streams and events are tokens: the CPU executes everything in order.

#include "context_factories.h"
#include <atomic>
#include <cstring>
#include <map>
#include <mutex>
#include <sstream>

namespace gr {
namespace gpudsp {
namespace runtime {
namespace detail {

namespace {

constexpr unsigned char poison_byte = 0xA5;

class emulated_context : public device_context
{
public:
    emulated_context() : device_context(backend_kind::emulated, 0) {}

    void make_current() const override {}

    void* device_alloc(std::size_t bytes, const std::string& who) override
    {
        return allocate(d_device_blocks, bytes, true);
    }
    void device_free(void* ptr) noexcept override { release(d_device_blocks, ptr, true); }
    void* host_alloc(std::size_t bytes, const std::string& who) override
    {
        return allocate(d_host_blocks, bytes, false);
    }
    void host_free(void* ptr) noexcept override { release(d_host_blocks, ptr, false); }

    void memset_async(void* device_ptr,
                      int value,
                      std::size_t bytes,
                      stream_handle,
                      const std::string& who) override
    {
        require(on_device(device_ptr, bytes), "memset_async", "destination", who);
        std::memset(device_ptr, value, bytes);
    }

    stream_handle stream_create(const std::string&) override { return token(); }
    void stream_destroy(stream_handle) noexcept override {}
    void stream_synchronize(stream_handle, const std::string&) override {}
    event_handle event_create(const std::string&) override { return token(); }
    void event_destroy(event_handle) noexcept override {}
    void event_record(event_handle, stream_handle, const std::string&) override {}
    void stream_wait_event(stream_handle, event_handle, const std::string&) override {}
    void event_synchronize(event_handle, const std::string&) override {}
    void check_last_error(const std::string&, const std::string&) override {}
    // The emulated device shares the host's memory; report a generous 64 GiB.
    std::size_t free_memory() override { return std::size_t(64) << 30; }

protected:
    void do_copy_async(void* dst,
                       const void* src,
                       std::size_t bytes,
                       copy_kind kind,
                       stream_handle,
                       const std::string& who) override
    {
        const bool dst_dev = kind != copy_kind::device_to_host;
        const bool src_dev = kind != copy_kind::host_to_device;
        require(on_device(dst, bytes) == dst_dev, "copy_async", "destination", who);
        require(on_device(src, bytes) == src_dev, "copy_async", "source", who);
        const char* d = static_cast<const char*>(dst);
        const char* s = static_cast<const char*>(src);
        if (d < s + bytes && s < d + bytes)
            throw device_error(who + ": copy_async on the emulated device: source and "
                                     "destination overlap");
        std::memcpy(dst, src, bytes);
    }

private:
    using block_map = std::map<const char*, std::size_t>;

    void* allocate(block_map& blocks, std::size_t bytes, bool device)
    {
        char* p = new char[bytes ? bytes : 1];
        std::memset(p, poison_byte, bytes);
        {
            std::lock_guard<std::mutex> lock(d_mutex);
            blocks[p] = bytes;
        }
        note_alloc(device, bytes);
        return p;
    }

    void release(block_map& blocks, void* ptr, bool device) noexcept
    {
        if (!ptr)
            return;
        std::size_t bytes = 0;
        {
            std::lock_guard<std::mutex> lock(d_mutex);
            auto it = blocks.find(static_cast<const char*>(ptr));
            if (it == blocks.end())
                return;
            bytes = it->second;
            blocks.erase(it);
        }
        std::memset(ptr, poison_byte, bytes);
        delete[] static_cast<char*>(ptr);
        note_free(device, bytes);
    }

    // True when [ptr, ptr+bytes) lies inside one emulated device allocation.
    bool on_device(const void* ptr, std::size_t bytes)
    {
        const char* p = static_cast<const char*>(ptr);
        std::lock_guard<std::mutex> lock(d_mutex);
        auto it = d_device_blocks.upper_bound(p);
        if (it == d_device_blocks.begin())
            return false;
        --it;
        return p >= it->first && p + bytes <= it->first + it->second;
    }

    static void
    require(bool ok, const char* op, const char* which, const std::string& who)
    {
        if (!ok) {
            std::ostringstream msg;
            msg << who << ": " << op << " on the emulated device: the " << which
                << " is on the wrong side (host pointer used as device memory, or "
                   "the reverse)";
            throw device_error(msg.str());
        }
    }

    stream_handle token() { return reinterpret_cast<void*>(++d_tokens); }

    std::mutex d_mutex;
    block_map d_device_blocks;
    block_map d_host_blocks;
    std::atomic<std::uintptr_t> d_tokens{ 0 };
};

} // namespace

device_context::sptr make_emulated_context()
{
    return std::make_shared<emulated_context>();
}

} // namespace detail
} // namespace runtime
} // namespace gpudsp
} // namespace gr
