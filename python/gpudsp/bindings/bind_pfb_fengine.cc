/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// gpudsp.kernels.pfb_weights and gpudsp.kernels.fengine: the F-engine's
// compute core on numpy arrays.

#include "bindings.h"
#include <gnuradio/gpudsp/kernels/pfb_fengine.h>
#include <gnuradio/gpudsp/kernels/unpack10.h>
#include <gnuradio/gpudsp/pfb_fengine.h>
#include <cstring>

namespace {

using namespace gr::gpudsp;
using kernels::fengine_input;

py::object fengine_array(py::array x,
                         int n_channels,
                         int n_taps,
                         const std::string& input_format,
                         const std::string& output_format,
                         double w_cutoff,
                         std::vector<double> weights,
                         py::object gains,
                         std::vector<double> fine_delays,
                         std::vector<double> phases,
                         std::vector<int64_t> coarse_delays,
                         std::vector<double> delay_rates,
                         std::vector<double> phase_rates,
                         uint64_t reference_spectrum,
                         bool dither,
                         uint64_t dither_seed,
                         uint64_t first_spectrum,
                         const std::string& backend,
                         int device,
                         bool centred_channels)
{
    const std::string who = "kernels.fengine";
    kernels::fengine_config c;
    c.n_channels = n_channels;
    c.n_taps = n_taps;
    c.input = kernels::parse_fengine_input(input_format, who);
    c.output = kernels::parse_fengine_output(output_format, who);
    c.w_cutoff = w_cutoff;
    c.weights = std::move(weights);
    c.dither = dither;
    c.dither_seed = dither_seed;
    c.centred_channels = centred_channels;

    // The input as a C-contiguous [n_inputs, n] array of the format's type.
    py::array a;
    switch (c.input) {
    case fengine_input::packed10:
        a = py::array_t<uint8_t, py::array::c_style | py::array::forcecast>(x);
        break;
    case fengine_input::int16:
        a = py::array_t<int16_t, py::array::c_style | py::array::forcecast>(x);
        break;
    case fengine_input::float32:
        a = py::array_t<float, py::array::c_style | py::array::forcecast>(x);
        break;
    case fengine_input::complex64:
        a = py::array_t<std::complex<float>, py::array::c_style | py::array::forcecast>(
            x);
        break;
    }
    if (a.ndim() != 2)
        throw std::invalid_argument(who + ": x must be 2-D [n_inputs, n_samples]");
    c.n_inputs = int(a.shape(0));
    const std::size_t row_bytes = std::size_t(a.shape(1)) * a.itemsize();
    const std::size_t n_samples =
        c.input == fengine_input::packed10 ? row_bytes * 8 / 10 : std::size_t(a.shape(1));

    const auto where = runtime::resolve_backend(backend, device, who);
    kernels::fengine_plan plan(c, where, who);
    kernels::fengine_corrections corr;
    if (!gains.is_none()) {
        auto g =
            py::array_t<std::complex<float>, py::array::c_style | py::array::forcecast>(
                gains);
        if (g.ndim() != 2 || g.shape(0) != n_channels || g.shape(1) != c.n_inputs)
            throw std::invalid_argument(who + ": gains must be [n_channels, n_inputs]");
        corr.gains.assign(g.data(), g.data() + g.size());
    }
    corr.fine_delays = std::move(fine_delays);
    corr.phases = std::move(phases);
    corr.delay_rates = std::move(delay_rates);
    corr.phase_rates = std::move(phase_rates);
    corr.reference_spectrum = reference_spectrum;
    plan.set_corrections(corr);

    if (!coarse_delays.empty() && coarse_delays.size() != std::size_t(c.n_inputs))
        throw std::invalid_argument(who +
                                    ": coarse_delays must hold one value per input");
    coarse_delays.resize(c.n_inputs, 0);

    // A coarse delay D puts D zero samples in front of that input (for
    // packed10: whole zero groups, and a start inside the first group).
    const std::size_t window = c.window();
    const std::size_t n_spectra =
        n_samples >= window ? (n_samples - window) / c.step() + 1 : 0;
    std::vector<int64_t> pad(c.n_inputs);
    std::vector<std::size_t> pad_bytes(c.n_inputs);
    std::size_t longest = 0;
    for (int i = 0; i < c.n_inputs; ++i) {
        const int64_t D = coarse_delays[i];
        if (D < 0)
            throw std::invalid_argument(who + ": coarse delays must be >= 0 samples");
        pad[i] = c.input == fengine_input::packed10 ? (D + 3) / 4 * 4 : D;
        pad_bytes[i] = c.input == fengine_input::packed10 ? std::size_t(pad[i]) / 4 * 5
                                                          : pad[i] * a.itemsize();
        longest = std::max(longest, pad_bytes[i] + row_bytes);
    }
    // One zeroed block per input, all the same size.
    std::vector<uint8_t> staged(longest * c.n_inputs, 0);
    std::vector<kernels::fengine_input_view> views(c.n_inputs);
    for (int i = 0; i < c.n_inputs; ++i) {
        uint8_t* row = staged.data() + i * longest;
        std::memcpy(row + pad_bytes[i],
                    static_cast<const uint8_t*>(a.data()) + i * row_bytes,
                    row_bytes);
        views[i] = { row, pad[i] - coarse_delays[i] };
    }

    const std::vector<py::ssize_t> shape_cf = { py::ssize_t(n_spectra),
                                                n_channels,
                                                c.n_inputs };
    py::array out = c.output == kernels::fengine_output::cf32
                        ? py::array(py::array_t<std::complex<float>>(shape_cf))
                        : py::array(py::array_t<int8_t>({ py::ssize_t(n_spectra),
                                                          py::ssize_t(n_channels),
                                                          py::ssize_t(c.n_inputs),
                                                          py::ssize_t(2) }));
    py::array_t<uint32_t> sat({ py::ssize_t(n_spectra), py::ssize_t(c.n_inputs) });
    {
        py::gil_scoped_release release;
        plan.execute_host(views,
                          longest,
                          out.mutable_data(),
                          sat.mutable_data(),
                          n_spectra,
                          first_spectrum);
    }
    if (c.output == kernels::fengine_output::ci8)
        return py::make_tuple(out, sat);
    return out;
}

} // namespace

