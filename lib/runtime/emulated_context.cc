/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The emulated device, on which CI runs every device code path without a
// GPU. It behaves as a GPU does where ordering is concerned, so that a
// missing event wait, a read before an upload completed or a buffer reused
// before its reader finished shows up as poison in a test rather than
// passing by luck:
//
// - "Device" memory is a separate host allocation, poisoned when allocated
//   and freed, reached only through copy_async()/memset_async() and the work
//   enqueued on streams; every copy checks that its pointers lie on the side
//   its kind says and do not overlap (as cudaMemcpyAsync requires).
// - Each stream is a worker thread running its operations in order. Every
//   operation that writes memory poisons its destination first and then
//   completes after a random delay (up to GPUDSP_EMULATED_DELAY_US, default
//   200 us; 0 for none), so a reader not ordered after it reads poison.
// - Events are honoured as CUDA defines them: a wait takes the last record
//   made before the wait was called, and waiting for an event never recorded
//   does nothing.
// - Pageable host memory behaves as in CUDA: a host-to-device copy from it
//   stages the bytes before returning; a device-to-host copy into it returns
//   when the copy is done. Frees wait for the whole device, as cudaFree does.
// - An exception from enqueued work (an emulated kernel) is kept and thrown
//   by the next synchronisation or check_last_error(), as a kernel fault is.
//
// GPUDSP_EMULATED_SYNC=1 runs every operation at once in the calling thread
// instead (the in-order device of earlier versions), for debugging.

#include "context_factories.h"
#include <condition_variable>
#include <unistd.h>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <future>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <sstream>
#include <thread>

namespace gr {
namespace gpudsp {
namespace runtime {
namespace detail {

namespace {

constexpr unsigned char poison_byte = 0xA5;

unsigned env_unsigned(const char* name, unsigned fallback)
{
    const char* v = std::getenv(name);
    return v && *v ? unsigned(std::strtoul(v, nullptr, 10)) : fallback;
}

// The host CPU's model name (/proc/cpuinfo), or its architecture.
std::string cpu_model()
{
    std::ifstream f("/proc/cpuinfo");
    std::string line;
    while (std::getline(f, line))
        if (line.compare(0, 10, "model name") == 0) {
            const auto colon = line.find(':');
            if (colon != std::string::npos && colon + 2 <= line.size())
                return line.substr(colon + 2);
        }
    return "host CPU";
}

// True in a stream's worker thread: work there must not wait for the device.
thread_local bool in_stream_worker = false;

// An event's records: numbered as made, completed in any order across
// streams; a wait is for one numbered record.
class emu_event
{
public:
    uint64_t add_record()
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        return ++d_recorded;
    }
    uint64_t last_record()
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        return d_recorded;
    }
    void complete(uint64_t record)
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        if (record > d_timed_record) {
            d_timed_record = record;
            d_time = std::chrono::steady_clock::now();
        }
        d_done.insert(record);
        while (d_done.count(d_watermark + 1)) {
            d_done.erase(d_watermark + 1);
            ++d_watermark;
        }
        d_cv.notify_all();
    }
    bool is_done(uint64_t record)
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        return done_locked(record);
    }
    void wait(uint64_t record)
    {
        std::unique_lock<std::mutex> lock(d_mutex);
        d_cv.wait(lock, [&] { return done_locked(record); });
    }

    // When the stream reached the last record (which must be done).
    std::chrono::steady_clock::time_point last_time(const std::string& who)
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        if (d_recorded == 0 || !done_locked(d_recorded) || d_timed_record != d_recorded)
            throw device_error(who + ": elapsed_seconds on the emulated device: an event "
                                     "not recorded, or not yet completed");
        return d_time;
    }

private:
    bool done_locked(uint64_t record) const
    {
        return record <= d_watermark || d_done.count(record);
    }
    std::mutex d_mutex;
    std::condition_variable d_cv;
    uint64_t d_recorded = 0, d_watermark = 0;
    std::set<uint64_t> d_done;
    uint64_t d_timed_record = 0;
    std::chrono::steady_clock::time_point d_time;
};

