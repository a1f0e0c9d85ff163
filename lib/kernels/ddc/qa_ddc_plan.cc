/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The DDC plan on the test device (emulated, or CUDA when built with
// GPUDSP_TEST_CUDA) against the CPU plan, which
// python/gpudsp/qa_ddc_kernels.py checks against float64 and GNU Radio:
// device-resident input, poisoned outputs, every format, odd T and D, calls
// split anywhere, a phase-continuous retune.

#include "ddc_ring.h"
#include "qa_ddc_common.h"
#include <gnuradio/gpudsp/kernels/ddc.h>
#include <gnuradio/gpudsp/kernels/unpack10.h>
#include <gnuradio/gpudsp/runtime/cpu_simd.h>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdlib>
#include <cstring>
#include <optional>

using namespace gr::gpudsp;
using kernels::ddc_input;

using device_fixture = qa::skip_without_device;
BOOST_TEST_GLOBAL_FIXTURE(device_fixture);

namespace {

using cvec = std::vector<std::complex<float>>;

// The input uploaded to a device, \p shift_bytes past an allocation's
// (aligned) start, and \p n_values complex outputs there, poisoned (NaN).
struct device_io {
    runtime::device_context::sptr ctx;
    runtime::device_stream stream;
    runtime::device_memory in, out;

    device_io(const runtime::backend_choice& where,
              const std::vector<uint8_t>& bytes,
              std::size_t n_values,
              std::size_t shift_bytes = 0)
        : ctx(runtime::device_context::get(where.kind, where.device)),
          stream(ctx, "qa"),
          in(ctx, bytes.size() + shift_bytes, "qa"),
          out(ctx, n_values * 8, "qa")
    {
        ctx->copy_async(in.get() + shift_bytes,
                        bytes.data(),
                        bytes.size(),
                        runtime::copy_kind::host_to_device,
                        stream.get(),
                        "qa");
        ctx->memset_async(out.get(), 0xFF, n_values * 8, stream.get(), "qa");
    }

    // Output value k on the device.
    void* at(std::size_t k) { return out.get() + k * 8; }

    // n complex values at device address p, after the stream's work.
    cvec read(const void* p, std::size_t n)
    {
        cvec v(n);
        ctx->copy_async(
            v.data(), p, n * 8, runtime::copy_kind::device_to_host, stream.get(), "qa");
        stream.synchronize();
        return v;
    }
};

// plan.execute() over outputs [0, n_out) from \p src to \p dst (first
// window sample at \p first) in calls of the sizes given, with an optional
// retune before output \p retune_at.
void execute_in_calls(kernels::ddc_plan& plan,
                      const void* src,
                      void* dst,
                      runtime::stream_handle stream,
                      int64_t first,
                      std::size_t n_out,
                      const std::vector<std::size_t>& calls,
                      std::size_t retune_at = SIZE_MAX)
{
    const int D = plan.config().decimation;
    std::size_t done = 0;
    for (std::size_t k = 0; done < n_out; ++k) {
        std::size_t n = std::min(calls[k % calls.size()], n_out - done);
        if (done < retune_at && done + n > retune_at)
            n = retune_at - done;
        if (done == retune_at)
            plan.retune(-0.3e6, uint64_t(done) * D);
        plan.execute(src,
                     first + int64_t(done) * D,
                     done,
                     n,
                     static_cast<std::complex<float>*>(dst) + done,
                     stream);
        done += n;
    }
}

// Outputs [0, n_out) of \p plan as execute_in_calls() gives them, the input
// uploaded where the plan runs (on a device, \p shift bytes past an aligned
// address).
cvec run(kernels::ddc_plan& plan,
         const std::vector<uint8_t>& in,
         int64_t first,
         std::size_t n_out,
         const std::vector<std::size_t>& calls,
         std::size_t retune_at = SIZE_MAX,
         std::size_t shift = 0)
{
    if (plan.where().kind == runtime::backend_kind::cpu) {
        cvec out(n_out);
        execute_in_calls(
            plan, in.data(), out.data(), nullptr, first, n_out, calls, retune_at);
        return out;
    }
    device_io dev(plan.where(), in, n_out, shift);
    execute_in_calls(plan,
                     dev.in.get() + shift,
                     dev.out.get(),
                     dev.stream.get(),
                     first,
                     n_out,
                     calls,
                     retune_at);
    return dev.read(dev.out.get(), n_out);
}

// The relative error of finite device outputs (the poison is NaN).
double rel_err(const cvec& a, const cvec& b)
{
    const std::size_t bad =
        qa::first_non_finite(reinterpret_cast<const float*>(a.data()), 2 * a.size());
    BOOST_REQUIRE_MESSAGE(bad == 2 * a.size(), "output " << bad / 2 << " is not finite");
    return qa::ddc_rel_err(a, b);
}

} // namespace

BOOST_AUTO_TEST_CASE(formats_and_odd_sizes_match_cpu)
{
    unsigned seed = 1;
    for (auto f : { ddc_input::complex64,
                    ddc_input::float32,
                    ddc_input::int16,
                    ddc_input::packed10 })
        for (auto td : { std::make_pair(55, 5),
                         std::make_pair(1, 1),
                         std::make_pair(3, 8),
                         std::make_pair(256, 16),
                         std::make_pair(5000, 3) }) {
            const auto c = qa::ddc_config(f, td.first, td.second, 0.21e6, seed++);
            const std::size_t n_out = 301;
            const int64_t first = f == ddc_input::packed10 ? 3 : 0;
            const auto in =
                qa::ddc_random_input(f, first + (n_out - 1) * td.second + td.first, seed);
            kernels::ddc_plan cpu(c, runtime::backend_choice{}, "qa_cpu");
            kernels::ddc_plan dev(c, qa::test_device(), "qa_device");
            const auto want = run(cpu, in, first, n_out, { n_out });
            const auto got = run(dev, in, first, n_out, { 7, 100, 1 });
            BOOST_CHECK_MESSAGE(rel_err(got, want) < 2e-5,
                                "format " << int(f) << " T=" << td.first
                                          << " D=" << td.second);
        }
}

// One forced tensor form against the CPU plan (tensor_form_matches_cpu).
static void check_tensor_form(int T, int D, unsigned& seed, int K, bool rows32, bool ring)
{
    const auto c = qa::ddc_config(ddc_input::packed10, T, D, 0.21e6, seed++);
    const std::size_t n_out = 1301;
    const int64_t first = 3;
    const auto in =
        qa::ddc_random_input(ddc_input::packed10, first + (n_out - 1) * D + T, seed);
    kernels::ddc_plan cpu(c, runtime::backend_choice{}, "qa_cpu");
    kernels::ddc_plan dev(c, qa::test_device(), "qa_device");
    BOOST_TEST_MESSAGE("T=" << T << " D=" << D << ": " << dev.tuning().chosen);
#ifdef GPUDSP_TEST_CUDA
    if (runtime::device_context::get(dev.where().kind, dev.where().device)
            ->info()
            .compute_major >= 8) {
        const bool wide = K * D >= 16 && (K == 8 || rows32);
        BOOST_CHECK_EQUAL(dev.tuning().chosen,
                          std::string(ring ? "tensor ring" : "tensor") +
                              (wide && K == 8 ? " 8D" : "") +
                              (wide && rows32 ? " M=32" : ""));
    }
#else
    (void)K;
    (void)rows32;
    (void)ring;
#endif
    const auto want = run(cpu, in, first, n_out, { n_out }, 700);
    const auto got = run(dev, in, first, n_out, { 7, 600, 1, 513 }, 700);
    BOOST_CHECK_MESSAGE(rel_err(got, want) < 2e-5,
                        "T=" << T << " D=" << D << " (" << dev.tuning().chosen
                             << "): " << rel_err(got, want));
}

// The tensor-core form (ddc_tensor.h: 10-bit input, sm_80 on), forced by
// GPUDSP_DDC_TENSOR=1 (its tap block of 8D: =8; 32 rows a warp:
// GPUDSP_DDC_TENSOR_M=32; both offered where KD >= 16, else the 4D, 16-row
// form runs), against the CPU plan: odd and even decimations, taps shorter
// and longer than a chunk, calls cut anywhere, a retune mid-stream (new
// taps image and phase). Elsewhere (other GPUs, the emulated device) the
// plan runs its other forms and the comparison still holds.
BOOST_AUTO_TEST_CASE(tensor_form_matches_cpu)
{
    unsigned seed = 900;
    const std::pair<int, int> tds[] = {
        { 55, 5 },    { 1, 1 },   { 3, 8 }, { 256, 16 },
        { 1024, 64 }, { 300, 7 }, { 9, 2 }, { 40, 4 }
    }; // (KD = 16 at 8D, 4D)
    // (GPUDSP_DDC_RING=1: its ring form, "tensor ring")
    for (const char* block : { "1", "8" })
        for (const char* rows : { "16", "32" })
            for (const char* ring : { "0", "1" })
                for (const auto& td : tds) {
                    const qa::env_setting force("GPUDSP_DDC_TENSOR", block);
                    const qa::env_setting m("GPUDSP_DDC_TENSOR_M", rows);
                    const qa::env_setting ringed("GPUDSP_DDC_RING", ring);
                    check_tensor_form(td.first,
                                      td.second,
                                      seed,
                                      *block == '8' ? 8 : 4,
                                      *rows == '3',
                                      *ring == '1');
                }
}

// Mix first (complex input, real taps: the tile mixed as it is loaded,
// filtered with the real taps), forced by GPUDSP_DDC_MIX=1, against the CPU
// plan: calls cut anywhere, a retune mid-stream (the mixer alone changes).
// Elsewhere the plan runs its other forms and the comparison still holds.
BOOST_AUTO_TEST_CASE(mix_first_matches_cpu)
{
    const qa::env_setting force("GPUDSP_DDC_MIX", "1");
    unsigned seed = 950;
    for (auto td : { std::make_pair(55, 5),
                     std::make_pair(4, 1),
                     std::make_pair(256, 16),
                     std::make_pair(1024, 64),
                     std::make_pair(300, 7) }) {
        auto c =
            qa::ddc_config(ddc_input::complex64, td.first, td.second, 0.21e6, seed++);
        for (auto& h : c.taps)
            h = h.real();
        const std::size_t n_out = 1301;
        const auto in = qa::ddc_random_input(
            ddc_input::complex64, (n_out - 1) * td.second + td.first, seed);
        kernels::ddc_plan cpu(c, runtime::backend_choice{}, "qa_cpu");
        kernels::ddc_plan dev(c, qa::test_device(), "qa_device");
#ifdef GPUDSP_TEST_CUDA
        BOOST_CHECK_EQUAL(dev.tuning().chosen.rfind("mix ", 0), 0u);
#endif
        const auto want = run(cpu, in, 0, n_out, { n_out }, 700);
        const auto got = run(dev, in, 0, n_out, { 7, 600, 1, 513 }, 700);
        BOOST_CHECK_MESSAGE(rel_err(got, want) < 2e-5,
                            "T=" << td.first << " D=" << td.second << " ("
                                 << dev.tuning().chosen << "): " << rel_err(got, want));
    }
}

// The ring kernel (ddc_ring.h: the tile kernel on a persistent grid, input
// bytes in flight by cp.async into a ring of stages), forced by
// GPUDSP_DDC_RING=1 (with GPUDSP_DDC_MIX=1: mixing first), against the CPU
// plan: every format, odd sizes, calls cut anywhere (the launch's ends take
// the byte copies), a retune mid-stream. Elsewhere (the emulated device) the
// plan runs its other forms and the comparison still holds.
BOOST_AUTO_TEST_CASE(ring_form_matches_cpu)
{
    const qa::env_setting force("GPUDSP_DDC_RING", "1");
    unsigned seed = 1200;
    for (const bool mix : { false, true })
        for (auto f : { ddc_input::complex64,
                        ddc_input::float32,
                        ddc_input::int16,
                        ddc_input::packed10 })
            for (auto td : { std::make_pair(55, 5),
                             std::make_pair(1, 1),
                             std::make_pair(256, 16),
                             std::make_pair(1024, 64),
                             std::make_pair(300, 7) }) {
                if (mix && f != ddc_input::complex64)
                    continue;
                const qa::env_setting mixing("GPUDSP_DDC_MIX", mix ? "1" : "0");
                auto c = qa::ddc_config(f, td.first, td.second, 0.21e6, seed++);
                if (mix)
                    for (auto& h : c.taps)
                        h = h.real();
                const std::size_t n_out = 3301;
                const int64_t first = f == ddc_input::packed10 ? 3 : 1;
                const auto in = qa::ddc_random_input(
                    f, first + (n_out - 1) * td.second + td.first, seed);
                kernels::ddc_plan cpu(c, runtime::backend_choice{}, "qa_cpu");
                kernels::ddc_plan dev(c, qa::test_device(), "qa_device");
#ifdef GPUDSP_TEST_CUDA
                // (where a ring fits sm_80's 163 KiB, it fits this GPU's)
                if (!kernels::ddc_ring_candidates(
                         td.second, td.first, kernels::ddc_sample_bits(f), 166912)
                         .empty())
                    BOOST_CHECK_EQUAL(
                        dev.tuning().chosen.rfind(mix ? "mix ring " : "ring ", 0), 0u);
#endif
                const auto want = run(cpu, in, first, n_out, { n_out }, 1700);
                const auto got = run(dev, in, first, n_out, { 7, 1600, 1, 513 }, 1700);
                BOOST_CHECK_MESSAGE(rel_err(got, want) < 2e-5,
                                    "format " << int(f) << " T=" << td.first << " D="
                                              << td.second << " (" << dev.tuning().chosen
                                              << "): " << rel_err(got, want));
            }
}

// Every configuration a device plan offers (ddc_plan::configurations(),
// each forced by GPUDSP_DDC_CONFIG) against the CPU plan, from input
// addresses that are not 16-byte aligned (the ring stages' realignment,
// the 10-bit decoders' word offsets), in calls cut anywhere, and on CUDA
// over enough outputs that each block of a persistent grid walks several
// tiles. (The tuner checks each candidate as well, but on aligned input, in
// one call from output 0.) An id the plan does not offer is refused. Under
// compute-sanitizer (the GPU suite sets GPUDSP_QA_SANITIZER) the first
// shape (tile, tensor and ring kernels) and the last (the mix-first ones),
// over a few tiles.
BOOST_AUTO_TEST_CASE(every_configuration_from_odd_addresses_matches_cpu)
{
    const bool sanitizer = std::getenv("GPUDSP_QA_SANITIZER") != nullptr;
#ifdef GPUDSP_TEST_CUDA
    const std::size_t n_out =
        sanitizer ? 4133 : (std::size_t(1) << 20) + 37; // > 2 tiles a block
#else
    const std::size_t n_out = 4133; // (the emulated device: its vector widths)
#endif
    struct shape {
        ddc_input f;
        int T, D;
        std::size_t shift; // bytes: whole samples (packed10: any byte)
        bool real_taps;    // (mix first)
    };
    const shape shapes[] = { { ddc_input::packed10, 256, 16, 13, false },
                             { ddc_input::packed10, 300, 7, 6, false },
                             { ddc_input::float32, 256, 16, 4, false },
                             { ddc_input::int16, 55, 5, 10, false },
                             { ddc_input::complex64, 256, 16, 8, true } };
    unsigned seed = 1400;
    for (const auto& k : shapes) {
        if (sanitizer && &k != shapes && &k != std::end(shapes) - 1)
            continue;
        auto c = qa::ddc_config(k.f, k.T, k.D, 0.17e6, seed++);
        if (k.real_taps)
            for (auto& h : c.taps)
                h = h.real();
        const int64_t first = k.f == ddc_input::packed10 ? 3 : 1;
        const auto in =
            qa::ddc_random_input(k.f, first + (n_out - 1) * k.D + k.T, seed++);
        kernels::ddc_plan cpu(c, runtime::backend_choice{}, "qa_cpu");
        const auto want = run(cpu, in, first, n_out, { n_out });
        std::vector<std::string> ids;
        {
            kernels::ddc_plan probe(c, qa::test_device(), "qa_probe");
            ids = probe.configurations();
        }
        BOOST_REQUIRE(!ids.empty());
        // (the input uploaded once a shape, the outputs poisoned again for
        // each configuration)
        device_io io(qa::test_device(), in, n_out, k.shift);
        for (const auto& id : ids) {
            // (each configuration's time in the log: the GPU suite shows a
            // binary's last line when its step ends)
            const auto t0 = std::chrono::steady_clock::now();
            const qa::env_setting force("GPUDSP_DDC_CONFIG", id.c_str());
            kernels::ddc_plan dev(c, qa::test_device(), "qa_device");
            BOOST_CHECK_EQUAL(dev.tuning().chosen, id);
            io.ctx->memset_async(io.out.get(), 0xFF, n_out * 8, io.stream.get(), "qa");
            execute_in_calls(dev,
                             io.in.get() + k.shift,
                             io.out.get(),
                             io.stream.get(),
                             first,
                             n_out,
                             { 7, n_out / 2, 1, 513 });
            const double e = rel_err(io.read(io.out.get(), n_out), want);
            BOOST_CHECK_MESSAGE(e < 2e-5,
                                "format " << int(k.f) << " T=" << k.T << " D=" << k.D
                                          << " at +" << k.shift << " B (" << id
                                          << "): " << e);
            const double ms =
                1e3 * std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
                          .count();
            BOOST_TEST_MESSAGE("format " << int(k.f) << " T=" << k.T << " D=" << k.D
                                         << " " << id << ": " << ms << " ms");
        }
        const qa::env_setting unknown("GPUDSP_DDC_CONFIG", "no such configuration");
        BOOST_CHECK_THROW(kernels::ddc_plan(c, qa::test_device(), "qa_refused"),
                          std::invalid_argument);
    }
}

BOOST_AUTO_TEST_CASE(tuned_plans_match_cpu)
{
    // With the tuner on, the plan times its configurations (the emulated
    // device: the CPU's vector widths; CUDA: the tile shapes), each checked
    // against the heuristic's, and runs the winner; a plan of the same
    // shape made next takes it from the cache.
    qa::temp_dir cache;
    qa::env_setting dir("GPUDSP_AUTOTUNE_DIR", cache.path.c_str());
    qa::env_setting budget("GPUDSP_AUTOTUNE_BUDGET", "0.2");
    unsigned seed = 31;
    for (auto f : { ddc_input::complex64, ddc_input::packed10 })
        for (auto td : { std::make_pair(64, 8), std::make_pair(300, 7) }) {
            const auto c = qa::ddc_config(f, td.first, td.second, 0.13e6, seed++);
            std::optional<kernels::ddc_plan> dev;
            {
                qa::env_setting mode("GPUDSP_AUTOTUNE", "force");
                dev.emplace(c, qa::test_device(), "qa_tuned");
            }
            const auto& t = dev->tuning();
            BOOST_TEST_MESSAGE(t.describe());
            BOOST_CHECK(t.source == runtime::tune_source::tuned);
            BOOST_CHECK_GE(t.candidates.size(), 2u);
            bool chosen_timed = false;
            for (const auto& cand : t.candidates) {
                BOOST_CHECK_MESSAGE(cand.status == "timed",
                                    cand.id << ": " << cand.status);
                chosen_timed |= cand.id == t.chosen && cand.samples > 0;
            }
            BOOST_CHECK(chosen_timed);

            const std::size_t n_out = 3001;
            const int64_t first = f == ddc_input::packed10 ? 1 : 0;
            const auto in =
                qa::ddc_random_input(f, first + (n_out - 1) * td.second + td.first, seed);
            kernels::ddc_plan cpu(c, runtime::backend_choice{}, "qa_cpu");
            const auto want = run(cpu, in, first, n_out, { n_out });
            BOOST_CHECK_LT(rel_err(run(*dev, in, first, n_out, { 1000, 17 }), want),
                           2e-5);

            qa::env_setting mode("GPUDSP_AUTOTUNE", "cache");
            kernels::ddc_plan again(c, qa::test_device(), "qa_again");
            if (t.saved) {
                BOOST_CHECK(again.tuning().source == runtime::tune_source::cache);
                BOOST_CHECK_EQUAL(again.tuning().chosen, t.chosen);
            } else { // too noisy to keep (the emulated device's random delays)
                BOOST_CHECK(again.tuning().source == runtime::tune_source::heuristic);
                BOOST_CHECK(!t.notes.empty());
            }
        }
}

BOOST_AUTO_TEST_CASE(cpu_plans_time_their_simd_levels_where_the_cpu_runs_avx512)
{
    // Where the CPU runs AVX-512 the CPU backend times its AVX-512 and AVX2
    // code (Zen 4 runs some shapes faster in AVX2) and runs the faster, its
    // output within the documented tolerance of the heuristic's (the widest
    // level's); elsewhere, or with the tuner off, the widest level, untuned.
    qa::temp_dir cache;
    qa::env_setting dir("GPUDSP_AUTOTUNE_DIR", cache.path.c_str());
    qa::env_setting budget("GPUDSP_AUTOTUNE_BUDGET", "0.1");
    const auto c = qa::ddc_config(ddc_input::packed10, 128, 8, 0.13e6, 77);
    const bool avx512 = runtime::cpu_use_avx512();
    std::optional<kernels::ddc_plan> tuned;
    {
        qa::env_setting mode("GPUDSP_AUTOTUNE", "force");
        tuned.emplace(c, runtime::backend_choice{}, "qa_cpu_tuned");
    }
    const auto& t = tuned->tuning();
    BOOST_TEST_MESSAGE(t.describe());
    if (!avx512) {
        BOOST_CHECK(t.source == runtime::tune_source::heuristic);
        return;
    }
    BOOST_CHECK(t.source == runtime::tune_source::tuned);
    BOOST_REQUIRE_EQUAL(t.candidates.size(), 2u);
    for (const auto& cand : t.candidates)
        BOOST_CHECK_MESSAGE(cand.status == "timed", cand.id << ": " << cand.status);
    BOOST_CHECK(t.chosen == "simd=avx512" || t.chosen == "simd=avx2");
    BOOST_CHECK_EQUAL(t.heuristic, "simd=avx512");

    qa::env_setting off("GPUDSP_AUTOTUNE", "off");
    kernels::ddc_plan widest(c, runtime::backend_choice{}, "qa_cpu");
    BOOST_CHECK(widest.tuning().source == runtime::tune_source::heuristic);
    BOOST_CHECK_EQUAL(widest.tuning().chosen, "simd=avx512");
    const std::size_t n_out = 2001;
    const auto in =
        qa::ddc_random_input(ddc_input::packed10, 1 + (n_out - 1) * 8 + 128, 78);
    const auto want = run(widest, in, 1, n_out, { n_out });
    BOOST_CHECK_LT(rel_err(run(*tuned, in, 1, n_out, { 700, 13 }), want), 2e-5);
}

BOOST_AUTO_TEST_CASE(retune_is_phase_continuous)
{
    // Complex input, a constant tone at the old centre frequency: the output
    // is a constant; after the retune it rotates at (old - new), starting
    // from the phase it had at the retune sample (no jump).
    auto c = qa::ddc_config(ddc_input::complex64, 1, 1, 0.1e6, 9);
    c.taps = { 1.0 };
    const std::size_t n = 400, at = 173;
    std::vector<uint8_t> in(8 * n);
    for (std::size_t i = 0; i < n; ++i) {
        const std::complex<float> v = std::polar(1.0f, float(2 * M_PI * 0.1 * i));
        std::memcpy(in.data() + 8 * i, &v, 8);
    }
    kernels::ddc_plan dev(c, qa::test_device(), "qa_device");
    const auto y = run(dev, in, 0, n, { 50 }, at);
    for (std::size_t i = 1; i < n; ++i) {
        const double step = std::arg(y[i] / y[i - 1]);
        // y[at] continues y[at-1]: the mixers agree at sample at.
        const double want =
            i <= at ? 0.0 : std::remainder(2 * M_PI * (0.1 + 0.3), 2 * M_PI);
        BOOST_REQUIRE_MESSAGE(std::fabs(std::remainder(step - want, 2 * M_PI)) < 1e-4,
                              "sample " << i << ": step " << step << " want " << want);
    }
}

// Several outputs of one input with the same decimation and taps count run
// together (ddc_plan::execute_together; on CUDA one tile kernel reads each
// input tile once for a bank of up to 16 outputs) give each output exactly
// what its plan gives alone: 17 outputs (two banks), their own centre
// frequencies and taps, calls of 7 and up to 5000 outputs (launches of
// several tiles), every output poisoned first; a filter too long for a
// tile on any GPU (T = 20000, D = 64: the simple kernel) runs each plan in
// turn. On the emulated device (no GPU) every case takes that per-plan
// path; the bank kernel runs in qa_ddc_plan_cuda. Plans that differ in
// decimation or backend are refused.
namespace {

// 17 outputs of one input (other centre frequencies, same D and T) run
// together (execute_together: banks, calls cut anywhere) equal each run
// alone, bit for bit.
void check_together_equals_alone(ddc_input f, int T, int D, unsigned& seed)
{
    const int n_plans = 17;
    const std::size_t n_out = T > 10000 ? 61 : 3001;
    const int64_t first = f == ddc_input::packed10 ? 3 : 0;
    const auto in = qa::ddc_random_input(f, first + (n_out - 1) * D + T, seed++);
    std::vector<std::unique_ptr<kernels::ddc_plan>> plans;
    std::vector<kernels::ddc_plan*> raw;
    for (int i = 0; i < n_plans; ++i) {
        const auto c = qa::ddc_config(f, T, D, -0.4e6 + 0.05e6 * i, seed++);
        plans.push_back(
            std::make_unique<kernels::ddc_plan>(c, qa::test_device(), "qa_device"));
        raw.push_back(plans.back().get());
    }
    device_io dev(qa::test_device(), in, n_plans * n_out);
    std::size_t done = 0;
    for (std::size_t k = 0; done < n_out; ++k) {
        const std::size_t n = std::min<std::size_t>(k % 2 ? 5000 : 7, n_out - done);
        std::vector<void*> outs;
        for (int i = 0; i < n_plans; ++i)
            outs.push_back(dev.at(i * n_out + done));
        kernels::ddc_plan::execute_together(raw,
                                            dev.in.get(),
                                            first + int64_t(done) * D,
                                            done,
                                            n,
                                            outs,
                                            dev.stream.get());
        done += n;
    }
    const cvec together = dev.read(dev.out.get(), n_plans * n_out);
    for (int i = 0; i < n_plans; ++i) {
        const auto alone = run(*plans[i], in, first, n_out, { n_out });
        BOOST_CHECK_MESSAGE(
            std::memcmp(alone.data(), together.data() + i * n_out, n_out * 8) == 0,
            "output " << i << " format " << int(f) << " T=" << T << " D=" << D << " ("
                      << plans[i]->tuning().chosen << ")");
    }
}

} // namespace

BOOST_AUTO_TEST_CASE(outputs_together_equal_each_alone)
{
    unsigned seed = 700;
    for (auto f : { ddc_input::packed10, ddc_input::complex64 })
        for (auto td : { std::make_pair(256, 16),
                         std::make_pair(55, 5),
                         std::make_pair(20000, 64) })
            check_together_equals_alone(f, td.first, td.second, seed);
    auto c = qa::ddc_config(ddc_input::complex64, 16, 4, 0.1e6, 1);
    kernels::ddc_plan a(c, qa::test_device(), "qa_device");
    c.decimation = 8;
    kernels::ddc_plan b(c, qa::test_device(), "qa_device");
    int64_t x = 0;
    std::complex<float> y[2];
    BOOST_CHECK_THROW(kernels::ddc_plan::execute_together(
                          { &a, &b }, &x, 0, 0, 1, { &y[0], &y[1] }, nullptr),
                      std::invalid_argument);
    c.decimation = 4;
    kernels::ddc_plan host(c, runtime::backend_choice{}, "qa_cpu");
    BOOST_CHECK_THROW(kernels::ddc_plan::execute_together(
                          { &a, &host }, &x, 0, 0, 1, { &y[0], &y[1] }, nullptr),
                      std::invalid_argument);
}

// Outputs of other decimations and filter lengths, each at its own
// position, run together (ddc_plan::execute_together's work list: banks of
// one shape, the shapes one after another over chunks of input; the
// emulated device's chunks are 16 KiB, so these calls take several) give
// each output exactly what its plan gives alone, poisoned outputs first.
// The tensor form's banks (up to 8 outputs a launch from one decode of the
// samples) equal each output run alone, bit for bit.
BOOST_AUTO_TEST_CASE(tensor_outputs_together_equal_each_alone)
{
    unsigned seed = 950;
    // (17 outputs: banks of 8, 4 or 2, and the rest)
    for (const char* block : { "1", "8" })
        for (const char* rows : { "16", "32" })
            for (const char* ring : { "0", "1" }) {
                const qa::env_setting force("GPUDSP_DDC_TENSOR", block);
                const qa::env_setting m("GPUDSP_DDC_TENSOR_M", rows);
                const qa::env_setting ringed("GPUDSP_DDC_RING", ring);
                for (auto td : { std::make_pair(256, 16),
                                 std::make_pair(55, 5),
                                 std::make_pair(3, 2) })
                    check_together_equals_alone(
                        ddc_input::packed10, td.first, td.second, seed);
            }
}

// The ring kernel's banks (each output's taps loaded per tile) equal each
// output run alone, bit for bit.
BOOST_AUTO_TEST_CASE(ring_outputs_together_equal_each_alone)
{
    const qa::env_setting force("GPUDSP_DDC_RING", "1");
    unsigned seed = 1300;
    for (auto f : { ddc_input::packed10, ddc_input::complex64 })
        for (auto td : { std::make_pair(256, 16), std::make_pair(55, 5) })
            check_together_equals_alone(f, td.first, td.second, seed);
}

BOOST_AUTO_TEST_CASE(other_decimations_together_equal_each_alone)
{
    unsigned seed = 800;
    // (T, D); the two (256, 16) plans at one position form a bank.
    const std::vector<std::pair<int, int>> shapes = { { 256, 16 }, { 256, 16 }, { 55, 5 },
                                                      { 128, 8 },  { 31, 3 },   { 1, 1 },
                                                      { 300, 64 } };
    for (auto f : { ddc_input::packed10, ddc_input::complex64, ddc_input::int16 }) {
        const std::size_t n_samples = 40000;
        const int64_t lead = f == ddc_input::packed10 ? 3 : 0; // samples before index 0
        const auto in = qa::ddc_random_input(f, lead + n_samples, seed++);
        std::vector<std::unique_ptr<kernels::ddc_plan>> plans;
        std::vector<uint64_t> m0; // each plan's first output
        std::vector<std::size_t> n_out;
        for (std::size_t i = 0; i < shapes.size(); ++i) {
            const int T = shapes[i].first, D = shapes[i].second;
            const auto c = qa::ddc_config(f, T, D, -0.3e6 + 0.1e6 * i, seed++);
            plans.push_back(
                std::make_unique<kernels::ddc_plan>(c, qa::test_device(), "qa_device"));
            // Windows [m D - T + 1, m D] inside the input; the bank's two
            // plans at one position, the others each at their own.
            m0.push_back((T - 1 + D - 1) / D + (i == 1 ? 0 : i));
            n_out.push_back((n_samples - 1) / D - m0.back() + 1 - (i == 1 ? 0 : i));
        }
        std::size_t total = 0;
        for (auto n : n_out)
            total += n;
        device_io dev(qa::test_device(), in, total);
        std::vector<kernels::ddc_plan::work> work;
        std::size_t at = 0;
        for (std::size_t i = 0; i < plans.size(); ++i) {
            const auto& c = plans[i]->config();
            work.push_back({ plans[i].get(),
                             lead + int64_t(m0[i]) * c.decimation - c.n_taps() + 1,
                             m0[i],
                             n_out[i],
                             dev.at(at) });
            at += n_out[i];
        }
        kernels::ddc_plan::execute_together(work, dev.in.get(), dev.stream.get());
        const cvec together = dev.read(dev.out.get(), total);
        at = 0;
        for (std::size_t i = 0; i < plans.size(); ++i) {
            // Alone: the same outputs, one call (fresh plans: same phase).
            kernels::ddc_plan alone(plans[i]->config(), qa::test_device(), "qa_device");
            runtime::device_memory d_alone(dev.ctx, n_out[i] * 8, "qa");
            alone.execute(dev.in.get(),
                          work[i].first_sample,
                          m0[i],
                          n_out[i],
                          d_alone.get(),
                          dev.stream.get());
            const cvec want = dev.read(d_alone.get(), n_out[i]);
            BOOST_CHECK_MESSAGE(
                std::memcmp(want.data(), together.data() + at, n_out[i] * 8) == 0,
                "plan " << i << " format " << int(f));
            const std::size_t bad = qa::first_non_finite(
                reinterpret_cast<const float*>(together.data() + at), 2 * n_out[i]);
            BOOST_REQUIRE_MESSAGE(bad == 2 * n_out[i],
                                  "plan " << i << " output " << bad / 2
                                          << " is not finite");
            at += n_out[i];
        }
    }
    // Other input formats are refused.
    auto c = qa::ddc_config(ddc_input::complex64, 16, 4, 0.1e6, 1);
    kernels::ddc_plan a(c, qa::test_device(), "qa_device");
    c.input = ddc_input::float32;
    c.taps = qa::ddc_config(ddc_input::float32, 16, 4, 0.1e6, 1).taps;
    kernels::ddc_plan b(c, qa::test_device(), "qa_device");
    int64_t x = 0;
    std::complex<float> y[2];
    BOOST_CHECK_THROW(
        kernels::ddc_plan::execute_together(
            { { &a, 0, 0, 1, &y[0] }, { &b, 0, 0, 1, &y[1] } }, &x, nullptr),
        std::invalid_argument);
}
