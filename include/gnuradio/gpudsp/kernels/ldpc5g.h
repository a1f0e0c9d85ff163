/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUDSP_KERNELS_LDPC5G_H
#define INCLUDED_GPUDSP_KERNELS_LDPC5G_H

#include <gnuradio/gpudsp/api.h>
#include <gnuradio/gpudsp/runtime/backend.h>
#include <gnuradio/gpudsp/runtime/device_context.h>
#include <gnuradio/gpudsp/runtime/tuning.h>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace gr {
namespace gpudsp {
namespace kernels {

/*!
 * \brief A 5G NR LDPC code with rate matching (3GPP TS 38.212 5.3.2,
 * 5.4.2), for K information bits sent as E bits.
 *
 * Base graph: BG2 if K <= 292, or K <= 3824 and K/E <= 0.67, or K/E <=
 * 0.25; else BG1. Kb = 22 (BG1), or for BG2 10 / 9 / 8 / 6 for K > 640 /
 * 560 / 192 / else. Z is the smallest lifting size with Kb Z >= K; the
 * codeword c has n_cols Z bits (68 Z, 52 Z), its first K_ldpc = 22 Z (10 Z)
 * systematic, bits K .. K_ldpc - 1 filler zeros; d = c without its first
 * 2 Z bits (N = 66 Z, 50 Z) is the circular buffer, Ncb = N or
 * min(N, n_ref) (limited buffer), read from k0(rv) skipping fillers, E bits,
 * wrapping as often as needed, then bit-interleaved for modulation order
 * Qm.
 */
struct GPUDSP_API ldpc5g_params {
    int K = 0;       //!< information bits
    int E = 0;       //!< rate-matched bits
    int rv = 0;      //!< redundancy version 0..3
    int Qm = 1;      //!< bits per symbol: 1, 2, 4, 6, 8, 10
    int n_ref = 0;   //!< limited-buffer size (0: full buffer)
    int bg = 1;      //!< base graph 1 or 2
    int Z = 0;       //!< lifting size
    int iLS = 0;     //!< lifting-size set 0..7
    int K_ldpc = 0;  //!< 22 Z or 10 Z
    int N = 0;       //!< 66 Z or 50 Z (circular buffer before limiting)
    int Ncb = 0;     //!< circular buffer length
    int k0 = 0;      //!< start of rv in the buffer
    int fillers = 0; //!< K_ldpc - K
    int n_rows = 0;  //!< base graph rows: 46 or 42
    int n_cols = 0;  //!< base graph columns: 68 or 52
    int kb = 0;      //!< systematic columns holding information: Kb
    //! Base-graph rows the decoder needs: the 4 core rows plus every
    //! extension row whose parity column holds a transmitted bit.
    int rows_used = 0;

