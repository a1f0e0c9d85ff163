/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// ddc_plan: validation, the exact mixer phase, the premultiplied taps and
// the choice of backend.

#include "ddc_impl.h"
#include "ddc_schedule.h"
#include "kernels/common/emulated_work.h"
#include "runtime/autotune.h"
#include "runtime/context_factories.h"
#include <gnuradio/gpudsp/kernels/unpack10.h>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <random>
#include <stdexcept>

namespace gr {
namespace gpudsp {
namespace kernels {

using runtime::backend_kind;

namespace {

// The tuner's name of a CPU vector width (the emulated device's and the CPU
// backend's configurations).
std::string simd_id(int lanes)
{
    return lanes == 16 ? "simd=avx512" : lanes == 8 ? "simd=avx2" : "simd=baseline";
}

// The tuner's names of SIMD levels (widest first; each has .lanes), and
// the level a name picks (\p current where none matches).
template <class Level>
std::vector<std::string> level_ids(const std::vector<Level>& levels)
{
    std::vector<std::string> ids;
    for (const auto& l : levels)
        ids.push_back(simd_id(l.lanes));
    return ids;
}
template <class Level>
std::size_t
level_of(const std::vector<Level>& levels, const std::string& id, std::size_t current)
{
    for (std::size_t k = 0; k < levels.size(); ++k)
        if (simd_id(levels[k].lanes) == id)
            return k;
    return current;
}

// The emulated device: the CPU implementation in stream order. New taps
// apply to the work enqueued after them, as on CUDA. Its configurations are
// the CPU's vector widths (each its own CPU implementation, all given the
// same taps), so that the tuner's whole path runs in CI.
class ddc_emulated : public ddc_plan::impl
{
public:
    ddc_emulated(const ddc_config& c,
                 runtime::device_context::sptr ctx,
                 const std::string& who)
    {
        for (const int lanes : ddc_cpu_lane_options())
            d_levels.push_back(
                { lanes,
                  emulated_work<ddc_plan::impl>(make_ddc_cpu(c, lanes), ctx, who) });
    }
    // It stands in for a GPU in tests: small chunks, so that
    // execute_together's tests cut their calls into several.
    std::size_t cache_chunk_bytes() const override { return 16 << 10; }

    void set_taps(const std::vector<std::complex<float>>& z) override
    {
        d_pending = z;
        d_dirty = true;
    }
    void execute(const void* in,
                 int64_t first_sample,
                 uint64_t first_output,
                 std::size_t n_outputs,
                 void* out,
                 const mixer_phase& phase,
                 runtime::stream_handle stream) override
    {
        if (d_dirty) { // every level, so that any may run next
            for (const auto& l : d_levels)
                l.work.enqueue(stream, {}, [z = d_pending](ddc_plan::impl& cpu) {
                    cpu.set_taps(z);
                });
            d_dirty = false;
        }
        d_levels[d_use].work.enqueue(
            stream,
            { { out, n_outputs * sizeof(std::complex<float>) } },
            [=](ddc_plan::impl& cpu) {
                cpu.execute(
                    in, first_sample, first_output, n_outputs, out, phase, nullptr);
            });
    }

    std::vector<std::string> configurations() const override
    {
        return level_ids(d_levels);
    }
    void use(const std::string& id) override { d_use = level_of(d_levels, id, d_use); }
    // A CPU's pace: a few milliseconds a call.
    std::size_t tuning_outputs() const override { return 4096; }

private:
    struct level {
        int lanes;
        emulated_work<ddc_plan::impl> work;
    };
    std::vector<level> d_levels; // widest first
    std::size_t d_use = 0;
    std::vector<std::complex<float>> d_pending;
    bool d_dirty = false;
};

// The CPU backend where the CPU runs AVX-512: its AVX-512 and AVX2 code
// (the SIMD level alone does not decide: Zen 4 executes 512-bit operations
// as two 256-bit halves, and its AVX2 code ran the 10-bit D = 16, T = 256
// kernel 1.09x faster on this project's Zen 4 dev VM), timed by the tuner
// like the emulated device's levels (the same code; docs/ddc.md, "SIMD
// level by measurement"). Elsewhere, or with GPUDSP_CPU_SIMD set, one level.
class ddc_cpu_levels : public ddc_plan::impl
{
public:
    explicit ddc_cpu_levels(const ddc_config& c)
    {
        for (const int lanes : { 16, 8 })
            d_levels.push_back({ lanes, make_ddc_cpu(c, lanes) });
    }
    std::size_t cache_chunk_bytes() const override
    {
        return d_levels[d_use].impl->cache_chunk_bytes();
    }
    void set_taps(const std::vector<std::complex<float>>& z) override
    {
        for (auto& l : d_levels)
            l.impl->set_taps(z);
    }
    void execute(const void* in,
                 int64_t first_sample,
                 uint64_t first_output,
                 std::size_t n_outputs,
                 void* out,
                 const mixer_phase& phase,
                 runtime::stream_handle stream) override
    {
        d_levels[d_use].impl->execute(
            in, first_sample, first_output, n_outputs, out, phase, stream);
    }
    std::vector<std::string> configurations() const override
    {
        return level_ids(d_levels);
    }
    void use(const std::string& id) override { d_use = level_of(d_levels, id, d_use); }
    std::size_t tuning_outputs() const override { return 4096; }

