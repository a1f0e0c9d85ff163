/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The 5G LDPC code, rate matching and decoder: every lifting size with both
// base graphs (codewords checked against the parity-check matrix built here
// from the tables, independently of the encoder's method), bit selection
// against a direct reading of TS 38.212 5.4.2.1, noise-free decoding in one
// iteration, and the decoder on the test device (emulated, or CUDA with
// GPUDSP_TEST_CUDA) against the CPU: identical in fixed point, within float
// rounding in float mode.

#include "kernels/common/interval_union.h"
#include "ldpc5g_impl.h"
#include "runtime/qa_common.h"
#include <gnuradio/gpudsp/kernels/ldpc5g.h>
#include <algorithm>
#include <chrono>
#include <cmath>

using namespace gr::gpudsp;
using kernels::ldpc5g_params;

using device_fixture = qa::skip_without_device;
BOOST_TEST_GLOBAL_FIXTURE(device_fixture);

namespace {

std::vector<uint8_t> random_bits(int n, unsigned seed)
{
    std::mt19937 rng(seed);
    std::vector<uint8_t> b(n);
    for (auto& v : b)
        v = uint8_t(rng() & 1);
    return b;
}

// H c over every row of the base graph, from the table (row z of a block
// with shift s has its 1 at column (z + s) mod Z).
bool satisfies_all_checks(const kernels::ldpc5g_graph& g, const std::vector<uint8_t>& c)
{
    for (int r = 0; r < g.n_rows; ++r)
        for (int z = 0; z < g.Z; ++z) {
            int parity = 0;
            for (const auto& e : g.rows[r])
                parity ^= c[e.first * g.Z + (z + e.second) % g.Z];
            if (parity)
                return false;
        }
    return true;
}

// A configuration that lands on lifting size Z with base graph bg.
ldpc5g_params config_for(int bg, int Z, double rate, int fillers)
{
    for (int kb : bg == 1 ? std::vector<int>{ 22 } : std::vector<int>{ 10, 9, 8, 6 }) {
        const int K = std::max(1, kb * Z - fillers);
        const int E = int(std::ceil(K / rate));
        try {
            auto p = ldpc5g_params::make(K, E, 0, 1, 0, "qa", bg);
            if (p.Z == Z)
                return p;
        } catch (const std::invalid_argument&) {
        }
    }
    throw std::runtime_error("no configuration for Z = " + std::to_string(Z));
}

// BPSK over AWGN (noise sigma per bit): the LLRs of `batch` random
// codewords, and their information bits.
std::vector<float> noisy_llrs(const ldpc5g_params& p,
                              double sigma,
                              int batch,
                              std::mt19937& rng,
                              std::vector<uint8_t>* infos = nullptr)
{
    kernels::ldpc5g_encoder_core enc(p);
    std::normal_distribution<float> g;
    std::vector<float> llr(std::size_t(batch) * p.E);
    std::vector<uint8_t> tx(p.E);
    for (int b = 0; b < batch; ++b) {
        const auto info = random_bits(p.K, rng());
        if (infos)
            infos->insert(infos->end(), info.begin(), info.end());
        enc.encode(info.data(), tx.data());
        for (int e = 0; e < p.E; ++e) {
            const double y = (tx[e] ? -1.0 : 1.0) + sigma * g(rng);
            llr[std::size_t(b) * p.E + e] = float(2 * y / (sigma * sigma));
        }
    }
    return llr;
}

double sigma_for(const ldpc5g_params& p, double ebn0_db)
{
    return std::sqrt(1.0 / (2.0 * double(p.K) / p.E * std::pow(10.0, ebn0_db / 10)));
}

struct decoded {
    std::vector<uint8_t> bits, ok;
    std::vector<int32_t> iterations;
};

decoded decode(kernels::ldpc5g_decoder_plan& plan,
               const ldpc5g_params& p,
               const std::vector<float>& llr,
               int batch)
{
    decoded d{ std::vector<uint8_t>(std::size_t(batch) * p.K, 9),
               std::vector<uint8_t>(batch, 9),
               std::vector<int32_t>(batch, -1) };
    plan.decode(llr.data(), batch, d.bits.data(), d.iterations.data(), d.ok.data());
    return d;
}

// Device against CPU: fixed point identical (bits, iterations, pass); float
// within rounding (FMA contraction on the GPU): nearly all bits, iterations
// within 2.
void check_same(const decoded& cpu, const decoded& dev, bool fixed)
{
    if (fixed) {
        BOOST_CHECK(cpu.bits == dev.bits);
        BOOST_CHECK(cpu.iterations == dev.iterations);
        BOOST_CHECK(cpu.ok == dev.ok);
        return;
    }
    std::size_t diff = 0;
    for (std::size_t i = 0; i < cpu.bits.size(); ++i)
        diff += cpu.bits[i] != dev.bits[i];
    BOOST_CHECK_LE(diff, cpu.bits.size() / 1000 + 2);
    for (std::size_t b = 0; b < cpu.iterations.size(); ++b)
        BOOST_CHECK_LE(std::abs(cpu.iterations[b] - dev.iterations[b]), 2);
}

} // namespace

