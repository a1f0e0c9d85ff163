/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUDSP_LDPC5G_H
#define INCLUDED_GPUDSP_LDPC5G_H

#include <gnuradio/block.h>
#include <gnuradio/fec/generic_decoder.h>
#include <gnuradio/fec/generic_encoder.h>
#include <gnuradio/gpudsp/api.h>
#include <string>

namespace gr {
namespace gpudsp {

/*!
 * \brief 5G NR LDPC encoder with rate matching, as a gr-fec encoder
 * (fec.extended_encoder, fec.bercurve_generator...): a frame is K
 * information bits in (one per byte), E coded bits out (one per byte).
 * \ingroup gpudsp
 * \details See kernels::ldpc5g_params and docs/ldpc.md.
 */
class GPUDSP_API ldpc5g_encoder : public gr::fec::generic_encoder
{
public:
    // (a gr::fec::generic_encoder::sptr wherever gr-fec wants one)
    typedef std::shared_ptr<ldpc5g_encoder> sptr;
    static sptr make(int K, int E, int rv = 0, int Qm = 1, int n_ref = 0);
};

/*!
 * \brief 5G NR LDPC decoder (layered or flooding normalized/offset
 * min-sum, float or fixed point, CPU or CUDA) as a gr-fec decoder: a frame
 * is \p batch codewords, each E soft values in, K bits out (one per byte),
 * decoded together (one launch on a GPU).
 * \ingroup gpudsp
 * \details llr_sign "positive_is_one" (default here) matches gr-fec's test
 * chain, which maps bit 1 to +1; "positive_is_zero" is 3GPP's LLR sign.
 * Soft values need not be scaled LLRs for float min-sum (it is scale
 * invariant without an offset). llr_format "char": int8 soft values, used
 * directly as the fixed-point decoder's steps (a quarter of the bytes to a
 * GPU); the object's input item size is then 1 (fec.decoder(dec, 1, 1)).
 * See docs/ldpc.md.
 */
class GPUDSP_API ldpc5g_decoder : public gr::fec::generic_decoder
{
public:
    // (a gr::fec::generic_decoder::sptr wherever gr-fec wants one)
    typedef std::shared_ptr<ldpc5g_decoder> sptr;
    static sptr make(int K,
                     int E,
                     int rv = 0,
                     int Qm = 1,
                     int max_iterations = 10,
                     const std::string& algorithm = "layered_nms",
                     float scaling = 0.75f,
                     int batch = 1,
                     const std::string& backend = "auto",
                     int device = 0,
                     float offset = 0.0f,
                     const std::string& arithmetic = "float",
                     const std::string& llr_sign = "positive_is_one",
                     int n_ref = 0,
                     bool early_termination = true,
                     const std::string& llr_format = "float");

    /*! \brief Iterations used by each codeword of the last frame. */
    virtual std::vector<int> last_iterations() const = 0;
    /*! \brief Whether each codeword of the last frame met every parity
     *  check. */
    virtual std::vector<bool> last_ok() const = 0;

protected:
    ldpc5g_decoder() : gr::fec::generic_decoder("ldpc5g_decoder") {}
};

/*!
 * \brief Stream block: K information bits in (one per byte), E coded bits
 * out per codeword.
 * \ingroup gpudsp
 */
class GPUDSP_API ldpc5g_encode : virtual public gr::block
{
public:
    typedef std::shared_ptr<ldpc5g_encode> sptr;
    static sptr make(int K, int E, int rv = 0, int Qm = 1, int n_ref = 0);
};

/*!
 * \brief Stream block: E LLRs in (float, or int8 with llr_format "char"),
 * K decoded bits out per codeword (one per byte, or packed MSB first into
 * ceil(K / 8) bytes with output "packed"), many codewords per call (one GPU
 * launch). Each codeword's first output item carries the tags
 * gpudsp.ldpc_iterations (long) and gpudsp.ldpc_ok (bool).
 * \ingroup gpudsp
 */
class GPUDSP_API ldpc5g_decode : virtual public gr::block
{
public:
    typedef std::shared_ptr<ldpc5g_decode> sptr;
    static sptr make(int K,
                     int E,
                     int rv = 0,
                     int Qm = 1,
                     int max_iterations = 10,
                     const std::string& algorithm = "layered_nms",
                     float scaling = 0.75f,
                     float offset = 0.0f,
                     const std::string& arithmetic = "float",
                     const std::string& llr_format = "float",
                     const std::string& llr_sign = "positive_is_zero",
                     const std::string& output = "unpacked",
                     int batch = 64,
                     const std::string& backend = "auto",
                     int device = 0,
                     int n_ref = 0,
                     bool early_termination = true);

    virtual std::string backend() const = 0;
    /*! \brief The configuration the block's plan runs and where it came
     *  from: tuned when made, cached, shipped, forced or the heuristic
     *  (docs/gpu.md, "Tuning"); the block logs it when made. */
    virtual std::string configuration() const = 0;
};

} // namespace gpudsp
} // namespace gr

#endif /* INCLUDED_GPUDSP_LDPC5G_H */
