/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUDSP_XENGINE_H
#define INCLUDED_GPUDSP_XENGINE_H

#include <gnuradio/block.h>
#include <gnuradio/gpudsp/api.h>
#include <string>

namespace gr {
namespace gpudsp {

/*!
 * \brief The X of an FX correlator: all-baseline cross-correlation with
 * long integration.
 * \ingroup gpudsp
 *
 * \details
 * Input item: one spectrum, [channel][input] complex int8 pairs ("ci8") or
 * complex float ("cf32"), input = station * n_pols + pol (the F-engine's
 * output item). Output item: one dump of n_integrate spectra,
 * [channel][baseline][p][q] with baseline k = i (i + 1) / 2 + j for
 * stations i >= j and V = sum over the dump of x[i P + p] conj(x[j P + q]);
 * complex int32 ("ci32", exact, saturating to +-(2^31 - 1)) or complex float.
 * Dump d covers input spectra [d n_integrate, (d + 1) n_integrate).
 *
 * Spectra flagged by a gpudsp.missing tag are left out of the sums. Tags on
 * each dump: gpudsp.dump_start, gpudsp.n_integrate, gpudsp.spectra_used,
 * gpudsp.saturated; other input tags (rx_time...) move to the dump that
 * holds their spectrum. See docs/xengine.md.
 */
class GPUDSP_API xengine : virtual public gr::block
{
public:
    typedef std::shared_ptr<xengine> sptr;

    /*!
     * \param n_stations stations (1 and up)
     * \param n_pols polarisations per station, 1 or 2
     * \param n_channels channels per spectrum
     * \param n_integrate spectra per dump (>= 1)
     * \param input_format "ci8" or "cf32"
     * \param output_format "auto" (ci32 for ci8, cf32 for cf32), "ci32" or "cf32"
     * \param backend "auto", "cuda" or "cpu"
     * \param device CUDA device index
     * \param kernel GPU kernel: "auto", "fp32" or "tensor"
     */
    static sptr make(int n_stations,
                     int n_pols,
                     int n_channels,
                     int n_integrate,
                     const std::string& input_format = "ci8",
                     const std::string& output_format = "auto",
                     const std::string& backend = "auto",
                     int device = 0,
                     const std::string& kernel = "auto");

    virtual std::string backend() const = 0;
    /*! \brief The configuration the block's plan runs and where it came
     *  from: tuned when made, cached, shipped, forced or the heuristic
     *  (docs/gpu.md, "Tuning"); the block logs it when made. */
    virtual std::string configuration() const = 0;
    /*! \brief The accumulation kernel in use: "cpu", "fp32" or "tensor". */
    virtual std::string kernel() const = 0;
    /*! \brief The tensor kernel's form on this GPU: "wgmma" (Hopper),
     *  "mma.sync", "mma.sync direct" (few inputs) or "wmma" (Turing); empty
     *  for the other kernels (docs/xengine.md, "Kernels"). */
    virtual std::string kernel_form() const = 0;
};

} // namespace gpudsp
} // namespace gr

#endif /* INCLUDED_GPUDSP_XENGINE_H */
