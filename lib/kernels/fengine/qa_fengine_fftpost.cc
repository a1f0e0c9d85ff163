/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The fused FFT and post-processing kernel's data flow on the host (the
// kernel needs a GPU): every CTA and thread of fengine_fftpost.cu emulated
// with the shared functions (fengine_fftpost.h, fengine_onepass.h,
// fengine_fft.h) in the kernel's order — the 16-byte loads of pairs into
// the padded shared memory, every FFT pass (all threads compute, then all
// store), the fold and the output map — checking that every load and
// value stays in bounds, every (spectrum, channel, input) is written once,
// and that a warp's lanes of a row are the ones the saturation reduction
// adds; against a float64 real FFT of the FIR's rows, and through the FIR
// and the CPU plan's corrections and quantiser against the CPU F-engine.
// The staged form (clusters that trade their values through distributed
// shared memory before writing them out) is emulated the same way: each
// cluster's staging buffers, every slot written once by its CTA of the
// cluster and written out once, in whole 16-byte runs where the kernel
// takes them so.

#include "fengine_fftpost.h"
#include "qa_fengine_reference.h"
#include <gnuradio/gpudsp/kernels/pfb_fengine.h>
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <complex>
#include <random>
#include <vector>

using namespace gr::gpudsp::kernels;
using namespace qa_fengine;
using fft::cpx;

