/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// xengine_plan: validation and the choice of backend.

#include "kernels/common/emulated_work.h"
#include "runtime/autotune.h"
#include "xengine_impl.h"
#include "xengine_tile.h"
#include <unistd.h>
#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <stdexcept>

namespace gr {
namespace gpudsp {
namespace kernels {

using runtime::backend_kind;

namespace {

// The emulated device: the CPU implementation (whose accumulators stand for
// the device's) in stream order.
class xengine_emulated : public xengine_plan::impl
{
public:
    xengine_emulated(std::unique_ptr<xengine_plan::impl> cpu,
                     const xengine_config& c,
                     runtime::device_context::sptr ctx,
                     const std::string& who)
        : d_work(std::move(cpu), std::move(ctx), who), d_c(c)
    {
    }
    std::string kernel_name() const override { return d_work.cpu().kernel_name(); }
    void accumulate(const void* spectra, std::size_t n, runtime::stream_handle s) override
    {
        d_work.enqueue(
            s, {}, [=](xengine_plan::impl& cpu) { cpu.accumulate(spectra, n, nullptr); });
    }
    void promote(runtime::stream_handle s) override
    {
        d_work.enqueue(s, {}, [](xengine_plan::impl& cpu) { cpu.promote(nullptr); });
    }
    void dump(void* out, uint64_t* saturated, runtime::stream_handle s) override
    {
        std::vector<runtime::memory_span> written{ { out, d_c.output_item_size() } };
        if (saturated)
            written.push_back({ saturated, sizeof(uint64_t) });
        d_work.enqueue(s, std::move(written), [=](xengine_plan::impl& cpu) {
            cpu.dump(out, saturated, nullptr);
        });
    }

private:
    emulated_work<xengine_plan::impl> d_work;
    xengine_config d_c;
};

} // namespace

xengine_kernel parse_xengine_kernel(const std::string& name, const std::string& who)
{
    if (name == "auto")
        return xengine_kernel::automatic;
    if (name == "fp32")
        return xengine_kernel::fp32;
    if (name == "tensor")
        return xengine_kernel::tensor;
    throw std::invalid_argument(
        who + ": kernel must be \"auto\", \"fp32\" or \"tensor\", got \"" + name + "\"");
}

std::size_t xengine_plan::device_bytes(const xengine_config& c)
{
    const std::size_t pairs = std::size_t(c.n_inputs()) * (c.n_inputs() + 1) / 2;
    // ci8: int64 totals and int32 partials; cf32: float sums.
    const std::size_t acc =
        std::size_t(c.n_channels) * pairs * (c.input == xengine_input::ci8 ? 24 : 8);
    return acc + 64;
}

std::size_t xengine_plan::preferred_spectra() const
{
    return d_batch ? d_batch : heuristic_spectra();
}

std::size_t xengine_plan::heuristic_spectra() const
{
    if (d_where.kind == backend_kind::cpu)
        return 1; // no launches to amortise
    // A call reads and writes every int32 partial sum once (16 bytes per
    // input pair and channel) and does 8 operations per pair, channel and
    // spectrum: T / 2 operations per byte of partials. The tensor kernels
    // need that far above the ridge of the GPU's roofline (H100: ~1980
    // dense INT8 TOPS / 3.35 TB/s = ~590 operations per byte), so 8192
    // spectra (4096 per byte). Where inputs are few the call is bound by
    // reading its input (2 bytes per input and spectrum): 40 A spectra
    // keep the partials under a tenth of that traffic. Both within
    // d_call_bytes of input per call (docs/xengine.md, "Batches").
    const std::size_t A = std::size_t(d_config.n_inputs());
    const std::size_t want = std::max<std::size_t>(
        xengine_uses_tensor(d_config) ? 8192 : 256, std::min<std::size_t>(8192, 40 * A));
    const std::size_t fit = d_call_bytes / d_config.input_item_size();
    return std::max<std::size_t>(16, std::min(want, fit) / 16 * 16);
}

void xengine_plan::validate(const xengine_config& c,
                            runtime::backend_kind where,
                            const std::string& who)
{
    auto fail = [&](const std::string& what) {
        throw std::invalid_argument(who + ": " + what);
    };
    if (c.n_stations < 1 || c.n_stations > 65536)
        fail("n_stations must lie in 1..65536, got " + std::to_string(c.n_stations));
    if (c.n_pols != 1 && c.n_pols != 2)
        fail("n_pols must be 1 or 2, got " + std::to_string(c.n_pols));
    if (c.n_channels < 1)
        fail("n_channels must be >= 1, got " + std::to_string(c.n_channels));
    if (c.kernel == xengine_kernel::tensor && c.input != xengine_input::ci8)
        fail("the tensor-core kernel takes ci8 input only");
    if (c.input == xengine_input::cf32 && c.output == xengine_output::ci32)
        fail("ci32 output needs ci8 input (cf32 input dumps cf32)");
    // GNU Radio's item size is an int (counted in doubles: a dump's size
    // overflows 64 bits for absurd configurations).
    const double in_item =
        double(c.n_channels) * c.n_inputs() * (c.input == xengine_input::ci8 ? 2 : 8);
    const double out_item =
        double(c.n_channels) * double(c.n_baselines()) * c.n_pols * c.n_pols * 8;
    if (in_item > 0x7fffffff || out_item > 0x7fffffff)
        fail(std::to_string(c.n_stations) + " stations x " + std::to_string(c.n_pols) +
             " pols x " + std::to_string(c.n_channels) +
             " channels: a spectrum or a dump would exceed 2^31 bytes (n_channels too "
             "large for this many stations)");
    if (where != backend_kind::cuda) {
        // The sums live in host memory: refuse what the machine cannot hold.
        const double need = double(device_bytes(c));
        const double have =
            double(sysconf(_SC_PHYS_PAGES)) * double(sysconf(_SC_PAGE_SIZE));
        if (need > have)
            fail(std::to_string(c.n_stations) + " stations x " +
                 std::to_string(c.n_pols) + " pols x " + std::to_string(c.n_channels) +
                 " channels need " + std::to_string(std::size_t(need) >> 20) +
                 " MiB of sums; this machine has " +
                 std::to_string(std::size_t(have) >> 20) +
                 " MiB (n_channels, n_stations)");
    }
}

xengine_plan::xengine_plan(const xengine_config& config,
                           runtime::backend_choice where,
                           const std::string& who)
    : d_config(config), d_where(where), d_who(who)
{
    validate(config, where.kind, who);
    if (where.kind == backend_kind::cuda) {
#ifdef GPUDSP_HAVE_CUDA
        auto ctx = runtime::device_context::get(where.kind, where.device);
        // Plus the tensor kernels' packed copy of a launch (sm_80 and later;
        // at its largest, the wgmma kernel's three planes).
        const std::size_t need =
            device_bytes(config) +
            (xengine_uses_tensor(config)
                 ? xengine_tc_workspace(config.n_channels, config.n_inputs()) +
                       xengine_tc_sums_bytes(config.n_channels, config.n_inputs())
                 : 0);
        const std::size_t free = ctx->free_memory();
        if (need > free)
            throw std::invalid_argument(
                who + ": " + std::to_string(config.n_stations) + " stations x " +
                std::to_string(config.n_pols) + " pols x " +
                std::to_string(config.n_channels) + " channels need " +
                std::to_string(need >> 20) +
                " MiB of accumulators and workspace, but CUDA device " +
                std::to_string(where.device) + " has " + std::to_string(free >> 20) +
                " MiB free");
        d_impl = make_xengine_cuda(config, ctx, who);
        // A call's input lives in the device buffer between the blocks (two
        // calls' worth): a 32nd of the device's memory, 256 MiB .. 2 GiB
        // (an 80 GB H100: 2 GiB, 2048 spectra of 64 dual-pol MeerKAT
        // antennas at 4096 channels; a 16 GB GPU: 512 MiB).
        d_call_bytes = std::clamp<std::size_t>(
            ctx->info().total_memory / 32, std::size_t(256) << 20, std::size_t(2) << 30);
#else
        throw std::runtime_error(who + ": gr-gpudsp was built without CUDA");
#endif
    } else if (where.kind == backend_kind::emulated) {
        d_impl = std::make_unique<xengine_emulated>(
            make_xengine_cpu(config),
            config,
            runtime::device_context::get(where.kind, where.device),
            who);
    } else {
        d_impl = make_xengine_cpu(config);
    }
    tune();
}

// The tuner times each accumulation kernel the backend has at the
// heuristic's spectra per call and at a half and a quarter of it (time per
// spectrum); each candidate's dump of the same spectra must equal the
// heuristic's bit for bit (ci8; cf32 within 1e-5 of the largest sum).
void xengine_plan::tune()
{
    const auto& c = d_config;
    std::string shape = "S=" + std::to_string(c.n_stations) +
                        " P=" + std::to_string(c.n_pols) +
                        " C=" + std::to_string(c.n_channels) +
                        (c.input == xengine_input::ci8 ? " ci8" : " cf32");
    if (c.kernel != xengine_kernel::automatic)
        shape += c.kernel == xengine_kernel::fp32 ? " kernel=fp32" : " kernel=tensor";
    const auto forms = d_impl->forms();
    if (forms.empty()) {
        d_tuning = runtime::untuned("xengine", shape, d_impl->kernel_name());
        return;
    }
    const std::size_t b0 = heuristic_spectra();
    std::vector<std::size_t> batches;
    for (const std::size_t b : { b0 / 4 / 16 * 16, b0 / 2 / 16 * 16, b0 })
        if (b >= 16 && (batches.empty() || batches.back() != b))
            batches.push_back(b);
    auto id_of = [](const std::string& form, std::size_t b) {
        return form + " b=" + std::to_string(b);
    };

    runtime::tune_problem p;
    p.kernel = "xengine";
    // 2: the Gram form, 8192-spectrum batches, launch shapes with 512
    // blocks; 3: the Gram form on our persistent wgmma kernels and on
    // mma.sync; 4: the direct Gram kernel's producer rewritten (its stage
    // rate, which the version-3 winners were timed with, changes); 5: the
    // channel kernel ("wgmma gram channel") joins the candidates.
    p.version = 5;
    p.shape = shape;
    p.unit = "spectrum";
    p.input_bytes = b0 * c.input_item_size();
    p.output_bytes = c.output_item_size();
    p.heuristic = id_of(d_impl->current_form(), b0);
    if (!d_impl->forced_form().empty())
        p.forced = id_of(d_impl->forced_form(), b0);
    std::map<std::string, std::pair<std::string, std::size_t>> what; // id -> form, batch
    for (const auto& f : forms)
        for (const std::size_t b : batches) {
            // The Gram forms on our kernels take a call in one launch (or
            // its workspace's): only the heuristic's batch (fewer candidates
            // to check and time in a GPU session's sweep).
            if ((f.id.rfind("wgmma gram", 0) == 0 || f.id == "mma.sync gram") && b != b0)
                continue;
            const std::string id = id_of(f.id, b);
            what[id] = { f.id, b };
            p.candidates.push_back({ id,
                                     f.unavailable,
                                     double(b),
                                     [this, form = f.id, b](const void* in,
                                                            void*,
                                                            runtime::stream_handle s) {
                                         d_impl->use(form);
                                         d_impl->accumulate(in, b, s);
                                     } });
            // A Gram form's workspace is made (and another's freed) when
            // the form is first used: before the clock starts.
            p.candidates.back().select = [this, form = f.id] { d_impl->use(form); };
        }
    // The same b0 spectra in calls of the candidate's size, promoted and
    // dumped.
    p.result = [this, &what, b0](const runtime::tune_candidate& cand,
                                 const void* in,
                                 void* out,
                                 runtime::stream_handle s) {
        const auto& [form, b] = what.at(cand.id);
        d_impl->use(form);
        d_impl->reset(s);
        const auto* x = static_cast<const char*>(in);
        for (std::size_t t = 0; t < b0; t += b)
            d_impl->accumulate(
                x + t * d_config.input_item_size(), std::min(b, b0 - t), s);
        d_impl->promote(s);
        d_impl->dump(out, nullptr, s);
    };
    if (c.input == xengine_input::cf32) {
        p.fill = [](void* host, std::size_t bytes, uint64_t seed) {
            std::mt19937_64 rng(seed);
            std::uniform_real_distribution<float> u(-1.0f, 1.0f);
            auto* f = static_cast<float*>(host);
            for (std::size_t i = 0; i < bytes / sizeof(float); ++i)
                f[i] = u(rng);
        };
        const std::size_t n = c.dump_values() * 2;
        p.compare = [n](const void* expected, const void* got) -> std::string {
            const auto* a = static_cast<const float*>(expected);
            const auto* g = static_cast<const float*>(got);
            double scale = 0;
            for (std::size_t i = 0; i < n; ++i)
                scale = std::max(scale, double(std::fabs(a[i])));
            for (std::size_t i = 0; i < n; ++i)
                if (!(std::fabs(double(a[i]) - double(g[i])) <= 1e-5 * scale))
                    return "sum " + std::to_string(i) + ": " + std::to_string(g[i]) +
                           ", expected " + std::to_string(a[i]);
            return "";
        };
    }
    auto ctx = runtime::device_context::get(d_where.kind, d_where.device);
    d_tuning = runtime::autotune(p, ctx, d_who);
    const auto chosen = what.find(d_tuning.chosen);
    if (chosen != what.end()) {
        try {
            d_impl->use(chosen->second.first);
            d_batch = chosen->second.second;
        } catch (const runtime::candidate_unavailable& e) {
            // A cached or shipped winner whose workspace does not fit this
            // time (less free memory than when it was timed): the
            // heuristic's form instead, as the plan would run untuned.
            d_tuning.notes.push_back(
                d_tuning.chosen + " (" + runtime::to_string(d_tuning.source) +
                ") cannot run now: " + e.what() + "; runs " + d_tuning.heuristic);
            d_tuning.chosen = d_tuning.heuristic;
            d_tuning.source = runtime::tune_source::heuristic;
            const auto h = what.find(d_tuning.heuristic);
            if (h != what.end()) {
                d_impl->use(h->second.first);
                d_batch = h->second.second;
            }
        }
    }
    d_impl->trim();
    // The tuner's runs leave sums behind: start from zero.
    runtime::device_stream stream(ctx, d_who);
    d_impl->reset(stream.get());
    stream.synchronize();
}

xengine_plan::~xengine_plan() = default;

std::string xengine_plan::kernel_name() const { return d_impl->kernel_name(); }

std::string xengine_plan::kernel_variant() const { return d_impl->kernel_variant(); }

std::string xengine_plan::launch_shape(std::size_t n_spectra) const
{
    return d_impl->launch_shape(n_spectra);
}

void xengine_plan::accumulate(const void* spectra,
                              std::size_t n_spectra,
                              runtime::stream_handle stream)
{
    // ci8 partials are int32: promote them every xengine_int32_spectra
    // spectra, wherever that falls in a call.
    const bool ci8 = d_config.input == xengine_input::ci8;
    const auto* x = static_cast<const char*>(spectra);
    d_impl->begin_stages();
    while (n_spectra > 0) {
        const std::size_t n =
            ci8 ? std::min(n_spectra, xengine_int32_spectra - d_since_promotion)
                : n_spectra;
        d_impl->accumulate(x, n, stream);
        x += n * d_config.input_item_size();
        n_spectra -= n;
        d_since_promotion += n;
        if (ci8 && d_since_promotion == xengine_int32_spectra) {
            d_impl->promote(stream);
            d_since_promotion = 0;
        }
    }
    d_impl->end_stages();
}

void xengine_plan::time_stages(bool on) { d_impl->time_stages(on); }

std::vector<runtime::stage_time> xengine_plan::stage_times() const
{
    return d_impl->stage_times();
}

void xengine_plan::dump(void* out, uint64_t* saturated, runtime::stream_handle stream)
{
    if (d_since_promotion > 0 && d_config.input == xengine_input::ci8)
        d_impl->promote(stream);
    d_since_promotion = 0;
    d_impl->dump(out, saturated, stream);
}

uint64_t
xengine_plan::correlate_host(const void* spectra, std::size_t n_spectra, void* out)
{
    uint64_t saturated = 0;
    if (d_where.kind == backend_kind::cpu) {
        accumulate(spectra, n_spectra, nullptr);
        dump(out, &saturated, nullptr);
        return saturated;
    }
    auto ctx = runtime::device_context::get(d_where.kind, d_where.device);
    runtime::device_stream stream(ctx, d_who);
    const std::size_t in_bytes = n_spectra * d_config.input_item_size();
    const std::size_t out_bytes = d_config.output_item_size();
    runtime::device_memory d_in(ctx, in_bytes ? in_bytes : 1, d_who);
    runtime::device_memory d_out(ctx, out_bytes, d_who);
    runtime::device_memory d_sat(ctx, sizeof(uint64_t), d_who);
    ctx->copy_async(d_in.get(),
                    spectra,
                    in_bytes,
                    runtime::copy_kind::host_to_device,
                    stream.get(),
                    d_who);
    accumulate(d_in.get(), n_spectra, stream.get());
    dump(d_out.get(), reinterpret_cast<uint64_t*>(d_sat.get()), stream.get());
    ctx->copy_async(out,
                    d_out.get(),
                    out_bytes,
                    runtime::copy_kind::device_to_host,
                    stream.get(),
                    d_who);
    ctx->copy_async(&saturated,
                    d_sat.get(),
                    sizeof(uint64_t),
                    runtime::copy_kind::device_to_host,
                    stream.get(),
                    d_who);
    stream.synchronize();
    return saturated;
}

} // namespace kernels
} // namespace gpudsp
} // namespace gr
