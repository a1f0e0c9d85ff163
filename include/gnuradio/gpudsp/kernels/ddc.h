/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUDSP_KERNELS_DDC_H
#define INCLUDED_GPUDSP_KERNELS_DDC_H

#include <gnuradio/gpudsp/api.h>
#include <gnuradio/gpudsp/runtime/backend.h>
#include <gnuradio/gpudsp/runtime/device_context.h>
#include <gnuradio/gpudsp/runtime/tuning.h>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace gr {
namespace gpudsp {
namespace kernels {

/*! \brief Sample formats the DDC reads. */
enum class ddc_input { complex64, float32, int16, packed10 };

GPUDSP_API ddc_input parse_ddc_input(const std::string& name, const std::string& who);

/*! \brief One narrowband output: decimation, taps, centre frequency. */
struct GPUDSP_API ddc_config {
    int decimation = 1;
    std::vector<std::complex<double>>
        taps;               //!< h[0..T-1] (real taps: zero imaginary parts)
    double center_freq = 0; //!< Hz
    double samp_rate = 1;   //!< Hz
    ddc_input input = ddc_input::complex64;

    int n_taps() const { return int(taps.size()); }
    bool complex_input() const { return input == ddc_input::complex64; }
};

/*!
 * \brief A 64-bit fixed-point mixer phase: phase(n) = (F n + offset) / 2^64
 * cycles, exact in integers for every absolute sample index n (so the phase
 * error at n = 2^40 is that of F alone, below 2e-7 rad). A retune at sample
 * n0 keeps the phase continuous there.
 */
struct GPUDSP_API mixer_phase {
    uint64_t step = 0;   //!< F = round(fc / fs * 2^64), two's complement for negative fc
    uint64_t offset = 0; //!< phase at n = 0 of the current segment
    static uint64_t cycles_to_fixed(double cycles);
    uint64_t at(uint64_t n) const { return step * n + offset; }
    void retune(double cycles_per_sample, uint64_t n0);
};

/*!
 * \brief The DDC on one backend:
 *   y[m] = sum_{k<T} h[k] x[mD - k] exp(-2j pi fc (mD - k) / fs),
 * computed as exp(-2j pi phase(mD)) sum_k z[k] x[mD - k] with
 * z[k] = h[k] exp(+2j pi fc k / fs) premultiplied in float64, so that only
 * the kept outputs are computed and each needs one rotation.
 *
 * execute() reads T - 1 + (n - 1) D + 1 samples from \p in, whose first
 * sample is absolute index m0 D - T + 1 (for packed10, \p first_sample is the
 * index of that sample counted from the byte pointer), and writes outputs
 * m0 .. m0 + n - 1 (complex float) to \p out, in the plan's memory space,
 * enqueued on \p stream.
 */
class GPUDSP_API ddc_plan
{
public:
    ddc_plan(const ddc_config& config,
             runtime::backend_choice where,
             const std::string& who);
    ~ddc_plan();
    ddc_plan(const ddc_plan&) = delete;
    ddc_plan& operator=(const ddc_plan&) = delete;

    const ddc_config& config() const { return d_config; }
    const runtime::backend_choice& where() const { return d_where; }
    const mixer_phase& phase() const { return d_phase; }

    /*! \brief New centre frequency from absolute sample \p n0 on (outputs
     *  m with m D >= n0), phase-continuous at n0. */
    void retune(double center_freq, uint64_t n0);

    /*! \brief Phase 0 at sample 0 again, at the current centre frequency
     *  (a stream that starts over). */
    void restart();

    void execute(const void* in,
                 int64_t first_sample,
                 uint64_t first_output,
                 std::size_t n_outputs,
                 void* out,
                 runtime::stream_handle stream);

    /*! \brief One plan's share of execute_together: outputs
     *  [first_output, + n_outputs) to \p out, output first_output's window
     *  starting at \p first_sample of the shared input (as for execute()). */
    struct work {
        ddc_plan* plan;
        int64_t first_sample;
        uint64_t first_output;
        std::size_t n_outputs;
        void* out;
    };

    /*! \brief Several plans of one input (one input format, backend and
     *  device; any decimations and taps counts), each input sample read
     *  from memory once for all. On CUDA, plans of the same decimation and
     *  taps count over the same outputs form banks: one kernel reads each
     *  input tile once for up to 16 of them (each with its own taps and
     *  mixer); banks of different shapes run one after another over chunks
     *  of input sized to stay in the GPU's L2 cache between them, each
     *  output in the chunk holding its window's last sample, so only the
     *  first launch of a chunk reads it from memory. Elsewhere (or for
     *  filters too long for a tile) each plan runs in turn. Every output
     *  equals what its plan computes alone, bit for bit. Plans of other
     *  input formats, backends or devices are refused. */
    static void execute_together(const std::vector<work>& list,
                                 const void* in,
                                 runtime::stream_handle stream);

    /*! \brief execute_together for plans over the same outputs
     *  [first_output, + n_outputs) and windows (the same decimation and
     *  taps count): output i of plan i to outs[i]. */
    static void execute_together(const std::vector<ddc_plan*>& plans,
                                 const void* in,
                                 int64_t first_sample,
                                 uint64_t first_output,
                                 std::size_t n_outputs,
                                 const std::vector<void*>& outs,
                                 runtime::stream_handle stream);

    /*! \brief Host arrays: \p in holds samples from absolute index
     *  \p first_index on (zeros before); returns the outputs m whose sample
     *  mD lies in the array, and sets \p first_output to the first m. */
    std::vector<std::complex<float>> execute_host(const void* in,
                                                  std::size_t n_samples,
                                                  uint64_t first_index,
                                                  uint64_t& first_output);

    std::size_t input_bytes(std::size_t n_samples) const;

    /*! \brief Waves of the kernel launch that computes \p n_outputs: its
     *  blocks over the blocks the GPU holds at once (SMs x blocks resident
     *  per SM). Below 1 the GPU is not full; a benchmark's figure means
     *  little under a few. 0 on the CPU and the emulated device. */
    double launch_waves(std::size_t n_outputs) const;

    /*! \brief The configuration that runs (CUDA: the tile shape; the
     *  emulated device: the CPU's vector width) and where it came from
     *  (docs/gpu.md, "Tuning"). */
    const runtime::tune_result& tuning() const { return d_tuning; }

    /*! \brief The configurations this plan can run where it runs (the
     *  tuner's candidates, the heuristic's first: CUDA's forms and tile
     *  shapes, the CPU's vector widths). GPUDSP_DDC_CONFIG set to one of
     *  them makes a new device plan (CUDA, emulated) run it (source
     *  `forced`); set to anything else, such a plan is refused with the
     *  list. */
    std::vector<std::string> configurations() const;

    struct impl;

private:
    void tune();
    std::string configuration_named(const std::vector<std::string>& ids) const;

    ddc_config d_config;
    runtime::backend_choice d_where;
    std::string d_who;
    mixer_phase d_phase;
    std::unique_ptr<impl> d_impl;
    runtime::tune_result d_tuning;
};

} // namespace kernels
} // namespace gpudsp
} // namespace gr

#endif /* INCLUDED_GPUDSP_KERNELS_DDC_H */
