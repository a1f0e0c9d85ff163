/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// fengine_plan: validation, the window, and the choice of backend.

#include "fengine_stages.h"
#include "kernels/common/emulated_work.h"
#include "pfb_fengine_impl.h"
#include "runtime/autotune.h"
#include <gnuradio/gpudsp/kernels/unpack10.h>
#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>

namespace gr {
namespace gpudsp {
namespace kernels {

using runtime::backend_kind;

fengine_input parse_fengine_input(const std::string& name, const std::string& who)
{
    if (name == "packed10")
        return fengine_input::packed10;
    if (name == "short")
        return fengine_input::int16;
    if (name == "float")
        return fengine_input::float32;
    if (name == "complex")
        return fengine_input::complex64;
    throw std::invalid_argument(who +
                                ": input_format must be \"packed10\", \"short\", "
                                "\"float\" or \"complex\", got \"" +
                                name + "\"");
}

fengine_output parse_fengine_output(const std::string& name, const std::string& who)
{
    if (name == "cf32")
        return fengine_output::cf32;
    if (name == "ci8")
        return fengine_output::ci8;
    throw std::invalid_argument(
        who + ": output_format must be \"cf32\" or \"ci8\", got \"" + name + "\"");
}

std::vector<double>
pfb_weights(int n_channels, int n_taps, double w_cutoff, bool complex_input)
{
    if (n_channels < 1 || n_taps < 1)
        throw std::invalid_argument("pfb_weights: n_channels and n_taps must be >= 1");
    const std::size_t step = complex_input ? n_channels : 2 * std::size_t(n_channels);
    const std::size_t L = step * n_taps;
    std::vector<double> w(L);
    double energy = 0;
    for (std::size_t i = 0; i < L; ++i) {
        const double hann = L > 1 ? std::pow(std::sin(M_PI * i / double(L - 1)), 2) : 1.0;
        const double x = w_cutoff * ((i + 0.5) / double(step) - n_taps / 2.0);
        const double sinc = x == 0 ? 1.0 : std::sin(M_PI * x) / (M_PI * x);
        w[i] = hann * sinc;
        energy += w[i] * w[i];
    }
    if (!(energy > 0))
        throw std::invalid_argument("pfb_weights: the window is all zeros (w_cutoff?)");
    const double scale = 1.0 / std::sqrt(energy);
    for (auto& v : w)
        v *= scale;
    return w;
}

// gain * exp(1j (-pi tau k / N + phi)) per (channel, input), in float64;
// complex input uses -2 pi tau k' / N with k' the signed channel index.
std::vector<std::complex<float>>
fengine_plan::rotations(const fengine_corrections& c) const
{
    const int N = d_config.n_channels, I = d_config.n_inputs;
    const auto axis = channel_axis_of(d_config);
    const double slope = fmath::delay_slope_halfturns_numerator(axis);
    std::vector<std::complex<float>> rot(std::size_t(N) * I);
    for (int k = 0; k < N; ++k) {
        const double kk = fmath::signed_channel(k, N, axis);
        for (int i = 0; i < I; ++i) {
            const double ph = -M_PI * slope * c.fine_delays[i] * kk / N + c.phases[i];
            const std::size_t at = std::size_t(k) * I + i;
            rot[at] = std::complex<float>(std::complex<double>(c.gains[at]) *
                                          std::polar(1.0, ph));
        }
    }
    return rot;
}

// [input] (delay rate, phase rate) in float; empty when every rate is 0.
std::vector<float> fengine_plan::drift(const fengine_corrections& c) const
{
    const bool any =
        std::any_of(c.delay_rates.begin(), c.delay_rates.end(), [](double r) { return r != 0; }) ||
        std::any_of(c.phase_rates.begin(), c.phase_rates.end(), [](double r) { return r != 0; });
    if (!any)
        return {};
    std::vector<float> out(2 * std::size_t(d_config.n_inputs));
    for (int i = 0; i < d_config.n_inputs; ++i) {
        out[2 * i] = c.delay_rates.empty() ? 0.f : float(c.delay_rates[i]);
        out[2 * i + 1] = c.phase_rates.empty() ? 0.f : float(c.phase_rates[i]);
    }
    return out;
}

namespace {

// The emulated device: the CPU implementation in stream order. New
// corrections apply to the work enqueued after them, as on CUDA.
class fengine_emulated : public fengine_plan::impl
{
public:
    fengine_emulated(std::unique_ptr<fengine_plan::impl> cpu,
                     const fengine_config& c,
                     runtime::device_context::sptr ctx,
                     const std::string& who)
        : d_work(std::move(cpu), std::move(ctx), who), d_c(c)
    {
    }

