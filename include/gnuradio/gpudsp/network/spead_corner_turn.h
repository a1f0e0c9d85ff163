/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The F -> X corner turn of spead_fengine_source (docs/spead.md): a chunk of
// katgpucbf F-engine heaps, [time][feng][channel][spectrum] of 4-byte
// (pol, re/im) quartets, becomes the X-engine's items, [time][spectrum]
// [channel][feng] quartets; the heaps that did not arrive become zeros
// (their chunk memory holds whatever a previous chunk left there). It runs
// once per chunk for every byte the X host receives, so it is C++ with the
// GIL released rather than a numpy transpose (3.5x slower measured here).

#ifndef INCLUDED_GPUDSP_NETWORK_SPEAD_CORNER_TURN_H
#define INCLUDED_GPUDSP_NETWORK_SPEAD_CORNER_TURN_H

#include <gnuradio/gpudsp/api.h>
#include <cstddef>
#include <cstdint>

namespace gr {
namespace gpudsp {
namespace network {

// Heap times [t0, n_times) of `chunk` (n_times x n_fengines heaps of
// n_channels x spectra_per_heap quartets) into `out` ((n_times - t0) x
// spectra_per_heap items of n_channels x n_fengines quartets); present[t *
// n_fengines + f] != 0 where heap (t, f) arrived.
GPUDSP_API void fengine_corner_turn(const std::uint32_t* chunk,
                                    const std::uint8_t* present,
                                    std::uint32_t* out,
                                    std::size_t t0,
                                    std::size_t n_times,
                                    std::size_t n_fengines,
                                    std::size_t n_channels,
                                    std::size_t spectra_per_heap);

} // namespace network
} // namespace gpudsp
} // namespace gr

#endif
