/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// gpudsp.kernels.correlate and the GNSS signal tables; the
// wipeoff_correlator block.

#include "bindings.h"
#include <gnuradio/gpudsp/kernels/gnss_correlator.h>
#include <gnuradio/gpudsp/wipeoff_correlator.h>
#include <cmath>
#include <complex>
#include <set>

namespace {

using namespace gr::gpudsp;

kernels::gnss_job
job_from_dict(const py::dict& d, int64_t n_samples, const std::string& who)
{
    static const std::set<std::string> known = { "system",       "prn",
                                                 "carrier_freq", "carrier_phase",
                                                 "code_freq",    "code_phase",
                                                 "start",        "length",
                                                 "secondary_chip" };
    for (auto item : d) {
        const auto key = py::str(item.first).cast<std::string>();
        if (!known.count(key))
            throw std::invalid_argument(who + ": unknown satellite key \"" + key + "\"");
    }
    if (!d.contains("system") || !d.contains("prn"))
        throw std::invalid_argument(who +
                                    ": each satellite needs \"system\" and \"prn\"");
    kernels::gnss_job j;
    j.system = kernels::parse_gnss_system(d["system"].cast<std::string>(), who);
    j.prn = d["prn"].cast<int>();
    auto get = [&](const char* k, double def) {
        return d.contains(k) ? d[k].cast<double>() : def;
    };
    j.carrier_freq = get("carrier_freq", 0.0);
    j.carrier_phase = get("carrier_phase", 0.0);
    j.code_freq = get("code_freq", kernels::gnss_signal(j.system).chip_rate);
    j.code_phase = get("code_phase", 0.0);
    j.start = d.contains("start") ? d["start"].cast<int64_t>() : 0;
    j.length = d.contains("length") ? d["length"].cast<int64_t>() : n_samples - j.start;
    j.secondary_chip = d.contains("secondary_chip") ? d["secondary_chip"].cast<int>() : -1;
    return j;
}

// x: a numpy array [n_antennas, n_samples] (complex64, or int16 [..., 2] for
// "complex_short"), or a CUDA array (__cuda_array_interface__, C-contiguous
// complex64) that is read where it lies.
py::array correlate_array(py::object x,
                          py::list satellites,
                          std::vector<double> taps,
                          double samp_rate,
                          const std::string& input_format,
                          const std::string& backend,
                          int device,
                          int threads)
{
    const std::string who = "kernels.correlate";
    const auto input = kernels::parse_gnss_input(input_format, who);
    const bool on_gpu = py::hasattr(x, "__cuda_array_interface__");
    std::vector<int64_t> shape;
    py::array host;
    uintptr_t device_ptr = 0;
    if (on_gpu) {
        if (input != kernels::gnss_input::complex64)
            throw std::invalid_argument(who + ": CUDA arrays must be complex64");
        py::dict cai = x.attr("__cuda_array_interface__");
        if (cai["typestr"].cast<std::string>() != "<c8")
            throw std::invalid_argument(who + ": CUDA arrays must be complex64");
        if (cai.contains("strides") && !cai["strides"].is_none())
            throw std::invalid_argument(who + ": CUDA arrays must be C-contiguous");
        for (auto s : cai["shape"].cast<py::tuple>())
            shape.push_back(s.cast<int64_t>());
        device_ptr = cai["data"].cast<py::tuple>()[0].cast<uintptr_t>();
    } else {
        if (input == kernels::gnss_input::complex64)
            host = py::array_t<std::complex<float>,
                               py::array::c_style | py::array::forcecast>(x);
        else
            host = py::array_t<int16_t, py::array::c_style | py::array::forcecast>(x);
        for (int d = 0; d < host.ndim(); ++d)
            shape.push_back(host.shape(d));
        if (input == kernels::gnss_input::complex_int16) {
            if (shape.empty() || shape.back() != 2)
                throw std::invalid_argument(who +
                                            ": complex_short input is int16 [..., 2]");
            shape.pop_back();
        }
    }
    if (shape.size() == 1)
        shape.insert(shape.begin(), 1);
    if (shape.size() != 2)
        throw std::invalid_argument(who + ": x must be [n_antennas, n_samples]");
    const int M = int(shape[0]);
    const int64_t n = shape[1];
    std::vector<kernels::gnss_job> jobs;
    for (auto s : satellites)
        jobs.push_back(job_from_dict(s.cast<py::dict>(), n, who));
    auto where = runtime::resolve_backend(on_gpu ? "cuda" : backend, device, who);
    kernels::gnss_correlator_plan plan(M, taps, samp_rate, input, where, who);
    plan.set_cpu_threads(threads);
    std::vector<std::complex<float>> r(jobs.size() * M * taps.size());
    {
        py::gil_scoped_release release;
        if (on_gpu) {
            std::vector<const void*> ants(M);
            for (int m = 0; m < M; ++m)
                ants[m] = reinterpret_cast<const char*>(device_ptr) + m * n * 8;
            auto ctx = runtime::device_context::get(where.kind, where.device);
            runtime::device_stream stream(ctx, who);
            plan.execute(ants, n, jobs, r.data(), stream.get());
        } else {
            r = plan.execute_host(host.data(), n, jobs);
        }
    }
    py::array_t<std::complex<float>> out(
        { py::ssize_t(jobs.size()), py::ssize_t(M), py::ssize_t(taps.size()) });
    std::copy(r.begin(), r.end(), out.mutable_data());
    return out;
}

py::array code_array(const std::string& system, int prn)
{
    const auto sys = kernels::parse_gnss_system(system, "kernels.gnss_code");
    const auto& s = kernels::gnss_signal(sys);
    if (prn < 1 || prn > s.n_prns)
        throw std::invalid_argument("kernels.gnss_code: " + system + " has PRNs 1.." +
                                    std::to_string(s.n_prns));
    const auto& t = kernels::gnss_codes(sys);
    py::array_t<int8_t> out(s.code_length);
    std::copy_n(t.data() + std::size_t(prn - 1) * s.code_length,
                s.code_length,
                out.mutable_data());
    return out;
}

py::dict signal_dict(const std::string& system)
{
    const auto& s =
        kernels::gnss_signal(kernels::parse_gnss_system(system, "gnss_signal"));
    py::dict d;
    d["code_length"] = s.code_length;
    d["n_prns"] = s.n_prns;
    d["chip_rate"] = s.chip_rate;
    d["sub_phases"] = s.sub_phases;
    d["secondary_length"] = s.secondary_length;
    d["carrier_hz"] = s.carrier_hz;
    std::vector<double> sub;
    for (int j = 0; j < s.sub_phases; ++j)
        sub.push_back(kernels::gnss_subcarrier(s.system, j));
    d["subcarrier"] = sub;
    return d;
}

} // namespace