namespace {

// The kernel on FIR rows fir[s][i][2N] (floats, as pairs): X[s][k][i];
// staged by clusters of \p cluster CTAs where it is more than 1.
std::vector<cpx> emulate_fftpost(
    const std::vector<float>& fir, int N, int I, int n_spectra, int rows, int cluster = 1)
{
    const fftpost::shape sh = fftpost::make_shape(N, rows, cluster);
    const onepass::geometry& g = sh.fft;
    const int P = sh.threads();
    BOOST_REQUIRE(P % 32 == 0 && P <= fftpost::max_threads);
    BOOST_REQUIRE_GE(sh.pairs_per_thread(), 1);
    BOOST_REQUIRE_LE(sh.values_per_thread(), onepass::max_values);
    BOOST_REQUIRE_EQUAL(sh.pairs_per_thread() * 2 * P, sh.points());
    const auto tw = fft::twiddle_table(N);
    const auto fold = fft::fold_table(N);
    // The FFT's buffer alone (the staging buffer after it is emulated apart).
    const int smem_points = onepass::geometry::phys(sh.points());
    BOOST_REQUIRE_EQUAL(sh.smem_bytes(), smem_points * 8 + sh.stage_bytes());
    std::vector<cpx> X(std::size_t(n_spectra) * N * I, { NAN, NAN });
    std::vector<int> written(X.size(), 0);
    // The grid, padded to whole clusters (launch_fftpost).
    const int ctas = (I + rows - 1) / rows,
              grid = (ctas + cluster - 1) / cluster * cluster;
    const int points = sh.points(), G = sh.group();
    // A cluster's staging buffers, by rank, and how often each slot is written.
    std::vector<std::vector<cpx>> stage{ std::size_t(cluster) };
    std::vector<std::vector<int>> staged{ std::size_t(cluster) };
    for (int s = 0; s < n_spectra; ++s)
        for (int bx = 0; bx < grid; ++bx) {
            const int i0 = bx * rows, rows_here = std::min(rows, I - i0);
            const int rank = bx % cluster, i0c = i0 - rank * rows; // (as the kernel)
            BOOST_REQUIRE_EQUAL(i0c, bx / cluster * sh.group());
            if (sh.staged() && rank == 0)
                for (int c = 0; c < cluster; ++c) {
                    stage[std::size_t(c)].assign(std::size_t(points), { NAN, NAN });
                    staged[std::size_t(c)].assign(std::size_t(points), 0);
                }
            std::vector<cpx> buf(std::size_t(smem_points), { NAN, NAN });
            // Load: pairs of points, zeros for rows past the last input.
            for (int t = 0; t < P; ++t)
                for (int k = 0; k < sh.pairs_per_thread(); ++k) {
                    const int m = 2 * sh.pair(t, k), row = m >> g.log2n;
                    const int at = onepass::geometry::phys(m);
                    BOOST_REQUIRE(at % 2 == 0 && at + 1 < smem_points); // 16-byte aligned
                    BOOST_REQUIRE_EQUAL(onepass::geometry::phys(m + 1), at + 1);
                    for (int h = 0; h < 2; ++h) {
                        cpx v{ 0.0f, 0.0f };
                        if (row < rows_here) {
                            const std::size_t e =
                                ((std::size_t(s) * I + i0) * N + std::size_t(m + h)) * 2;
                            v = { fir[e], fir[e + 1] };
                        }
                        buf[std::size_t(at + h)] = v;
                    }
                }
            // The FFT passes: every thread computes, then every thread stores.
            for (int pass = 0; pass < g.radices.passes; ++pass) {
                std::vector<std::vector<cpx>> v(std::size_t(P),
                                                std::vector<cpx>(onepass::max_values));
                for (int t = 0; t < P; ++t)
                    onepass::fft_pass_compute_at(
                        g, pass, t, buf.data(), 0, tw.data(), v[std::size_t(t)].data());
                for (int t = 0; t < P; ++t)
                    onepass::fft_pass_store_at(
                        g, pass, t, buf.data(), 0, v[std::size_t(t)].data());
            }
            // Fold and output.
            for (int t = 0; t < P; ++t)
                for (int vv = 0; vv < sh.values_per_thread(); ++vv) {
                    const int idx = sh.value(t, vv), r = sh.row_of(idx),
                              k = sh.channel_of(idx);
                    BOOST_REQUIRE(k >= 0 && k < N);
                    // The saturation reduction: lane l < rows adds the lanes of row l.
                    BOOST_REQUIRE_EQUAL(r, (t & 31) & (rows - 1));
                    const int base = r << g.log2n;
                    const cpx x = fft::real_fold(
                        buf[std::size_t(onepass::geometry::phys(base + k))],
                        buf[std::size_t(
                            onepass::geometry::phys(base + ((N - k) & (N - 1))))],
                        fold[std::size_t(k)]);
                    if (r >= rows_here)
                        continue;
                    if (sh.staged()) {
                        const int owner = sh.stage_owner(k),
                                  slot = sh.stage_slot(k, r, rank);
                        BOOST_REQUIRE(owner >= 0 && owner < cluster);
                        BOOST_REQUIRE(slot >= 0 && slot < points);
                        stage[std::size_t(owner)][std::size_t(slot)] = x;
                        ++staged[std::size_t(owner)][std::size_t(slot)];
                        continue;
                    }
                    const std::size_t e = (std::size_t(s) * N + k) * I + i0 + r;
                    X[e] = x;
                    ++written[e];
                }
            if (!sh.staged() || rank != cluster - 1)
                continue;
            // The cluster barrier, then each CTA's buffer written out as
            // write_staged does: 16-byte runs of 8 values of one channel
            // where the cluster's runs are whole (and the output aligned,
            // as the plan's buffers are), else value by value.
            const int V = fftpost::shape::store_values;
            const bool whole = G >= V && I % V == 0 && i0c + G <= I;
            for (int c = 0; c < cluster; ++c)
                for (int e0 = 0; e0 < points; e0 += whole ? V : 1) {
                    const int k = sh.staged_channel(c, e0), j = sh.staged_input(e0);
                    for (int h = 0; h < (whole ? V : 1); ++h) {
                        const int e = e0 + h;
                        if (whole) { // one store: one channel, consecutive inputs
                            BOOST_REQUIRE_EQUAL(sh.staged_channel(c, e), k);
                            BOOST_REQUIRE_EQUAL(sh.staged_input(e), j + h);
                        }
                        if (i0c + j + h >= I)
                            continue;
                        // What is written out was staged, once.
                        BOOST_REQUIRE_EQUAL(staged[std::size_t(c)][std::size_t(e)], 1);
                        const std::size_t o = (std::size_t(s) * N + k) * I + i0c + j + h;
                        X[o] = stage[std::size_t(c)][std::size_t(e)];
                        ++written[o];
                    }
                }
        }
    for (std::size_t e = 0; e < written.size(); ++e)
        BOOST_REQUIRE_EQUAL(written[e], 1);
    return X;
}

// The emulated kernel's X[s][k][i] against float64 real FFTs of the rows.
void check_against_float64(const std::vector<float>& fir,
                           const std::vector<cpx>& got,
                           int N,
                           int I,
                           int n_spectra)
{
    std::vector<cd> err, want_all;
    for (int s = 0; s < n_spectra; ++s)
        for (int i = 0; i < I; ++i) {
            std::vector<cd> y(2 * std::size_t(N));
            for (int j = 0; j < 2 * N; ++j)
                y[std::size_t(j)] =
                    fir[(std::size_t(s) * I + i) * 2 * N + std::size_t(j)];
            fft_double(y);
            for (int k = 0; k < N; ++k) {
                const cpx x = got[(std::size_t(s) * N + k) * I + i];
                err.push_back(cd(x.re, x.im) - y[std::size_t(k)]);
                want_all.push_back(y[std::size_t(k)]);
            }
        }
    BOOST_TEST_MESSAGE("  rel rms " << rms(err) / rms(want_all));
    BOOST_REQUIRE_LT(rms(err) / rms(want_all), 1e-6);
}

} // namespace

