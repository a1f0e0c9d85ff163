/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Internal: how a plan runs on the emulated device. Its CPU implementation
// works on the emulated device memory directly, but as work enqueued on the
// caller's stream (runtime/emulated_context.cc), so it is ordered, delayed
// and poisons what it writes as a kernel on a GPU would: a block that does
// not wait for its inputs, or reuses memory a reader still reads, fails in
// CI. The CPU implementation is shared with the work enqueued: it lives
// until the last of it has run.

#ifndef INCLUDED_GPUDSP_KERNELS_EMULATED_WORK_H
#define INCLUDED_GPUDSP_KERNELS_EMULATED_WORK_H

#include <gnuradio/gpudsp/runtime/device_context.h>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace gr {
namespace gpudsp {
namespace kernels {

template <class Impl>
class emulated_work
{
public:
    emulated_work(std::unique_ptr<Impl> cpu,
                  runtime::device_context::sptr ctx,
                  const std::string& who)
        : d_cpu(std::move(cpu)), d_ctx(std::move(ctx)), d_who(who)
    {
    }

    /*! Runs fn(cpu implementation) in stream order; \p written is poisoned
     *  when it starts. */
    template <class F>
    void enqueue(runtime::stream_handle stream,
                 std::vector<runtime::memory_span> written,
                 F&& fn) const
    {
        d_ctx->enqueue_host_work(
            stream,
            [cpu = d_cpu, fn = std::forward<F>(fn)]() mutable { fn(*cpu); },
            std::move(written),
            d_who);
    }

    /*! Waits for the work enqueued on \p stream (for results the caller
     *  reads on the host, as the CUDA backends do). */
    void synchronize(runtime::stream_handle stream) const
    {
        d_ctx->stream_synchronize(stream, d_who);
    }

    const Impl& cpu() const { return *d_cpu; }
    const runtime::device_context::sptr& context() const { return d_ctx; }

private:
    std::shared_ptr<Impl> d_cpu;
    runtime::device_context::sptr d_ctx;
    std::string d_who;
};

} // namespace kernels
} // namespace gpudsp
} // namespace gr

#endif