BOOST_AUTO_TEST_CASE(every_lifting_size_both_graphs_round_trip)
{
    const auto& sizes = kernels::ldpc5g_lifting_sizes();
    BOOST_REQUIRE_EQUAL(sizes.size(), 51u);
    BOOST_CHECK_EQUAL(sizes.front(), 2);
    BOOST_CHECK_EQUAL(sizes.back(), 384);
    unsigned seed = 1;
    for (int bg : { 1, 2 })
        for (int Z : sizes)
            for (double rate : { 0.9, 1.0 / 3 }) {
                const auto p = config_for(bg, Z, rate, Z > 2 ? 2 : 0);
                kernels::ldpc5g_encoder_core enc(p);
                const auto info = random_bits(p.K, seed++);
                const auto c = enc.codeword(info.data());
                BOOST_CHECK_MESSAGE(
                    satisfies_all_checks(kernels::ldpc5g_graph::get(bg, Z), c),
                    "BG" << bg << " Z=" << Z << " K=" << p.K);
                for (int i = 0; i < p.K; ++i)
                    BOOST_REQUIRE_EQUAL(c[i], info[i]);
                for (int i = p.K; i < p.K_ldpc; ++i)
                    BOOST_REQUIRE_EQUAL(c[i], 0);
                // Noise-free: +-4 LLRs decode in a few iterations (the
                // punctured 2Z systematic bits start at 0, and a check
                // holding both punctured columns sends them nothing until
                // other checks have resolved one).
                std::vector<uint8_t> tx(p.E);
                enc.encode(info.data(), tx.data());
                std::vector<float> llr(p.E);
                for (int e = 0; e < p.E; ++e)
                    llr[e] = tx[e] ? -4.f : 4.f;
                for (bool fixed : { false, true }) {
                    kernels::ldpc5g_decoder_config dc;
                    dc.fixed_point = fixed;
                    kernels::ldpc5g_decoder_plan dec(p, dc, qa::test_device(), "qa");
                    std::vector<uint8_t> bits(p.K, 7), ok(1, 7);
                    std::vector<int32_t> its(1, -1);
                    dec.decode(llr.data(), 1, bits.data(), its.data(), ok.data());
                    BOOST_CHECK(bits == info);
                    BOOST_CHECK_LE(its[0], 5);
                    BOOST_CHECK_EQUAL(ok[0], 1);
                }
            }
}

BOOST_AUTO_TEST_CASE(bit_selection_follows_the_standard)
{
    // TS 38.212 5.4.2.1 read directly: e_k = d_((k0 + j) mod Ncb), skipping
    // fillers, for every rv, a limited buffer, E below and above N; then
    // 5.4.2.2: f_(i + j Qm) = e_(i E/Qm + j).
    unsigned seed = 50;
    for (int rv = 0; rv < 4; ++rv)
        for (int Qm : { 1, 2, 4, 6, 8 })
            for (auto KE : std::vector<std::pair<int, int>>{ { 1000, 1504 },
                                                             { 3000, 4200 },
                                                             { 500, 2400 },
                                                             { 8000, 30000 },
                                                             { 100, 96 * 2 } })
                for (int n_ref : { 0, 9000 }) {
                    const int E = KE.second / Qm * Qm;
                    ldpc5g_params p;
                    try {
                        p = ldpc5g_params::make(KE.first, E, rv, Qm, n_ref, "qa");
                    } catch (const std::invalid_argument&) {
                        continue; // a limited buffer inside the systematic bits
                    }
                    kernels::ldpc5g_encoder_core enc(p);
                    const auto info = random_bits(p.K, seed++);
                    const auto c = enc.codeword(info.data());
                    std::vector<uint8_t> e;
                    for (long j = 0; int(e.size()) < p.E; ++j) {
                        const int pos = int((p.k0 + j) % p.Ncb);
                        const int n = pos + 2 * p.Z;
                        if (n >= p.K && n < p.K_ldpc)
                            continue;
                        e.push_back(c[n]);
                    }
                    std::vector<uint8_t> f(p.E);
                    for (int j = 0; j < p.E / Qm; ++j)
                        for (int i = 0; i < Qm; ++i)
                            f[i + j * Qm] = e[i * (p.E / Qm) + j];
                    std::vector<uint8_t> out(p.E);
                    enc.encode(info.data(), out.data());
                    BOOST_CHECK_MESSAGE(out == f,
                                        "K=" << p.K << " E=" << p.E << " rv=" << rv
                                             << " Qm=" << Qm << " n_ref=" << n_ref);
                }
}

