/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// gpudsp_bench ddc: input samples per second of the DDC and its FLOP rate,
// counted as 4 real flops per tap per kept output for real input (complex
// taps times a real sample) and 8 for complex input, for (D, T) = (16, 256),
// (8, 128), (64, 1024). Like is compared with like, in the same run:
//  - kernel with kernel (one core): our CPU kernel against GNU Radio's own
//    (fir_filter_ccc::filterNdec with the rotated taps, then rotator, which
//    is what freq_xlating_fir_filter_ccf runs), complex input; our 10-bit
//    kernel alone (GNU Radio has none); both against one core's memory
//    roofline: memcpy's rate (bytes read + written, same run) over the
//    bytes per input sample (8 or 1.25 in, 8/D out);
//  - block with block: source -> DDC block -> head -> null sink, 1 MiB
//    buffers, our `ddc` (CPU backend) against freq_xlating_fir_filter_ccf
//    (complex) and _fcf (float input), once with vector_source and once
//    with file_source as the source, each row against the source's own
//    rate (source -> head -> null sink) as its roofline;
//  - CUDA kernel rows, device-resident, against the nominal FP32 peak (10-bit
//    input also as a bank of 8 outputs reading each input tile once, against
//    the same 8 run alone, same run): launches of 2^26 input samples (the
//    CPU rows' random input repeated; several waves deep, as each row
//    says), 10 timed back to back with events; the same launch timed alone
//    from the host, with its launch and synchronisation, is the "per call"
//    row (the H100 and H200 figures of 2026-11-24/26 were such calls of
//    2^22 samples: under one wave, at most ~24% of peak for any kernel); for
//    complex input also against min(memory, FP32) roofline: the device copy
//    bandwidth measured in the same run over 8 + 8/D bytes per input
//    sample, or the FP32 peak over the 8 T / D flops per input sample,
//    whichever is lower; and mix first (cuda/mix: the tile mixed as it is
//    loaded, real taps) against the memory roofline; the ring kernel
//    (cuda/ring, and cuda/mix ring for complex input: persistent, its input
//    in flight by cp.async while it filters), each forced.
// The SIMD level of the CPU rows is printed in the table's header.

#include "bench.h"
#include <gnuradio/blocks/file_source.h>
#include <gnuradio/blocks/head.h>
#include <gnuradio/blocks/null_sink.h>
#include <gnuradio/blocks/rotator.h>
#include <gnuradio/blocks/vector_source.h>
#include <gnuradio/filter/fir_filter.h>
#include <gnuradio/filter/freq_xlating_fir_filter.h>
#include <gnuradio/gpudsp/ddc.h>
#include <gnuradio/gpudsp/kernels/ddc.h>
#include <gnuradio/gpudsp/kernels/unpack10.h>
#include <gnuradio/top_block.h>
#include <unistd.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>

