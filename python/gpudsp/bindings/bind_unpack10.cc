/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "bindings.h"
#include <gnuradio/gpudsp/kernels/unpack10.h>
#include <gnuradio/gpudsp/unpack10.h>

namespace {

using namespace gr::gpudsp;

py::array
unpack10_array(py::array raw,
               const std::string& out_type,
               const std::string& backend,
               int device)
{
    // Bytes only: casting other numbers to bytes would hide a caller's error.
    if (raw.dtype().kind() != 'u' || raw.itemsize() != 1)
        throw std::invalid_argument("unpack10: data must be uint8 bytes, got dtype " +
                                    std::string(py::str(raw.dtype())));
    auto data = py::array_t<uint8_t, py::array::c_style | py::array::forcecast>(raw);
    if (data.ndim() != 1)
        throw std::invalid_argument("unpack10: data must be a 1-D uint8 array");
    if (out_type != "short" && out_type != "float")
        throw std::invalid_argument("unpack10: out_type must be \"short\" or \"float\"");
    const auto format = out_type == "float" ? kernels::sample_format::float32
                                            : kernels::sample_format::int16;
    const auto where = runtime::resolve_backend(backend, device, "kernels.unpack10");
    // Every whole sample the bytes hold (a trailing partial sample is ignored).
    const std::size_t n = std::size_t(data.size()) * 8 / 10;
    py::array out = format == kernels::sample_format::float32
                        ? py::array(py::array_t<float>(n))
                        : py::array(py::array_t<int16_t>(n));
    const uint8_t* in = data.data();
    void* dst = out.mutable_data();
    {
        py::gil_scoped_release release;
        kernels::unpack10_plan plan(format, where, "kernels.unpack10");
        plan.execute_host(in, dst, n);
    }
    return out;
}

} // namespace

void bind_unpack10(py::module& m, py::module& k)
{
    py::class_<unpack10, gr::block, gr::basic_block, std::shared_ptr<unpack10>>(
        m,
        "unpack10",
        "Unpacks packed 10-bit two's-complement samples (sample i in bits "
        "[10i, 10i+10), MSB first, 4 samples per 5 bytes) to float or short.")
        .def(py::init(&unpack10::make),
             py::arg("out_type") = "float",
             py::arg("backend") = "auto",
             py::arg("device") = 0)
        .def("backend", &unpack10::backend)
        .def("configuration", &unpack10::configuration);

    k.def("unpack10",
          &unpack10_array,
          py::arg("data"),
          py::arg("out_type") = "short",
          py::arg("backend") = "auto",
          py::arg("device") = 0);
}