BOOST_AUTO_TEST_CASE(code_choice_follows_the_standard)
{
    auto p = ldpc5g_params::make(8448, 8448 * 9 / 8, 0, 2, 0, "qa");
    BOOST_CHECK_EQUAL(p.bg, 1);
    BOOST_CHECK_EQUAL(p.Z, 384);
    BOOST_CHECK_EQUAL(p.N, 66 * 384);
    BOOST_CHECK_EQUAL(p.k0, 0);
    p = ldpc5g_params::make(8448, 25344, 2, 2, 0, "qa");
    BOOST_CHECK_EQUAL(p.k0, 33 * 384);                // floor(33 Ncb / 66Z) Z
    p = ldpc5g_params::make(200, 400, 0, 2, 0, "qa"); // K <= 292
    BOOST_CHECK_EQUAL(p.bg, 2);
    BOOST_CHECK_EQUAL(p.kb, 8);
    BOOST_CHECK_EQUAL(p.Z, 26);
    p = ldpc5g_params::make(3824, 3824 * 3 / 2, 1, 2, 0, "qa"); // R = 0.667
    BOOST_CHECK_EQUAL(p.bg, 2);
    BOOST_CHECK_EQUAL(p.k0, (13 * p.Ncb / (50 * p.Z)) * p.Z);
    p = ldpc5g_params::make(1000, 1100, 0, 2, 0, "qa");
    BOOST_CHECK_EQUAL(p.bg, 1);
    BOOST_CHECK_EQUAL(p.Z, 48); // smallest Z with 22 Z >= 1000
    BOOST_CHECK_EQUAL(p.fillers, 22 * 48 - 1000);
    using kernels::ldpc5g_params;
    BOOST_CHECK_THROW(ldpc5g_params::make(8449, 9000, 0, 2, 0, "qa"),
                      std::invalid_argument);
    BOOST_CHECK_THROW(ldpc5g_params::make(100, 99, 0, 1, 0, "qa"), std::invalid_argument);
    BOOST_CHECK_THROW(ldpc5g_params::make(100, 200, 0, 3, 0, "qa"),
                      std::invalid_argument);
    BOOST_CHECK_THROW(ldpc5g_params::make(100, 200, 4, 2, 0, "qa"),
                      std::invalid_argument);
    BOOST_CHECK_THROW(ldpc5g_params::make(100, 201, 0, 2, 0, "qa"),
                      std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(device_matches_cpu_on_noisy_codewords)
{
    // BPSK over AWGN near the waterfall, several configurations and
    // batch sizes.
    std::mt19937 rng(9);
    struct cfg {
        int K, E, Qm;
        bool layered;
        double ebn0;
    };
    for (const auto& k : std::vector<cfg>{ { 1000, 2000, 2, true, 1.8 },
                                           { 8448, 10752, 2, true, 3.0 },
                                           { 500, 2500, 4, false, 1.0 },
                                           { 3000, 4500, 2, true, 2.2 },
                                           // BG2, every row specialised: one
                                           // codeword takes the CUDA latency
                                           // kernel
                                           { 240, 300, 2, true, 3.0 },
                                           // small lifts (BG2 Z=7, BG1 Z=14):
                                           // batches take the CUDA group kernel
                                           // (several pairs per warp; 17
                                           // codewords: 3 warps at Z=7)
                                           { 40, 96, 2, true, 3.0 },
                                           { 308, 400, 2, true, 3.5 } })
        for (int batch : { 1, 3, 17 })
            for (bool fixed : { true, false }) {
                const auto p = ldpc5g_params::make(k.K, k.E, 0, k.Qm, 0, "qa");
                const auto llr = noisy_llrs(p, sigma_for(p, k.ebn0), batch, rng);
                kernels::ldpc5g_decoder_config dc;
                dc.fixed_point = fixed;
                dc.layered = k.layered;
                dc.max_iterations = 12;
                kernels::ldpc5g_decoder_plan cpu(p, dc, {}, "qa cpu");
                kernels::ldpc5g_decoder_plan dev(p, dc, qa::test_device(), "qa dev");
                check_same(decode(cpu, p, llr, batch), decode(dev, p, llr, batch), fixed);
            }
}

BOOST_AUTO_TEST_CASE(tuned_plans_decode_as_the_cpu)
{
    // Every kernel and chunk size the tuner may choose decoded the same
    // bits as the heuristic's (or it was rejected); the chosen one decodes
    // as the CPU.
    std::mt19937 rng(19);
    const qa::tuning_forced tuning;
    for (bool fixed : { true, false }) {
        const auto p = ldpc5g_params::make(1000, 2000, 0, 2, 0, "qa");
        kernels::ldpc5g_decoder_config dc;
        dc.fixed_point = fixed;
        dc.max_iterations = 12;
        kernels::ldpc5g_decoder_plan dev(p, dc, qa::test_device(), "qa dev tuned");
        qa::check_tuned(dev.tuning());
        kernels::ldpc5g_decoder_plan cpu(p, dc, {}, "qa cpu");
        const int batch = 37;
        const auto llr = noisy_llrs(p, sigma_for(p, 1.8), batch, rng);
        check_same(decode(cpu, p, llr, batch), decode(dev, p, llr, batch), fixed);
    }
}

// The CUDA kernel keeps a codeword's a-posteriori values in shared memory
// where they fit the device's per-block limit, else in global memory: for
// every (BG, Z) and the limits of sm_75, sm_86/89, sm_80 and sm_90 (bytes
// counted here independently: all columns, 4 bytes float, 2 fixed point),
// the launch holds them all in shared memory within the limit or none;
// fixed point fits everywhere; float BG1 Z=384 (102 KiB) goes to global
// memory on sm_75 and sm_86/89 only.
BOOST_AUTO_TEST_CASE(cuda_launch_fits_every_architecture)
{
    for (const std::size_t limit : kernels::ldpc5g_cuda_smem_limits)
        for (const int bg : { 1, 2 })
            for (const int Z : kernels::ldpc5g_lifting_sizes())
                for (const bool fixed : { false, true }) {
                    const int cols = bg == 1 ? 68 : 52;
                    const std::size_t values = std::size_t(cols) * std::size_t(Z);
                    const std::size_t need = values * (fixed ? sizeof(int16_t) : sizeof(float));
                    const auto got = kernels::ldpc5g_cuda_shared_bytes(Z, cols, fixed, limit);
                    BOOST_CHECK_LE(got, limit);
                    BOOST_CHECK(got == need || (got == 0 && need > limit));
                    if (fixed)
                        BOOST_CHECK_EQUAL(got, need);
                }
    BOOST_CHECK_EQUAL(kernels::ldpc5g_cuda_shared_bytes(384, 68, false, 101376), 0u);
    BOOST_CHECK_EQUAL(kernels::ldpc5g_cuda_shared_bytes(384, 68, false, 166912), 104448u);
    BOOST_CHECK_EQUAL(kernels::ldpc5g_cuda_shared_bytes(240, 68, false, 65536), 65280u);
    BOOST_CHECK_EQUAL(kernels::ldpc5g_cuda_shared_bytes(256, 68, false, 65536), 0u);
}

// The global-memory path on any device: with the shared-memory limit
// lowered to nothing (the test hook GPUDSP_LDPC_SHARED_LIMIT), the decoder
// keeps the a-posteriori values in global memory and decodes noisy
// codewords of the largest code exactly as the CPU (fixed point) or within
// rounding (float), layered and flooding. (On the emulated device the CPU
// arithmetic runs; on CUDA this is the only test of that path on GPUs
// whose shared memory holds every code, sm_80 and sm_90.)
BOOST_AUTO_TEST_CASE(global_memory_path_decodes_as_the_cpu)
{
    std::mt19937 rng(27);
    const auto p = ldpc5g_params::make(8448, 25344, 0, 2, 0, "qa"); // all 68 columns
    const auto llr = noisy_llrs(p, sigma_for(p, 0.9), 3, rng);
    for (bool fixed : { true, false })
        for (bool layered : { true, false }) {
            kernels::ldpc5g_decoder_config dc;
            dc.fixed_point = fixed;
            dc.layered = layered;
            dc.max_iterations = 8;
            kernels::ldpc5g_decoder_plan cpu(p, dc, {}, "qa cpu");
            setenv("GPUDSP_LDPC_SHARED_LIMIT", "0", 1);
            kernels::ldpc5g_decoder_plan dev(p, dc, qa::test_device(), "qa dev global");
            unsetenv("GPUDSP_LDPC_SHARED_LIMIT");
            check_same(decode(cpu, p, llr, 3), decode(dev, p, llr, 3), fixed);
        }
}

// Two live plans of different sizes used alternately (the largest code and
// a small one, fixed point and float): the kernel's shared-memory attribute
// is process-wide, so a plan made later must not shrink it under the first.
BOOST_AUTO_TEST_CASE(two_live_plans_used_alternately)
{
    std::mt19937 rng(21);
    for (bool fixed : { true, false }) {
        kernels::ldpc5g_decoder_config dc;
        dc.fixed_point = fixed;
        dc.max_iterations = 10;
        // All 68 columns: 102 KiB of float (52 KiB fixed point, 102 KiB for
        // the pair kernel's two codewords), beyond the 48 KiB a kernel gets
        // without the attribute.
        const auto big = ldpc5g_params::make(8448, 25344, 0, 2, 0, "qa");
        const auto small = ldpc5g_params::make(120, 360, 0, 2, 0, "qa");
        kernels::ldpc5g_decoder_plan dev_big(big, dc, qa::test_device(), "qa big");
        kernels::ldpc5g_decoder_plan dev_small(small, dc, qa::test_device(), "qa small");
        kernels::ldpc5g_decoder_plan cpu_big(big, dc, {}, "qa cpu big");
        kernels::ldpc5g_decoder_plan cpu_small(small, dc, {}, "qa cpu small");
        for (int round = 0; round < 3; ++round)
            for (auto* c : { &big, &small }) {
                auto& dev = c == &big ? dev_big : dev_small;
                auto& cpu = c == &big ? cpu_big : cpu_small;
                std::vector<uint8_t> info;
                const auto llr = noisy_llrs(*c, sigma_for(*c, 3.5), 2, rng, &info);
                const auto want = decode(cpu, *c, llr, 2);
                const auto got = decode(dev, *c, llr, 2);
                check_same(want, got, fixed);
                BOOST_CHECK(got.bits == info); // well above the waterfall
            }
    }
}

// Batches longer than one launch (chunks of 512 codewords on two streams on
// CUDA): 1100 codewords, three chunks, both streams, every codeword where
// the CPU puts it.
BOOST_AUTO_TEST_CASE(batches_beyond_one_launch)
{
    std::mt19937 rng(33);
    const auto p = ldpc5g_params::make(100, 300, 0, 2, 0, "qa");
    const int batch = 1100;
    const auto llr = noisy_llrs(p, sigma_for(p, 1.0), batch, rng);
    for (bool fixed : { true, false }) {
        kernels::ldpc5g_decoder_config dc;
        dc.fixed_point = fixed;
        kernels::ldpc5g_decoder_plan cpu(p, dc, {}, "qa cpu");
        kernels::ldpc5g_decoder_plan dev(p, dc, qa::test_device(), "qa dev");
        const auto want = decode(cpu, p, llr, batch);
        const auto t0 = std::chrono::steady_clock::now();
        const auto got = decode(dev, p, llr, batch);
        const std::chrono::duration<double> wall = std::chrono::steady_clock::now() - t0;
        check_same(want, got, fixed);
#ifdef GPUDSP_TEST_CUDA
        // Three kernels ran (the union of their intervals), within the call.
        BOOST_CHECK_GT(dev.last_kernel_seconds(), 0);
        BOOST_CHECK_LE(dev.last_kernel_seconds(), wall.count());
#else
        BOOST_CHECK_EQUAL(dev.last_kernel_seconds(), 0); // no device kernels
        (void)wall;
#endif
        // Near the waterfall: some codewords fail, most pass.
        const auto passed = std::count(want.ok.begin(), want.ok.end(), 1);
        BOOST_CHECK_GT(passed, batch / 2);
        BOOST_CHECK_LT(passed, batch);
    }
}

// The kernel time of a batch is the union of its chunks' kernel intervals
// (interval_union_length): against a count of the unit cells covered, for
// random integer intervals in any order, overlapping, nested, touching or
// apart, and empty, zero-length or reversed (end before begin: empty) ones.
BOOST_AUTO_TEST_CASE(kernel_time_is_the_union_of_intervals)
{
    // Fixes T = double, so that braced lists of intervals can be passed.
    const auto union_length = &kernels::interval_union_length<double>;
    BOOST_CHECK_EQUAL(union_length({}), 0);
    BOOST_CHECK_EQUAL(union_length({ { 2, 2 } }), 0);
    BOOST_CHECK_EQUAL(union_length({ { 5, 7 }, { 0, 1 }, { 1, 3 } }), 5);
    BOOST_CHECK_EQUAL(union_length({ { 0, 10 }, { 2, 3 }, { 9, 12 } }), 12);
    BOOST_CHECK_EQUAL(union_length({ { 3, 1 }, { 0, 2 } }), 2); // reversed: empty
    std::mt19937 rng(7);
    for (int trial = 0; trial < 2000; ++trial) {
        std::vector<std::pair<double, double>> iv(rng() % 6);
        std::vector<bool> covered(40, false);
        for (auto& v : iv) {
            const int b = int(rng() % 30), len = int(rng() % 10);
            v = { double(b), double(b + len) };
            for (int t = b; t < b + len; ++t)
                covered[t] = true;
        }
        const auto want = double(std::count(covered.begin(), covered.end(), true));
        BOOST_CHECK_EQUAL(union_length(iv), want);
    }
}

// HARQ-style combining: E = 3 Ncb sends every bit of the circular buffer
// three times with independent noise; the decoder adds the repetitions
// (one LLR per position, as chase combining does). At a per-bit SNR where a
// single transmission (E = Ncb) fails most codewords, the three combined
// decode them all, on every device the same as the CPU.
BOOST_AUTO_TEST_CASE(harq_combining_of_noisy_repetitions)
{
    const auto probe = ldpc5g_params::make(500, 1500, 0, 1, 0, "qa");
    const int period = kernels::ldpc5g_encoder_core(probe).period();
    const double sigma = std::sqrt(1.0 / (2.0 * std::pow(10.0, -9.0 / 10))); // Es/N0 -9 dB
    const int batch = 40;
    for (bool fixed : { true, false }) {
        kernels::ldpc5g_decoder_config dc;
        dc.fixed_point = fixed;
        dc.max_iterations = 20;
        int fails[2] = { 0, 0 };
        std::vector<float> summed; // the three copies' LLRs added by hand
        for (int copies : { 1, 3 }) {
            const auto p = ldpc5g_params::make(500, copies * period, 0, 1, 0, "qa");
            BOOST_REQUIRE_EQUAL(kernels::ldpc5g_encoder_core(p).period(), period);
            std::mt19937 rng(45); // codeword 0 the same both times (then E differs)
            std::vector<uint8_t> info;
            const auto llr = noisy_llrs(p, sigma, batch, rng, &info);
            kernels::ldpc5g_decoder_plan cpu(p, dc, {}, "qa cpu");
            kernels::ldpc5g_decoder_plan dev(p, dc, qa::test_device(), "qa dev");
            const auto want = decode(cpu, p, llr, batch);
            check_same(want, decode(dev, p, llr, batch), fixed);
            fails[copies == 3] = int(batch - std::count(want.ok.begin(), want.ok.end(), 1));
            if (copies == 3) {
                BOOST_CHECK(want.bits == info);
                summed.assign(std::size_t(batch) * period, 0.f);
                for (int b = 0; b < batch; ++b)
                    for (int e = 0; e < 3 * period; ++e) // Qm = 1: no interleaving
                        summed[std::size_t(b) * period + e % period] +=
                            llr[std::size_t(b) * 3 * period + e];
            }
        }
        BOOST_CHECK_GT(fails[0], batch / 2);
        BOOST_CHECK_EQUAL(fails[1], 0);
        if (!fixed) {
            // Float: combining is exactly the sum of the copies' LLRs (added
            // in transmission order): one copy carrying the sums decodes
            // identically. (Fixed point quantises each copy, then adds.)
            const auto p1 = ldpc5g_params::make(500, period, 0, 1, 0, "qa");
            const auto p3 = ldpc5g_params::make(500, 3 * period, 0, 1, 0, "qa");
            std::mt19937 rng(45);
            const auto llr3 = noisy_llrs(p3, sigma, batch, rng);
            kernels::ldpc5g_decoder_plan one(p1, dc, {}, "qa cpu one");
            kernels::ldpc5g_decoder_plan three(p3, dc, {}, "qa cpu three");
            const auto a = decode(one, p1, summed, batch), b = decode(three, p3, llr3, batch);
            BOOST_CHECK(a.bits == b.bits);
            BOOST_CHECK(a.iterations == b.iterations);
        }
    }
}

// --- The golden model -------------------------------------------------------
// A plain scalar decoder written from ldpc5g_impl.h's per-check functions
// (the ones the CUDA kernel runs, one check at a time, messages stored per
// check as a struct): the CPU backend's vectorised row passes must give the
// same bits, iterations and parity result, in fixed point and in float.

namespace {

template <typename T>
struct golden {
    using state = kernels::ldpc_check_state<T>;
    const kernels::ldpc5g_params& p;
    kernels::ldpc5g_decoder_config c;
    kernels::ldpc_norm norm;
    std::vector<std::vector<std::pair<int, int>>> rows;
    std::vector<T> channel, app;
    std::vector<state> st, next;

    golden(const kernels::ldpc5g_params& p_, const kernels::ldpc5g_decoder_config& c_)
        : p(p_), c(c_)
    {
        norm = { c.scaling,
                 c.offset,
                 int32_t(std::lround(c.scaling * 16)),
                 int32_t(std::lround(c.offset * c.fixed_scale)) };
        const auto& g = kernels::ldpc5g_graph::get(p.bg, p.Z);
        rows.assign(g.rows.begin(), g.rows.begin() + p.rows_used);
    }

    static T quant(float v, float scale)
    {
        if constexpr (std::is_same<T, float>::value)
            return v;
        else
            return T(std::clamp<long>(
                std::lrint(v * scale), -kernels::ldpc_msg_max, kernels::ldpc_msg_max));
    }

    int at(int col, int z, int s) const { return col * p.Z + (z + s) % p.Z; }

    bool syndrome_ok() const
    {
        for (const auto& row : rows)
            for (int z = 0; z < p.Z; ++z) {
                int parity = 0;
                for (const auto& e : row)
                    parity ^= app[at(e.first, z, e.second)] < T(0);
                if (parity)
                    return false;
            }
        return true;
    }

    void decode(const float* llr, uint8_t* bits, int32_t& its, uint8_t& ok)
    {
        kernels::ldpc5g_encoder_core code(p);
        const int sys = p.bg == 1 ? 22 : 10, Z = p.Z;
        const int n_vars = (sys + p.rows_used) * Z;
        channel.assign(n_vars, T(0));
        for (int n = 0; n < n_vars; ++n) {
            const int j = n - 2 * Z;
            T v = T(0);
            if (n >= p.K && n < p.K_ldpc)
                v = std::is_same<T, float>::value ? T(kernels::ldpc_float_certain)
                                                  : T(kernels::ldpc_app_max);
            else if (j >= 0 && j < p.Ncb && code.first_read()[j] >= 0)
                for (int e = code.first_read()[j]; e < p.E; e += code.period())
                    v += quant((c.positive_is_zero ? 1 : -1) * llr[code.interleaved(e)],
                               c.fixed_scale);
            channel[n] = kernels::ldpc_clamp_app(v);
        }
        app = channel;
        st.assign(std::size_t(p.rows_used) * Z, state{ T(0), T(0), 0u, 0 });
        next = st;
        its = 0;
        bool pass = false;
        while (its < c.max_iterations) {
            for (int r = 0; r < p.rows_used; ++r)
                for (int z = 0; z < Z; ++z) {
                    T t[kernels::ldpc_max_degree];
                    const auto& row = rows[r];
                    for (std::size_t i = 0; i < row.size(); ++i)
                        t[i] = app[at(row[i].first, z, row[i].second)] -
                               kernels::ldpc_c2v(st[r * Z + z], int(i));
                    const state nw = kernels::ldpc_check_update(t, int(row.size()), norm);
                    if (c.layered) {
                        for (std::size_t i = 0; i < row.size(); ++i)
                            app[at(row[i].first, z, row[i].second)] =
                                kernels::ldpc_clamp_app(
                                    T(t[i] + kernels::ldpc_c2v(nw, int(i))));
                        st[r * Z + z] = nw;
                    } else {
                        next[r * Z + z] = nw;
                    }
                }
            if (!c.layered) {
                st.swap(next);
                std::vector<typename std::conditional<std::is_same<T, float>::value,
                                                      float,
                                                      int32_t>::type>
                    sum(channel.begin(), channel.end());
                for (int r = 0; r < p.rows_used; ++r)
                    for (std::size_t i = 0; i < rows[r].size(); ++i)
                        for (int z = 0; z < Z; ++z)
                            sum[at(rows[r][i].first, z, rows[r][i].second)] +=
                                kernels::ldpc_c2v(st[r * Z + z], int(i));
                for (int n = 0; n < n_vars; ++n)
                    app[n] = T(kernels::ldpc_clamp_app(sum[n]));
            }
            ++its;
            if (c.early_termination && (pass = syndrome_ok()))
                break;
        }
        if (!c.early_termination)
            pass = syndrome_ok();
        for (int i = 0; i < p.K; ++i)
            bits[i] = app[i] < T(0);
        ok = pass;
    }
};

} // namespace

BOOST_AUTO_TEST_CASE(cpu_backend_equals_the_golden_model)
{
    std::mt19937 rng(21);
    std::normal_distribution<float> g;
    for (auto KE : std::vector<std::pair<int, int>>{ { 500, 1000 },
                                                     { 1200, 1500 },
                                                     { 3000, 9000 },
                                                     { 200, 4000 } }) // last: repetitions
        for (bool layered : { true, false })
            for (bool fixed : { true, false }) {
                const auto p = ldpc5g_params::make(KE.first, KE.second, 0, 2, 0, "qa");
                kernels::ldpc5g_encoder_core enc(p);
                kernels::ldpc5g_decoder_config dc;
                dc.layered = layered;
                dc.fixed_point = fixed;
                dc.max_iterations = 8;
                dc.offset = fixed ? 0.25f : 0.0f;
                const int batch = 6;
                std::vector<float> llr(std::size_t(batch) * p.E);
                const double sigma = 0.8;
                for (int b = 0; b < batch; ++b) {
                    const auto info = random_bits(p.K, rng());
                    std::vector<uint8_t> tx(p.E);
                    enc.encode(info.data(), tx.data());
                    for (int e = 0; e < p.E; ++e)
                        llr[std::size_t(b) * p.E + e] =
                            float(2 * ((tx[e] ? -1.0 : 1.0) + sigma * g(rng)) /
                                  (sigma * sigma));
                }
                kernels::ldpc5g_decoder_plan cpu(p, dc, {}, "qa cpu");
                std::vector<uint8_t> bits(std::size_t(batch) * p.K), ok(batch);
                std::vector<int32_t> its(batch);
                cpu.decode(llr.data(), batch, bits.data(), its.data(), ok.data());
                for (int b = 0; b < batch; ++b) {
                    std::vector<uint8_t> gb(p.K);
                    int32_t gi = 0;
                    uint8_t go = 0;
                    if (fixed)
                        golden<int32_t>(p, dc).decode(
                            &llr[std::size_t(b) * p.E], gb.data(), gi, go);
                    else
                        golden<float>(p, dc).decode(
                            &llr[std::size_t(b) * p.E], gb.data(), gi, go);
                    BOOST_CHECK_MESSAGE(
                        std::equal(gb.begin(), gb.end(), &bits[std::size_t(b) * p.K]),
                        "K=" << p.K << " layered=" << layered << " fixed=" << fixed);
                    BOOST_CHECK_EQUAL(gi, its[b]);
                    BOOST_CHECK_EQUAL(go, ok[b]);
                }
            }
}

// LLRs as float, fp16 and int8 (int8 counting fixed-point steps), bits
// unpacked or packed MSB first, on the test device (CUDA: the pair kernel
// reads fp16/int8 itself; the CPU converts first) against the CPU backend
// decoding the same values given as float.
namespace {

uint16_t exact_half(float v) // v = k / 8 with |k| < 2^11: exact in binary16
{
    if (v == 0.f)
        return std::signbit(v) ? 0x8000 : 0;
    int e = 0;
    const float m = std::frexp(std::fabs(v), &e); // v = m 2^e, m in [0.5, 1)
    const uint16_t mant = uint16_t(std::lround((m * 2 - 1) * 1024));
    return uint16_t((v < 0 ? 0x8000 : 0) | ((e - 1 + 15) << 10) | mant);
}

} // namespace

BOOST_AUTO_TEST_CASE(llr_formats_and_packed_bits)
{
    std::mt19937 rng(41);
    for (bool fixed : { true, false })
        for (const auto& KE : std::vector<std::pair<int, int>>{ { 8448, 10752 }, { 203, 610 } })
            for (int batch : { 1, 4, 7, 1030 }) { // 1030: chunks of 512 on CUDA
                if (batch > 7 && KE.first > 1000)
                    continue;
                const auto p = ldpc5g_params::make(KE.first, KE.second, 0, 2, 0, "qa");
                auto llr = noisy_llrs(p, sigma_for(p, 2.5), batch, rng);
                kernels::ldpc5g_decoder_config dc;
                dc.fixed_point = fixed;
                dc.fixed_scale = 4.0f;
                const std::size_t n = llr.size();
                std::vector<int8_t> q(n);
                std::vector<uint16_t> h(n);
                std::vector<float> from_q(n), from_h(n);
                for (std::size_t i = 0; i < n; ++i) {
                    const long s = std::lround(llr[i] * dc.fixed_scale);
                    q[i] = int8_t(std::clamp<long>(s, -128, 127)); // -128 occurs
                    from_q[i] = float(q[i]) / dc.fixed_scale;
                    from_h[i] = std::clamp(std::round(llr[i] * 8) / 8, -200.f, 200.f);
                    h[i] = exact_half(from_h[i]);
                }
                // Binary16 specials: subnormals, -0, infinities, NaN.
                const std::pair<uint16_t, float> special[] = {
                    { 0x0001, std::ldexp(1.f, -24) },
                    { 0x83ff, -std::ldexp(1023.f, -24) },
                    { 0x8000, -0.f },
                    { 0x7c00, INFINITY },
                    { 0xfc00, -INFINITY },
                    { 0x7e00, NAN }
                };
                for (std::size_t i = 0; i < std::size(special); ++i) {
                    h[3 * i] = special[i].first;
                    from_h[3 * i] = special[i].second;
                }
                kernels::ldpc5g_decoder_plan cpu(p, dc, {}, "qa cpu");
                kernels::ldpc5g_decoder_plan dev(p, dc, qa::test_device(), "qa dev");
                const std::size_t bytes = (p.K + 7) / 8;
                for (int format = 0; format < 3; ++format) {
                    const auto& ref_llr = format == 0 ? llr : format == 1 ? from_h : from_q;
                    const void* in = format == 0   ? (const void*)llr.data()
                                     : format == 1 ? (const void*)h.data()
                                                   : (const void*)q.data();
                    const auto fmt = format == 0   ? kernels::ldpc5g_llr_format::f32
                                     : format == 1 ? kernels::ldpc5g_llr_format::f16
                                                   : kernels::ldpc5g_llr_format::i8;
                    const auto ref = decode(cpu, p, ref_llr, batch);
                    for (bool packed : { false, true }) {
                        decoded d{ std::vector<uint8_t>(
                                       std::size_t(batch) * (packed ? bytes : p.K), 0x5a),
                                   std::vector<uint8_t>(batch, 9),
                                   std::vector<int32_t>(batch, -1) };
                        dev.decode(in,
                                   fmt,
                                   batch,
                                   d.bits.data(),
                                   packed,
                                   d.iterations.data(),
                                   d.ok.data());
                        if (packed) { // compare as unpacked; padding bits 0
                            std::vector<uint8_t> u(std::size_t(batch) * p.K);
                            for (int b = 0; b < batch; ++b) {
                                for (int i = 0; i < p.K; ++i)
                                    u[std::size_t(b) * p.K + i] =
                                        d.bits[b * bytes + i / 8] >> (7 - i % 8) & 1;
                                if (p.K % 8)
                                    BOOST_CHECK_EQUAL(d.bits[b * bytes + bytes - 1] &
                                                          (0xff >> (p.K % 8)),
                                                      0);
                            }
                            d.bits = u;
                        }
                        BOOST_TEST_CONTEXT("K=" << p.K << " fixed=" << fixed << " format="
                                                << format << " packed=" << packed
                                                << " batch=" << batch)
                        check_same(ref, d, fixed);
                    }
                }
            }
}
