/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUDSP_RUNTIME_DEVICE_CONTEXT_H
#define INCLUDED_GPUDSP_RUNTIME_DEVICE_CONTEXT_H

#include <gnuradio/gpudsp/api.h>
#include <gnuradio/gpudsp/runtime/backend.h>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace gr {
namespace gpudsp {
namespace runtime {

/*! \brief A failed device operation; the message names the operation, the
 *  block (or plan) that asked for it and the device's own error text. */
class GPUDSP_API device_error : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

enum class copy_kind { host_to_device, device_to_host, device_to_device };

/*! \brief Counts of copies made through one device context. */
struct GPUDSP_API transfer_counters {
    uint64_t h2d_calls = 0, h2d_bytes = 0;
    uint64_t d2h_calls = 0, d2h_bytes = 0;
    uint64_t d2d_calls = 0, d2d_bytes = 0;
};

/*! \brief Memory currently held through one device context. */
struct GPUDSP_API memory_usage {
    std::size_t device_bytes = 0, device_allocations = 0;
    std::size_t host_bytes = 0, host_allocations = 0; //!< pinned host memory
};

/*!
 * \brief What a device context was asked to do beyond enqueueing work, per
 * caller (`who`): the costs that steady-state work() must not pay.
 */
struct GPUDSP_API activity_counters {
    uint64_t allocations = 0; //!< device or pinned allocations
    uint64_t frees = 0;       //!< device or pinned frees (they synchronise the device)
    uint64_t synchronizations = 0; //!< calls that make the host wait for the device
    uint64_t plans = 0;            //!< library plans made (cuFFT)
};

using stream_handle = void*; //!< cudaStream_t, or a token on the emulated device
using event_handle = void*;  //!< cudaEvent_t, or a token on the emulated device

/*! \brief A range of memory (device, or pinned host) that enqueued work writes. */
struct memory_span {
    void* data;
    std::size_t bytes;
};

/*!
 * \brief One device (a CUDA device, or the emulated device) and every
 * operation the runtime does on it: memory, copies, streams and events.
 *
 * Buffers, blocks and kernel plans reach device memory only through this
 * interface, so the emulated device runs the same code paths as CUDA.
 * Every operation is checked; a failure throws device_error naming the
 * operation and \p who.
 */
class GPUDSP_API device_context
{
public:
    using sptr = std::shared_ptr<device_context>;

    /*! \brief The shared context of a device (created on first use). Throws
     *  for backend_kind::cpu or an index with no device. */
    static sptr get(backend_kind kind, int device);

    virtual ~device_context();

    backend_kind kind() const { return d_kind; }
    int device() const { return d_device; }

    /*! \brief Makes this device current for the calling thread. */
    virtual void make_current() const = 0;
    /*! \brief The same for teardown code, which must not throw: false when
     *  the device could not be made current. */
    virtual bool try_make_current() const noexcept = 0;

    virtual void* device_alloc(std::size_t bytes, const std::string& who) = 0;
    /*! Frees synchronise the device (as cudaFree does); they never throw. */
    virtual void device_free(void* ptr, const std::string& who) noexcept = 0;
    virtual void* host_alloc(std::size_t bytes, const std::string& who) = 0;
    virtual void host_free(void* ptr, const std::string& who) noexcept = 0;

    /*! \brief Enqueues a copy on \p stream (counted in transfer counters). */
    void copy_async(void* dst,
                    const void* src,
                    std::size_t bytes,
                    copy_kind kind,
                    stream_handle stream,
                    const std::string& who);
    virtual void memset_async(void* device_ptr,
                              int value,
                              std::size_t bytes,
                              stream_handle stream,
                              const std::string& who) = 0;

    virtual stream_handle stream_create(const std::string& who) = 0;
    virtual void stream_destroy(stream_handle stream) noexcept = 0;
    virtual void stream_synchronize(stream_handle stream, const std::string& who) = 0;
    virtual event_handle event_create(const std::string& who) = 0;
    virtual void event_destroy(event_handle event) noexcept = 0;
    virtual void
    event_record(event_handle event, stream_handle stream, const std::string& who) = 0;
    /*! \brief Makes \p stream wait (on the device) for the last record of \p event. */
    virtual void stream_wait_event(stream_handle stream,
                                   event_handle event,
                                   const std::string& who) = 0;
    /*! \brief Blocks the calling CPU thread until \p event has completed. */
    virtual void event_synchronize(event_handle event, const std::string& who) = 0;
    /*! \brief True when the work before the last record of \p event has
     *  completed (or it was never recorded); never blocks. */
    virtual bool event_query(event_handle event, const std::string& who) = 0;
    /*!
     * \brief Runs \p work on the host in stream order: after the work
     * enqueued on \p stream before it, before the work enqueued after it.
     *
     * The emulated device runs its "kernels" this way (a plan's CPU code on
     * emulated device memory); it poisons \p written when the work starts,
     * so a reader not ordered after the work reads poison. An exception
     * from \p work is reported, as a kernel error is, by the next
     * synchronisation or check_last_error(). \p work must not call the
     * device context.
     */
    virtual void enqueue_host_work(stream_handle stream,
                                   std::function<void()> work,
                                   std::vector<memory_span> written,
                                   const std::string& who) = 0;
    /*! \brief An event whose records can be timed (elapsed_seconds);
     *  destroyed with event_destroy. */
    virtual event_handle timer_create(const std::string& who) = 0;
    /*! \brief Seconds between the last records of two timer events, both
     *  completed (as cudaEventElapsedTime; on the emulated device, the host
     *  clock when its stream reached each record). */
    virtual double
    elapsed_seconds(event_handle start, event_handle end, const std::string& who) = 0;
    /*! \brief The device: name, compute capability, SMs, L2, versions (the
     *  tuner's key). The emulated device describes the host CPU. */
    virtual device_info info() const = 0;
    /*! \brief Bytes of device memory free now. */
    virtual std::size_t free_memory() = 0;
    /*! \brief Raises any error left by an earlier kernel launch. */
    virtual void check_last_error(const std::string& operation,
                                  const std::string& who) = 0;

