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

#include "qa_common.h"
#include <gnuradio/gpudsp/kernels/ldpc5g.h>
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
    // batch sizes: fixed point identical (bits, iterations, pass),
    // float mode the same bits and iterations here.
    std::mt19937 rng(9);
    std::normal_distribution<float> g;
    struct cfg {
        int K, E, Qm;
        bool layered;
        double ebn0;
    };
    for (const auto& k : std::vector<cfg>{ { 1000, 2000, 2, true, 1.8 },
                                           { 8448, 10752, 2, true, 3.0 },
                                           { 500, 2500, 4, false, 1.0 },
                                           { 3000, 4500, 2, true, 2.2 } })
        for (int batch : { 1, 3, 17 })
            for (bool fixed : { true, false }) {
                const auto p = ldpc5g_params::make(k.K, k.E, 0, k.Qm, 0, "qa");
                kernels::ldpc5g_encoder_core enc(p);
                const double sigma = std::sqrt(
                    1.0 / (2.0 * double(k.K) / k.E * std::pow(10.0, k.ebn0 / 10)));
                std::vector<float> llr(std::size_t(batch) * p.E);
                for (int b = 0; b < batch; ++b) {
                    const auto info = random_bits(p.K, rng());
                    std::vector<uint8_t> tx(p.E);
                    enc.encode(info.data(), tx.data());
                    for (int e = 0; e < p.E; ++e) {
                        const double y = (tx[e] ? -1.0 : 1.0) + sigma * g(rng);
                        llr[std::size_t(b) * p.E + e] = float(2 * y / (sigma * sigma));
                    }
                }
                kernels::ldpc5g_decoder_config dc;
                dc.fixed_point = fixed;
                dc.layered = k.layered;
                dc.max_iterations = 12;
                kernels::ldpc5g_decoder_plan cpu(p, dc, {}, "qa cpu");
                kernels::ldpc5g_decoder_plan dev(p, dc, qa::test_device(), "qa dev");
                std::vector<uint8_t> b1(std::size_t(batch) * p.K), b2(b1.size(), 9),
                    o1(batch), o2(batch, 9);
                std::vector<int32_t> i1(batch), i2(batch, -1);
                cpu.decode(llr.data(), batch, b1.data(), i1.data(), o1.data());
                dev.decode(llr.data(), batch, b2.data(), i2.data(), o2.data());
                if (fixed) {
                    BOOST_CHECK(b1 == b2);
                    BOOST_CHECK(i1 == i2);
                    BOOST_CHECK(o1 == o2);
                } else {
                    // Float rounding may differ (FMA contraction on the
                    // GPU): a codeword's outcome agrees, bits nearly all.
                    std::size_t diff = 0;
                    for (std::size_t i = 0; i < b1.size(); ++i)
                        diff += b1[i] != b2[i];
                    BOOST_CHECK_LE(diff, b1.size() / 1000 + 2);
                    for (int b = 0; b < batch; ++b)
                        BOOST_CHECK_LE(std::abs(i1[b] - i2[b]), 2);
                }
            }
}

// --- The golden model -------------------------------------------------------
// A plain scalar decoder written from ldpc5g_impl.h's per-check functions
// (the ones the CUDA kernel runs, one check at a time, messages stored per
// check as a struct): the CPU backend's vectorised row passes must give the
// same bits, iterations and parity result, in fixed point and in float.

#include "kernels/ldpc5g_impl.h"

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
