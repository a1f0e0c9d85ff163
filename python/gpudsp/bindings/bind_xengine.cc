/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// gpudsp.kernels.xengine: the X-engine's compute core on numpy arrays.

#include "bindings.h"
#include <gnuradio/gpudsp/kernels/xengine.h>
#include <gnuradio/gpudsp/xengine.h>
#include <complex>

namespace {

using namespace gr::gpudsp;

py::object xengine_array(py::array x,
                         int n_pols,
                         const std::string& output_format,
                         const std::string& kernel,
                         const std::string& backend,
                         int device)
{
    const std::string who = "kernels.xengine";
    kernels::xengine_config c;
    py::array a;
    const bool int8_input = py::isinstance<py::array_t<int8_t>>(x) ||
                            (x.dtype().kind() == 'i' && x.itemsize() == 1);
    if (int8_input) {
        a = py::array_t<int8_t, py::array::c_style | py::array::forcecast>(x);
        if (a.ndim() != 4 || a.shape(3) != 2)
            throw std::invalid_argument(who + ": int8 input must be [n_time, n_channels, "
                                              "n_inputs, 2]");
        c.input = kernels::xengine_input::ci8;
    } else {
        a = py::array_t<std::complex<float>, py::array::c_style | py::array::forcecast>(
            x);
        if (a.ndim() != 3)
            throw std::invalid_argument(who +
                                        ": complex input must be [n_time, n_channels, "
                                        "n_inputs]");
        c.input = kernels::xengine_input::cf32;
    }
    if (n_pols != 1 && n_pols != 2)
        throw std::invalid_argument(who + ": n_pols must be 1 or 2");
    const py::ssize_t n_inputs = a.shape(2);
    if (n_inputs % n_pols != 0)
        throw std::invalid_argument(who + ": n_inputs must be a multiple of n_pols");
    c.n_pols = n_pols;
    c.n_stations = int(n_inputs / n_pols);
    c.n_channels = int(a.shape(1));
    if (output_format == "auto")
        c.output =
            int8_input ? kernels::xengine_output::ci32 : kernels::xengine_output::cf32;
    else if (output_format == "ci32" && int8_input)
        c.output = kernels::xengine_output::ci32;
    else if (output_format == "cf32")
        c.output = kernels::xengine_output::cf32;
    else
        throw std::invalid_argument(who +
                                    ": output_format must be \"auto\", \"cf32\" or (for "
                                    "int8 input) \"ci32\"");
    c.kernel = kernels::parse_xengine_kernel(kernel, who);
    const auto where = runtime::resolve_backend(backend, device, who);
    kernels::xengine_plan plan(c, where, who);
    const py::ssize_t nb = py::ssize_t(c.n_baselines());
    py::array out =
        c.output == kernels::xengine_output::ci32
            ? py::array(py::array_t<int32_t>({ py::ssize_t(c.n_channels),
                                               nb,
                                               py::ssize_t(n_pols),
                                               py::ssize_t(n_pols),
                                               py::ssize_t(2) }))
            : py::array(py::array_t<std::complex<float>>({ py::ssize_t(c.n_channels),
                                                           nb,
                                                           py::ssize_t(n_pols),
                                                           py::ssize_t(n_pols) }));
    uint64_t saturated = 0;
    {
        py::gil_scoped_release release;
        saturated =
            plan.correlate_host(a.data(), std::size_t(a.shape(0)), out.mutable_data());
    }
    return py::make_tuple(out, saturated, plan.kernel_name());
}

} // namespace

void bind_xengine(py::module& m, py::module& k)
{
    using gr::gpudsp::xengine;
    py::class_<xengine, gr::block, gr::basic_block, std::shared_ptr<xengine>>(
        m,
        "xengine",
        "The X of an FX correlator: all-baseline cross-correlation with long "
        "integration. "
        "See docs/xengine.md.")
        .def(py::init(&xengine::make),
             py::arg("n_stations"),
             py::arg("n_pols"),
             py::arg("n_channels"),
             py::arg("n_integrate"),
             py::arg("input_format") = "ci8",
             py::arg("output_format") = "auto",
             py::arg("backend") = "auto",
             py::arg("device") = 0,
             py::arg("kernel") = "auto")
        .def("backend", &xengine::backend)
        .def("configuration", &xengine::configuration)
        .def("kernel", &xengine::kernel)
        .def("kernel_form", &xengine::kernel_form);

    k.def("xengine",
          &xengine_array,
          py::arg("x"),
          py::arg("n_pols"),
          py::arg("output_format"),
          py::arg("kernel"),
          py::arg("backend"),
          py::arg("device"));
}