namespace bench {

using namespace gr::gpudsp;

namespace {

constexpr double fc = 1.23e5, fs = 1e6;
constexpr int buffer_bytes = 1 << 20;

// The flowgraphs' sources, repeating the same 2^16 Gaussian samples:
// GNU Radio's vector_source (a loop per item: on the 2-vCPU dev VM its
// thread alone tops out near 1 GS/s of float, so it caps a faster filter
// sharing the CPUs with it) and file_source reading a file of them (the
// page cache: a memcpy per call), which leaves the filter the bottleneck.
enum class source_kind { vector, file };
const char* source_name(source_kind s)
{
    return s == source_kind::vector ? "vector_source" : "file_source";
}

// The samples' file for file_source, removed at normal exit (a killed
// bench leaves it in the temporary directory).
struct sample_file {
    std::string path;
    sample_file(const void* data, std::size_t bytes)
    {
        const auto dir = std::filesystem::temp_directory_path();
        std::string name = (dir / "gpudsp_bench_ddc_XXXXXX").string();
        const int fd = mkstemp(name.data());
        const bool written = fd >= 0 && write(fd, data, bytes) == ssize_t(bytes);
        if (fd >= 0)
            close(fd);
        if (!written) {
            std::remove(name.c_str());
            throw std::runtime_error("bench ddc: cannot write " + name);
        }
        path = name;
    }
    ~sample_file() { std::remove(path.c_str()); }
};

gr::block_sptr make_source(source_kind kind, bool complex_in)
{
    static const auto samples = [] {
        std::mt19937 rng(2);
        std::normal_distribution<float> g;
        std::vector<float> v(2 << 16); // 2^16 complex or 2^17 real samples
        for (auto& x : v)
            x = g(rng);
        return v;
    }();
    static const sample_file file(samples.data(), samples.size() * sizeof(float));
    if (kind == source_kind::file)
        return gr::blocks::file_source::make(
            complex_in ? sizeof(gr_complex) : sizeof(float), file.path.c_str(), true);
    if (complex_in)
        return gr::blocks::vector_source_c::make(
            std::vector<gr_complex>(reinterpret_cast<const gr_complex*>(samples.data()),
                                    reinterpret_cast<const gr_complex*>(samples.data()) +
                                        samples.size() / 2),
            true);
    return gr::blocks::vector_source_f::make(samples, true);
}

// Seconds of source -> filter -> head (n_out outputs) -> null sink (no
// filter: source -> head -> null sink), every buffer at least 1 MiB; best
// of \p iterations runs, each with a new filter from \p make.
double flowgraph_seconds(const std::function<gr::basic_block_sptr()>& make,
                         source_kind source,
                         bool complex_in,
                         std::size_t n_out,
                         int iterations)
{
    return best_flowgraph_seconds(
        [&] {
            auto tb = gr::make_top_block("bench_ddc");
            auto src = make_source(source, complex_in);
            src->set_min_output_buffer(buffer_bytes / (complex_in ? 8 : 4));
            gr::block_sptr last = src;
            std::size_t item = complex_in ? sizeof(gr_complex) : sizeof(float);
            if (make) {
                auto filter = std::dynamic_pointer_cast<gr::block>(make());
                filter->set_min_output_buffer(buffer_bytes / 8);
                tb->connect(src, 0, filter, 0);
                last = filter;
                item = sizeof(gr_complex);
            }
            auto head = gr::blocks::head::make(item, n_out);
            auto sink = gr::blocks::null_sink::make(item);
            head->set_min_output_buffer(buffer_bytes / item);
            tb->connect(last, 0, head, 0);
            tb->connect(head, 0, sink, 0);
            return tb;
        },
        iterations);
}

// GNU Radio's kernel for the same work, as freq_xlating_fir_filter_ccf runs
// it: taps rotated by exp(+2j pi f k), a decimating FIR, a rotator.
struct gr_xlating_kernel {
    gr::filter::kernel::fir_filter_ccc fir;
    gr::blocks::rotator rot;
    gr_xlating_kernel(const std::vector<float>& taps, int D)
        : fir([&] {
              std::vector<gr_complex> c(taps.size());
              for (std::size_t k = 0; k < taps.size(); ++k)
                  c[k] = taps[k] * std::polar(1.0f, float(2 * M_PI * fc / fs * k));
              return c;
          }())
    {
        rot.set_phase_incr(std::polar(1.0f, float(-2 * M_PI * fc / fs * D)));
    }
};

} // namespace

void run_ddc(const options& opt, report& rep)
{
    const int iterations = int(opt.size("iterations", 3));
    const std::size_t n_in = opt.size("samples", std::size_t(1) << 22);
    const std::size_t n_gpu = opt.size("gpu-samples", std::size_t(1) << 26);
    const int launches = int(opt.size("launches", 10));
    const std::size_t n_flowgraph = opt.size("flowgraph-samples", std::size_t(1) << 25);
    const auto decims = opt.sizes("decimations", { 16, 8, 64 });
    const auto tapss = opt.sizes("taps", { 256, 128, 1024 });
    const auto ctx = cuda_or_skip(rep, "ddc");
    const double peak = ctx ? nominal_peaks().fp32 : 0;
    const double hbm = ctx ? device_copy_bandwidth(std::size_t(1) << 28, 5) : 0;
    const double memcpy_rate = host_memcpy_bandwidth(std::size_t(1) << 26, iterations);
    const std::string memory_roofline = "memcpy roofline, one core";
    double source_alone[2][2] = {}; // [complex][source_kind], GS/s
    for (std::size_t i = 0; i < decims.size() && i < tapss.size(); ++i) {
        const int D = int(decims[i]), T = int(tapss[i]);
        const std::string dt = "D=" + std::to_string(D) + " T=" + std::to_string(T);
        std::vector<float> real_taps(T);
        std::mt19937 rng(3);
        std::uniform_real_distribution<float> u(-1, 1);
        for (auto& t : real_taps)
            t = u(rng);
        const std::size_t n_out = (n_in - T) / D;
        const std::size_t span = (n_out - 1) * D + T;
        for (auto f : { kernels::ddc_input::packed10, kernels::ddc_input::complex64 }) {
            kernels::ddc_config c;
            c.decimation = D;
            c.center_freq = fc;
            c.samp_rate = fs;
            c.input = f;
            c.taps.assign(real_taps.begin(), real_taps.end());
            const bool cplx = f == kernels::ddc_input::complex64;
            const std::size_t bytes = cplx ? span * 8 : kernels::packed10_bytes(span) + 8;
            std::vector<uint8_t> in(bytes);
            for (auto& b : in)
                b = uint8_t(rng());
            if (cplx) // finite floats
                for (std::size_t k = 0; k < span * 2; ++k)
                    reinterpret_cast<float*>(in.data())[k] = u(rng);
            const double flops = double(n_out) * T * (cplx ? 8 : 4);
            const double roofline_gsps =
                memcpy_rate / ((cplx ? 8.0 : 1.25) + 8.0 / D) / 1e9;
            const std::string what = dt + (cplx ? " complex in" : " 10-bit in");
            kernels::ddc_plan cpu(c, runtime::backend_choice{}, "bench");
            std::vector<std::complex<float>> out(n_out);
            const double t_cpu = seconds_per_call(
                [&] { cpu.execute(in.data(), 0, 0, n_out, out.data(), nullptr); },
                [] {},
                iterations);
            std::string vs;
            if (cplx) {
                gr_xlating_kernel theirs(real_taps, D);
                const auto* x = reinterpret_cast<const gr_complex*>(in.data());
                const double t_gr = seconds_per_call(
                    [&] {
                        theirs.fir.filterNdec(out.data(), x, int(n_out), D);
                        theirs.rot.rotateN(out.data(), out.data(), int(n_out));
                    },
                    [] {},
                    iterations);
                rep.add({ "ddc",
                          what + ", kernel: GNU Radio fir_filter_ccc + rotator",
                          "gr-cpu",
                          span / t_gr / 1e9,
                          "GS/s",
                          roofline_gsps,
                          memory_roofline,
                          std::to_string(flops / t_gr / 1e9).substr(0, 6) +
                              " GFLOP/s, one core" });
                vs = "; " + times_faster(t_cpu, t_gr, "GNU Radio's kernel");
            }
            rep.add({ "ddc",
                      what + ", kernel",
                      "cpu",
                      span / t_cpu / 1e9,
                      "GS/s",
                      roofline_gsps,
                      memory_roofline,
                      std::to_string(flops / t_cpu / 1e9).substr(0, 6) +
                          " GFLOP/s, one core" + vs });
            if (!ctx)
                continue;
            kernels::ddc_plan gpu(
                c, runtime::backend_choice{ runtime::backend_kind::cuda, 0 }, "bench");
            runtime::device_stream stream(ctx, "bench");
            // At least one output (a window of T samples), whatever the sizes asked.
            const std::size_t g_out =
                std::max<std::size_t>(1, (std::max<std::size_t>(n_gpu, T) - T) / D);
            const std::size_t g_span = (g_out - 1) * D + T;
            const std::size_t g_bytes =
                cplx ? g_span * 8 : kernels::packed10_bytes(g_span) + 8;
            const double g_flops = double(g_out) * T * (cplx ? 8 : 4);
            runtime::device_memory d_in(ctx, g_bytes, "bench");
            runtime::device_memory d_out(ctx, g_out * 8, "bench");
            // The CPU rows' random input, repeated (never zeros).
            for (std::size_t o = 0; o < g_bytes; o += bytes)
                ctx->copy_async(d_in.get() + o,
                                in.data(),
                                std::min(bytes, g_bytes - o),
                                runtime::copy_kind::host_to_device,
                                stream.get(),
                                "bench");
            auto launch = [&] {
                gpu.execute(d_in.get(), 0, 0, g_out, d_out.get(), stream.get());
            };
            const double t =
                seconds_per_launch(ctx, stream.get(), launch, launches, iterations);
            const double t_call = seconds_per_call(
                launch, [&] { stream.synchronize(); }, iterations);
            char shape[160];
            std::snprintf(
                shape,
                sizeof shape,
                "%.4g GS/s in; 2^%d samples a launch, %.1f waves, %d back to back",
                g_span / t / 1e9,
                int(std::lround(std::log2(double(g_span)))),
                gpu.launch_waves(g_out),
                launches);
            rep.add({ "ddc",
                      what + ", device-resident",
                      "cuda",
                      g_flops / t / 1e12,
                      "TFLOP/s",
                      peak / 1e12,
                      "FP32 peak (nominal)",
                      shape });
            rep.add({ "ddc",
                      what + ", device-resident, per call",
                      "cuda",
                      g_flops / t_call / 1e12,
                      "TFLOP/s",
                      peak / 1e12,
                      "FP32 peak (nominal)",
                      std::string("one launch timed from the host, with its "
                                  "synchronisation; ") +
                          shape });
            // Seconds a launch of a plan, back to back, and the note of its
            // row (input rate, what, waves).
            auto back_to_back = [&](kernels::ddc_plan& p) {
                return seconds_per_launch(
                    ctx,
                    stream.get(),
                    [&] {
                        p.execute(d_in.get(), 0, 0, g_out, d_out.get(), stream.get());
                    },
                    launches,
                    iterations);
            };
            auto note_of =
                [&](double seconds, const char* what_runs, kernels::ddc_plan& p) {
                    char note[192];
                    std::snprintf(note,
                                  sizeof note,
                                  "%.4g GS/s in; %s%.1f waves, %d back to back",
                                  g_span / seconds / 1e9,
                                  what_runs,
                                  p.launch_waves(g_out),
                                  launches);
                    return std::string(note);
                };
            // A CUDA plan of c with environment variables (set to 1) forcing
            // a form.
            // The plan with each variable set to 1 (GPUDSP_DDC_TENSOR to
            // `value`; GPUDSP_DDC_TENSOR_M to 32 where `rows32`).
            auto forced_plan = [&](std::initializer_list<const char*> vars,
                                   const char* value = "1",
                                   bool rows32 = false) {
                std::vector<std::pair<const char*, const char*>> env;
                for (const char* v : vars)
                    env.emplace_back(
                        v, std::strcmp(v, "GPUDSP_DDC_TENSOR") == 0 ? value : "1");
                env.emplace_back("GPUDSP_DDC_TENSOR_M", rows32 ? "32" : "16");
                const scoped_env set(env);
                return std::make_unique<kernels::ddc_plan>(
                    c,
                    runtime::backend_choice{ runtime::backend_kind::cuda, 0 },
                    "bench");
            };
            if (cplx) {
                // Mix first (GPUDSP_DDC_MIX=1: the tile mixed as it is
                // loaded, real taps, 2 multiply-adds a tap instead of 4),
                // the same launches, its flops counted as the rows above.
                const auto mix = forced_plan({ "GPUDSP_DDC_MIX" });
                if (mix->tuning().chosen.rfind("mix ", 0) == 0) {
                    const double tm = back_to_back(*mix);
                    const std::string note = note_of(tm, "", *mix);
                    rep.add({ "ddc",
                              what + ", device-resident",
                              "cuda/mix",
                              g_flops / tm / 1e12,
                              "TFLOP/s",
                              peak / 1e12,
                              "FP32 peak (nominal)",
                              note });
                    rep.add({ "ddc",
                              what + ", device-resident, memory",
                              "cuda/mix",
                              g_span / tm / 1e9,
                              "GS/s",
                              std::min(hbm / (8.0 + 8.0 / D), peak / (4.0 * T / D)) / 1e9,
                              "min(memory, FP32) roofline, 4 T / D flops a sample",
                              "" });
                }
            }
            // The ring kernel (GPUDSP_DDC_RING=1: the tile kernel on a
            // persistent grid, the next tiles' bytes in flight by cp.async
            // while a tile is filtered) where a ring fits, and for complex
            // input mixing first (cuda/mix ring) against the memory
            // roofline as cuda/mix.
            for (const bool mixed : { false, true }) {
                if (mixed && !cplx)
                    continue;
                const auto ring =
                    mixed ? forced_plan({ "GPUDSP_DDC_RING", "GPUDSP_DDC_MIX" })
                          : forced_plan({ "GPUDSP_DDC_RING" });
                const std::string chosen = ring->tuning().chosen;
                if (chosen.rfind(mixed ? "mix ring " : "ring ", 0) != 0)
                    continue;
                const double tr = back_to_back(*ring);
                const std::string backend = mixed ? "cuda/mix ring" : "cuda/ring";
                rep.add({ "ddc",
                          what + ", device-resident",
                          backend,
                          g_flops / tr / 1e12,
                          "TFLOP/s",
                          peak / 1e12,
                          "FP32 peak (nominal)",
                          note_of(tr, (chosen + ", persistent: ").c_str(), *ring) });
                if (mixed)
                    rep.add({ "ddc",
                              what + ", device-resident, memory",
                              backend,
                              g_span / tr / 1e9,
                              "GS/s",
                              std::min(hbm / (8.0 + 8.0 / D), peak / (4.0 * T / D)) / 1e9,
                              "min(memory, FP32) roofline, 4 T / D flops a sample",
                              "" });
            }
            if (!cplx) {
                // The tensor-core form (GPUDSP_DDC_TENSOR=1, 10-bit input,
                // sm_80 on) where it runs, the same launches, its flops
                // counted as the rows above (useful multiply-adds only).
                // Also its ring form (GPUDSP_DDC_RING=1: persistent, each
                // block tile's bytes staged by cp.async while the one
                // before is computed), cuda/tensor ring; and both with the
                // tap block of 8D (GPUDSP_DDC_TENSOR=8: each A fragment
                // for twice the outputs), cuda/tensor 8D, cuda/tensor ring 8D.
                // And with 32 rows a warp (GPUDSP_DDC_TENSOR_M=32: each B
                // fragment for two row tiles), cuda/tensor ... M=32.
                for (const bool k8 : { false, true })
                    for (const bool rows32 : { false, true })
                        for (const bool ringed : { false, true }) {
                            const char* block = k8 ? "8" : "1";
                            const auto tensor_plan =
                                ringed
                                    ? forced_plan(
                                          { "GPUDSP_DDC_TENSOR", "GPUDSP_DDC_RING" },
                                          block,
                                          rows32)
                                    : forced_plan({ "GPUDSP_DDC_TENSOR" }, block, rows32);
                            kernels::ddc_plan& tensor = *tensor_plan;
                            const std::string form =
                                std::string(ringed ? "tensor ring" : "tensor") +
                                (k8 ? " 8D" : "") + (rows32 ? " M=32" : "");
                            if (tensor.tuning().chosen != form)
                                continue;
                            const double tt = back_to_back(tensor);
                            const std::string note =
                                note_of(tt,
                                        ringed ? "FP16 taps in two parts, persistent: "
                                               : "FP16 taps in two parts, ",
                                        tensor);
                            rep.add({ "ddc",
                                      what + ", device-resident",
                                      "cuda/" + form,
                                      g_flops / tt / 1e12,
                                      "TFLOP/s",
                                      peak / 1e12,
                                      "FP32 peak (nominal)",
                                      note });
                        }
            }
            if (!cplx) {
                // A bank of 8 outputs (other centre frequencies, same D and
                // T) reading each input tile once, against the 8 run alone.
                constexpr int bank = 8;
                std::vector<std::unique_ptr<kernels::ddc_plan>> plans;
                std::vector<kernels::ddc_plan*> raw;
                std::vector<void*> outs;
                runtime::device_memory d_bank(ctx, bank * g_out * 8, "bench");
                for (int i = 0; i < bank; ++i) {
                    auto ci = c;
                    ci.center_freq = fc + 1e4 * i;
                    plans.push_back(std::make_unique<kernels::ddc_plan>(
                        ci, runtime::backend_choice{ runtime::backend_kind::cuda, 0 }, "bench"));
                    raw.push_back(plans.back().get());
                    outs.push_back(d_bank.get() + i * g_out * 8);
                }
                const double t_bank = seconds_per_launch(
                    ctx,
                    stream.get(),
                    [&] {
                        kernels::ddc_plan::execute_together(
                            raw, d_in.get(), 0, 0, g_out, outs, stream.get());
                    },
                    launches,
                    iterations);
                const double t_alone = seconds_per_launch(
                    ctx,
                    stream.get(),
                    [&] {
                        for (int i = 0; i < bank; ++i)
                            raw[i]->execute(
                                d_in.get(), 0, 0, g_out, outs[i], stream.get());
                    },
                    launches,
                    iterations);
                rep.add({ "ddc",
                          what + ", 8 outputs from one read, device-resident",
                          "cuda",
                          bank * g_flops / t_bank / 1e12,
                          "TFLOP/s",
                          peak / 1e12,
                          "FP32 peak (nominal)",
                          times_faster(t_bank, t_alone, "the 8 outputs run alone") +
                              "; one output alone: " + shape });
                // Issue 52's target for banks, as its own row: the bank
                // against its 8 outputs run one after another.
                rep.add({ "ddc",
                          what + ", 8 outputs from one read against each alone",
                          "cuda",
                          t_alone / t_bank,
                          "x",
                          0.0,
                          "",
                          "both timed back to back in the same run" });
            }
            if (cplx)
                rep.add({ "ddc",
                          what + ", device-resident, memory",
                          "cuda",
                          g_span / t / 1e9,
                          "GS/s",
                          std::min(hbm / (8.0 + 8.0 / D), peak / (8.0 * T / D)) / 1e9,
                          "min(memory, FP32) roofline",
                          shape });
        }
        // Block with block, in the same flowgraph.
        const std::vector<gr_complex> ctaps(real_taps.begin(), real_taps.end());
        const std::size_t fg_out = n_flowgraph / D;
        // Each row's roofline: the source alone feeding head -> null sink.
        for (bool cplx : { true, false })
            for (source_kind src : { source_kind::vector, source_kind::file }) {
                const double t_gr = flowgraph_seconds(
                    [&]() -> gr::basic_block_sptr {
                        if (cplx)
                            return gr::filter::freq_xlating_fir_filter_ccf::make(
                                D, real_taps, fc, fs);
                        return gr::filter::freq_xlating_fir_filter_fcf::make(
                            D, real_taps, fc, fs);
                    },
                    src,
                    cplx,
                    fg_out,
                    iterations);
                const double t_ours = flowgraph_seconds(
                    [&] {
                        return ddc::make(
                            D, ctaps, fc, fs, cplx ? "complex" : "float", 1, "cpu");
                    },
                    src,
                    cplx,
                    fg_out,
                    iterations);
                double& alone = source_alone[cplx][int(src)];
                if (alone == 0)
                    alone = n_flowgraph /
                            flowgraph_seconds({}, src, cplx, n_flowgraph, iterations) / 1e9;
                const std::string what = dt + (cplx ? " complex" : " float") +
                                         " in, flowgraph (" + source_name(src) + ")";
                const std::string gr_name = cplx ? "freq_xlating_fir_filter_ccf"
                                                 : "freq_xlating_fir_filter_fcf";
                const std::string roof = std::string(source_name(src)) + " alone";
                rep.add({ "ddc",
                          what + ": GNU Radio " + gr_name,
                          "gr-cpu",
                          n_flowgraph / t_gr / 1e9,
                          "GS/s",
                          alone,
                          roof,
                          "source -> block -> head -> null sink, 1 MiB buffers" });
                rep.add({ "ddc",
                          what + ": gpudsp ddc (cpu)",
                          "cpu",
                          n_flowgraph / t_ours / 1e9,
                          "GS/s",
                          alone,
                          roof,
                          times_faster(t_ours, t_gr, "GNU Radio's block") });
            }
    }
}

} // namespace bench