// The staging map, exhaustively: for every shape the kernel takes, each
// (channel, row, rank) of a cluster goes to one slot of one CTA's buffer,
// every slot of every buffer is taken once, and the write-out reads it back
// as that channel and the cluster's input rank x rows + row.
BOOST_AUTO_TEST_CASE(staging_maps_each_value_to_one_slot_and_back)
{
    BOOST_CHECK_EQUAL(fftpost::cluster_for(1, 1), 1);
    BOOST_CHECK_EQUAL(fftpost::cluster_for(2, 2), 1);
    BOOST_CHECK_EQUAL(fftpost::cluster_for(2, 1), 2);
    BOOST_CHECK_EQUAL(fftpost::cluster_for(5, 2), 4);
    BOOST_CHECK_EQUAL(fftpost::cluster_for(128, 2), 8);
    BOOST_CHECK(!fftpost::supported(1024, 2, 16));
    BOOST_CHECK(!fftpost::supported(1024, 2, 3));
    for (int N = 64; N <= 8192; N *= 2)
        for (int rows : { 1, 2, 4 })
            for (int q : { 2, 4, 8 }) {
                if (!fftpost::supported(N, rows, q))
                    continue;
                const auto sh = fftpost::make_shape(N, rows, q);
                BOOST_REQUIRE_EQUAL(sh.group(), rows * q);
                BOOST_REQUIRE_EQUAL(sh.staged_channels() * sh.group(), sh.points());
                BOOST_REQUIRE_EQUAL(sh.smem_bytes(),
                                    fftpost::make_shape(N, rows).smem_bytes() +
                                        2 * sh.points());
                BOOST_REQUIRE_EQUAL(sh.smem_bytes() % 16, 0); // the 16-byte write-out
                std::vector<int> hits(std::size_t(q) * sh.points(), 0);
                for (int rank = 0; rank < q; ++rank)
                    for (int k = 0; k < N; ++k)
                        for (int r = 0; r < rows; ++r) {
                            const int owner = sh.stage_owner(k),
                                      slot = sh.stage_slot(k, r, rank);
                            BOOST_REQUIRE(owner >= 0 && owner < q);
                            BOOST_REQUIRE(slot >= 0 && slot < sh.points());
                            BOOST_REQUIRE_EQUAL(owner, k / (N / q));
                            ++hits[std::size_t(owner) * sh.points() + slot];
                            BOOST_REQUIRE_EQUAL(sh.staged_channel(owner, slot), k);
                            BOOST_REQUIRE_EQUAL(sh.staged_input(slot), rank * rows + r);
                        }
                for (int h : hits)
                    BOOST_REQUIRE_EQUAL(h, 1);
            }
}

BOOST_AUTO_TEST_CASE(shapes_cover_what_they_claim)
{
    BOOST_CHECK(fftpost::supported(64, 1));
    BOOST_CHECK(fftpost::supported(4096, 2));
    BOOST_CHECK(fftpost::supported(8192, 1));
    BOOST_CHECK(!fftpost::supported(8192, 2));
    BOOST_CHECK(!fftpost::supported(32, 1));
    BOOST_CHECK(!fftpost::supported(1000, 1));
    BOOST_CHECK(!fftpost::supported(256, 3));
    for (int N = 64; N <= 8192; N *= 2)
        for (int rows : { 1, 2, 4 })
            if (fftpost::supported(N, rows)) {
                const auto sh = fftpost::make_shape(N, rows);
                BOOST_CHECK_EQUAL(sh.threads(),
                                  std::min(512, std::max(32, rows * N / 16)));
                BOOST_CHECK_LE(sh.smem_bytes(), 8 * 8192 * 17 / 16 + 16);
            }
}