// One stream: a worker running its operations in order.
class emu_stream
{
public:
    explicit emu_stream(bool sync) : d_sync(sync)
    {
        if (!d_sync)
            d_worker = std::thread([this] { run(); });
    }
    ~emu_stream()
    {
        if (d_sync)
            return;
        {
            std::lock_guard<std::mutex> lock(d_mutex);
            d_stopping = true;
        }
        d_cv.notify_all();
        d_worker.join(); // after the operations still queued
    }
    void enqueue(std::function<void()> op)
    {
        if (d_sync) {
            op();
            return;
        }
        {
            std::lock_guard<std::mutex> lock(d_mutex);
            d_queue.push_back(std::move(op));
            ++d_enqueued;
        }
        d_cv.notify_all();
    }
    // Waits until every operation enqueued so far has completed.
    void drain()
    {
        if (d_sync)
            return;
        std::unique_lock<std::mutex> lock(d_mutex);
        const uint64_t target = d_enqueued;
        d_idle.wait(lock, [&] { return d_completed >= target; });
    }

private:
    void run()
    {
        in_stream_worker = true;
        std::unique_lock<std::mutex> lock(d_mutex);
        for (;;) {
            d_cv.wait(lock, [&] { return d_stopping || !d_queue.empty(); });
            if (d_queue.empty())
                return; // stopping, and nothing left
            auto op = std::move(d_queue.front());
            d_queue.pop_front();
            lock.unlock();
            op();
            op = nullptr; // what it held goes before it counts as complete
            lock.lock();
            ++d_completed;
            d_idle.notify_all();
        }
    }

    const bool d_sync;
    std::mutex d_mutex;
    std::condition_variable d_cv, d_idle;
    std::deque<std::function<void()>> d_queue;
    uint64_t d_enqueued = 0, d_completed = 0;
    bool d_stopping = false;
    std::thread d_worker;
};

class emulated_context : public device_context
{
public:
    // timing_cpu: no random delays (its work is timed) and named after the
    // CPU, for the CPU backend's tuner (cpu_timing_context).
    explicit emulated_context(bool timing_cpu = false)
        : device_context(backend_kind::emulated, 0),
          d_sync(env_unsigned("GPUDSP_EMULATED_SYNC", 0) != 0),
          d_max_delay_us(timing_cpu ? 0 : env_unsigned("GPUDSP_EMULATED_DELAY_US", 200)),
          d_timing_cpu(timing_cpu),
          d_rng(std::random_device{}())
    {
    }

    ~emulated_context() override
    {
        std::map<stream_handle, std::unique_ptr<emu_stream>> streams;
        {
            std::lock_guard<std::mutex> lock(d_mutex);
            streams.swap(d_streams);
        }
        // Destroyed here, outside the lock their work may take: drains them.
    }

    void make_current() const override {}
    bool try_make_current() const noexcept override { return true; }

    void* device_alloc(std::size_t bytes, const std::string& who) override
    {
        return allocate(d_device_blocks, bytes, true, who);
    }
    void device_free(void* ptr, const std::string& who) noexcept override
    {
        release(d_device_blocks, ptr, true, who);
    }
    void* host_alloc(std::size_t bytes, const std::string& who) override
    {
        return allocate(d_host_blocks, bytes, false, who);
    }
    void host_free(void* ptr, const std::string& who) noexcept override
    {
        release(d_host_blocks, ptr, false, who);
    }

    void memset_async(void* device_ptr,
                      int value,
                      std::size_t bytes,
                      stream_handle stream,
                      const std::string& who) override
    {
        require(
            on(d_device_blocks, device_ptr, bytes), "memset_async", "destination", who);
        get_stream(stream).enqueue([this, device_ptr, value, bytes] {
            poison_then_delay({ { device_ptr, bytes } });
            std::memset(device_ptr, value, bytes);
        });
    }

