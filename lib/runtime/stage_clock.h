/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Internal: timing events between the kernel stages of a plan's call, for
// the plans' stage_times() diagnostic. A GPU run's benchmark then says which
// kernel of a chain binds, and at what bandwidth, without a profiler (whose
// step is the first cut when a GPU session runs short). Off, it records
// nothing. On, a call does
//   clock.begin_call();
//   for each chunk: clock.start(stream); kernels of stage A;
//                   clock.stage("A", bytes, stream); kernels of B; ...
//   clock.end_call();
// and times() waits for the last record and sums each stage over the
// chunks, in the order the stages first ran. Marks outside a call (a
// kernel the plan also runs from elsewhere) record nothing. The events
// are made on first use and kept for the next calls.

#ifndef INCLUDED_GPUDSP_RUNTIME_STAGE_CLOCK_H
#define INCLUDED_GPUDSP_RUNTIME_STAGE_CLOCK_H

#include <gnuradio/gpudsp/runtime/device_context.h>
#include <algorithm>
#include <string>
#include <vector>

namespace gr {
namespace gpudsp {
namespace runtime {

class stage_clock
{
public:
    stage_clock(device_context::sptr ctx, std::string who)
        : d_ctx(std::move(ctx)), d_who(std::move(who))
    {
    }
    ~stage_clock()
    {
        for (auto e : d_events)
            d_ctx->event_destroy(e);
    }
    stage_clock(const stage_clock&) = delete;
    stage_clock& operator=(const stage_clock&) = delete;

    void enable(bool on) { d_on = on; }
    //! Inside a timed call (between begin_call and end_call, enabled).
    bool recording() const { return d_open; }

    //! A timed call begins: the last one's spans are forgotten.
    void begin_call()
    {
        d_open = d_on;
        if (!d_on)
            return;
        d_used = 0;
        d_spans.clear();
    }
    //! The call ends: marks record nothing until the next begin_call().
    void end_call() { d_open = false; }
    //! A chunk's first stage begins now on \p stream.
    void start(stream_handle stream)
    {
        if (d_open)
            d_last = record(stream);
    }
    //! Stage \p name, begun at the last mark, ends now on \p stream
    //! (nothing is built when off: the calls sit in plans' hot paths).
    void stage(const char* name, double bytes, stream_handle stream)
    {
        if (!d_open)
            return;
        const std::size_t end = record(stream);
        d_spans.push_back({ name, d_last, end, bytes });
        d_last = end;
    }

    //! The last timed call's stages; waits for its last record.
    std::vector<stage_time> times()
    {
        std::vector<stage_time> out;
        if (d_spans.empty())
            return out;
        d_ctx->event_synchronize(d_events[d_spans.back().end], d_who);
        for (const auto& s : d_spans) {
            auto it = std::find_if(out.begin(), out.end(), [&](const stage_time& t) {
                return t.stage == s.name;
            });
            if (it == out.end())
                it = out.insert(out.end(), stage_time{ s.name, 0.0, 0.0 });
            it->seconds +=
                d_ctx->elapsed_seconds(d_events[s.begin], d_events[s.end], d_who);
            it->bytes += s.bytes;
        }
        return out;
    }

private:
    struct span {
        std::string name;
        std::size_t begin, end; // indices into d_events
        double bytes;
    };

    std::size_t record(stream_handle stream)
    {
        if (d_used == d_events.size())
            d_events.push_back(d_ctx->timer_create(d_who));
        d_ctx->event_record(d_events[d_used], stream, d_who);
        return d_used++;
    }

    device_context::sptr d_ctx;
    std::string d_who;
    bool d_on = false, d_open = false;
    std::vector<event_handle> d_events;
    std::size_t d_used = 0, d_last = 0;
    std::vector<span> d_spans;
};

} // namespace runtime
} // namespace gpudsp
} // namespace gr

#endif
