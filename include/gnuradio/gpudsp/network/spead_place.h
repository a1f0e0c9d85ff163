/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Chunk placement for spead2's chunk streams (docs/spead.md).
//
// spead2 calls a placement function once per heap, on its receive thread
// (one at a time per stream), with the values of the items the stream asked
// for; the function says which chunk (a block of consecutive heaps) and
// which slot of it the heap's payload goes to, or drops the heap
// (chunk_id = -1). They run at packet rate, so they are C++ rather than
// Python, and they know nothing of GNU Radio: the Python blocks pass them
// to spead2 with an array of int64 parameters as user data, which also
// holds the little state they keep (written here, read by Python after a
// chunk has crossed spead2's ring, which orders the accesses).
//
// Chunk ids. A heap's raw chunk id is its timestamp / chunk span. spead2
// keeps a window of chunks and drops heaps older than it for good, so a
// sender that restarts with earlier timestamps (a digitiser resync) would
// never be heard again, and one heap with a wild timestamp would flush the
// window. So the chunk id given to spead2 is raw + offset. A heap whose raw
// id is further than `jump_chunks` from the newest chunk is dropped (late,
// or a stray timestamp) unless `confirm_heaps` such heaps in a row agree
// (within jump_chunks of each other): then a new epoch starts, the offset
// changing so that the earliest of them follows the newest chunk. Heaps of
// the previous epoch that arrive late are dropped. Python learns the raw
// timestamps from each heap's `extra` bytes and tags the discontinuity.
//
// End of stream. Stop heaps (stream control item = stop) are counted; when
// `stop_target` have arrived the stop heap is placed in chunk
// newest + window, which makes spead2 hand over every chunk before it; that
// terminal chunk's id is written to the state, and the Python source ends
// after chunk terminal - window (the last with data).

#ifndef INCLUDED_GPUDSP_NETWORK_SPEAD_PLACE_H
#define INCLUDED_GPUDSP_NETWORK_SPEAD_PLACE_H

#include <gnuradio/gpudsp/api.h>
#include <cstddef>
#include <cstdint>

namespace gr {
namespace gpudsp {
namespace network {

// spead2's spead2::recv::chunk_place_data (spead2 4.x, C layout; the
// callback is also given its size, and reads only fields that fit).
struct spead2_chunk_place_data {
    const std::uint8_t* packet;
    std::size_t packet_size;
    const std::int64_t* items; // values of the requested items, in order; -1 = absent
    std::int64_t chunk_id;
    std::size_t heap_index;
    std::size_t heap_offset;
    std::uint64_t* batch_stats;
    std::uint8_t* extra;
    std::size_t extra_offset;
    std::size_t extra_size;
};

// Parameters and state shared by both stream kinds: params[0 .. common_n).
enum common_param : int {
    c_stop_target = 0, // stop heaps that end the stream (0: never)
    c_window,          // spead2's max_chunks
    c_jump_chunks,   // a raw chunk id further than this from the newest is out of window
    c_confirm_heaps, // out-of-window heaps in a row that start a new epoch
    c_stat_bad_timestamp, // spead2 stat indices (StreamConfig.add_stat)
    c_stat_bad_size,
    c_stat_missing_items,
    c_stat_bad_id, // feng_id / digitiser_id out of range
    c_stat_bad_frequency,
    c_stat_out_of_window,
    c_stat_epochs,
    c_stat_stop_heaps,
    c_stat_descriptors, // descriptor heaps (metadata: counted, not placed)
    // state, written by the callback (initialise as shown)
    s_newest,        // newest chunk id given to spead2 (-1)
    s_offset,        // chunk id = raw + offset (0)
    s_prev_newest,   // the previous epoch's newest chunk (-1: none)
    s_prev_offset,   // and its offset
    s_stops,         // stop heaps seen (0)
    s_terminal,      // the terminal chunk id, once stop_target stop heaps are in (-1)
    s_candidates,    // out-of-window heaps in a row that agree (0)
    s_candidate_min, // the smallest raw chunk id among them
    common_n
};

// What one heap becomes. chunk_id < 0 drops it; stat >= 0 is the param slot
// holding the stat index to count it under; raw_timestamp goes to `extra`.
struct placement {
    std::int64_t chunk_id = -1;
    std::int64_t heap_index = 0;
    std::int64_t heap_offset = 0;
    int stat = -1;
};

// ---- digitiser heaps --------------------------------------------------------
// Items requested, in this order: timestamp (0x1600), heap length
// (spead2.HEAP_LENGTH_ID), digitiser_status (0x3102), digitiser_id (0x3101),
// stream control (spead2.STREAM_CTRL_ID). A chunk holds heaps_per_chunk
// heap times of every polarisation: [pol][heap][heap bytes], heap h of
// polarisation p in slot p * heaps_per_chunk + h. The polarisation is the
// digitiser_id's low bit (MeerKAT's rule) when n_pols is 2, else 0.
// extra per slot: {digitiser_status, raw timestamp} as two uint64.
enum dig_param : int {
    dig_heap_samples = common_n,
    dig_heap_bytes,
    dig_heaps_per_chunk,
    dig_n_pols,
    dig_n_params
};
enum dig_item : int { dig_item_timestamp = 0, dig_item_length, dig_item_status, dig_item_id, dig_item_ctrl, dig_n_items };

// ---- F-engine heaps ---------------------------------------------------------
// Items requested, in this order: timestamp, feng_id (0x4101), frequency
// (0x4103), heap length, stream control. A chunk holds heaps_per_chunk heap
// times of every F-engine: [time][feng][heap bytes]. extra per slot: the
// raw timestamp (uint64).
enum feng_param : int {
    feng_heap_timestamp_step = common_n, // ADC samples between heaps
    feng_heap_bytes,
    feng_heaps_per_chunk,
    feng_n_fengines,
    feng_first_channel, // the frequency item this receiver owns
    feng_n_params
};
enum feng_item : int { feng_item_timestamp = 0, feng_item_id, feng_item_frequency, feng_item_length, feng_item_ctrl, feng_n_items };

// The placement of one heap from its item values; updates the state in params.
GPUDSP_API placement place_digitiser_heap(std::int64_t* params, const std::int64_t* items);
GPUDSP_API placement place_fengine_heap(std::int64_t* params, const std::int64_t* items);

// Whether a heap's first packet (SPEAD header and item pointers) carries a
// descriptor item (id 0x0005): a descriptor heap, as katgpucbf's engines
// and its digitiser simulator send every few seconds. They hold no
// timestamp; the sources count them (gpudsp_descriptor_heaps) instead of
// dropping them as malformed.
GPUDSP_API bool heap_has_descriptors(const std::uint8_t* packet, std::size_t size);

// The callbacks given to spead2: void (void *data, size_t size, void *user_data).
GPUDSP_API void spead2_place_digitiser(void* data, std::size_t size, void* user_data);
GPUDSP_API void spead2_place_fengine(void* data, std::size_t size, void* user_data);

} // namespace network
} // namespace gpudsp
} // namespace gr

#endif
