/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// gpudsp_bench ldpc: decoded information bits per second and time per
// batch of the 5G LDPC decoder for BG1 Z=384 at R = 0.79 and 1/3, BG2
// Z=384 at R = 1/5 and BG2 Z=8 at R = 1/2 (a small lift: the CUDA group
// kernel) (QPSK over AWGN, exact LLRs), 10 iterations without
// early exit, and with early exit at an Eb/N0 near BLER 1e-2 (the observed
// BLER is printed); batches 1, 32, 1024, 8192. CPU rows (one core, float
// and fixed point); CUDA rows host to host and kernels only, with us per
// codeword and the ratio to the CPU row of the same configuration in the
// same run; fixed point also host to host from int8 LLRs (the pair
// kernel reads them as such: a quarter of the bytes over PCIe). The CPU
// targets' configuration (BG1 Z=384 R=8/9, 5 iterations) too. Peer: GNU
// Radio's gr-fec ldpc_decoder (sum-product from an alist of the same
// parity-check matrix) when its set-up completes within --peer-seconds.

#include "bench.h"
#include <gnuradio/fec/ldpc_decoder.h>
#include <gnuradio/gpudsp/kernels/ldpc5g.h>
#include <gnuradio/gpudsp/runtime/sync_costs.h>
#include <unistd.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <future>
#include <random>
#include <thread>

