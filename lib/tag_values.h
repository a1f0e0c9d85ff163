/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Internal to the blocks: reading the values of the stream tags they act on
// (docs/formats.md). A malformed value is logged, never thrown from work().

#ifndef INCLUDED_GPUDSP_TAG_VALUES_H
#define INCLUDED_GPUDSP_TAG_VALUES_H

#include <gnuradio/logger.h>
#include <pmt/pmt.h>
#include <algorithm>
#include <cmath>
#include <cstdint>

namespace gr {
namespace gpudsp {

/*!
 * The number of items a gpudsp.missing tag covers. Producers write a long
 * (pmt::from_long, as Python's pmt.to_pmt does) or a uint64 (from_uint64, as
 * this module's blocks do); both are read. Any other value (a negative or
 * zero count, a double, a symbol) is logged as an error and taken as 1: the
 * tagged item is flagged, never silently used, and the flowgraph runs on.
 */
inline uint64_t missing_items(const pmt::pmt_t& value, const gr::logger_ptr& logger)
{
    // Counts are capped at 2^56 items (years of samples at any rate), so the
    // blocks' sample arithmetic (x 8 for packed 10-bit bytes) cannot overflow.
    constexpr uint64_t cap = uint64_t(1) << 56;
    if (pmt::is_uint64(value) && pmt::to_uint64(value) >= 1)
        return std::min(pmt::to_uint64(value), cap);
    if (pmt::is_integer(value) && pmt::to_long(value) >= 1)
        return std::min(uint64_t(pmt::to_long(value)), cap);
    logger->error("gpudsp.missing tag with value {}: not a count >= 1; flagging one item",
                  pmt::write_string(value));
    return 1;
}

/*! A number tag's value (rx_rate, rx_freq): false, logged, if it is not a
 *  finite number (the tag is then ignored or passed on unchanged). */
inline bool tag_number(const pmt::pmt_t& value, double& out, const gr::logger_ptr& logger)
{
    if (pmt::is_real(value) || pmt::is_integer(value) || pmt::is_uint64(value)) {
        out = pmt::to_double(value);
        if (std::isfinite(out))
            return true;
    }
    logger->error("ignored a tag value {}: not a finite number", pmt::write_string(value));
    return false;
}

/*! An rx_time tag's value, (uint64 or long seconds >= 0, double fraction),
 *  in seconds: false, logged, if it is not of that form. */
inline bool rx_time_seconds(const pmt::pmt_t& value, double& out, const gr::logger_ptr& logger)
{
    if (pmt::is_tuple(value) && pmt::length(value) == 2) {
        const pmt::pmt_t s = pmt::tuple_ref(value, 0), f = pmt::tuple_ref(value, 1);
        const bool whole = pmt::is_uint64(s) || (pmt::is_integer(s) && pmt::to_long(s) >= 0);
        if (whole && (pmt::is_real(f) || pmt::is_integer(f)) &&
            std::isfinite(pmt::to_double(f))) {
            out = double(pmt::to_uint64(s)) + pmt::to_double(f);
            return true;
        }
    }
    logger->error("ignored an rx_time tag {}: not (whole seconds, fraction)",
                  pmt::write_string(value));
    return false;
}

} // namespace gpudsp
} // namespace gr

#endif /* INCLUDED_GPUDSP_TAG_VALUES_H */