    stream_handle stream_create(const std::string&) override
    {
        auto s = std::make_unique<emu_stream>(d_sync);
        stream_handle h = s.get();
        std::lock_guard<std::mutex> lock(d_mutex);
        d_streams.emplace(h, std::move(s));
        return h;
    }
    void stream_destroy(stream_handle stream) noexcept override
    {
        std::unique_ptr<emu_stream> s;
        {
            std::lock_guard<std::mutex> lock(d_mutex);
            auto it = d_streams.find(stream);
            if (it == d_streams.end())
                return;
            s = std::move(it->second);
            d_streams.erase(it);
        }
        // Its queued work completes first (the destructor drains it).
    }
    void stream_synchronize(stream_handle stream, const std::string& who) override
    {
        note_synchronization(who);
        get_stream(stream).drain();
        raise_async_error(who);
    }
    event_handle event_create(const std::string&) override
    {
        auto e = std::make_shared<emu_event>();
        event_handle h = e.get();
        std::lock_guard<std::mutex> lock(d_mutex);
        d_events.emplace(h, std::move(e));
        return h;
    }
    event_handle timer_create(const std::string& who) override
    {
        return event_create(who); // every emulated event keeps its time
    }
    double
    elapsed_seconds(event_handle start, event_handle end, const std::string& who) override
    {
        const auto t0 = get_event(start)->last_time(who);
        const auto t1 = get_event(end)->last_time(who);
        return std::chrono::duration<double>(t1 - t0).count();
    }
    device_info info() const override
    {
        // The host CPU stands for the device: its model, threads and L2.
        device_info d;
        d.index = 0;
        d.name = d_timing_cpu ? "CPU (" + cpu_model() + ")"
                              : "emulated device (" + cpu_model() + ")";
        d.multiprocessors = int(std::max(1u, std::thread::hardware_concurrency()));
        const long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
        d.l2_bytes = l2 > 0 ? std::size_t(l2) : std::size_t(1) << 20;
        d.total_memory = free_memory_bytes;
        return d;
    }
    void event_destroy(event_handle event) noexcept override
    {
        // Work already enqueued keeps the event alive until it is done.
        std::lock_guard<std::mutex> lock(d_mutex);
        d_events.erase(event);
    }
    void
    event_record(event_handle event, stream_handle stream, const std::string&) override
    {
        auto e = get_event(event);
        const uint64_t record = e->add_record();
        get_stream(stream).enqueue([e, record] { e->complete(record); });
    }
    void stream_wait_event(stream_handle stream,
                           event_handle event,
                           const std::string&) override
    {
        auto e = get_event(event);
        const uint64_t record = e->last_record();
        if (record == 0)
            return; // never recorded: nothing to wait for, as in CUDA
        get_stream(stream).enqueue([e, record] { e->wait(record); });
    }
    void event_synchronize(event_handle event, const std::string& who) override
    {
        note_synchronization(who);
        auto e = get_event(event);
        e->wait(e->last_record());
        raise_async_error(who);
    }
    bool event_query(event_handle event, const std::string&) override
    {
        auto e = get_event(event);
        return e->is_done(e->last_record());
    }
    void enqueue_host_work(stream_handle stream,
                           std::function<void()> work,
                           std::vector<memory_span> written,
                           const std::string& who) override
    {
        for (const auto& w : written)
            require(on(d_device_blocks, w.data, w.bytes) ||
                        on(d_host_blocks, w.data, w.bytes),
                    "enqueued work",
                    "memory it writes",
                    who);
        get_stream(stream).enqueue(
            [this, work = std::move(work), written = std::move(written), who] {
                poison_then_delay(written);
                try {
                    work();
                } catch (const std::exception& e) {
                    keep_async_error(who + ": " + e.what());
                } catch (...) {
                    keep_async_error(who + ": enqueued work failed");
                }
            });
    }
    void check_last_error(const std::string&, const std::string& who) override
    {
        raise_async_error(who);
    }
    // The emulated device shares the host's memory; report a generous 64 GiB.
    static constexpr std::size_t free_memory_bytes = std::size_t(64) << 30;
    std::size_t free_memory() override { return free_memory_bytes; }

protected:
    void do_copy_async(void* dst,
                       const void* src,
                       std::size_t bytes,
                       copy_kind kind,
                       stream_handle stream,
                       const std::string& who) override
    {
        const bool dst_dev = kind != copy_kind::device_to_host;
        const bool src_dev = kind != copy_kind::host_to_device;
        require(
            on(d_device_blocks, dst, bytes) == dst_dev, "copy_async", "destination", who);
        require(on(d_device_blocks, src, bytes) == src_dev, "copy_async", "source", who);
        const char* d = static_cast<const char*>(dst);
        const char* s = static_cast<const char*>(src);
        if (d < s + bytes && s < d + bytes)
            throw device_error(who + ": copy_async on the emulated device: source and "
                                     "destination overlap");
        auto& st = get_stream(stream);
        if (kind == copy_kind::host_to_device && !on(d_host_blocks, src, bytes)) {
            // Pageable source: staged before the call returns.
            auto staged = std::make_shared<std::vector<char>>(s, s + bytes);
            st.enqueue([this, dst, staged, bytes] {
                poison_then_delay({ { dst, bytes } });
                std::memcpy(dst, staged->data(), bytes);
            });
            return;
        }
        auto copy = [this, dst, src, bytes] {
            poison_then_delay({ { dst, bytes } });
            std::memcpy(dst, src, bytes);
        };
        if (kind == copy_kind::device_to_host && !on(d_host_blocks, dst, bytes)) {
            // Pageable destination: the call returns when the copy is done.
            note_synchronization(who);
            auto done = std::make_shared<std::promise<void>>();
            auto finished = done->get_future();
            st.enqueue([copy, done] {
                copy();
                done->set_value();
            });
            finished.wait();
            return;
        }
        st.enqueue(copy);
    }

private:
    using block_map = std::map<const char*, std::size_t>;

