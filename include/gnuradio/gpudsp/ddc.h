/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUDSP_DDC_H
#define INCLUDED_GPUDSP_DDC_H

#include <gnuradio/block.h>
#include <gnuradio/gpudsp/api.h>
#include <gnuradio/gr_complex.h>
#include <string>
#include <vector>

namespace gr {
namespace gpudsp {

/*!
 * \brief Narrowband digital down-conversion: mix, low-pass FIR, decimate,
 * computing only the kept outputs; several narrowband outputs from one input.
 * \ingroup gpudsp
 *
 * \details
 * y[m] = sum_k h[k] x[mD - k] exp(-2j pi fc (mD - k) / fs), n the absolute
 * sample index of the stream (x = 0 before it starts): GNU Radio's
 * freq_xlating_fir_filter times exp(+1j pi fc (T - 1) / fs). Output m belongs
 * to input sample mD. The mixer phase is exact (64-bit fixed point) at any
 * sample index. Input: complex float, float, short or packed 10-bit bytes;
 * output: complex float. See docs/ddc.md.
 *
 * Output port j has its own centre frequency (center_freqs[j], default
 * center_freq), decimation (decimations[j], default decimation) and taps
 * (output_taps[j], default taps); all share one read of the input.
 * set_center_freq() and the message port "freq" retune an output,
 * phase-continuously, from a stated input sample, with a tag there.
 */
class GPUDSP_API ddc : virtual public gr::block
{
public:
    typedef std::shared_ptr<ddc> sptr;

    static sptr make(int decimation,
                     const std::vector<gr_complex>& taps,
                     double center_freq,
                     double samp_rate,
                     const std::string& input_format = "complex",
                     int n_outputs = 1,
                     const std::string& backend = "auto",
                     int device = 0,
                     const std::vector<double>& center_freqs = {},
                     const std::vector<int>& decimations = {},
                     const std::vector<std::vector<gr_complex>>& output_taps = {});

    virtual std::string backend() const = 0;
    /*! \brief The configuration output \p output runs (CUDA: the tile shape)
     *  and where it came from: tuned, cached, shipped, the heuristic
     *  (docs/gpu.md, "Tuning"); the block logs it when made. */
    virtual std::string configuration(int output = 0) const = 0;
    /*! \brief Retunes output \p output from absolute input sample
     *  \p at_sample on (-1: from its next output), phase-continuously. */
    virtual void set_center_freq(double freq, int output = 0, int64_t at_sample = -1) = 0;
    virtual double center_freq(int output = 0) const = 0;
};

} // namespace gpudsp
} // namespace gr

#endif /* INCLUDED_GPUDSP_DDC_H */
