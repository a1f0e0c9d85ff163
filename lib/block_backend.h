/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Internal: what every gpudsp block keeps about where it runs. The backend
// is resolved in make(), before the block exists, because the port buffer
// types depend on it.

#ifndef INCLUDED_GPUDSP_BLOCK_BACKEND_H
#define INCLUDED_GPUDSP_BLOCK_BACKEND_H

#include <gnuradio/gpudsp/runtime/device_io.h>
#include <gnuradio/gpudsp/runtime/tuning.h>
#include <gnuradio/logger.h>
#include <memory>

namespace gr {
namespace gpudsp {

// Logs the configuration a block's plan runs and where it came from (tuned
// now, the cache, a shipped table, the heuristic or an environment
// variable), and what the tuner noted (a rejected candidate, a result not
// saved...).
inline void log_tuning(const gr::logger_ptr& logger, const runtime::tune_result& r)
{
    logger->info("configuration: {}", r.describe());
    for (const auto& note : r.notes)
        logger->warn("{}", note);
}

class block_backend : public runtime::device_block
{
public:
    explicit block_backend(const runtime::backend_choice& choice) : d_choice(choice) {}

    int device_index() const override { return d_choice.device; }
    bool on_device() const { return d_choice.kind != runtime::backend_kind::cpu; }
    const runtime::backend_choice& choice() const { return d_choice; }
    gr::buffer_type port_type() const
    {
        return runtime::device_buffer::type_for(d_choice.kind);
    }

protected:
    // Called at the end of the block's constructor.
    void open_backend(gr::block& self, gr::logger_ptr logger)
    {
        logger->info("running on {}", d_choice.describe());
        if (on_device())
            d_io = std::make_unique<runtime::device_io>(
                runtime::device_context::get(d_choice.kind, d_choice.device),
                self.identifier()); // unique: activity is counted per name
    }
    // Called from the block's start().
    void check_backend_topology(gr::block& self)
    {
        if (on_device())
            runtime::device_io::check_topology(self);
    }

    runtime::backend_choice d_choice;
    std::unique_ptr<runtime::device_io> d_io;
};

} // namespace gpudsp
} // namespace gr

#endif
