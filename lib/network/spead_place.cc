/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <gnuradio/gpudsp/network/spead_place.h>

#include <algorithm>
#include <cstring>

namespace gr {
namespace gpudsp {
namespace network {

namespace {

constexpr std::int64_t ctrl_stream_stop = 2; // SPEAD stream control: stop

// spead2 gives an absent item the value -1 (values here are at most 48
// bits, so a real one is never negative).
bool absent(std::int64_t v) { return v < 0; }

placement drop(int stat)
{
    placement p;
    p.stat = stat;
    return p;
}

// A stop heap: counted; the one that completes stop_target becomes the
// terminal chunk, `window` chunks past the newest, so that spead2 flushes
// every chunk before it.
placement stop_heap(std::int64_t* params)
{
    if (params[c_stop_target] <= 0 || ++params[s_stops] != params[c_stop_target])
        return drop(c_stat_stop_heaps);
    placement p;
    p.chunk_id = std::max<std::int64_t>(params[s_newest], 0) + params[c_window];
    params[s_terminal] = p.chunk_id;
    p.stat = c_stat_stop_heaps;
    return p;
}

// The chunk id spead2 gets for a raw chunk id (-1: dropped as out of the
// window), starting a new epoch when enough heaps agree on a jump.
std::int64_t map_chunk(std::int64_t* params, std::int64_t raw, int& stat)
{
    const std::int64_t jump = params[c_jump_chunks];
    if (params[s_newest] < 0) {
        params[s_offset] = 0;
        params[s_newest] = raw;
        return raw;
    }
    std::int64_t id = raw + params[s_offset];
    if (id > params[s_newest] + jump || id < params[s_newest] - jump) {
        const std::int64_t prev = raw + params[s_prev_offset];
        const bool stale = params[s_prev_newest] >= 0 && prev <= params[s_prev_newest] &&
                           prev >= params[s_prev_newest] - jump;
        if (!stale) {
            if (params[s_candidates] > 0 && raw <= params[s_candidate_min] + jump &&
                raw >= params[s_candidate_min] - jump) {
                params[s_candidates] += 1;
                params[s_candidate_min] = std::min(params[s_candidate_min], raw);
            } else {
                params[s_candidates] = 1;
                params[s_candidate_min] = raw;
            }
        }
        if (stale || params[s_candidates] < params[c_confirm_heaps]) {
            stat = c_stat_out_of_window;
            return -1;
        }
        params[s_prev_newest] = params[s_newest];
        params[s_prev_offset] = params[s_offset];
        params[s_offset] = params[s_newest] + 1 - params[s_candidate_min];
        params[s_candidates] = 0;
        id = raw + params[s_offset];
        stat = c_stat_epochs;
    } else {
        params[s_candidates] = 0;
    }
    params[s_newest] = std::max(params[s_newest], id);
    return id;
}

#define GPUDSP_HAS_FIELD(size, field) \
    ((size) >= offsetof(spead2_chunk_place_data, field) + sizeof(spead2_chunk_place_data::field))

void finish(spead2_chunk_place_data* d,
            std::size_t size,
            const std::int64_t* params,
            const placement& p,
            const std::uint64_t* extra,
            std::size_t extra_words)
{
    d->chunk_id = p.chunk_id;
    d->heap_index = std::size_t(p.heap_index);
    d->heap_offset = std::size_t(p.heap_offset);
    if (p.stat >= 0 && GPUDSP_HAS_FIELD(size, batch_stats) && d->batch_stats)
        d->batch_stats[params[p.stat]] += 1;
    if (p.chunk_id >= 0 && GPUDSP_HAS_FIELD(size, extra_size) && d->extra) {
        const std::size_t bytes = extra_words * sizeof(std::uint64_t);
        std::memcpy(d->extra, extra, bytes);
        d->extra_offset = std::size_t(p.heap_index) * bytes;
        d->extra_size = bytes;
    }
}

// The checks every data heap passes: its length, and a timestamp on the
// heap grid. -1 if it passes, else the stat slot to drop it under.
int grid_check(std::int64_t length, std::int64_t heap_bytes, std::int64_t timestamp, std::int64_t step)
{
    if (length != heap_bytes)
        return c_stat_bad_size;
    if (timestamp % step != 0)
        return c_stat_bad_timestamp;
    return -1;
}

// A heap in `slot` of the chunk its raw chunk id maps to (or dropped).
placement in_chunk(std::int64_t* params, std::int64_t raw_chunk, std::int64_t slot, std::int64_t heap_bytes)
{
    placement p;
    p.chunk_id = map_chunk(params, raw_chunk, p.stat);
    if (p.chunk_id >= 0) {
        p.heap_index = slot;
        p.heap_offset = slot * heap_bytes;
    }
    return p;
}

} // namespace

bool heap_has_descriptors(const std::uint8_t* packet, std::size_t size)
{
    // Header: magic 0x53, version 4, item pointer width and heap address
    // width (bytes), 2 reserved, item count (big-endian); then the pointers.
    if (!packet || size < 8 || packet[0] != 0x53 || packet[1] != 4 ||
        packet[2] + packet[3] != 8 || packet[3] == 0 || packet[3] >= 8)
        return false;
    constexpr std::uint64_t descriptor_id = 0x0005;
    const int address_bits = 8 * packet[3];
    const std::uint64_t id_mask = (std::uint64_t(1) << (63 - address_bits)) - 1;
    const std::size_t n_items = (std::size_t(packet[6]) << 8) | packet[7];
    for (std::size_t i = 0; i < n_items && 8 + 8 * (i + 1) <= size; ++i) {
        std::uint64_t pointer = 0;
        for (int b = 0; b < 8; ++b)
            pointer = (pointer << 8) | packet[8 + 8 * i + b];
        if (((pointer >> address_bits) & id_mask) == descriptor_id)
            return true;
    }
    return false;
}

placement place_digitiser_heap(std::int64_t* params, const std::int64_t* items)
{
    if (items[dig_item_ctrl] == ctrl_stream_stop)
        return stop_heap(params);
    const std::int64_t timestamp = items[dig_item_timestamp];
    const std::int64_t samples = params[dig_heap_samples];
    const std::int64_t per_chunk = params[dig_heaps_per_chunk];
    if (absent(timestamp) || absent(items[dig_item_length]))
        return drop(c_stat_missing_items);
    if (const int bad = grid_check(items[dig_item_length], params[dig_heap_bytes], timestamp, samples);
        bad >= 0)
        return drop(bad);
    std::int64_t pol = 0;
    if (params[dig_n_pols] == 2) {
        if (absent(items[dig_item_id]))
            return drop(c_stat_missing_items);
        pol = items[dig_item_id] & 1;
    }
    const std::int64_t heap = timestamp / samples;
    return in_chunk(params, heap / per_chunk, pol * per_chunk + heap % per_chunk,
                    params[dig_heap_bytes]);
}

placement place_fengine_heap(std::int64_t* params, const std::int64_t* items)
{
    if (items[feng_item_ctrl] == ctrl_stream_stop)
        return stop_heap(params);
    const std::int64_t timestamp = items[feng_item_timestamp];
    const std::int64_t feng = items[feng_item_id];
    const std::int64_t step = params[feng_heap_timestamp_step];
    const std::int64_t per_chunk = params[feng_heaps_per_chunk];
    const std::int64_t n_feng = params[feng_n_fengines];
    if (absent(timestamp) || absent(feng) || absent(items[feng_item_frequency]) ||
        absent(items[feng_item_length]))
        return drop(c_stat_missing_items);
    if (const int bad = grid_check(items[feng_item_length], params[feng_heap_bytes], timestamp, step);
        bad >= 0)
        return drop(bad);
    if (feng >= n_feng)
        return drop(c_stat_bad_id);
    if (items[feng_item_frequency] != params[feng_first_channel])
        return drop(c_stat_bad_frequency);
    const std::int64_t heap_time = timestamp / step;
    return in_chunk(params, heap_time / per_chunk, (heap_time % per_chunk) * n_feng + feng,
                    params[feng_heap_bytes]);
}

void spead2_place_digitiser(void* data, std::size_t size, void* user_data)
{
    auto* d = static_cast<spead2_chunk_place_data*>(data);
    auto* params = static_cast<std::int64_t*>(user_data);
    if (!GPUDSP_HAS_FIELD(size, heap_offset))
        return; // not the spead2 this was built for: chunk_id stays -1, heap dropped
    const placement p = absent(d->items[dig_item_timestamp]) &&
                                heap_has_descriptors(d->packet, d->packet_size)
                            ? drop(c_stat_descriptors)
                            : place_digitiser_heap(params, d->items);
    const std::uint64_t extra[2] = { std::uint64_t(std::max<std::int64_t>(d->items[dig_item_status], 0)),
                                     std::uint64_t(d->items[dig_item_timestamp]) };
    finish(d, size, params, p, extra, 2);
}

void spead2_place_fengine(void* data, std::size_t size, void* user_data)
{
    auto* d = static_cast<spead2_chunk_place_data*>(data);
    auto* params = static_cast<std::int64_t*>(user_data);
    if (!GPUDSP_HAS_FIELD(size, heap_offset))
        return;
    const placement p = absent(d->items[feng_item_timestamp]) &&
                                heap_has_descriptors(d->packet, d->packet_size)
                            ? drop(c_stat_descriptors)
                            : place_fengine_heap(params, d->items);
    const std::uint64_t extra[1] = { std::uint64_t(d->items[feng_item_timestamp]) };
    finish(d, size, params, p, extra, 1);
}

#undef GPUDSP_HAS_FIELD

} // namespace network
} // namespace gpudsp
} // namespace gr
