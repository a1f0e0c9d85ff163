/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUDSP_KERNELS_XENGINE_H
#define INCLUDED_GPUDSP_KERNELS_XENGINE_H

#include <gnuradio/gpudsp/api.h>
#include <gnuradio/gpudsp/runtime/backend.h>
#include <gnuradio/gpudsp/runtime/device_context.h>
#include <gnuradio/gpudsp/runtime/tuning.h>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace gr {
namespace gpudsp {
namespace kernels {

enum class xengine_input { ci8, cf32 };
enum class xengine_output { ci32, cf32 };
/*! \brief Which GPU kernel accumulates: chosen per size ("auto"), the
 *  xGPU-style FP32 kernel, or the int8 tensor-core kernel (ci8 only). */
enum class xengine_kernel { automatic, fp32, tensor };

GPUDSP_API xengine_kernel parse_xengine_kernel(const std::string& name,
                                               const std::string& who);

/*! \brief Baseline index of stations i >= j: i (i + 1) / 2 + j. */
inline std::size_t xengine_baseline(std::size_t i, std::size_t j)
{
    return i * (i + 1) / 2 + j;
}

struct GPUDSP_API xengine_config {
    int n_stations = 1;
    int n_pols = 2;
    int n_channels = 1;
    xengine_input input = xengine_input::ci8;
    xengine_output output = xengine_output::ci32;
    xengine_kernel kernel = xengine_kernel::automatic;

    int n_inputs() const { return n_stations * n_pols; }
    std::size_t n_baselines() const
    {
        return std::size_t(n_stations) * (n_stations + 1) / 2;
    }
    /*! \brief Bytes of one input item (spectrum): [channel][input] complex. */
    std::size_t input_item_size() const
    {
        return std::size_t(n_channels) * n_inputs() *
               (input == xengine_input::ci8 ? 2 : 8);
    }
    /*! \brief Values in one dump: [channel][baseline][p][q]. */
    std::size_t dump_values() const
    {
        return std::size_t(n_channels) * n_baselines() * n_pols * n_pols;
    }
    /*! \brief Bytes of one dump (output item): complex int32 or float32. */
    std::size_t output_item_size() const { return dump_values() * 8; }
};

/*!
 * \brief The X-engine on one backend: all-baseline cross-correlation with
 * accumulation across calls.
 *
 * For every channel c, stations i >= j and pols p, q:
 *   V[c][k(i,j)][p][q] = sum over t of x[t][c][i P + p] * conj(x[t][c][j P + q]).
 * ci8 input is accumulated exactly for the whole int8 range, -128 included:
 * int32 partial sums, moved into 64-bit totals every 65535 spectra and at
 * each dump (on every backend, so the CPU checks the schedule); a dump of
 * ci32 saturates each part to +-(2^31 - 1) and counts the saturated values.
 * cf32 accumulates in float32 on the GPU and float64 on the CPU. ci32
 * output needs ci8 input.
 *
 * accumulate() adds spectra (input items, in the plan's memory space) to the
 * running sums; dump() writes the sums and clears them. Both are enqueued on
 * \p stream.
 */
class GPUDSP_API xengine_plan
{
public:
    xengine_plan(const xengine_config& config,
                 runtime::backend_choice where,
                 const std::string& who);
    ~xengine_plan();
    xengine_plan(const xengine_plan&) = delete;
    xengine_plan& operator=(const xengine_plan&) = delete;

    const xengine_config& config() const { return d_config; }
    const runtime::backend_choice& where() const { return d_where; }
    /*! \brief The kernel that runs ("cpu", "fp32" or "tensor"). */
    std::string kernel_name() const;
    /*! \brief The tensor kernel's form on this device: "wgmma" (sm_90a),
     *  "mma.sync" (sm_80 and later), "mma.sync direct" (sm_80 and later, few
     *  inputs) or "wmma" (sm_75), or a tuner candidate ("mma.sync direct
     *  s=6", "cublaslt", "wgmma gram", "wgmma gram n=128", "wgmma gram
     *  direct", "wgmma gram channel", "mma.sync gram"); empty for the other
     *  kernels. The environment variable
     *  GPUDSP_XENGINE_TENSOR (the same names, and "mma.sync packed": no
     *  direct form) caps it, for tests and benchmarks that compare the
     *  forms on one GPU (docs/xengine.md). */
    std::string kernel_variant() const;
    /*! \brief How a call of \p n_spectra launches the accumulation kernel
     *  on this device: blocks and waves a launch (blocks over SMs x the
     *  blocks one SM holds), or the persistent grid and its tiles; empty on
     *  the CPU. Benchmarks print it beside their rows. */
    std::string launch_shape(std::size_t n_spectra) const;

    void
    accumulate(const void* spectra, std::size_t n_spectra, runtime::stream_handle stream);
    /*! \brief A diagnostic: from now on (\p on) the CUDA backend records a
     *  timing event between the kernels of each accumulate() (the Gram
     *  forms' pack, GEMM and combine; the packed forms' pack and correlation;
     *  the one kernel of the others; the partials' promotion), which costs
     *  the stream a few microseconds a launch and changes no sum. Ignored on
     *  the host backends. */
    void time_stages(bool on);
    /*! \brief The stages of the last accumulate() timed so, in the order
     *  they first ran, each summed over the call's launches (bytes: 0, not
     *  counted); waits for that call's work. Empty on the host backends and
     *  before a timed call. */
    std::vector<runtime::stage_time> stage_times() const;
    /*! \brief Writes the dump to \p out and the count of saturated values
     *  (ci32) to \p saturated (a uint64 in the plan's memory space, may be
     *  null); clears the sums. */
    void dump(void* out, uint64_t* saturated, runtime::stream_handle stream);

    /*! \brief Host input, host output: accumulate all and dump, waiting. */
    uint64_t correlate_host(const void* spectra, std::size_t n_spectra, void* out);

    /*! \brief Device memory the plan needs (accumulators and scratch). */
    static std::size_t device_bytes(const xengine_config& config);

    /*! \brief Throws std::invalid_argument, naming the parameter and its
     *  range, for a configuration no backend can run (sizes, formats,
     *  items beyond 2^31 bytes, host sums beyond the machine's memory). */
    static void validate(const xengine_config& config,
                         runtime::backend_kind where,
                         const std::string& who);

    /*! \brief Spectra per accumulate() call that make the launches large
     *  enough to amortise the partial sums' traffic (1 on the CPU). A block
     *  asks its scheduler for this many at a time. */
    std::size_t preferred_spectra() const;

    /*! \brief The accumulation kernel and spectra per call that run (CUDA:
     *  "wgmma b=1024"...) and where they came from: tuned when the plan was
     *  built, cached, shipped, forced (GPUDSP_XENGINE_TENSOR) or the
     *  heuristic (docs/gpu.md, "Tuning"). */
    const runtime::tune_result& tuning() const { return d_tuning; }

    struct impl;

private:
    void tune();
    std::size_t heuristic_spectra() const;

    xengine_config d_config;
    runtime::backend_choice d_where;
    std::string d_who;
    std::unique_ptr<impl> d_impl;
    std::size_t d_since_promotion = 0; // ci8 spectra in the int32 partials
    std::size_t d_batch = 0;           // tuned spectra per call (0: the heuristic's)
    std::size_t d_call_bytes = std::size_t(512) << 20; // input a batch may hold
    runtime::tune_result d_tuning;
};

} // namespace kernels
} // namespace gpudsp
} // namespace gr

#endif /* INCLUDED_GPUDSP_KERNELS_XENGINE_H */