namespace bench {

using namespace gr::gpudsp;

namespace {

struct case_t {
    std::string name;
    int K, E;
    double ebn0_early; // dB: near BLER 1e-2 for early exit
    int iterations;
};

struct frames {
    std::vector<uint8_t> bits;
    std::vector<float> llr;
};

frames make_frames(const kernels::ldpc5g_params& p, int n, double ebn0, unsigned seed)
{
    kernels::ldpc5g_encoder_core enc(p);
    std::mt19937 rng(seed);
    std::normal_distribution<double> g;
    const double R = double(p.K) / p.E;
    const double sigma =
        std::sqrt(1.0 / (2.0 * R * 2.0 * std::pow(10.0, ebn0 / 10))); // QPSK
    frames f;
    f.bits.resize(std::size_t(n) * p.K);
    f.llr.resize(std::size_t(n) * p.E);
    std::vector<uint8_t> tx(p.E);
    for (int b = 0; b < n; ++b) {
        for (int i = 0; i < p.K; ++i)
            f.bits[std::size_t(b) * p.K + i] = uint8_t(rng() & 1);
        enc.encode(&f.bits[std::size_t(b) * p.K], tx.data());
        for (int e = 0; e < p.E; ++e) {
            const double x = (tx[e] ? -1.0 : 1.0) / std::sqrt(2.0);
            const double y = x + sigma * g(rng);
            f.llr[std::size_t(b) * p.E + e] =
                float(2 * y / std::sqrt(2.0) / (sigma * sigma));
        }
    }
    return f;
}

double block_error_rate(const frames& f, const std::vector<uint8_t>& out, int K, int n)
{
    int errors = 0;
    for (int b = 0; b < n; ++b)
        errors += !std::equal(out.begin() + std::size_t(b) * K,
                              out.begin() + std::size_t(b + 1) * K,
                              f.bits.begin() + std::size_t(b) * K);
    return double(errors) / n;
}

// The parity-check matrix the decoder uses, as an alist file.
std::string write_alist(const kernels::ldpc5g_params& p)
{
    const auto& g = kernels::ldpc5g_graph::get(p.bg, p.Z);
    const int Z = p.Z, m = p.rows_used * Z;
    int n = 0;
    std::vector<std::vector<int>> rows(m), cols;
    for (int r = 0; r < p.rows_used; ++r)
        for (const auto& e : g.rows[r])
            for (int z = 0; z < Z; ++z) {
                const int v = e.first * Z + (z + e.second) % Z;
                n = std::max(n, v + 1);
                rows[r * Z + z].push_back(v + 1);
            }
    cols.resize(n);
    for (int c = 0; c < m; ++c)
        for (int v : rows[c])
            cols[v - 1].push_back(c + 1);
    std::size_t mc = 0, mr = 0;
    for (auto& c : cols)
        mc = std::max(mc, c.size());
    for (auto& r : rows)
        mr = std::max(mr, r.size());
    // Written whole under a name of this process's own, then renamed: two
    // benchmarks at once (ctest -j) never read each other's half-written file.
    const std::string path = "/tmp/gpudsp_bench_ldpc_" + std::to_string(p.bg) + "_" +
                             std::to_string(p.Z) + "_" + std::to_string(p.rows_used) +
                             ".alist";
    const std::string partial = path + "." + std::to_string(::getpid()) + ".tmp";
    std::ofstream f(partial);
    f << n << " " << m << "\n" << mc << " " << mr << "\n";
    for (auto& c : cols)
        f << c.size() << " ";
    f << "\n";
    for (auto& r : rows)
        f << r.size() << " ";
    f << "\n";
    for (auto* list : { &cols, &rows })
        for (auto& l : *list) {
            std::sort(l.begin(), l.end());
            for (std::size_t i = 0; i < (list == &cols ? mc : mr); ++i)
                f << (i < l.size() ? l[i] : 0) << " ";
            f << "\n";
        }
    f.close();
    if (!f || std::rename(partial.c_str(), path.c_str()) != 0) {
        std::remove(partial.c_str());
        throw std::runtime_error("bench ldpc: cannot write " + path);
    }
    return path;
}

} // namespace

void run_ldpc(const options& opt, report& rep)
{
    const auto batches = opt.sizes("batches", { 1, 32, 1024, 8192 });
    const int cpu_frames = int(opt.size("cpu-frames", 16));
    const double peer_seconds = double(opt.size("peer-seconds", 120));
    const int iterations = int(opt.size("iterations", 3));
    std::vector<case_t> cases = {
        { "BG1 Z=384 R=0.79 (K=8448, E=10752)", 8448, 10752, 2.9, 10 },
        { "BG1 Z=384 R=1/3 (K=8448, E=25344)", 8448, 25344, 1.4, 10 },
        { "BG2 Z=384 R=1/5 (K=3840, E=19200)", 3840, 19200, 1.3, 10 },
        { "BG1 Z=384 R=8/9 (K=8448, E=9504)", 8448, 9504, 4.6, 5 },
        // a small lift: the CUDA group kernel, 4 pairs per warp
        { "BG2 Z=8 R=1/2 (K=48, E=96)", 48, 96, 3.0, 10 }
    };
    if (opt.flag("small"))
        cases = { { "BG2 Z=64 R=1/2 (K=500, E=1000)", 500, 1000, 2.0, 10 } };
    const std::string only = opt.text("only", "");
    if (!only.empty())
        cases.erase(std::remove_if(cases.begin(),
                                   cases.end(),
                                   [&](const case_t& c) {
                                       return c.name.find(only) == std::string::npos;
                                   }),
                    cases.end());
    const auto ctx = cuda_or_skip(rep, "ldpc");
    if (ctx) {
        // What one codeword split over SMs would pay each layer step (the
        // k-way cluster kernel's decision: docs/ldpc.md, "Why not 20 us on
        // one SM"). A diagnostic: its failure skips its rows, not the job's.
        try {
            for (const auto& s : runtime::sync_costs(0)) {
                char cycles[64];
                std::snprintf(cycles, sizeof cycles, "%.0f SM cycles a round", s.cycles);
                rep.add({ "ldpc",
                          "synchronisation: " + s.what,
                          "cuda",
                          s.ns,
                          "ns",
                          0,
                          "",
                          cycles });
            }
        } catch (const std::exception& e) {
            rep.skip("ldpc", std::string("synchronisation costs: ") + e.what());
        }
    }
    for (const auto& c : cases) {
        const auto p = kernels::ldpc5g_params::make(c.K, c.E, 0, 2, 0, "bench");
        const int its = c.iterations;
        const int n_max = ctx ? int(*std::max_element(batches.begin(), batches.end())) : 0;
        const frames hi =
            make_frames(p, std::max(n_max, cpu_frames), 6.0 + c.ebn0_early, 11);
        const frames lo = make_frames(p, std::max(n_max, cpu_frames), c.ebn0_early, 12);
        for (bool early : { false, true }) {
            const frames& f = early ? lo : hi;
            const std::string mode =
                early ? ", early exit at " + std::to_string(c.ebn0_early).substr(0, 4) +
                            " dB"
                      : ", " + std::to_string(its) + " iterations";
            for (bool fixed : { false, true }) {
                kernels::ldpc5g_decoder_config dc;
                dc.max_iterations = its;
                dc.early_termination = early;
                dc.fixed_point = fixed;
                const std::string ar = fixed ? " fixed" : " float";
                kernels::ldpc5g_decoder_plan cpu(p, dc, {}, "bench");
                std::vector<uint8_t> out(std::size_t(cpu_frames) * p.K), ok(cpu_frames);
                std::vector<int32_t> it(cpu_frames);
                const double t = seconds_per_call(
                    [&] {
                        cpu.decode(
                            f.llr.data(), cpu_frames, out.data(), it.data(), ok.data());
                    },
                    [] {},
                    iterations);
                double mean_it = 0;
                for (int v : it)
                    mean_it += v;
                const double cpu_bps = double(cpu_frames) * p.K / t;
                rep.add({ "ldpc",
                          c.name + mode + ar,
                          "cpu",
                          cpu_bps / 1e6,
                          "Mb/s",
                          0,
                          "",
                          "one core; " +
                              std::to_string(t / cpu_frames * 1e6).substr(0, 7) +
                              " us/codeword; BLER " +
                              std::to_string(block_error_rate(f, out, p.K, cpu_frames))
                                  .substr(0, 6) +
                              "; mean iterations " +
                              std::to_string(mean_it / cpu_frames).substr(0, 4) });
                if (!ctx)
                    continue;
                kernels::ldpc5g_decoder_plan gpu(
                    p,
                    dc,
                    runtime::backend_choice{ runtime::backend_kind::cuda, 0 },
                    "bench");
                // int8 LLRs in fixed-point steps (LLR x fixed_scale).
                std::vector<int8_t> q;
                if (fixed) {
                    q.resize(f.llr.size());
                    for (std::size_t j = 0; j < q.size(); ++j)
                        q[j] = int8_t(std::clamp(
                            std::lrint(f.llr[j] * dc.fixed_scale), -127L, 127L));
                }
                auto per_cw = [&](double s, int n) {
                    return std::to_string(s / n * 1e6).substr(0, 7) + " us/codeword";
                };
                auto vs_cpu = [&](double s, int n) {
                    return std::to_string(double(n) * p.K / s / cpu_bps).substr(0, 6) +
                           "x the CPU row (one core)";
                };
                for (auto nb : batches) {
                    const int n = int(nb);
                    std::vector<uint8_t> o(std::size_t(n) * p.K), k(n);
                    std::vector<int32_t> i(n);
                    double kernel_best = 0;
                    const double th = seconds_per_call(
                        [&] {
                            gpu.decode(f.llr.data(), n, o.data(), i.data(), k.data());
                            const double ks = gpu.last_kernel_seconds();
                            kernel_best =
                                kernel_best == 0 ? ks : std::min(kernel_best, ks);
                        },
                        [] {},
                        iterations);
                    const std::string what =
                        c.name + mode + ar + ", batch " + std::to_string(n);
                    // (which CUDA kernel: fixed-point layered decoding takes
                    // the latency kernel for one codeword whose rows are all
                    // specialised and whose Z is even, the group kernel for
                    // small lifts, else the pair kernel)
                    const std::string kernel =
                        !fixed ? "one codeword per block; "
                        : n == 1 && p.rows_used <= 8 && p.Z % 2 == 0
                            ? "latency kernel (one codeword in both lanes); "
                        : p.Z <= 16 ? "group kernel (" + std::to_string(32 / p.Z) +
                                          " pairs per warp); "
                                    : "pair kernel (two codewords per block); ";
                    auto host_row = [&](const std::string& how, double s) {
                        rep.add({ "ldpc",
                                  what + how,
                                  "cuda",
                                  double(n) * p.K / s / 1e9,
                                  "Gb/s",
                                  0,
                                  "",
                                  std::to_string(s * 1e6).substr(0, 8) + " us/batch; " +
                                      per_cw(s, n) + "; " + vs_cpu(s, n) + "; BLER " +
                                      std::to_string(block_error_rate(f, o, p.K, n))
                                          .substr(0, 6) });
                    };
                    host_row(", host to host", th);
                    rep.add({ "ldpc",
                              what + ", kernels only",
                              "cuda",
                              double(n) * p.K / kernel_best / 1e9,
                              "Gb/s",
                              0,
                              "",
                              kernel + gpu.launch_shape(n) + "; " +
                                  std::to_string(kernel_best * 1e6).substr(0, 8) +
                                  " us/batch; " + per_cw(kernel_best, n) + "; " +
                                  vs_cpu(kernel_best, n) });
                    if (!fixed)
                        continue;
                    const double t8 = seconds_per_call(
                        [&] {
                            gpu.decode(q.data(),
                                       kernels::ldpc5g_llr_format::i8,
                                       n,
                                       o.data(),
                                       false,
                                       i.data(),
                                       k.data());
                        },
                        [] {},
                        iterations);
                    host_row(", int8 LLRs, host to host", t8);
                }
            }
        }
        // GNU Radio's own decoder on the same parity-check matrix: its
        // set-up builds a dense generator matrix, which takes long for
        // large codes; given --peer-seconds, then skipped.
        if (opt.flag("no-peer"))
            continue;
        const std::string alist = write_alist(p);
        // Set up on a detached thread: it cannot be cancelled, and the
        // program must not wait for it beyond the limit.
        auto promise = std::make_shared<std::promise<gr::fec::generic_decoder::sptr>>();
        auto fut = promise->get_future();
        std::thread([promise, alist, its] {
            try {
                promise->set_value(gr::fec::ldpc_decoder::make(alist, 0.5f, its));
            } catch (...) {
                promise->set_exception(std::current_exception());
            }
        }).detach();
        if (fut.wait_for(std::chrono::duration<double>(peer_seconds)) !=
            std::future_status::ready) {
            rep.skip("ldpc",
                     c.name + ": gr-fec ldpc_decoder set-up took more than " +
                         std::to_string(int(peer_seconds)) + " s (it builds a dense " +
                         "generator matrix for the " + std::to_string(p.rows_used * p.Z) +
                         "-row code); not measured");
            continue;
        }
        auto peer = fut.get();
        const int n_in = peer->get_input_size(), n_out = peer->get_output_size();
        // Its input: BPSK-like soft values of the codeword bits it decodes
        // (punctured and untransmitted positions 0): here the channel
        // values of a noisy all-zero codeword.
        std::mt19937 rng(3);
        std::normal_distribution<float> g;
        std::vector<float> in(n_in);
        for (auto& v : in)
            v = 1.0f + 0.5f * g(rng);
        std::vector<uint8_t> out(n_out);
        const double t = seconds_per_call(
            [&] { peer->generic_work(in.data(), out.data()); }, [] {}, iterations);
        rep.add({ "ldpc",
                  c.name + ", gr-fec ldpc_decoder (sum-product, alist)",
                  "gr-cpu",
                  double(p.K) / t / 1e6,
                  "Mb/s",
                  0,
                  "",
                  "one codeword per call; " + std::to_string(t * 1e6).substr(0, 8) +
                      " us; frame " + std::to_string(n_in) + " in" });
    }
}

} // namespace bench
