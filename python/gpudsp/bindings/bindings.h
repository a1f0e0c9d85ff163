/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Internal to the Python bindings: one bind_* function per part of the
// module, and the helpers they share.

#ifndef INCLUDED_GPUDSP_PYTHON_BINDINGS_H
#define INCLUDED_GPUDSP_PYTHON_BINDINGS_H

#include <gnuradio/gpudsp/runtime/backend.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace py = pybind11;

void bind_runtime(py::module& m);
void bind_device_copy(py::module& m);
void bind_unpack10(py::module& m, py::module& kernels);
void bind_pfb_fengine(py::module& m, py::module& kernels);
void bind_xengine(py::module& m, py::module& kernels);
void bind_ddc(py::module& m, py::module& kernels);
void bind_gnss(py::module& m, py::module& kernels);
void bind_wipeoff_correlator(py::module& m);
void bind_ldpc5g(py::module& m, py::module& kernels);
void bind_spead(py::module& m);

#endif
