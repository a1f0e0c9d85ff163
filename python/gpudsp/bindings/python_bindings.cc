/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Hand-maintained pybind11 bindings of gr-gpudsp (no pygccxml at build
// time). Each part lives in its own bind_*.cc file; this file assembles the
// module `gnuradio.gpudsp.gpudsp_python`.

#include "bindings.h"

PYBIND11_MODULE(gpudsp_python, m)
{
    // Base classes (gr.block, gr.sync_block...) come from GNU Radio's module.
    py::module::import("gnuradio.gr");

    m.doc() = "gr-gpudsp: GPU-backed GNU Radio blocks (CUDA, with CPU fallbacks)";
    auto kernels = m.def_submodule("_kernels", "compute cores callable on numpy arrays");

    bind_runtime(m);
    bind_device_copy(m);
    bind_unpack10(m, kernels);
    bind_pfb_fengine(m, kernels);
    bind_xengine(m, kernels);
    bind_ddc(m, kernels);
    bind_gnss(m, kernels);
    bind_ldpc5g(m, kernels);
    bind_spead(m);
}
