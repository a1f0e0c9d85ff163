/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// gpudsp.kernels.ldpc5g_*, the gr-fec encoder/decoder objects and the LDPC
// stream blocks.

#include "bindings.h"
#include <gnuradio/gpudsp/kernels/ldpc5g.h>
#include <gnuradio/gpudsp/ldpc5g.h>

namespace {

using namespace gr::gpudsp;

py::dict params_dict(int K, int E, int rv, int Qm, int n_ref, int bg)
{
    const auto p =
        kernels::ldpc5g_params::make(K, E, rv, Qm, n_ref, "kernels.ldpc5g_params", bg);
    py::dict d;
    d["K"] = p.K;
    d["E"] = p.E;
    d["rv"] = p.rv;
    d["Qm"] = p.Qm;
    d["BG"] = p.bg;
    d["Z"] = p.Z;
    d["iLS"] = p.iLS;
    d["K_ldpc"] = p.K_ldpc;
    d["N"] = p.N;
    d["Ncb"] = p.Ncb;
    d["k0"] = p.k0;
    d["fillers"] = p.fillers;
    d["rows_used"] = p.rows_used;
    return d;
}

py::array encode_array(py::array bits, int E, int rv, int Qm, int n_ref, int bg)
{
    auto b = py::array_t<uint8_t, py::array::c_style | py::array::forcecast>(bits);
    if (b.ndim() == 1)
        b = b.reshape({ py::ssize_t(1), b.shape(0) });
    if (b.ndim() != 2)
        throw std::invalid_argument("kernels.ldpc5g_encode: bits must be [batch, K]");
    const int batch = int(b.shape(0)), K = int(b.shape(1));
    const auto p =
        kernels::ldpc5g_params::make(K, E, rv, Qm, n_ref, "kernels.ldpc5g_encode", bg);
    kernels::ldpc5g_encoder_core enc(p);
    for (py::ssize_t i = 0; i < b.size(); ++i)
        if (b.data()[i] > 1)
            throw std::invalid_argument("kernels.ldpc5g_encode: bits must be 0 or 1");
    py::array_t<uint8_t> out({ py::ssize_t(batch), py::ssize_t(E) });
    {
        py::gil_scoped_release release;
        for (int i = 0; i < batch; ++i)
            enc.encode(b.data() + std::size_t(i) * K,
                       out.mutable_data() + std::size_t(i) * E);
    }
    return out;
}

py::array codeword_array(py::array bits, int E, int rv, int Qm, int n_ref, int bg)
{
    auto b = py::array_t<uint8_t, py::array::c_style | py::array::forcecast>(bits);
    if (b.ndim() != 1)
        throw std::invalid_argument("kernels.ldpc5g_codeword: bits must be [K]");
    const auto p = kernels::ldpc5g_params::make(
        int(b.shape(0)), E, rv, Qm, n_ref, "kernels.ldpc5g_codeword", bg);
    kernels::ldpc5g_encoder_core enc(p);
    const auto c = enc.codeword(b.data());
    py::array_t<uint8_t> out(c.size());
    std::copy(c.begin(), c.end(), out.mutable_data());
    return out;
}

py::tuple decode_array(py::array llrs,
                       int K,
                       int rv,
                       int Qm,
                       int n_ref,
                       int max_iterations,
                       const std::string& algorithm,
                       float scaling,
                       float offset,
                       const std::string& arithmetic,
                       float fixed_scale,
                       const std::string& llr_sign,
                       bool early_termination,
                       const std::string& backend,
                       int device,
                       int bg,
                       bool packed_bits)
{
    const std::string who = "kernels.ldpc5g_decode";
    // int8 and float16 arrays are passed as they are (the GPU reads them);
    // anything else becomes float32.
    auto format = kernels::ldpc5g_llr_format::f32;
    py::array l;
    const auto dt = llrs.dtype();
    if (dt.kind() == 'i' && dt.itemsize() == 1) {
        format = kernels::ldpc5g_llr_format::i8;
        l = py::array_t<int8_t, py::array::c_style | py::array::forcecast>(llrs);
    } else if (dt.kind() == 'f' && dt.itemsize() == 2) {
        format = kernels::ldpc5g_llr_format::f16; // in native byte order
        l = py::array::ensure(llrs.attr("astype")("=f2", py::arg("copy") = false),
                              py::array::c_style);
    } else {
        l = py::array_t<float, py::array::c_style | py::array::forcecast>(llrs);
    }
    if (l.ndim() == 1)
        l = l.reshape({ py::ssize_t(1), l.shape(0) });
    if (l.ndim() != 2)
        throw std::invalid_argument(who + ": llrs must be [batch, E]");
    const int batch = int(l.shape(0)), E = int(l.shape(1));
    const auto p = kernels::ldpc5g_params::make(K, E, rv, Qm, n_ref, who, bg);
    auto c = kernels::make_ldpc5g_decoder_config(max_iterations,
                                                 algorithm,
                                                 scaling,
                                                 offset,
                                                 arithmetic,
                                                 llr_sign,
                                                 early_termination,
                                                 who);
    c.fixed_scale = fixed_scale;
    kernels::ldpc5g_decoder_plan plan(
        p, c, runtime::resolve_backend(backend, device, who), who);
    py::array_t<uint8_t> bits(
        { py::ssize_t(batch), py::ssize_t(packed_bits ? (K + 7) / 8 : K) });
    py::array_t<int32_t> its(batch);
    py::array_t<bool> ok(batch);
    {
        py::gil_scoped_release release;
        plan.decode(l.data(),
                    format,
                    batch,
                    bits.mutable_data(),
                    packed_bits,
                    its.mutable_data(),
                    reinterpret_cast<uint8_t*>(ok.mutable_data()));
    }
    return py::make_tuple(bits, its, ok);
}

} // namespace