void bind_pfb_fengine(py::module& m, py::module& k)
{
    using gr::gpudsp::pfb_fengine;
    py::class_<pfb_fengine,
               gr::sync_decimator,
               gr::sync_block,
               gr::block,
               gr::basic_block,
               std::shared_ptr<pfb_fengine>>(
        m,
        "pfb_fengine",
        "The F of an FX correlator: polyphase filter bank (FIR + FFT), per-input gains, "
        "fine and coarse delays and phases, int8 quantisation. See docs/fengine.md.")
        .def(py::init(&pfb_fengine::make),
             py::arg("n_inputs"),
             py::arg("n_channels"),
             py::arg("n_taps") = 16,
             py::arg("input_format") = "packed10",
             py::arg("output_format") = "ci8",
             py::arg("w_cutoff") = 1.0,
             py::arg("weights") = std::vector<double>(),
             py::arg("dither") = false,
             py::arg("backend") = "auto",
             py::arg("device") = 0,
             py::arg("max_coarse_delay") = 65536,
             py::arg("delay_convention") = "gpudsp",
             py::arg("channel_order") = "natural")
        .def("backend", &pfb_fengine::backend)
        .def("delay_convention", &pfb_fengine::delay_convention)
        .def("channel_order", &pfb_fengine::channel_order)
        .def("configuration", &pfb_fengine::configuration)
        .def("weights", &pfb_fengine::weights)
        .def("set_gains",
             &pfb_fengine::set_gains,
             py::arg("gains"),
             py::arg("at_sample") = -1)
        .def("set_fine_delays",
             &pfb_fengine::set_fine_delays,
             py::arg("delays"),
             py::arg("at_sample") = -1)
        .def("set_phases",
             &pfb_fengine::set_phases,
             py::arg("phases"),
             py::arg("at_sample") = -1)
        .def("set_coarse_delays",
             &pfb_fengine::set_coarse_delays,
             py::arg("delays"),
             py::arg("at_sample") = -1)
        .def(
            "set_delay_model",
            &pfb_fengine::set_delay_model,
            py::arg("delays"),
            py::arg("delay_rates") = std::vector<double>{},
            py::arg("phases") = std::vector<double>{},
            py::arg("phase_rates") = std::vector<double>{},
            py::arg("at_sample") = 0,
            "Delay tracking: per input, delay + delay_rate (n - at_sample) samples and "
            "phase + phase_rate (n - at_sample) radians at input sample n, evaluated per "
            "spectrum (docs/fengine.md).")
        .def("gains", &pfb_fengine::gains)
        .def("fine_delays", &pfb_fengine::fine_delays)
        .def("phases", &pfb_fengine::phases)
        .def("coarse_delays", &pfb_fengine::coarse_delays);

    k.def(
        "pfb_weights",
        [](int n_channels, int n_taps, double w_cutoff, bool complex_input) {
            const auto w =
                kernels::pfb_weights(n_channels, n_taps, w_cutoff, complex_input);
            py::array_t<double> a(w.size());
            std::copy(w.begin(), w.end(), a.mutable_data());
            return a;
        },
        py::arg("n_channels"),
        py::arg("n_taps"),
        py::arg("w_cutoff") = 1.0,
        py::arg("complex_input") = false);
    k.def("fengine",
          &fengine_array,
          py::arg("x"),
          py::arg("n_channels"),
          py::arg("n_taps"),
          py::arg("input_format"),
          py::arg("output_format"),
          py::arg("w_cutoff"),
          py::arg("weights"),
          py::arg("gains"),
          py::arg("fine_delays"),
          py::arg("phases"),
          py::arg("coarse_delays"),
          py::arg("delay_rates"),
          py::arg("phase_rates"),
          py::arg("reference_spectrum"),
          py::arg("dither"),
          py::arg("dither_seed"),
          py::arg("first_spectrum"),
          py::arg("backend"),
          py::arg("device"),
          py::arg("centred_channels") = false);
}
