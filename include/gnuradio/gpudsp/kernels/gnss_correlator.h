/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUDSP_KERNELS_GNSS_CORRELATOR_H
#define INCLUDED_GPUDSP_KERNELS_GNSS_CORRELATOR_H

#include <gnuradio/gpudsp/api.h>
#include <gnuradio/gpudsp/runtime/backend.h>
#include <gnuradio/gpudsp/runtime/device_context.h>
#include <cmath>
#include <complex>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace gr {
namespace gpudsp {
namespace kernels {

/*! \brief The signals the correlator knows. */
enum class gnss_system { gps_l1ca = 0, galileo_e1b = 1 };

/*! \brief What the correlator needs to know of a signal. */
struct GPUDSP_API gnss_signal_spec {
    gnss_system system;
    const char* name; //!< "gps_l1ca", "galileo_e1b"
    int code_length;  //!< chips per primary code period
    int n_prns;       //!< PRNs 1..n_prns
    double chip_rate; //!< nominal chips per second
    int sub_phases;   //!< subcarrier steps per chip: 1 (BPSK), 12 (CBOC(6,1,1/11))
};

GPUDSP_API const gnss_signal_spec& gnss_signal(gnss_system system);
/*! \brief "gps_l1ca" or "galileo_e1b"; anything else throws
 *  std::invalid_argument starting with \p who. */
GPUDSP_API gnss_system parse_gnss_system(const std::string& name, const std::string& who);

/*! \brief The primary codes of \p system, +1/-1 with chip value 1 of the ICD
 *  as +1, PRN-major (PRN p at (p - 1) * code_length); read once. Throws
 *  std::runtime_error naming the file when the table cannot be read. */
GPUDSP_API const std::vector<int8_t>& gnss_codes(gnss_system system);

/*! \brief The subcarrier in sub-phase \p j (0 .. sub_phases - 1) of a chip:
 *  1 for L1 C/A; sqrt(10/11) BOC(1,1) + sqrt(1/11) BOC(6,1) for E1-B, each
 *  BOC sine-phased (+1 in the first half of its period). */
GPUDSP_API double gnss_subcarrier(gnss_system system, int j);

/*!
 * \brief One satellite's integration:
 *   R[m][l] = sum_{i<length} x_m[start + i] exp(-2j pi (carrier_phase +
 *             carrier_freq i / fs)) c(code_phase + tap_l + code_freq i / fs)
 * with c(t) = code[floor(t) mod L] times the subcarrier at the fractional
 * chip. Phases are at sample \p start (cycles, chips).
 */
struct GPUDSP_API gnss_job {
    gnss_system system = gnss_system::gps_l1ca;
    int prn = 1;
    double carrier_freq = 0;    //!< Hz (IF + Doppler)
    double carrier_phase = 0;   //!< cycles
    double code_freq = 1.023e6; //!< chips per second
    double code_phase = 0;      //!< chips
    int64_t start = 0;          //!< first sample, counted in the plan's input
    int64_t length = 0;         //!< samples integrated
    //! The code phase in the kernels' fixed point (gnss_fixed_job), used
    //! instead of code_phase when >= 0: a scheduler that keeps the phase in
    //! fixed point passes it exactly (a double holds 53 bits of it).
    int64_t code_phase_fixed = -1;
};

/*!
 * \brief Fractional bits F of the code phase of a code of L chips: the most
 * that keep 2 L 2^F <= 2^64, so that a phase in [0, L 2^F) plus a step or a
 * tap offset (each below L 2^F) never overflows before its conditional wrap:
 * F = 63 - ceil(log2 L), 53 for GPS L1 C/A (1023 chips), 51 for Galileo
 * E1-B (4092). The code rate is then exact to 2^-(F+1) chip per sample: over
 * 10^5 samples the phase drifts by less than 10^-10 chip (docs/gnss.md).
 */
constexpr int gnss_code_frac_bits(int code_length)
{
    int bits = 0;
    while ((int64_t(1) << bits) < code_length)
        ++bits;
    return 63 - bits;
}

/*!
 * \brief A job as the kernels evaluate it, in fixed point: the carrier phase
 * in cycles * 2^64 (wrapping) and the code phase in chips * 2^F modulo
 * L * 2^F (F = gnss_code_frac_bits(L)), so that every sample's phases are
 * exact integer functions of its index (no drift over any length).
 */
struct gnss_fixed_job {
    uint64_t carrier_phase;
    uint64_t carrier_step;
    uint64_t code_phase; //!< in [0, code_modulus)
    uint64_t code_step;
    uint64_t code_modulus; //!< L * 2^F
    int64_t start;
    int64_t length;
    int32_t system;
    int32_t prn;
    int32_t code_frac_bits; //!< F
};

/*! \brief The fixed-point code step, chips per sample * 2^F (rounded). */
inline uint64_t gnss_code_step(double code_freq, double samp_rate, int frac_bits)
{
    return uint64_t(std::llround(std::ldexp(code_freq / samp_rate, frac_bits)));
}

/*! \brief A code phase in chips * 2^F, reduced to [0, L 2^F), F =
 *  gnss_code_frac_bits(L). */
GPUDSP_API uint64_t gnss_code_phase_fixed(double chips, int code_length);

/*! \brief Sample formats the correlator reads. */
enum class gnss_input { complex64, complex_int16 };

GPUDSP_API gnss_input parse_gnss_input(const std::string& name, const std::string& who);

/*!
 * \brief Carrier wipe-off and code correlation of many satellites, on
 * n_antennas inputs, for every tap offset (chips; > 0 is an early replica).
 * One launch covers every job of every system; carrier and code are
 * computed once per sample for all antennas and taps.
 */
class GPUDSP_API gnss_correlator_plan
{
public:
    gnss_correlator_plan(int n_antennas,
                         const std::vector<double>& taps_chips,
                         double samp_rate,
                         gnss_input input,
                         runtime::backend_choice where,
                         const std::string& who);
    ~gnss_correlator_plan();
    gnss_correlator_plan(const gnss_correlator_plan&) = delete;