// The emulated kernel against float64 real FFTs of random FIR rows: every
// supported N, 1, 2 and 4 rows a CTA, input counts that leave the last
// CTA's rows short.
BOOST_AUTO_TEST_CASE(emulated_fftpost_matches_float64)
{
    std::mt19937_64 rng(31);
    std::normal_distribution<float> d(0, 1000);
    for (int N = 64; N <= 8192; N *= 2)
        for (int rows : { 1, 2, 4 }) {
            if (!fftpost::supported(N, rows))
                continue;
            const int I = rows == 1 ? 2 : rows + 1, n_spectra = N >= 4096 ? 1 : 2;
            std::vector<float> fir(std::size_t(n_spectra) * I * 2 * N);
            for (auto& v : fir)
                v = d(rng);
            const auto got = emulate_fftpost(fir, N, I, n_spectra, rows);
            BOOST_TEST_MESSAGE("N=" << N << " rows=" << rows << " I=" << I);
            check_against_float64(fir, got, N, I, n_spectra);
        }
}

// The staged form, emulated the same way: clusters whose runs are whole
// (16-byte write-out), a last cluster cut short by the inputs, input
// counts that are no multiple of 8 (value by value), padding CTAs.
BOOST_AUTO_TEST_CASE(emulated_staged_fftpost_matches_float64)
{
    std::mt19937_64 rng(33);
    std::normal_distribution<float> d(0, 1000);
    struct when {
        int N, rows, I;
    };
    for (const when w : { when{ 64, 1, 5 },
                          when{ 64, 2, 40 },
                          when{ 256, 4, 48 },
                          when{ 1024, 2, 16 },
                          when{ 1024, 1, 3 },
                          when{ 4096, 2, 40 },
                          when{ 8192, 1, 9 } }) {
        const int q = fftpost::cluster_for(w.I, w.rows);
        BOOST_REQUIRE(q > 1 && fftpost::supported(w.N, w.rows, q));
        const int n_spectra = w.N >= 4096 ? 1 : 2;
        std::vector<float> fir(std::size_t(n_spectra) * w.I * 2 * w.N);
        for (auto& v : fir)
            v = d(rng);
        const auto got = emulate_fftpost(fir, w.N, w.I, n_spectra, w.rows, q);
        BOOST_TEST_MESSAGE("staged: N=" << w.N << " rows=" << w.rows << " I=" << w.I
                                        << " cluster=" << q);
        check_against_float64(fir, got, w.N, w.I, n_spectra);
    }
}

// Through the FIR and the CPU plan's corrections and quantiser: the int8
// output equals the CPU F-engine's but for values within float rounding of
// a half (at most 1 in 1000, and by one step). Staged too: 16 inputs in
// one cluster of 8 CTAs (whole runs), a dual-pol antenna in two CTAs.
BOOST_AUTO_TEST_CASE(emulated_fftpost_matches_the_cpu_fengine_ci8)
{
    std::mt19937_64 rng(32);
    struct when {
        int N, rows, I, cluster;
    };
    for (const when w : { when{ 4096, 2, 2, 1 },
                          when{ 1024, 4, 2, 1 },
                          when{ 1024, 2, 16, 8 },
                          when{ 4096, 1, 2, 2 } }) {
        const int T = 16, n_spectra = 5;
        const auto ref = cpu_ci8_reference(w.N, T, w.I, n_spectra, rng);
        const auto X = emulate_fftpost(fir_float(ref.x, ref.w, w.N, T, n_spectra),
                                       w.N,
                                       w.I,
                                       n_spectra,
                                       w.rows,
                                       w.cluster);
        check_ci8(ref, X, w.N, n_spectra, w.cluster > 1 ? "staged fftpost" : "fftpost");
    }
}
