/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "bindings.h"
#include <gnuradio/gpudsp/device_copy.h>

void bind_device_copy(py::module& m)
{
    using gr::gpudsp::device_copy;
    py::class_<device_copy,
               gr::sync_block,
               gr::block,
               gr::basic_block,
               std::shared_ptr<device_copy>>(
        m,
        "device_copy",
        "Copies a stream device buffer to device buffer: moves a host stream onto "
        "the GPU (one upload) or back (one download), and is where to fan out.")
        .def(py::init(&device_copy::make),
             py::arg("itemsize"),
             py::arg("backend") = "auto",
             py::arg("device") = 0)
        .def("backend", &device_copy::backend);
}
