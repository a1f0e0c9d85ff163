/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// gpudsp.kernels.ddc: the DDC's compute core on numpy arrays.

#include "bindings.h"
#include <gnuradio/gpudsp/ddc.h>
#include <gnuradio/gpudsp/kernels/ddc.h>
#include <complex>

namespace {

using namespace gr::gpudsp;

py::array ddc_array(py::array x,
                    int decimation,
                    py::array taps,
                    double center_freq,
                    double samp_rate,
                    uint64_t first_sample_index,
                    const std::string& input_format,
                    const std::string& backend,
                    int device)
{
    const std::string who = "kernels.ddc";
    kernels::ddc_config c;
    c.decimation = decimation;
    c.center_freq = center_freq;
    c.samp_rate = samp_rate;
    c.input = kernels::parse_ddc_input(input_format, who);
    auto t = py::array_t<std::complex<double>, py::array::c_style | py::array::forcecast>(
        taps);
    if (t.ndim() != 1)
        throw std::invalid_argument(who + ": taps must be 1-D");
    c.taps.assign(t.data(), t.data() + t.size());

    py::array a;
    std::size_t n = 0;
    switch (c.input) {
    case kernels::ddc_input::complex64:
        a = py::array_t<std::complex<float>, py::array::c_style | py::array::forcecast>(
            x);
        n = a.size();
        break;
    case kernels::ddc_input::float32:
        a = py::array_t<float, py::array::c_style | py::array::forcecast>(x);
        n = a.size();
        break;
    case kernels::ddc_input::int16:
        a = py::array_t<int16_t, py::array::c_style | py::array::forcecast>(x);
        n = a.size();
        break;
    case kernels::ddc_input::packed10:
        a = py::array_t<uint8_t, py::array::c_style | py::array::forcecast>(x);
        n = std::size_t(a.size()) * 8 / 10;
        break;
    }
    if (a.ndim() != 1)
        throw std::invalid_argument(who + ": x must be 1-D");
    const auto where = runtime::resolve_backend(backend, device, who);
    kernels::ddc_plan plan(c, where, who);
    std::vector<std::complex<float>> y;
    {
        py::gil_scoped_release release;
        uint64_t first_output = 0;
        y = plan.execute_host(a.data(), n, first_sample_index, first_output);
    }
    py::array_t<std::complex<float>> out(y.size());
    std::copy(y.begin(), y.end(), out.mutable_data());
    return out;
}

} // namespace

void bind_ddc(py::module& m, py::module& k)
{
    using gr::gpudsp::ddc;
    py::class_<ddc, gr::block, gr::basic_block, std::shared_ptr<ddc>>(
        m,
        "ddc",
        "Narrowband digital down-conversion (mix, low-pass FIR, decimate), several "
        "outputs from one input. See docs/ddc.md.")
        .def(py::init(&ddc::make),
             py::arg("decimation"),
             py::arg("taps"),
             py::arg("center_freq"),
             py::arg("samp_rate"),
             py::arg("input_format") = "complex",
             py::arg("n_outputs") = 1,
             py::arg("backend") = "auto",
             py::arg("device") = 0,
             py::arg("center_freqs") = std::vector<double>(),
             py::arg("decimations") = std::vector<int>(),
             py::arg("output_taps") = std::vector<std::vector<gr_complex>>())
        .def("backend", &ddc::backend)
        .def("configuration", &ddc::configuration, py::arg("output") = 0)
        .def("set_center_freq",
             &ddc::set_center_freq,
             py::arg("freq"),
             py::arg("output") = 0,
             py::arg("at_sample") = -1)
        .def("center_freq", &ddc::center_freq, py::arg("output") = 0);

    k.def("ddc",
          &ddc_array,
          py::arg("x"),
          py::arg("decimation"),
          py::arg("taps"),
          py::arg("center_freq"),
          py::arg("samp_rate"),
          py::arg("first_sample_index"),
          py::arg("input_format"),
          py::arg("backend"),
          py::arg("device"));
}