void bind_ldpc5g(py::module& m, py::module& k)
{
    py::module::import("gnuradio.fec");
    k.def("ldpc5g_params",
          &params_dict,
          py::arg("K"),
          py::arg("E"),
          py::arg("rv"),
          py::arg("Qm"),
          py::arg("n_ref"),
          py::arg("bg"));
    k.def("ldpc5g_encode",
          &encode_array,
          py::arg("bits"),
          py::arg("E"),
          py::arg("rv"),
          py::arg("Qm"),
          py::arg("n_ref"),
          py::arg("bg"));
    k.def("ldpc5g_codeword",
          &codeword_array,
          py::arg("bits"),
          py::arg("E"),
          py::arg("rv"),
          py::arg("Qm"),
          py::arg("n_ref"),
          py::arg("bg"));
    k.def("ldpc5g_decode",
          &decode_array,
          py::arg("llrs"),
          py::arg("K"),
          py::arg("rv"),
          py::arg("Qm"),
          py::arg("n_ref"),
          py::arg("max_iterations"),
          py::arg("algorithm"),
          py::arg("scaling"),
          py::arg("offset"),
          py::arg("arithmetic"),
          py::arg("fixed_scale"),
          py::arg("llr_sign"),
          py::arg("early_termination"),
          py::arg("backend"),
          py::arg("device"),
          py::arg("bg"),
          py::arg("packed_bits"));
    k.def("ldpc5g_lifting_sizes", &kernels::ldpc5g_lifting_sizes);

    py::class_<ldpc5g_encoder, gr::fec::generic_encoder, std::shared_ptr<ldpc5g_encoder>>(
        m,
        "ldpc5g_encoder",
        "5G NR LDPC encoder + rate matching (gr-fec encoder object)");
    m.def("ldpc5g_encoder_make",
          &ldpc5g_encoder::make,
          py::arg("K"),
          py::arg("E"),
          py::arg("rv") = 0,
          py::arg("Qm") = 1,
          py::arg("n_ref") = 0,
          "A gr-fec encoder object: K bits in, E coded bits out per frame.");
    py::class_<ldpc5g_decoder, gr::fec::generic_decoder, std::shared_ptr<ldpc5g_decoder>>(
        m, "ldpc5g_decoder", "5G NR LDPC decoder (gr-fec decoder object)")
        .def("last_iterations", &ldpc5g_decoder::last_iterations)
        .def("last_ok", &ldpc5g_decoder::last_ok);
    m.def("ldpc5g_decoder_make",
          &ldpc5g_decoder::make,
          py::arg("K"),
          py::arg("E"),
          py::arg("rv") = 0,
          py::arg("Qm") = 1,
          py::arg("max_iterations") = 10,
          py::arg("algorithm") = "layered_nms",
          py::arg("scaling") = 0.75f,
          py::arg("batch") = 1,
          py::arg("backend") = "auto",
          py::arg("device") = 0,
          py::arg("offset") = 0.0f,
          py::arg("arithmetic") = "float",
          py::arg("llr_sign") = "positive_is_one",
          py::arg("n_ref") = 0,
          py::arg("early_termination") = true,
          py::arg("llr_format") = "float",
          "A gr-fec decoder object: batch x E soft values in (float, or int8 with "
          "llr_format=\"char\"), batch x K bits out per frame.");

    py::class_<ldpc5g_encode, gr::block, gr::basic_block, std::shared_ptr<ldpc5g_encode>>(
        m, "ldpc5g_encode", "5G NR LDPC encoder + rate matching, stream block")
        .def(py::init(&ldpc5g_encode::make),
             py::arg("K"),
             py::arg("E"),
             py::arg("rv") = 0,
             py::arg("Qm") = 1,
             py::arg("n_ref") = 0);
    py::class_<ldpc5g_decode, gr::block, gr::basic_block, std::shared_ptr<ldpc5g_decode>>(
        m,
        "ldpc5g_decode",
        "5G NR LDPC decoder, stream block: E LLRs in, K bits out per codeword, batched")
        .def(py::init(&ldpc5g_decode::make),
             py::arg("K"),
             py::arg("E"),
             py::arg("rv") = 0,
             py::arg("Qm") = 1,
             py::arg("max_iterations") = 10,
             py::arg("algorithm") = "layered_nms",
             py::arg("scaling") = 0.75f,
             py::arg("offset") = 0.0f,
             py::arg("arithmetic") = "float",
             py::arg("llr_format") = "float",
             py::arg("llr_sign") = "positive_is_zero",
             py::arg("output") = "unpacked",
             py::arg("batch") = 64,
             py::arg("backend") = "auto",
             py::arg("device") = 0,
             py::arg("n_ref") = 0,
             py::arg("early_termination") = true)
        .def("backend", &ldpc5g_decode::backend)
        .def("configuration", &ldpc5g_decode::configuration);
}