    void set_rotations(const std::vector<std::complex<float>>& rot) override
    {
        d_pending = rot;
        d_dirty = true;
    }
    void set_drift(const std::vector<float>& rates, uint64_t reference) override
    {
        d_pending_drift = rates;
        d_pending_reference = reference;
        d_dirty = true;
    }

    void execute(const std::vector<fengine_input_view>& inputs,
                 void* out,
                 uint32_t* saturation,
                 std::size_t n_spectra,
                 uint64_t first_spectrum,
                 runtime::stream_handle stream) override
    {
        if (d_dirty) {
            d_work.enqueue(stream,
                           {},
                           [rot = d_pending,
                            drift = d_pending_drift,
                            reference = d_pending_reference](fengine_plan::impl& cpu) {
                               cpu.set_rotations(rot);
                               cpu.set_drift(drift, reference);
                           });
            d_dirty = false;
        }
        std::vector<runtime::memory_span> written{
            { out, n_spectra * d_c.output_item_size() }
        };
        if (saturation)
            written.push_back(
                { saturation, n_spectra * d_c.n_inputs * sizeof(uint32_t) });
        d_work.enqueue(stream, std::move(written), [=](fengine_plan::impl& cpu) {
            cpu.execute(inputs, out, saturation, n_spectra, first_spectrum, nullptr);
        });
    }

private:
    emulated_work<fengine_plan::impl> d_work;
    fengine_config d_c;
    std::vector<std::complex<float>> d_pending;
    std::vector<float> d_pending_drift;
    uint64_t d_pending_reference = 0;
    bool d_dirty = false;
};

} // namespace

void fengine_plan::validate(const fengine_config& c, const std::string& who)
{
    auto fail = [&](const std::string& what) {
        throw std::invalid_argument(who + ": " + what);
    };
    if (c.n_inputs < 1 || c.n_inputs > 4096)
        fail("n_inputs must lie in 1..4096, got " + std::to_string(c.n_inputs));
    if (c.n_channels < 2 || c.n_channels > (1 << 20))
        fail("n_channels must lie in 2..1048576, got " + std::to_string(c.n_channels));
    if (c.n_taps < 1 || c.n_taps > 1024)
        fail("n_taps must lie in 1..1024, got " + std::to_string(c.n_taps));
    if (c.output_item_size() > 0x7fffffff) // GNU Radio's item size is an int
        fail("n_channels x n_inputs = " + std::to_string(std::size_t(c.n_channels) * c.n_inputs) +
             " values make a spectrum larger than 2^31 bytes");
    if (c.window() > (std::size_t(1) << 28))
        fail("the window (step x n_taps = " + std::to_string(c.window()) +
             " samples) is larger than 2^28");
    if (!c.weights.empty()) {
        if (c.weights.size() != c.window())
            fail("weights must hold " + std::to_string(c.window()) +
                 " values (step x n_taps), got " + std::to_string(c.weights.size()));
        for (double w : c.weights)
            if (!std::isfinite(w))
                fail("weights must be finite");
    } else if (!std::isfinite(c.w_cutoff) || c.w_cutoff < 0) {
        fail("w_cutoff must be finite and >= 0");
    }
    if (c.centred_channels && !c.complex_input())
        fail("centred channels need complex input (real input gives DC to Nyquist)");
    if (c.centred_channels && c.n_channels % 2 != 0)
        fail("centred channels need an even n_channels, got " +
             std::to_string(c.n_channels));
}

fengine_plan::fengine_plan(const fengine_config& config,
                           runtime::backend_choice where,
                           const std::string& who)
    : d_config(config), d_where(where), d_who(who)
{
    validate(d_config, who);
    const auto w = d_config.weights.empty() ? pfb_weights(d_config.n_channels,
                                                          d_config.n_taps,
                                                          d_config.w_cutoff,
                                                          d_config.complex_input())
                                            : d_config.weights;
    d_weights.assign(w.begin(), w.end());
    const std::vector<float> taps = fir_taps(d_config, d_weights);
    if (where.kind == backend_kind::cuda) {
#ifdef GPUDSP_HAVE_CUDA
        d_impl = make_fengine_cuda(
            d_config, taps, runtime::device_context::get(where.kind, where.device), who);
#else
        throw std::runtime_error(who + ": gr-gpudsp was built without CUDA");
#endif
    } else if (where.kind == backend_kind::emulated) {
        d_impl = std::make_unique<fengine_emulated>(
            make_fengine_cpu(d_config, taps),
            d_config,
            runtime::device_context::get(where.kind, where.device),
            who);
    } else {
        d_impl = make_fengine_cpu(d_config, taps);
    }
    set_corrections({});
    tune();
}

// The tuner times the backend's configurations on one chunk of spectra from
// random input of the plan's format (the inputs one after another in one
// buffer). Fused and unfused forms may round a value differently where
// cuFFT's kernels differ: ci8 outputs may differ by one step in at most
// 0.1% of the values, cf32 by 1e-5 of the largest.
void fengine_plan::tune()
{
    static const char* const formats[] = { "packed10", "short", "float", "complex" };
    const auto& c = d_config;
    const std::string shape =
        "N=" + std::to_string(c.n_channels) + " T=" + std::to_string(c.n_taps) +
        " I=" + std::to_string(c.n_inputs) + " " + formats[int(c.input)] + " " +
        (c.output == fengine_output::ci8 ? "ci8" : "cf32");
    const std::vector<std::string> ids = d_impl->configurations();
    d_tuning = runtime::untuned("fengine", shape, ids.empty() ? "cpu" : ids[0]);
    if (ids.size() < 2)
        return;
    const std::size_t n = d_impl->tuning_spectra();
    const std::size_t per_input = (input_bytes(c.samples_for(n)) + 255) / 256 * 256;
    runtime::tune_problem p;
    p.kernel = "fengine";
    p.version = 2; // 2: the split form (real input, rows of N/U points)
    p.shape = shape + " spectra=" + std::to_string(n);
    p.unit = "spectrum";
    p.input_bytes = per_input * std::size_t(c.n_inputs);
    p.output_bytes = n * c.output_item_size();
    p.heuristic = ids[0];
    // $GPUDSP_FENGINE_CONFIG names any one configuration (a test, or a user
    // pinning a device plan's), refused with the plan's list if it is none
    // of them; else the form variables (GPUDSP_FENGINE_FUSED, ...).
    const std::string named =
        runtime::configuration_from_environment("GPUDSP_FENGINE_CONFIG", ids, d_who);
    p.forced = named.empty() ? d_impl->forced_configuration() : named;
    if (c.input == fengine_input::float32 || c.input == fengine_input::complex64)
        p.fill = [](void* host, std::size_t bytes, uint64_t seed) {
            std::mt19937_64 rng(seed);
            std::normal_distribution<float> g(0.0f, 64.0f); // a 10-bit digitiser's level
            auto* f = static_cast<float*>(host);
            for (std::size_t i = 0; i < bytes / sizeof(float); ++i)
                f[i] = g(rng);
        };
    if (c.output == fengine_output::ci8) {
        const std::size_t values = p.output_bytes;
        p.compare = [values](const void* expected, const void* got) -> std::string {
            const auto* a = static_cast<const int8_t*>(expected);
            const auto* b = static_cast<const int8_t*>(got);
            std::size_t off_by_one = 0;
            for (std::size_t i = 0; i < values; ++i) {
                const int d = std::abs(int(a[i]) - int(b[i]));
                if (d > 1)
                    return "value " + std::to_string(i) + ": " + std::to_string(b[i]) +
                           ", expected " + std::to_string(a[i]);
                off_by_one += d;
            }
            if (off_by_one * 1000 > values)
                return std::to_string(off_by_one) + " of " + std::to_string(values) +
                       " values differ by one step (over 0.1%)";
            return "";
        };
    } else {
        const std::size_t values = p.output_bytes / sizeof(float);
        p.compare = [values](const void* expected, const void* got) -> std::string {
            const auto* a = static_cast<const float*>(expected);
            const auto* b = static_cast<const float*>(got);
            double scale = 0;
            for (std::size_t i = 0; i < values; ++i)
                scale = std::max(scale, double(std::fabs(a[i])));
            for (std::size_t i = 0; i < values; ++i)
                if (!(std::fabs(double(a[i]) - double(b[i])) <= 1e-5 * scale))
                    return "value " + std::to_string(i) + " differs beyond 1e-5 of " +
                           std::to_string(scale);
            return "";
        };
    }
    for (const auto& id : ids)
        p.candidates.push_back(
            { id,
              "",
              double(n),
              [this, id, n, per_input](
                  const void* in, void* out, runtime::stream_handle s) {
                  std::vector<fengine_input_view> views(std::size_t(d_config.n_inputs));
                  for (std::size_t i = 0; i < views.size(); ++i)
                      views[i].data = static_cast<const char*>(in) + i * per_input;
                  d_impl->use(id);
                  d_impl->execute(views, out, nullptr, n, 0, s);
              } });
    d_tuning = runtime::autotune(
        p, runtime::device_context::get(d_where.kind, d_where.device), d_who);
    try {
        d_impl->use(d_tuning.chosen);
    } catch (const std::exception& e) {
        // A cached or forced choice this machine cannot run now (cuFFT
        // refusing the fused form's callbacks): the heuristic's, and why.
        d_tuning.notes.push_back("\"" + d_tuning.chosen + "\" cannot run: " + e.what() +
                                 "; running \"" + ids[0] + "\"");
        d_tuning.chosen = ids[0];
        d_impl->use(ids[0]);
    }
}

fengine_plan::~fengine_plan() = default;

void fengine_plan::set_corrections(const fengine_corrections& c)
{
    const std::size_t n_in = d_config.n_inputs;
    auto fail = [&](const std::string& what) {
        throw std::invalid_argument(d_who + ": " + what);
    };
    if (!c.gains.empty() && c.gains.size() != n_in * d_config.n_channels)
        fail("gains must hold n_channels x n_inputs = " +
             std::to_string(n_in * d_config.n_channels) + " values, got " +
             std::to_string(c.gains.size()));
    if (!c.fine_delays.empty() && c.fine_delays.size() != n_in)
        fail("fine_delays must hold one value per input");
    if (!c.phases.empty() && c.phases.size() != n_in)
        fail("phases must hold one value per input");
    for (double t : c.fine_delays)
        if (!(std::fabs(t) <= 0.5))
            fail("fine delays must lie in [-0.5, 0.5] samples (the rest is a coarse "
                 "delay)");
    for (double p : c.phases)
        if (!std::isfinite(p))
            fail("phases must be finite");
    for (auto g : c.gains)
        if (!std::isfinite(g.real()) || !std::isfinite(g.imag()))
            fail("gains must be finite");
    for (const auto* rates : { &c.delay_rates, &c.phase_rates }) {
        if (!rates->empty() && rates->size() != n_in)
            fail("delay and phase rates must hold one value per input");
        for (double r : *rates)
            if (!std::isfinite(r))
                fail("delay and phase rates must be finite");
    }
    fengine_corrections full = c;
    if (full.gains.empty())
        full.gains.assign(n_in * d_config.n_channels, 1.0f);
    if (full.fine_delays.empty())
        full.fine_delays.assign(n_in, 0.0);
    if (full.phases.empty())
        full.phases.assign(n_in, 0.0);
    d_impl->set_rotations(rotations(full));
    d_impl->set_drift(drift(full), full.reference_spectrum);
    d_corrections = std::move(full);
}

std::string fengine_plan::kernel_form() const { return d_impl->kernel_form(); }

std::string fengine_plan::launch_shape(std::size_t n_spectra) const
{
    return d_impl->launch_shape(n_spectra);
}

std::size_t fengine_plan::preferred_spectra() const
{
    if (d_where.kind == runtime::backend_kind::cpu)
        return 1; // no launches or synchronisations to amortise
    // ~1 ms of an H100 at ~130 GS/s: beside the ~0.1-0.2 ms a GNU Radio
    // work call costs the host (docs/fengine.md, "The block in a stream").
    // The upstream buffers hold four such calls (the block's relative
    // rate): within a 32nd of the device's memory.
    const std::size_t step = std::size_t(d_config.step());
    const std::size_t inputs = std::size_t(d_config.n_inputs);
    const std::size_t all = (std::size_t(1) << 27) / (step * inputs);
    const std::size_t each = (std::size_t(1) << 24) / step;
    const std::size_t memory =
        runtime::device_context::get(d_where.kind, d_where.device)->info().total_memory;
    const std::size_t fit = memory / 128 / (input_bytes(step) * inputs);
    return std::clamp<std::size_t>(std::min({ all, each, fit }), 1, 4096);
}

void fengine_plan::time_stages(bool on) { d_impl->time_stages(on); }

std::vector<runtime::stage_time> fengine_plan::stage_times() const
{
    return d_impl->stage_times();
}

std::size_t fengine_plan::input_bytes(std::size_t n) const
{
    return fengine_input_bytes(d_config, n);
}

void fengine_plan::execute(const std::vector<fengine_input_view>& inputs,
                           void* out,
                           uint32_t* saturation,
                           std::size_t n_spectra,
                           uint64_t first_spectrum,
                           runtime::stream_handle stream)
{
    if (inputs.size() != std::size_t(d_config.n_inputs))
        throw std::invalid_argument(d_who + ": expected " +
                                    std::to_string(d_config.n_inputs) + " inputs, got " +
                                    std::to_string(inputs.size()));
    for (const auto& v : inputs)
        if (v.first_sample < 0)
            throw std::invalid_argument(d_who + ": an input starts before its data");
    if (n_spectra == 0)
        return;
    d_impl->execute(inputs, out, saturation, n_spectra, first_spectrum, stream);
}

void fengine_plan::execute_host(const std::vector<fengine_input_view>& inputs,
                                std::size_t input_bytes_each,
                                void* out,
                                uint32_t* saturation,
                                std::size_t n_spectra,
                                uint64_t first_spectrum)
{
    if (d_where.kind == backend_kind::cpu) {
        execute(inputs, out, saturation, n_spectra, first_spectrum, nullptr);
        return;
    }
    auto ctx = runtime::device_context::get(d_where.kind, d_where.device);
    runtime::device_stream stream(ctx, d_who);
    std::vector<std::unique_ptr<runtime::device_memory>> d_in;
    std::vector<fengine_input_view> views;
    const auto h2d = runtime::copy_kind::host_to_device;
    for (const auto& v : inputs) {
        d_in.push_back(std::make_unique<runtime::device_memory>(
            ctx, input_bytes_each ? input_bytes_each : 1, d_who));
        ctx->copy_async(
            d_in.back()->get(), v.data, input_bytes_each, h2d, stream.get(), d_who);
        views.push_back({ d_in.back()->get(), v.first_sample });
    }
    const std::size_t out_bytes = n_spectra * d_config.output_item_size();
    const std::size_t sat_bytes = n_spectra * d_config.n_inputs * sizeof(uint32_t);
    runtime::device_memory d_out(ctx, out_bytes ? out_bytes : 1, d_who);
    runtime::device_memory d_sat(ctx, sat_bytes ? sat_bytes : 1, d_who);
    execute(views,
            d_out.get(),
            reinterpret_cast<uint32_t*>(d_sat.get()),
            n_spectra,
            first_spectrum,
            stream.get());
    const auto d2h = runtime::copy_kind::device_to_host;
    ctx->copy_async(out, d_out.get(), out_bytes, d2h, stream.get(), d_who);
    if (saturation)
        ctx->copy_async(saturation, d_sat.get(), sat_bytes, d2h, stream.get(), d_who);
    stream.synchronize();
}

} // namespace kernels
} // namespace gpudsp
} // namespace gr