    transfer_counters counters() const;
    void reset_counters();
    memory_usage usage() const;
    /*! \brief Activity asked for by \p who (every caller's, summed, when
     *  \p who is empty), since the process started. */
    activity_counters activity(const std::string& who = "") const;
    /*! \brief Counts a library plan (cuFFT) made for \p who. */
    void note_plan(const std::string& who);
    /*! \brief Counts a copy enqueued without copy_async (a memcpy node of a
     *  replayed CUDA graph), so the transfer counters stay whole. */
    void note_copy(copy_kind kind, std::size_t bytes);

protected:
    device_context(backend_kind kind, int device);
    virtual void do_copy_async(void* dst,
                               const void* src,
                               std::size_t bytes,
                               copy_kind kind,
                               stream_handle stream,
                               const std::string& who) = 0;
    void note_alloc(bool device, std::size_t bytes, const std::string& who);
    void note_free(bool device, std::size_t bytes, const std::string& who);
    void note_synchronization(const std::string& who);

private:
    struct state;
    backend_kind d_kind;
    int d_device;
    std::unique_ptr<state> d_state;
};

/*! \brief An owned stream (non-blocking on CUDA). */
class GPUDSP_API device_stream
{
public:
    device_stream(device_context::sptr ctx, const std::string& who);
    ~device_stream();
    device_stream(const device_stream&) = delete;
    device_stream& operator=(const device_stream&) = delete;
    stream_handle get() const { return d_stream; }
    const device_context::sptr& context() const { return d_ctx; }
    void synchronize() const { d_ctx->stream_synchronize(d_stream, d_who); }

private:
    device_context::sptr d_ctx;
    std::string d_who;
    stream_handle d_stream;
};

/*! \brief One kernel stage of a plan's call, as a plan's stage_times()
 *  reports it (a diagnostic): its name, its device time summed over the
 *  call's chunks, and the bytes it must move (each input read once, each
 *  intermediate written and read once, each output written once; tables
 *  aside), so that bytes / seconds is its bandwidth at least. */
struct stage_time {
    std::string stage;
    double seconds = 0;
    double bytes = 0;
};

/*! \brief An owned event (timing disabled on CUDA). */
class GPUDSP_API device_event
{
public:
    device_event(device_context::sptr ctx, const std::string& who);
    ~device_event();
    device_event(const device_event&) = delete;
    device_event& operator=(const device_event&) = delete;
    event_handle get() const { return d_event; }
    void record(stream_handle s) { d_ctx->event_record(d_event, s, d_who); }
    void wait_in(stream_handle s) const { d_ctx->stream_wait_event(s, d_event, d_who); }
    void synchronize() const { d_ctx->event_synchronize(d_event, d_who); }

private:
    device_context::sptr d_ctx;
    std::string d_who;
    event_handle d_event;
};

/*! \brief Owned memory: on the device (`device_memory`) or pinned on the
 *  host (`pinned_memory`). */
template <bool on_device>
class GPUDSP_API owned_memory
{
public:
    owned_memory(device_context::sptr ctx, std::size_t bytes, const std::string& who);
    ~owned_memory();
    owned_memory(const owned_memory&) = delete;
    owned_memory& operator=(const owned_memory&) = delete;
    char* get() const { return d_ptr; }
    std::size_t size() const { return d_bytes; }

private:
    device_context::sptr d_ctx;
    std::string d_who;
    std::size_t d_bytes;
    char* d_ptr;
};
using device_memory = owned_memory<true>;
using pinned_memory = owned_memory<false>;

} // namespace runtime
} // namespace gpudsp
} // namespace gr

#endif /* INCLUDED_GPUDSP_RUNTIME_DEVICE_CONTEXT_H */