    //! Throws std::invalid_argument naming the parameter and its range; the
    //! block calls it before its io_signature is made from n_antennas.
    static void validate(int n_antennas,
                         const std::vector<double>& taps_chips,
                         double samp_rate,
                         const std::string& who);
    gnss_correlator_plan& operator=(const gnss_correlator_plan&) = delete;

    int n_antennas() const { return d_n_antennas; }
    int n_taps() const { return int(d_taps.size()); }
    double samp_rate() const { return d_samp_rate; }
    gnss_input input() const { return d_input; }
    const std::vector<double>& taps() const { return d_taps; }
    const runtime::backend_choice& where() const { return d_where; }
    std::size_t sample_bytes() const { return d_input == gnss_input::complex64 ? 8 : 4; }

    /*! \brief Checks a job against \p n_samples and converts it to fixed
     *  point; throws std::invalid_argument naming what is wrong. */
    gnss_fixed_job fix(const gnss_job& job, int64_t n_samples) const;

    /*!
     * \brief Correlates \p jobs. \p antennas[m] points to antenna m's
     * samples 0 .. n_samples - 1 in the plan's memory space (device memory
     * for CUDA). Writes the host array \p out [job][antenna][tap]; returns
     * when it is written.
     */
    void execute(const std::vector<const void*>& antennas,
                 int64_t n_samples,
                 const std::vector<gnss_job>& jobs,
                 std::complex<float>* out,
                 runtime::stream_handle stream);

    /*! \brief Seconds the kernels of the last execute() took on the GPU
     *  (CUDA events); 0 on the CPU. */
    double last_kernel_seconds() const;

    /*! \brief CPU backend (and the emulated device): spread the jobs of
     *  each execute() over \p n threads, 1..256. The results do not depend
     *  on \p n (each job is summed by one thread, in a fixed order). The
     *  CUDA backend ignores it. Throws std::invalid_argument outside
     *  1..256. Not to be called while execute() runs. */
    void set_cpu_threads(int n);
    int cpu_threads() const { return d_cpu_threads; }
    //! The check set_cpu_threads makes (the block checks before it applies).
    static void check_cpu_threads(int n, const std::string& who);

    /*! \brief Host input [antenna][sample] (any backend): the results
     *  [job][antenna][tap]. */
    std::vector<std::complex<float>>
    execute_host(const void* x, int64_t n_samples, const std::vector<gnss_job>& jobs);

    struct impl;

private:
    int d_n_antennas;
    std::vector<double> d_taps;
    double d_samp_rate;
    gnss_input d_input;
    runtime::backend_choice d_where;
    std::string d_who;
    int d_cpu_threads = 1;
    std::unique_ptr<impl> d_impl;
};

} // namespace kernels
} // namespace gpudsp
} // namespace gr

#endif /* INCLUDED_GPUDSP_KERNELS_GNSS_CORRELATOR_H */
