/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// gnss_correlator_plan: the signals, their code tables, validation of jobs,
// the fixed-point form the kernels evaluate and the choice of backend.

#include "gnss_correlator_impl.h"
#include "kernels/common/emulated_work.h"
#include "runtime/autotune.h"
#include <gnuradio/gpudsp/kernels/ddc.h> // mixer_phase::cycles_to_fixed
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <random>
#include <sstream>
#include <stdexcept>

namespace gr {
namespace gpudsp {
namespace kernels {

using runtime::backend_kind;

namespace {

// The emulated device: the CPU implementation in stream order; results are
// read on the host, so the call waits for them, as on CUDA.
class gnss_correlator_emulated : public gnss_correlator_plan::impl
{
public:
    gnss_correlator_emulated(std::unique_ptr<gnss_correlator_plan::impl> cpu,
                             runtime::device_context::sptr ctx,
                             const std::string& who)
        : d_cpu(cpu.get()), d_work(std::move(cpu), std::move(ctx), who)
    {
    }
    void set_threads(int n) override { d_cpu->set_threads(n); } // between calls
    void execute(const std::vector<const void*>& antennas,
                 const std::vector<gnss_fixed_job>& jobs,
                 std::complex<float>* out,
                 runtime::stream_handle stream,
                 const std::function<void()>& meanwhile) override
    {
        d_work.enqueue(stream, {}, [=](gnss_correlator_plan::impl& cpu) {
            cpu.execute(antennas, jobs, out, nullptr, nullptr);
        });
        // while the emulated device works, as on a GPU
        gnss_run_meanwhile(meanwhile, [&] { d_work.synchronize(stream); });
        d_work.synchronize(stream);
    }

private:
    gnss_correlator_plan::impl* d_cpu; // owned by d_work
    emulated_work<gnss_correlator_plan::impl> d_work;
};

} // namespace

namespace {

// Carrier frequencies: L1/E1 1575.42 MHz, L5/E5a 1176.45 MHz.
const gnss_signal_spec signals[gnss_n_systems] = {
    { gnss_system::gps_l1ca, "gps_l1ca", 1023, 37, 1.023e6, 1, 0, 1575.42e6 },
    { gnss_system::galileo_e1b, "galileo_e1b", 4092, 50, 1.023e6, 12, 0, 1575.42e6 },
    { gnss_system::gps_l5i, "gps_l5i", 10230, 63, 10.23e6, 1, 10, 1176.45e6 },
    { gnss_system::gps_l5q, "gps_l5q", 10230, 63, 10.23e6, 1, 20, 1176.45e6 },
    { gnss_system::galileo_e5ai, "galileo_e5ai", 10230, 50, 10.23e6, 1, 20, 1176.45e6 },
    { gnss_system::galileo_e5aq, "galileo_e5aq", 10230, 50, 10.23e6, 1, 100, 1176.45e6 },
};

} // namespace

const gnss_signal_spec& gnss_signal(gnss_system system) { return signals[int(system)]; }

gnss_system parse_gnss_system(const std::string& name, const std::string& who)
{
    for (const auto& s : signals)
        if (name == s.name)
            return s.system;
    std::string known;
    for (const auto& s : signals)
        known += std::string(known.empty() ? "" : ", ") + "\"" + s.name + "\"";
    throw std::invalid_argument(who + ": unknown GNSS system \"" + name + "\" (known: " +
                                known + ")");
}

gnss_input parse_gnss_input(const std::string& name, const std::string& who)
{
    if (name == "complex")
        return gnss_input::complex64;
    if (name == "complex_short" || name == "sc16")
        return gnss_input::complex_int16;
    throw std::invalid_argument(who +
                                ": input_format must be \"complex\" or "
                                "\"complex_short\", got \"" +
                                name + "\"");
}

uint64_t gnss_code_phase_fixed(double chips, int code_length)
{
    const double L = code_length;
    const int F = gnss_code_frac_bits(code_length);
    const double tau = chips - std::floor(chips / L) * L;
    // L 2^F reaches 2^63 for a power-of-two L: a tau that rounds to L
    // would overflow llround; it is the phase 0.
    const double scaled = std::ldexp(tau, F);
    if (scaled >= 0x1p63)
        return 0;
    const uint64_t q = uint64_t(std::llround(scaled));
    const uint64_t modulus = uint64_t(code_length) << F;
    return q >= modulus ? q - modulus : q;
}

double gnss_subcarrier(gnss_system system, int j)
{
    if (system != gnss_system::galileo_e1b)
        return 1.0; // BPSK
    // Sub-phase j covers [j/12, (j+1)/12) of the chip: BOC(1,1) changes sign
    // at half a chip, BOC(6,1) every twelfth.
    const double boc1 = j < 6 ? 1.0 : -1.0;
    const double boc6 = j % 2 == 0 ? 1.0 : -1.0;
    return std::sqrt(10.0 / 11.0) * boc1 + std::sqrt(1.0 / 11.0) * boc6;
}

void gnss_correlator_plan::validate(int n_antennas,
                                    const std::vector<double>& taps_chips,
                                    double samp_rate,
                                    const std::string& who)
{
    if (n_antennas < 1 || n_antennas > 1024)
        throw std::invalid_argument(who + ": n_antennas must lie in 1..1024, got " +
                                    std::to_string(n_antennas));
    if (!(samp_rate > 0) || !std::isfinite(samp_rate))
        throw std::invalid_argument(who + ": samp_rate must be finite and > 0");
    if (taps_chips.empty() || taps_chips.size() > 64)
        throw std::invalid_argument(who + ": taps_chips must hold 1..64 offsets");
    // A tap beyond half the shortest code period would alias a neighbouring
    // code period: refused.
    const double half = gnss_signal(gnss_system::gps_l1ca).code_length / 2.0;
    for (double t : taps_chips) {
        if (!std::isfinite(t) || std::fabs(t) >= half) {
            std::ostringstream m;
            m << who << ": taps_chips: offset " << t
              << " chips must be finite and within half a code period (|tap| < " << half
              << ")";
            throw std::invalid_argument(m.str());
        }
    }
}

gnss_correlator_plan::gnss_correlator_plan(int n_antennas,
                                           const std::vector<double>& taps_chips,
                                           double samp_rate,
                                           gnss_input input,
                                           runtime::backend_choice where,
                                           const std::string& who)
    : d_n_antennas(n_antennas),
      d_taps(taps_chips),
      d_samp_rate(samp_rate),
      d_input(input),
      d_where(where),
      d_who(who)
{
    validate(n_antennas, taps_chips, samp_rate, who);
    // [system][tap], chips * 2^F of the system, rounded to the 2^-32 chip
    // grid (F >= 32): a tap's phase then differs from another's only in the
    // top 32 fractional bits and the chip, which lets the CPU replicas share
    // their lanes' phase arithmetic (gnss_replica_cpu.h); 2^-33 chip at
    // most, far below the precision rule (docs/gnss.md).
    std::vector<int64_t> fixed;
    for (const auto& s : signals)
        for (double t : d_taps)
            fixed.push_back(std::llround(std::ldexp(t, 32)) *
                            (int64_t(1) << (gnss_code_frac_bits(s.code_length) - 32)));
    for (const auto& s : signals)
        gnss_codes(s.system); // fail here, not in the first work call
    if (where.kind == backend_kind::cuda) {
#ifdef GPUDSP_HAVE_CUDA
        d_impl = make_gnss_correlator_cuda(
            n_antennas,
            fixed,
            input,
            runtime::device_context::get(where.kind, where.device),
            who);
#else
        throw std::runtime_error(who + ": gr-gpudsp was built without CUDA");
#endif
    } else if (where.kind == backend_kind::emulated) {
        d_impl = std::make_unique<gnss_correlator_emulated>(
            make_gnss_correlator_cpu(n_antennas, fixed, input),
            runtime::device_context::get(where.kind, where.device),
            who);
    } else {
        d_impl = make_gnss_correlator_cpu(n_antennas, fixed, input);
    }
    tune();
}

// The tuner times the backend's configurations on the calls a tracking loop
// makes: 16 GPS L1 C/A satellites over 1 ms on every antenna, from random
// input; sums may differ in their last bits where the configurations
// split the samples differently (1e-5 of the largest).
void gnss_correlator_plan::tune()
{
    const std::string shape =
        "M=" + std::to_string(d_n_antennas) + " L=" + std::to_string(d_taps.size()) +
        " fs=" + std::to_string(int64_t(std::llround(d_samp_rate))) +
        (d_input == gnss_input::complex64 ? " cf32" : " ci16");
    const std::vector<std::string> ids = d_impl->configurations();
    d_tuning = runtime::untuned("gnss", shape, ids.empty() ? "cpu" : ids[0]);
    if (ids.size() < 2)
        return;
    const int64_t n = std::max<int64_t>(1, std::llround(d_samp_rate * 1e-3));
    std::vector<gnss_fixed_job> jobs;
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> u(0, 1);
    for (int prn = 1; prn <= 16; ++prn) {
        gnss_job j;
        j.system = gnss_system::gps_l1ca;
        j.prn = prn;
        j.carrier_freq = std::min(0.25 * d_samp_rate, 4.0e6) * (2 * u(rng) - 1);
        j.carrier_phase = u(rng);
        j.code_freq = 1.023e6 * (1 + 1e-6 * (2 * u(rng) - 1));
        j.code_phase = 1023 * u(rng);
        j.length = n;
        jobs.push_back(fix(j, n));
    }
    const std::size_t per_antenna = std::size_t(n) * sample_bytes();
    const std::size_t values = jobs.size() * std::size_t(d_n_antennas) * d_taps.size();
    runtime::tune_problem p;
    p.kernel = "gnss";
    p.version = 1;
    p.shape = shape + " 16 L1 C/A x 1 ms";
    p.unit = "call";
    p.host_timed = true; // execute() waits for its results
    p.input_bytes = per_antenna * std::size_t(d_n_antennas);
    p.output_bytes = values * sizeof(std::complex<float>);
    p.heuristic = ids[0];
    if (d_input == gnss_input::complex64)
        p.fill = [](void* host, std::size_t bytes, uint64_t seed) {
            std::mt19937_64 r(seed);
            std::normal_distribution<float> g(0.0f, 8.0f);
            auto* f = static_cast<float*>(host);
            for (std::size_t i = 0; i < bytes / sizeof(float); ++i)
                f[i] = g(r);
        };
    p.compare = [values](const void* expected, const void* got) -> std::string {
        const auto* a = static_cast<const std::complex<float>*>(expected);
        const auto* b = static_cast<const std::complex<float>*>(got);
        double scale = 0;
        for (std::size_t i = 0; i < values; ++i)
            scale = std::max(scale, double(std::abs(a[i])));
        for (std::size_t i = 0; i < values; ++i)
            if (!(std::abs(std::complex<double>(a[i]) - std::complex<double>(b[i])) <=
                  1e-5 * scale))
                return "correlation " + std::to_string(i) + " differs beyond 1e-5 of " +
                       std::to_string(scale);
        return "";
    };
    // (execute returns once the host results are written)
    auto host_out = std::make_shared<std::vector<std::complex<float>>>(values);
    auto run = [this, jobs, per_antenna, host_out](
                   const std::string& id, const void* in, runtime::stream_handle s) {
        std::vector<const void*> antennas;
        for (int m = 0; m < d_n_antennas; ++m)
            antennas.push_back(static_cast<const char*>(in) +
                               std::size_t(m) * per_antenna);
        d_impl->use(id);
        d_impl->execute(antennas, jobs, host_out->data(), s, nullptr);
    };
    for (const auto& id : ids)
        p.candidates.push_back(
            { id, "", 1.0, [run, id](const void* in, void*, runtime::stream_handle s) {
                 run(id, in, s);
             } });
    auto ctx = runtime::device_context::get(d_where.kind, d_where.device);
    p.result = [run, host_out, ctx, values, this](const runtime::tune_candidate& c,
                                                  const void* in,
                                                  void* out,
                                                  runtime::stream_handle s) {
        run(c.id, in, s);
        ctx->copy_async(out,
                        host_out->data(),
                        values * sizeof(std::complex<float>),
                        runtime::copy_kind::host_to_device,
                        s,
                        d_who);
    };
    d_tuning = runtime::autotune(p, ctx, d_who);
    d_impl->use(d_tuning.chosen);
}

gnss_correlator_plan::~gnss_correlator_plan() = default;

gnss_fixed_job gnss_correlator_plan::fix(const gnss_job& j, int64_t n_samples) const
{
    const auto& s = gnss_signal(j.system);
    auto fail = [&](const std::string& what) {
        throw std::invalid_argument(d_who + ": " + s.name + " PRN " +
                                    std::to_string(j.prn) + ": " + what);
    };
    if (j.prn < 1 || j.prn > s.n_prns)
        fail("no such PRN (1.." + std::to_string(s.n_prns) + ")");
    if (!std::isfinite(j.carrier_freq) || !std::isfinite(j.carrier_phase) ||
        !std::isfinite(j.code_phase))
        fail("frequencies and phases must be finite");
    // At most one chip per sample: a step below L 2^F, and a table holding
    // the code twice covers a block of samples without a wrap.
    if (!(j.code_freq > 0) || j.code_freq > d_samp_rate)
        fail("code_freq must lie in (0, samp_rate]");
    if (j.start < 0 || j.length < 0 || j.start > n_samples ||
        j.length > n_samples - j.start)
        fail("samples [" + std::to_string(j.start) + ", " +
             std::to_string(j.start + j.length) + ") are not all in the " +
             std::to_string(n_samples) + " samples given");
    if (j.length >= (int64_t(1) << 31))
        fail("integrations are limited to 2^31 - 1 samples");
    if (j.secondary_chip < -1 || (j.secondary_chip >= 0 && s.secondary_length == 0))
        fail(s.secondary_length == 0 ? "has no secondary code (secondary_chip must be -1)"
                                     : "secondary_chip must be -1 or >= 0");
    gnss_fixed_job f;
    f.code_frac_bits = gnss_code_frac_bits(s.code_length);
    f.code_modulus = uint64_t(s.code_length) << f.code_frac_bits;
    if (j.code_phase_fixed >= 0 && uint64_t(j.code_phase_fixed) >= f.code_modulus)
        fail("code_phase_fixed must lie in [0, L 2^F)");
    f.code_phase = j.code_phase_fixed >= 0
                       ? uint64_t(j.code_phase_fixed)
                       : gnss_code_phase_fixed(j.code_phase, s.code_length);
    f.code_step = gnss_code_step(j.code_freq, d_samp_rate, f.code_frac_bits);
    f.carrier_phase = mixer_phase::cycles_to_fixed(j.carrier_phase);
    f.carrier_step = mixer_phase::cycles_to_fixed(j.carrier_freq / d_samp_rate);
    f.start = j.start;
    f.length = j.length;
    f.system = int32_t(j.system);
    f.prn = j.prn;
    return f;
}

std::vector<gnss_correlator_plan::segment>
gnss_correlator_plan::split_at_epochs(const gnss_fixed_job& f, int secondary_chip) const
{
    // Sample i of the job lies in primary period k = floor((q0 + i step) /
    // modulus); period k starts at the first i with q0 + i step >= k
    // modulus (128-bit: k modulus exceeds 64 bits for long integrations).
    const auto& code = gnss_secondary_code(gnss_system(f.system), f.prn);
    std::vector<segment> out;
    int64_t begin = 0;
    for (uint64_t k = 1; begin < f.length; ++k) {
        const unsigned __int128 reach = (unsigned __int128)k * f.code_modulus - f.code_phase;
        const int64_t next = int64_t(std::min<unsigned __int128>(
            (reach + f.code_step - 1) / f.code_step, (unsigned __int128)f.length));
        segment g;
        g.job = f;
        g.job.start = f.start + begin;
        g.job.length = next - begin;
        g.job.carrier_phase = f.carrier_phase + f.carrier_step * uint64_t(begin);
        g.job.code_phase =
            gnss_code_phase_at(f.code_phase, f.code_step, f.code_modulus, uint64_t(begin));
        g.sign = code[(uint64_t(secondary_chip) + k - 1) % code.size()];
        out.push_back(g);
        begin = next;
    }
    return out;
}

void gnss_correlator_plan::execute(const std::vector<const void*>& antennas,
                                   int64_t n_samples,
                                   const std::vector<gnss_job>& jobs,
                                   std::complex<float>* out,
                                   runtime::stream_handle stream,
                                   const std::function<void()>& meanwhile)
{
    if (int(antennas.size()) != d_n_antennas)
        throw std::invalid_argument(d_who + ": " + std::to_string(antennas.size()) +
                                    " antenna inputs given, the plan has " +
                                    std::to_string(d_n_antennas));
    std::vector<gnss_fixed_job> fixed;
    fixed.reserve(jobs.size());
    // Jobs carrying a secondary code are correlated per primary period (one
    // launch for all) and the periods summed with their secondary signs.
    const bool secondary = std::any_of(
        jobs.begin(), jobs.end(), [](const gnss_job& j) { return j.secondary_chip >= 0; });
    std::vector<std::pair<std::size_t, int>> parts; // fixed job -> (job, sign)
    for (std::size_t j = 0; j < jobs.size(); ++j) {
        const auto f = fix(jobs[j], n_samples);
        if (jobs[j].secondary_chip < 0) {
            fixed.push_back(f);
            if (secondary)
                parts.emplace_back(j, 1);
            continue;
        }
        for (const auto& g : split_at_epochs(f, jobs[j].secondary_chip)) {
            fixed.push_back(g.job);
            parts.emplace_back(j, g.sign);
        }
    }
    if (fixed.empty()) {
        if (meanwhile)
            meanwhile();
        return;
    }
    const std::size_t per_job = std::size_t(d_n_antennas) * d_taps.size();
    if (!secondary) {
        d_impl->execute(antennas, fixed, out, stream, meanwhile);
        return;
    }
    d_parts.resize(fixed.size() * per_job);
    d_impl->execute(antennas, fixed, d_parts.data(), stream, meanwhile);
    std::vector<std::complex<double>> sum(jobs.size() * per_job);
    for (std::size_t k = 0; k < fixed.size(); ++k)
        for (std::size_t r = 0; r < per_job; ++r)
            sum[parts[k].first * per_job + r] +=
                double(parts[k].second) * std::complex<double>(d_parts[k * per_job + r]);
    for (std::size_t r = 0; r < sum.size(); ++r)
        out[r] = std::complex<float>(sum[r]);
}

std::string gnss_correlator_plan::last_launch_shape() const
{
    return d_impl->last_launch_shape();
}

double gnss_correlator_plan::last_kernel_seconds() const
{
    return d_impl->last_kernel_seconds();
}

void gnss_correlator_plan::check_cpu_threads(int n, const std::string& who)
{
    if (n < 1 || n > 256)
        throw std::invalid_argument(who + ": threads must lie in 1..256, got " +
                                    std::to_string(n));
}

void gnss_correlator_plan::set_cpu_threads(int n)
{
    check_cpu_threads(n, d_who);
    d_cpu_threads = n;
    d_impl->set_threads(n);
}

std::vector<std::complex<float>> gnss_correlator_plan::execute_host(
    const void* x, int64_t n_samples, const std::vector<gnss_job>& jobs)
{
    std::vector<std::complex<float>> out(jobs.size() * d_n_antennas * d_taps.size());
    const std::size_t bytes = std::size_t(n_samples) * sample_bytes();
    auto host = static_cast<const char*>(x);
    std::vector<const void*> antennas(d_n_antennas);
    if (d_where.kind == backend_kind::cpu) {
        for (int m = 0; m < d_n_antennas; ++m)
            antennas[m] = host + m * bytes;
        execute(antennas, n_samples, jobs, out.data(), nullptr);
        return out;
    }
    auto ctx = runtime::device_context::get(d_where.kind, d_where.device);
    runtime::device_stream stream(ctx, d_who);
    runtime::device_memory d_x(
        ctx, std::max<std::size_t>(1, bytes * d_n_antennas), d_who);
    if (bytes)
        ctx->copy_async(d_x.get(),
                        host,
                        bytes * d_n_antennas,
                        runtime::copy_kind::host_to_device,
                        stream.get(),
                        d_who);
    for (int m = 0; m < d_n_antennas; ++m)
        antennas[m] = d_x.get() + m * bytes;
    execute(antennas, n_samples, jobs, out.data(), stream.get());
    return out;
}

} // namespace kernels
} // namespace gpudsp
} // namespace gr