    static bool applies() { return ddc_cpu_lane_options().front() == 16; }

private:
    struct level {
        int lanes;
        std::unique_ptr<ddc_plan::impl> impl;
    };
    std::vector<level> d_levels; // widest first
    std::size_t d_use = 0;
};

} // namespace

ddc_input parse_ddc_input(const std::string& name, const std::string& who)
{
    if (name == "complex")
        return ddc_input::complex64;
    if (name == "float")
        return ddc_input::float32;
    if (name == "short")
        return ddc_input::int16;
    if (name == "packed10")
        return ddc_input::packed10;
    throw std::invalid_argument(who +
                                ": input_format must be \"complex\", \"float\", "
                                "\"short\" or \"packed10\", got \"" +
                                name + "\"");
}

uint64_t mixer_phase::cycles_to_fixed(double cycles)
{
    // round(cycles * 2^64) mod 2^64 exactly, ties to even: whole cycles wrap
    // away and the phase arithmetic then wraps for free. cycles = mant *
    // 2^shift / 2^64 with a 53-bit integer mantissa; no floating-point
    // operation rounds (the difference cycles - floor(cycles + 0.5) would,
    // near +-0.5 cycle).
    if (!std::isfinite(cycles) || cycles == 0)
        return 0;
    int exp = 0;
    const int64_t mant = int64_t(std::ldexp(std::frexp(cycles, &exp), 53)); // exact
    const int shift = exp - 53 + 64;
    if (shift >= 64)
        return 0; // a whole number of cycles
    if (shift >= 0)
        return uint64_t(mant) << shift;
    const int s = -shift;
    if (s > 62)
        return 0;          // |cycles * 2^64| < 2^53 / 2^63 < 1/2
    int64_t q = mant >> s; // floor
    const int64_t rem = mant - q * (int64_t(1) << s), half = int64_t(1) << (s - 1);
    if (rem > half || (rem == half && (q & 1)))
        ++q;
    return uint64_t(q);
}

void mixer_phase::retune(double cycles_per_sample, uint64_t n0)
{
    const uint64_t new_step = cycles_to_fixed(cycles_per_sample);
    // at(n0) must not change: offset' = offset + (step - step') n0.
    offset += (step - new_step) * n0;
    step = new_step;
}

namespace {

void validate(const ddc_config& c, const std::string& who)
{
    auto fail = [&](const std::string& what) {
        throw std::invalid_argument(who + ": " + what);
    };
    if (c.decimation < 1 || c.decimation > (1 << 20))
        fail("decimation must lie in 1..2^20, got " + std::to_string(c.decimation));
    if (c.taps.empty())
        fail("taps must not be empty");
    if (c.taps.size() > (std::size_t(1) << 20))
        fail("more than 2^20 taps");
    for (auto t : c.taps)
        if (!std::isfinite(t.real()) || !std::isfinite(t.imag()))
            fail("taps must be finite");
    if (!(c.samp_rate > 0) || !std::isfinite(c.samp_rate))
        fail("samp_rate must be > 0");
    if (!std::isfinite(c.center_freq))
        fail("center_freq must be finite");
    if (!c.complex_input() && std::fabs(c.center_freq) > c.samp_rate / 2)
        fail("center_freq must lie within +-samp_rate/2 for real input, got " +
             std::to_string(c.center_freq) + " Hz at " + std::to_string(c.samp_rate) +
             " samples/s");
}

} // namespace

ddc_plan::ddc_plan(const ddc_config& config,
                   runtime::backend_choice where,
                   const std::string& who)
    : d_config(config), d_where(where), d_who(who)
{
    validate(d_config, who);
    if (where.kind == backend_kind::cuda) {
#ifdef GPUDSP_HAVE_CUDA
        d_impl = make_ddc_cuda(
            d_config, runtime::device_context::get(where.kind, where.device), who);
#else
        throw std::runtime_error(who + ": gr-gpudsp was built without CUDA");
#endif
    } else if (where.kind == backend_kind::emulated) {
        d_impl = std::make_unique<ddc_emulated>(
            d_config, runtime::device_context::get(where.kind, where.device), who);
    } else if (ddc_cpu_levels::applies()) {
        d_impl = std::make_unique<ddc_cpu_levels>(d_config);
    } else {
        d_impl = make_ddc_cpu(d_config);
    }
    retune(config.center_freq, 0); // from a zero phase at sample 0
    tune();
}

// The tuner times the backend's configurations on calls of
// tuning_outputs() outputs from random input of the plan's format, each
// checked against the heuristic's within 1e-5 of the outputs' full scale
// (the configurations add the taps in different orders; docs/ddc.md).
void ddc_plan::tune()
{
    static const char* const formats[] = { "complex", "float", "short", "packed10" };
    const std::string shape = "D=" + std::to_string(d_config.decimation) +
                              " T=" + std::to_string(d_config.n_taps()) + " " +
                              formats[int(d_config.input)];
    const std::vector<std::string> ids = d_impl->configurations();
    d_tuning = runtime::untuned("ddc", shape, ids.empty() ? "cpu" : ids[0]);
    const std::string named = configuration_named(ids);
    if (ids.size() < 2 && named.empty())
        return;
    const std::size_t n = d_impl->tuning_outputs();
    const std::size_t n_in =
        (n - 1) * std::size_t(d_config.decimation) + std::size_t(d_config.n_taps());
    runtime::tune_problem p;
    p.kernel = "ddc";
    // 2: the tensor-core form (10-bit input, sm_80 on); 3: mix first
    // (complex input, real taps); 4: the ring kernel (ddc_ring.h); 5: the
    // tensor form's warp tiles (tap block 8D, 32 rows); 6: 4 and 16
    // outputs a thread in the tile and ring kernels (real input); 7: no
    // rotation re-seed interval (ring ... Q=32: never faster, ddc_ring.h).
    p.version = 7;
    p.shape = shape + " n_out=" + std::to_string(n);
    p.unit = "output";
    p.input_bytes = input_bytes(n_in);
    p.output_bytes = n * sizeof(std::complex<float>);
    if (d_config.input == ddc_input::complex64 || d_config.input == ddc_input::float32)
        p.fill = [](void* host, std::size_t bytes, uint64_t seed) {
            std::mt19937_64 rng(seed);
            std::uniform_real_distribution<float> u(-1.0f, 1.0f);
            auto* f = static_cast<float*>(host);
            for (std::size_t i = 0; i < bytes / sizeof(float); ++i)
                f[i] = u(rng);
        };
    p.compare = [n](const void* expected, const void* got) -> std::string {
        const auto* a = static_cast<const std::complex<float>*>(expected);
        const auto* b = static_cast<const std::complex<float>*>(got);
        double scale = 0;
        for (std::size_t i = 0; i < n; ++i)
            scale = std::max(scale, double(std::abs(a[i])));
        for (std::size_t i = 0; i < n; ++i) {
            const double d =
                std::abs(std::complex<double>(a[i]) - std::complex<double>(b[i]));
            if (!(d <= 1e-5 * scale))
                return "output " + std::to_string(i) + " differs by " +
                       std::to_string(d) + " (full scale " + std::to_string(scale) + ")";
        }
        return "";
    };
    // The CPU backend has no device: a CPU timing context (host memory, the
    // host's clock, stream order, no emulated delays) holds the tuner's
    // inputs, and the CPU code runs in its stream order.
    const bool cpu = d_where.kind == backend_kind::cpu;
    const auto ctx = cpu ? runtime::detail::cpu_timing_context()
                         : runtime::device_context::get(d_where.kind, d_where.device);
    for (const auto& id : ids)
        p.candidates.push_back(
            { id,
              "",
              double(n),
              [this, id, n, cpu, ctx](
                  const void* in, void* out, runtime::stream_handle s) {
                  if (!cpu) {
                      d_impl->use(id);
                      d_impl->execute(in, 0, 0, n, out, d_phase, s);
                      return;
                  }
                  ctx->enqueue_host_work(
                      s,
                      [this, id, n, in, out] {
                          d_impl->use(id);
                          d_impl->execute(in, 0, 0, n, out, d_phase, nullptr);
                      },
                      { { out, n * sizeof(std::complex<float>) } },
                      d_who);
              } });
    p.heuristic = ids[0];
    p.forced = named.empty() ? d_impl->forced_configuration() : named;
    d_tuning = runtime::autotune(p, ctx, d_who);
    d_impl->use(d_tuning.chosen);
}

std::vector<std::string> ddc_plan::configurations() const
{
    return d_impl->configurations();
}

// $GPUDSP_DDC_CONFIG: one of the plan's configurations \p ids (a test, or
// a user pinning a device plan's configuration), else empty; a name this
// plan cannot run is refused with the ones it can. CPU plans take
// GPUDSP_CPU_SIMD instead.
std::string ddc_plan::configuration_named(const std::vector<std::string>& ids) const
{
    if (d_where.kind == backend_kind::cpu)
        return "";
    return runtime::configuration_from_environment("GPUDSP_DDC_CONFIG", ids, d_who);
}

ddc_plan::~ddc_plan() = default;

void ddc_plan::retune(double center_freq, uint64_t n0)
{
    if (!std::isfinite(center_freq) ||
        (!d_config.complex_input() && std::fabs(center_freq) > d_config.samp_rate / 2))
        throw std::invalid_argument(d_who + ": center_freq " +
                                    std::to_string(center_freq) + " Hz is out of range");
    const double f = center_freq / d_config.samp_rate;
    d_phase.retune(f, n0);
    d_config.center_freq = center_freq;
    // z[k] = h[k] exp(+2j pi f k), in float64; the angle is reduced exactly
    // through the fixed-point phase so large k lose nothing.
    std::vector<std::complex<float>> z(d_config.taps.size());
    for (std::size_t k = 0; k < z.size(); ++k) {
        const double cycles = double(int64_t(d_phase.step * uint64_t(k))) * 0x1p-64;
        z[k] = std::complex<float>(d_config.taps[k] * std::polar(1.0, 2 * M_PI * cycles));
    }
    d_impl->set_taps(z);
}

void ddc_plan::restart()
{
    d_phase = mixer_phase{};
    retune(d_config.center_freq, 0);
}

double ddc_plan::launch_waves(std::size_t n_outputs) const
{
    return d_impl->launch_waves(n_outputs);
}

std::size_t ddc_plan::input_bytes(std::size_t n) const
{
    switch (d_config.input) {
    case ddc_input::complex64:
        return 8 * n;
    case ddc_input::float32:
        return 4 * n;
    case ddc_input::int16:
        return 2 * n;
    case ddc_input::packed10:
        return packed10_bytes(n);
    }
    return 0;
}

void ddc_plan::execute(const void* in,
                       int64_t first_sample,
                       uint64_t first_output,
                       std::size_t n_outputs,
                       void* out,
                       runtime::stream_handle stream)
{
    if (first_sample < 0)
        throw std::invalid_argument(d_who + ": the input starts before its data");
    if (n_outputs)
        d_impl->execute(in, first_sample, first_output, n_outputs, out, d_phase, stream);
}

void ddc_plan::execute_together(const std::vector<ddc_plan*>& plans,
                                const void* in,
                                int64_t first_sample,
                                uint64_t first_output,
                                std::size_t n_outputs,
                                const std::vector<void*>& outs,
                                runtime::stream_handle stream)
{
    if (plans.empty() || plans.size() != outs.size())
        throw std::invalid_argument("ddc: execute_together needs one output per plan");
    if (first_sample < 0)
        throw std::invalid_argument(plans[0]->d_who +
                                    ": the input starts before its data");
    std::vector<work> w;
    for (std::size_t i = 0; i < plans.size(); ++i) {
        const ddc_config& c = plans[i]->d_config;
        if (c.decimation != plans[0]->d_config.decimation ||
            c.n_taps() != plans[0]->d_config.n_taps())
            throw std::invalid_argument(plans[i]->d_who +
                                        ": execute_together over the same outputs "
                                        "needs plans of the same decimation and taps "
                                        "count");
        w.push_back({ plans[i], first_sample, first_output, n_outputs, outs[i] });
    }
    execute_together(w, in, stream);
}

void ddc_plan::execute_together(const std::vector<work>& list,
                                const void* in,
                                runtime::stream_handle stream)
{
    if (list.empty())
        return;
    const ddc_plan& p0 = *list[0].plan;
    for (const auto& w : list) {
        const ddc_plan& p = *w.plan;
        if (p.d_config.input != p0.d_config.input || p.d_where.kind != p0.d_where.kind ||
            p.d_where.device != p0.d_where.device)
            throw std::invalid_argument(p.d_who +
                                        ": execute_together needs plans of one input "
                                        "format, backend and device");
        if (w.n_outputs && w.first_sample < 0)
            throw std::invalid_argument(p.d_who + ": the input starts before its data");
    }
    // Banks: plans of one shape over the same outputs, their outputs' span
    // and their members (indices into list).
    std::vector<ddc_span> spans;
    std::vector<std::vector<std::size_t>> banks;
    for (std::size_t i = 0; i < list.size(); ++i) {
        const auto& w = list[i];
        if (!w.n_outputs)
            continue;
        const ddc_config& c = w.plan->d_config;
        const ddc_span s{ w.first_sample, w.n_outputs, c.decimation, c.n_taps() };
        std::size_t b = 0;
        while (b < banks.size() &&
               !(spans[b].first_sample == s.first_sample && spans[b].n == s.n &&
                 spans[b].D == s.D && spans[b].T == s.T &&
                 list[banks[b][0]].first_output == w.first_output))
            ++b;
        if (b == banks.size()) {
            spans.push_back(s);
            banks.emplace_back();
        }
        banks[b].push_back(i);
    }
    // One shape: one read whatever the size. Several: chunks the cache keeps.
    const std::size_t cache = banks.size() > 1 ? p0.d_impl->cache_chunk_bytes() : 0;
    const int64_t chunk = int64_t(cache / p0.input_bytes(4) * 4);
    // Outputs [k0, k1) of bank b: together where the backend can.
    ddc_for_chunks(
        spans.data(),
        spans.size(),
        chunk,
        [&](std::size_t b, std::size_t k0, std::size_t k1) {
            const int64_t first = spans[b].first_sample + int64_t(k0) * spans[b].D;
            const uint64_t m0 = list[banks[b][0]].first_output + k0;
            std::vector<ddc_group_member> members;
            for (std::size_t i : banks[b])
                members.push_back(
                    { list[i].plan->d_impl.get(),
                      &list[i].plan->d_phase,
                      static_cast<std::complex<float>*>(list[i].out) + k0 });
            if (members.size() > 1 &&
                members[0].impl->execute_group(members, in, first, m0, k1 - k0, stream))
                return;
            for (const auto& m : members)
                m.impl->execute(in, first, m0, k1 - k0, m.out, *m.phase, stream);
        });
}

std::vector<std::complex<float>> ddc_plan::execute_host(const void* in,
                                                        std::size_t n_samples,
                                                        uint64_t first_index,
                                                        uint64_t& first_output)
{
    const uint64_t D = d_config.decimation, T = d_config.taps.size();
    first_output = (first_index + D - 1) / D;
    const uint64_t end = first_index + n_samples; // exclusive
    const std::size_t n_out =
        end > first_output * D ? (end - 1 - first_output * D) / D + 1 : 0;
    if (n_samples == 0 || n_out == 0)
        return {};
    // Stage [m0 D - T + 1, end) with zeros before first_index; packed10
    // padding is whole zero groups, the window start inside the first group.
    const int64_t window_start = int64_t(first_output * D) - int64_t(T) + 1;
    const uint64_t lead =
        uint64_t(std::max<int64_t>(0, int64_t(first_index) - window_start));
    const bool packed = d_config.input == ddc_input::packed10;
    const uint64_t pad = packed ? (lead + 3) / 4 * 4 : lead;
    const std::size_t pad_bytes = input_bytes(pad);
    const std::size_t data_bytes = input_bytes(n_samples);
    const int64_t first_sample =
        int64_t(pad - lead) + std::max<int64_t>(0, window_start - int64_t(first_index));
    std::vector<uint8_t> staged(pad_bytes + data_bytes + 8, 0);
    std::copy_n(static_cast<const uint8_t*>(in), data_bytes, staged.data() + pad_bytes);

    std::vector<std::complex<float>> out(n_out);
    if (d_where.kind == backend_kind::cpu) {
        execute(staged.data(), first_sample, first_output, n_out, out.data(), nullptr);
        return out;
    }
    auto ctx = runtime::device_context::get(d_where.kind, d_where.device);
    runtime::device_stream stream(ctx, d_who);
    runtime::device_memory d_in(ctx, staged.size(), d_who);
    runtime::device_memory d_out(ctx, n_out * sizeof(std::complex<float>), d_who);
    ctx->copy_async(d_in.get(),
                    staged.data(),
                    staged.size(),
                    runtime::copy_kind::host_to_device,
                    stream.get(),
                    d_who);
    execute(d_in.get(), first_sample, first_output, n_out, d_out.get(), stream.get());
    ctx->copy_async(out.data(),
                    d_out.get(),
                    n_out * sizeof(std::complex<float>),
                    runtime::copy_kind::device_to_host,
                    stream.get(),
                    d_who);
    stream.synchronize();
    return out;
}

} // namespace kernels
} // namespace gpudsp
} // namespace gr