void bind_wipeoff_correlator(py::module& m)
{
    using gr::gpudsp::wipeoff_correlator;
    py::class_<wipeoff_correlator,
               gr::block,
               gr::basic_block,
               std::shared_ptr<wipeoff_correlator>>(
        m,
        "wipeoff_correlator",
        "GNSS carrier wipe-off and code correlation of many satellites x antennas x "
        "taps. Messages on \"corr\" (one per satellite per integration), control on "
        "\"control\"; optional record output. See docs/gnss.md.")
        .def(py::init(&wipeoff_correlator::make),
             py::arg("samp_rate"),
             py::arg("n_antennas"),
             py::arg("taps_chips") = std::vector<double>{ 0.5, 0.0, -0.5 },
             py::arg("input_format") = "complex",
             py::arg("integration_periods") = 1,
             py::arg("backend") = "auto",
             py::arg("device") = 0)
        .def("backend", &wipeoff_correlator::backend)
        .def("configuration", &wipeoff_correlator::configuration)
        .def("record_size", &wipeoff_correlator::record_size)
        .def("add_satellite",
             &wipeoff_correlator::add_satellite,
             py::arg("system"),
             py::arg("prn"),
             py::arg("carrier_freq"),
             py::arg("code_freq"),
             py::arg("carrier_phase") = 0.0,
             py::arg("code_phase") = 0.0,
             py::arg("at_sample") = -1)
        .def("update_satellite",
             &wipeoff_correlator::update_satellite,
             py::arg("system"),
             py::arg("prn"),
             py::arg("carrier_freq") = NAN,
             py::arg("code_freq") = NAN,
             py::arg("carrier_phase_correction") = 0.0,
             py::arg("code_phase_correction") = 0.0)
        .def("remove_satellite",
             &wipeoff_correlator::remove_satellite,
             py::arg("system"),
             py::arg("prn"))
        .def("satellites", &wipeoff_correlator::satellites)
        .def("set_cpu_threads", &wipeoff_correlator::set_cpu_threads, py::arg("n"))
        .def("set_secondary_chip",
             &wipeoff_correlator::set_secondary_chip,
             py::arg("system"),
             py::arg("prn"),
             py::arg("chip"),
             py::arg("epoch") = -1);
}

void bind_gnss(py::module& m, py::module& k)
{
    k.def("correlate",
          &correlate_array,
          py::arg("x"),
          py::arg("satellites"),
          py::arg("taps_chips"),
          py::arg("samp_rate"),
          py::arg("input_format"),
          py::arg("backend"),
          py::arg("device"),
          py::arg("threads") = 1);
    k.def("gnss_code", &code_array, py::arg("system"), py::arg("prn"));
    k.def("gnss_signal", &signal_dict, py::arg("system"));
    k.def(
        "gnss_secondary_code",
        [](const std::string& system, int prn) {
            const auto v = kernels::gnss_secondary_code(
                kernels::parse_gnss_system(system, "kernels.gnss_secondary_code"), prn);
            py::array_t<int8_t> out(py::ssize_t(v.size()));
            std::copy(v.begin(), v.end(), out.mutable_data());
            return out;
        },
        py::arg("system"),
        py::arg("prn"));
    bind_wipeoff_correlator(m);
}