    /*! \brief Chooses the code; throws std::invalid_argument (starting
     *  with \p who) for K outside 1..8448, E < K, Qm not in
     *  {1,2,4,6,8,10}, rv outside 0..3, E not a multiple of Qm, a
     *  limited buffer that ends inside the systematic bits, or a base
     *  graph that cannot carry K. \p force_bg (1 or 2) overrides the
     *  standard's choice of base graph (tests, experiments). */
    static ldpc5g_params make(int K,
                              int E,
                              int rv,
                              int Qm,
                              int n_ref,
                              const std::string& who,
                              int force_bg = 0);
};

/*! \brief The 51 lifting sizes, ascending. */
GPUDSP_API const std::vector<int>& ldpc5g_lifting_sizes();

/*! \brief Base graph \p bg's non-zero entries for lifting size \p Z: for
 *  each row, (column, shift = V mod Z) pairs, from data/ldpc. */
struct GPUDSP_API ldpc5g_graph {
    int bg = 1, Z = 0, n_rows = 0, n_cols = 0;
    std::vector<std::vector<std::pair<int, int>>> rows;
    static const ldpc5g_graph& get(int bg, int Z);
};

/*! \brief Encoding and rate matching of one configuration. Bits are
 *  uint8 0/1. */
class GPUDSP_API ldpc5g_encoder_core
{
public:
    explicit ldpc5g_encoder_core(const ldpc5g_params& p);
    const ldpc5g_params& params() const { return d_p; }
    /*! \brief The full codeword c (n_cols Z bits, fillers 0) of K bits. */
    std::vector<uint8_t> codeword(const uint8_t* info) const;
    /*! \brief E rate-matched, interleaved bits of K information bits. */
    void encode(const uint8_t* info, uint8_t* out) const;
    /*! \brief For each buffer position j < Ncb (d index), the first
     *  rate-matching index e that reads it (-1: none, or a filler); the
     *  later ones are e + m * period(). */
    const std::vector<int32_t>& first_read() const { return d_first; }
    /*! \brief Non-filler positions in the circular buffer: the distance
     *  between two reads of one position. */
    int period() const { return d_period; }
    /*! \brief Interleaved position of rate-matching index e. */
    int interleaved(int e) const
    {
        const int rows = d_p.E / d_p.Qm;
        return e / rows + (e % rows) * d_p.Qm;
    }

private:
    ldpc5g_params d_p;
    const ldpc5g_graph& d_graph;
    std::vector<uint64_t> d_core_inverse; // 4Z x 4Z over GF(2), rows of bits
    std::vector<int32_t> d_first;
    int d_period = 0;
};

/*! \brief Received LLRs' element type. int8 values count the
 *  fixed-point decoder's steps: LLR = value / fixed_scale (-128 reads as
 *  -127 after quantisation); fp16 is IEEE binary16. */
enum class ldpc5g_llr_format { f32, f16, i8 };

/*! \brief Decoder settings. */
struct GPUDSP_API ldpc5g_decoder_config {
    int max_iterations = 10;
    bool layered = true;      //!< false: flooding schedule
    bool fixed_point = false; //!< int16 APP, int8 messages, bit-exact CPU/GPU
    float scaling = 0.75f;    //!< normalisation (fixed point: rounded to 1/16)
    float offset = 0.0f;      //!< offset (LLR units; fixed point: rounded to LSBs)
    float fixed_scale = 4.0f; //!< fixed point: LSBs per unit of LLR
    bool early_termination = true;
    bool positive_is_zero = true; //!< LLR > 0 means bit 0 (else bit 1)
};

/*! \brief A decoder configuration from the blocks' string options:
 *  algorithm "layered_nms" | "flooding_nms", arithmetic "float" | "fixed",
 *  llr_sign "positive_is_zero" | "positive_is_one"; throws
 *  std::invalid_argument (starting with \p who) for anything else. */
GPUDSP_API ldpc5g_decoder_config make_ldpc5g_decoder_config(int max_iterations,
                                                            const std::string& algorithm,
                                                            float scaling,
                                                            float offset,
                                                            const std::string& arithmetic,
                                                            const std::string& llr_sign,
                                                            bool early_termination,
                                                            const std::string& who);

/*!
 * \brief Layered (or flooding) normalized/offset min-sum decoding of a
 * batch of codewords of one configuration, on the CPU or CUDA.
 * decode() takes E LLRs per codeword (interleaved order, as received),
 * de-rate-matches them (repetitions added, punctured bits 0, fillers
 * certain zeros) and returns the K information bits, the iterations used
 * and whether the parity checks passed.
 */
class GPUDSP_API ldpc5g_decoder_plan
{
public:
    ldpc5g_decoder_plan(const ldpc5g_params& p,
                        const ldpc5g_decoder_config& c,
                        runtime::backend_choice where,
                        const std::string& who);
    ~ldpc5g_decoder_plan();
    ldpc5g_decoder_plan(const ldpc5g_decoder_plan&) = delete;
    ldpc5g_decoder_plan& operator=(const ldpc5g_decoder_plan&) = delete;

    const ldpc5g_params& params() const { return d_p; }
    const ldpc5g_decoder_config& config() const { return d_c; }
    const runtime::backend_choice& where() const { return d_where; }

    /*! \brief Host arrays: llrs [batch][E] float32; bits [batch][K] (0/1
     *  bytes); iterations, ok [batch]. */
    void
    decode(const float* llrs, int batch, uint8_t* bits, int32_t* iterations, uint8_t* ok);

    /*! \brief As above for LLRs of any format ([batch][E] elements) and
     *  bits unpacked (K bytes per codeword) or packed MSB first
     *  (ceil(K / 8) bytes per codeword, the last byte's unused bits 0). On
     *  CUDA the fixed-point layered decoder (two codewords per thread
     *  block) reads fp16 and int8 as such (2 and 4 times fewer bytes over
     *  PCIe than float); the other backends and configurations convert to
     *  float on the host first. */
    void decode(const void* llrs,
                ldpc5g_llr_format format,
                int batch,
                uint8_t* bits,
                bool packed_bits,
                int32_t* iterations,
                uint8_t* ok);

    /*! \brief Kernel time of the last decode() (CUDA events around each
     *  chunk's kernel): the time during which at least one of its kernels
     *  ran, i.e. the union of their intervals. Chunks on the two streams
     *  may overlap (counted once) and leave gaps while the host stages and
     *  uploads the next chunk (not counted: that is host-to-host time).
     *  0 on the CPU; a call with batch 0 decodes nothing and leaves it as
     *  it was. */
    double last_kernel_seconds() const;

    /*! \brief How a CUDA decode of \p n codewords of float LLRs launches:
     *  chunks, blocks a launch and waves (blocks over what the GPU holds at
     *  once, for the float-input kernel); empty on the other backends. For
     *  benchmark notes. */
    std::string launch_shape(int n) const;

    /*! \brief The configuration that runs (CUDA: the kernel and codewords
     *  per chunk) and where it came from: tuned when the plan was built,
     *  cached, shipped or the heuristic (docs/gpu.md, "Tuning"). */
    const runtime::tune_result& tuning() const { return d_tuning; }

    struct impl;

private:
    void tune();

    ldpc5g_params d_p;
    ldpc5g_decoder_config d_c;
    runtime::backend_choice d_where;
    std::string d_who;
    std::unique_ptr<impl> d_impl;
    runtime::tune_result d_tuning;
};

} // namespace kernels
} // namespace gpudsp
} // namespace gr

#endif /* INCLUDED_GPUDSP_KERNELS_LDPC5G_H */
