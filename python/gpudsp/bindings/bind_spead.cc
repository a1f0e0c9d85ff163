/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The SPEAD chunk placement functions (gnuradio/gpudsp/network/spead_place.h) as
// spead2 takes them: a tuple whose first element is a PyCapsule named with
// the C signature, its context the parameter array (kept alive by the
// tuple). spead2 itself is not needed to build this.

#include "bindings.h"
#include <gnuradio/gpudsp/network/spead_corner_turn.h>
#include <gnuradio/gpudsp/network/spead_place.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace {

// Placement state is written in place: a C-contiguous int64 array of n
// values, taken as given (a converted copy would lose the writes).
void check_params(const py::array& params, int n, const char* who)
{
    if (!py::isinstance<py::array_t<std::int64_t>>(params) || params.ndim() != 1 ||
        params.shape(0) != n || !(params.flags() & py::array::c_style))
        throw std::invalid_argument(std::string(who) +
                                    ": params must be a C-contiguous int64 array of " +
                                    std::to_string(n) + " values");
}

} // namespace

void bind_spead(py::module& m)
{
    using namespace gr::gpudsp::network;
    auto s = m.def_submodule("_spead", "chunk placement for spead2 chunk streams");
    s.def(
        "place_callback",
        [](const std::string& kind, py::array params) {
            // The array must stay put and alive while spead2 holds the
            // callback: it is taken as given (C-contiguous int64 only).
            void (*fn)(void*, std::size_t, void*) = nullptr;
            int n = 0;
            if (kind == "digitiser") {
                fn = &spead2_place_digitiser;
                n = dig_n_params;
            } else if (kind == "fengine") {
                fn = &spead2_place_fengine;
                n = feng_n_params;
            } else {
                throw std::invalid_argument("place_callback: kind must be digitiser or fengine");
            }
            check_params(params, n, "place_callback");
            py::capsule cap(reinterpret_cast<void*>(fn), "void (void *, size_t, void *)");
            if (PyCapsule_SetContext(cap.ptr(), const_cast<void*>(params.data())) != 0)
                throw py::error_already_set();
            return py::make_tuple(cap, params);
        },
        py::arg("kind"),
        py::arg("params"),
        "spead2 place callback: (capsule, params); pass as ChunkStreamConfig(place=...)");

    // The placement of one heap (tests): params is updated in place.
    auto one = [](auto fn, int n_params, int n_items) {
        return [fn, n_params, n_items](py::array params, std::vector<std::int64_t> items) {
            check_params(params, n_params, "place");
            if (int(items.size()) != n_items)
                throw std::invalid_argument("place: wrong number of items");
            const placement p =
                fn(static_cast<std::int64_t*>(params.mutable_data()), items.data());
            return py::make_tuple(p.chunk_id, p.heap_index, p.heap_offset, p.stat);
        };
    };
    s.def("place_digitiser_heap",
          one(&place_digitiser_heap, dig_n_params, dig_n_items),
          "(chunk_id, heap_index, heap_offset, stat slot) of one digitiser heap");
    s.def("place_fengine_heap",
          one(&place_fengine_heap, feng_n_params, feng_n_items),
          "(chunk_id, heap_index, heap_offset, stat slot) of one F-engine heap");

    s.def(
        "heap_has_descriptors",
        [](py::bytes packet) {
            const std::string b = packet;
            return heap_has_descriptors(reinterpret_cast<const std::uint8_t*>(b.data()),
                                        b.size());
        },
        py::arg("packet"),
        "whether a heap's first packet (bytes) carries a descriptor item (id 0x5)");

    // Parameter slots by name, so Python fills them without repeating the enums.
    py::dict slots;
#define GPUDSP_SLOT(name) slots[#name] = int(name)
    GPUDSP_SLOT(c_stop_target); GPUDSP_SLOT(c_window); GPUDSP_SLOT(c_jump_chunks);
    GPUDSP_SLOT(c_confirm_heaps);
    GPUDSP_SLOT(c_stat_bad_timestamp); GPUDSP_SLOT(c_stat_bad_size);
    GPUDSP_SLOT(c_stat_missing_items); GPUDSP_SLOT(c_stat_bad_id);
    GPUDSP_SLOT(c_stat_bad_frequency); GPUDSP_SLOT(c_stat_out_of_window);
    GPUDSP_SLOT(c_stat_epochs); GPUDSP_SLOT(c_stat_stop_heaps);
    GPUDSP_SLOT(c_stat_descriptors);
    GPUDSP_SLOT(s_newest); GPUDSP_SLOT(s_offset); GPUDSP_SLOT(s_prev_newest);
    GPUDSP_SLOT(s_prev_offset); GPUDSP_SLOT(s_stops); GPUDSP_SLOT(s_terminal);
    GPUDSP_SLOT(s_candidates); GPUDSP_SLOT(s_candidate_min);
    GPUDSP_SLOT(dig_heap_samples); GPUDSP_SLOT(dig_heap_bytes);
    GPUDSP_SLOT(dig_heaps_per_chunk); GPUDSP_SLOT(dig_n_pols);
    GPUDSP_SLOT(feng_heap_timestamp_step); GPUDSP_SLOT(feng_heap_bytes);
    GPUDSP_SLOT(feng_heaps_per_chunk); GPUDSP_SLOT(feng_n_fengines);
    GPUDSP_SLOT(feng_first_channel);
#undef GPUDSP_SLOT
    s.attr("SLOTS") = slots;

    s.def(
        "fengine_corner_turn",
        [](py::array_t<std::uint32_t, py::array::c_style> chunk,
           py::array_t<std::uint8_t, py::array::c_style> present,
           py::array_t<std::uint32_t, py::array::c_style> out,
           std::size_t t0,
           std::size_t n_times,
           std::size_t n_fengines,
           std::size_t n_channels,
           std::size_t spectra_per_heap) {
            const std::size_t heap = n_channels * spectra_per_heap;
            if (t0 > n_times || std::size_t(chunk.size()) != n_times * n_fengines * heap ||
                std::size_t(present.size()) != n_times * n_fengines ||
                std::size_t(out.size()) < (n_times - t0) * n_fengines * heap)
                throw std::invalid_argument("fengine_corner_turn: array sizes do not match "
                                            "the chunk shape");
            const auto* c = chunk.data();
            const auto* p = present.data();
            auto* o = out.mutable_data();
            py::gil_scoped_release release;
            fengine_corner_turn(
                c, p, o, t0, n_times, n_fengines, n_channels, spectra_per_heap);
        },
        py::arg("chunk"),
        py::arg("present"),
        py::arg("out").noconvert(), // written in place: never a converted copy
        py::arg("t0"),
        py::arg("n_times"),
        py::arg("n_fengines"),
        py::arg("n_channels"),
        py::arg("spectra_per_heap"),
        "heap times t0.. of a chunk of F-engine heaps [time][feng][channel][spectrum] "
        "(uint32 quartets) -> [time][spectrum][channel][feng]; lost heaps zero");
    s.attr("DIG_N_PARAMS") = int(dig_n_params);
    s.attr("FENG_N_PARAMS") = int(feng_n_params);
    s.attr("DIG_N_ITEMS") = int(dig_n_items);
    s.attr("FENG_N_ITEMS") = int(feng_n_items);
}
