/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "context_factories.h"
#include <gnuradio/gpudsp/runtime/device_context.h>
#include <atomic>
#include <map>
#include <mutex>
#include <utility>

namespace gr {
namespace gpudsp {
namespace runtime {

struct device_context::state {
    mutable std::mutex mutex;
    transfer_counters counters;
    memory_usage usage;
    std::map<std::string, activity_counters> activity; // per who
};

device_context::device_context(backend_kind kind, int device)
    : d_kind(kind), d_device(device), d_state(std::make_unique<state>())
{
}

device_context::~device_context() = default;

device_context::sptr device_context::get(backend_kind kind, int device)
{
    // Contexts live for the whole process: device memory freed late (by a
    // flowgraph destroyed at exit) must still find its context.
    static std::mutex mutex;
    static std::map<std::pair<int, int>, sptr>* contexts =
        new std::map<std::pair<int, int>, sptr>();
    std::lock_guard<std::mutex> lock(mutex);
    const auto key = std::make_pair(static_cast<int>(kind), device);
    auto it = contexts->find(key);
    if (it != contexts->end())
        return it->second;
    sptr ctx;
    switch (kind) {
    case backend_kind::emulated:
        ctx = detail::make_emulated_context();
        break;
    case backend_kind::cuda:
#ifdef GPUDSP_HAVE_CUDA
        ctx = detail::make_cuda_context(device);
        break;
#else
        throw device_error("gr-gpudsp was built without CUDA: no CUDA device context");
#endif
    case backend_kind::cpu:
        throw std::invalid_argument("device_context: the cpu backend has no device");
    }
    contexts->emplace(key, ctx);
    return ctx;
}

void device_context::copy_async(void* dst,
                                const void* src,
                                std::size_t bytes,
                                copy_kind kind,
                                stream_handle stream,
                                const std::string& who)
{
    if (bytes == 0)
        return;
    do_copy_async(dst, src, bytes, kind, stream, who);
    note_copy(kind, bytes);
}

void device_context::note_copy(copy_kind kind, std::size_t bytes)
{
    if (bytes == 0)
        return;
    std::lock_guard<std::mutex> lock(d_state->mutex);
    auto& c = d_state->counters;
    switch (kind) {
    case copy_kind::host_to_device:
        c.h2d_calls++;
        c.h2d_bytes += bytes;
        break;
    case copy_kind::device_to_host:
        c.d2h_calls++;
        c.d2h_bytes += bytes;
        break;
    case copy_kind::device_to_device:
        c.d2d_calls++;
        c.d2d_bytes += bytes;
        break;
    }
}

transfer_counters device_context::counters() const
{
    std::lock_guard<std::mutex> lock(d_state->mutex);
    return d_state->counters;
}

void device_context::reset_counters()
{
    std::lock_guard<std::mutex> lock(d_state->mutex);
    d_state->counters = transfer_counters();
}

memory_usage device_context::usage() const
{
    std::lock_guard<std::mutex> lock(d_state->mutex);
    return d_state->usage;
}

activity_counters device_context::activity(const std::string& who) const
{
    std::lock_guard<std::mutex> lock(d_state->mutex);
    if (!who.empty()) {
        auto it = d_state->activity.find(who);
        return it == d_state->activity.end() ? activity_counters() : it->second;
    }
    activity_counters sum;
    for (const auto& kv : d_state->activity) {
        sum.allocations += kv.second.allocations;
        sum.frees += kv.second.frees;
        sum.synchronizations += kv.second.synchronizations;
        sum.plans += kv.second.plans;
    }
    return sum;
}

void device_context::note_plan(const std::string& who)
{
    std::lock_guard<std::mutex> lock(d_state->mutex);
    d_state->activity[who].plans++;
}

void device_context::note_alloc(bool device, std::size_t bytes, const std::string& who)
{
    std::lock_guard<std::mutex> lock(d_state->mutex);
    auto& u = d_state->usage;
    (device ? u.device_bytes : u.host_bytes) += bytes;
    (device ? u.device_allocations : u.host_allocations) += 1;
    d_state->activity[who].allocations++;
}

void device_context::note_free(bool device, std::size_t bytes, const std::string& who)
{
    std::lock_guard<std::mutex> lock(d_state->mutex);
    auto& u = d_state->usage;
    (device ? u.device_bytes : u.host_bytes) -= bytes;
    (device ? u.device_allocations : u.host_allocations) -= 1;
    auto& a = d_state->activity[who];
    a.frees++;
    a.synchronizations++; // a free waits for the whole device
}

void device_context::note_synchronization(const std::string& who)
{
    std::lock_guard<std::mutex> lock(d_state->mutex);
    d_state->activity[who].synchronizations++;
}

// ---------------------------------------------------------------------------
// RAII owners

device_stream::device_stream(device_context::sptr ctx, const std::string& who)
    : d_ctx(std::move(ctx)), d_who(who), d_stream(d_ctx->stream_create(who))
{
}

device_stream::~device_stream() { d_ctx->stream_destroy(d_stream); }

device_event::device_event(device_context::sptr ctx, const std::string& who)
    : d_ctx(std::move(ctx)), d_who(who), d_event(d_ctx->event_create(who))
{
}

device_event::~device_event() { d_ctx->event_destroy(d_event); }

template <bool on_device>
owned_memory<on_device>::owned_memory(device_context::sptr ctx,
                                      std::size_t bytes,
                                      const std::string& who)
    : d_ctx(std::move(ctx)),
      d_who(who),
      d_bytes(bytes),
      d_ptr(static_cast<char*>(on_device ? d_ctx->device_alloc(bytes, who)
                                         : d_ctx->host_alloc(bytes, who)))
{
}

template <bool on_device>
owned_memory<on_device>::~owned_memory()
{
    if (on_device)
        d_ctx->device_free(d_ptr, d_who);
    else
        d_ctx->host_free(d_ptr, d_who);
}

template class owned_memory<true>;
template class owned_memory<false>;

} // namespace runtime
} // namespace gpudsp
} // namespace gr