    void*
    allocate(block_map& blocks, std::size_t bytes, bool device, const std::string& who)
    {
        char* p = new char[bytes ? bytes : 1];
        std::memset(p, poison_byte, bytes);
        {
            std::lock_guard<std::mutex> lock(d_mutex);
            blocks[p] = bytes;
        }
        note_alloc(device, bytes, who);
        return p;
    }

    void
    release(block_map& blocks, void* ptr, bool device, const std::string& who) noexcept
    {
        if (!ptr)
            return;
        wait_for_device(); // as cudaFree and cudaFreeHost do
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
        note_free(device, bytes, who);
    }

    void wait_for_device() noexcept
    {
        if (in_stream_worker)
            return; // work must not wait for the device it runs on
        std::vector<emu_stream*> all;
        {
            std::lock_guard<std::mutex> lock(d_mutex);
            for (auto& kv : d_streams)
                all.push_back(kv.second.get());
        }
        for (auto* s : all)
            s->drain();
    }

    // Poisons what an operation is about to write, then lets time pass.
    void poison_then_delay(const std::vector<memory_span>& written)
    {
        for (const auto& w : written)
            std::memset(w.data, poison_byte, w.bytes);
        if (d_max_delay_us == 0)
            return;
        unsigned us;
        {
            std::lock_guard<std::mutex> lock(d_rng_mutex);
            // Half the operations complete at once, the others within the maximum.
            us = std::uniform_int_distribution<unsigned>(0, 2 * d_max_delay_us)(d_rng);
        }
        if (us > d_max_delay_us)
            std::this_thread::sleep_for(std::chrono::microseconds(us - d_max_delay_us));
    }

    // True when [ptr, ptr+bytes) lies inside one allocation of \p blocks.
    bool on(const block_map& blocks, const void* ptr, std::size_t bytes)
    {
        const char* p = static_cast<const char*>(ptr);
        std::lock_guard<std::mutex> lock(d_mutex);
        auto it = blocks.upper_bound(p);
        if (it == blocks.begin())
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

    emu_stream& get_stream(stream_handle h)
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        if (!h) { // the default stream
            if (!d_default)
                d_default = std::make_unique<emu_stream>(d_sync);
            return *d_default;
        }
        auto it = d_streams.find(h);
        if (it == d_streams.end())
            throw device_error("emulated device: unknown or destroyed stream");
        return *it->second;
    }

    std::shared_ptr<emu_event> get_event(event_handle h)
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        auto it = d_events.find(h);
        if (it == d_events.end())
            throw device_error("emulated device: unknown or destroyed event");
        return it->second;
    }

    void keep_async_error(const std::string& what)
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        if (d_async_error.empty())
            d_async_error = what;
    }
    void raise_async_error(const std::string& who)
    {
        std::string what;
        {
            std::lock_guard<std::mutex> lock(d_mutex);
            what.swap(d_async_error);
        }
        if (!what.empty())
            throw device_error(who + ": work on the emulated device failed: " + what);
    }

    const bool d_sync;
    const unsigned d_max_delay_us;
    const bool d_timing_cpu;
    std::mutex d_mutex;
    block_map d_device_blocks;
    block_map d_host_blocks;
    std::map<stream_handle, std::unique_ptr<emu_stream>> d_streams;
    std::unique_ptr<emu_stream> d_default;
    std::map<event_handle, std::shared_ptr<emu_event>> d_events;
    std::string d_async_error;
    std::mutex d_rng_mutex;
    std::mt19937 d_rng;
};

} // namespace

device_context::sptr make_emulated_context()
{
    return std::make_shared<emulated_context>();
}

device_context::sptr cpu_timing_context()
{
    static const device_context::sptr ctx = std::make_shared<emulated_context>(true);
    return ctx;
}

} // namespace detail
} // namespace runtime
} // namespace gpudsp
} // namespace gr
