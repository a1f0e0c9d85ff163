/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The one-pass F-engine kernel's arithmetic and data flow, on the host
// (the kernel itself needs a GPU): its FFT (fengine_fft.h) against a
// float64 FFT for every size and radix plan, every pass a permutation; the
// twiddle and fold tables; the 2N-point real fold; the geometry's maps
// (columns, owners, slots, destination points, butterflies, channels:
// each exactly once); and the whole kernel emulated as it runs (clusters of
// CTAs of threads, rounds, double buffers written across CTAs, barriers
// between phases, the same shared functions in the same order) against a
// float64 polyphase filter bank, and through the CPU F-engine's
// corrections and quantiser against its int8 output.

#include "fengine_onepass.h"
#include "kernels/common/packed10.h"
#include "pfb_fengine_impl.h"
#include "qa_fengine_reference.h"
#include <gnuradio/gpudsp/kernels/pfb_fengine.h>
#include <gnuradio/gpudsp/kernels/unpack10.h>
#include <boost/test/unit_test.hpp>
#include <algorithm>
#include <cmath>
#include <complex>
#include <random>
#include <vector>

using namespace gr::gpudsp::kernels;
using fft::cpx;
using namespace qa_fengine;

// The kernel's packed decode: 4 samples from the 5 or 6 bytes they span,
// equal to packed10_sample at every start (every bit offset), up to the
// stream's last group (reading nothing past it: the sanitizer build checks).
BOOST_AUTO_TEST_CASE(packed10_four_equals_four_samples)
{
    std::mt19937_64 rng(7);
    for (int64_t n : { 4, 5, 8, 12, 64, 1001 }) {
        std::vector<uint8_t> bytes(std::size_t(packed10_bytes(n)));
        for (auto& b : bytes)
            b = uint8_t(rng());
        const std::vector<uint8_t> stream(bytes); // exactly the stream's bytes
        for (int64_t i = 0; i + 4 <= n; ++i) {
            float got[4];
            packed10_four(stream.data(), i, got);
            for (int m = 0; m < 4; ++m)
                BOOST_REQUIRE_EQUAL(got[m], float(packed10_sample(stream.data(), i + m)));
        }
    }
}

BOOST_AUTO_TEST_CASE(fft_matches_float64_for_every_size_and_radix)
{
    std::mt19937_64 rng(1);
    std::normal_distribution<float> u(0, 1);
    for (int n = 2; n <= 8192; n *= 2) {
        const auto table = fft::twiddle_table(n);
        for (int max_radix : { 2, 4, 8 }) {
            const auto plan = fft::plan_radices(n, max_radix);
            int product = 1;
            for (int p = 0; p < plan.passes; ++p) {
                BOOST_REQUIRE(plan.radix(p) == 2 || plan.radix(p) == 4 ||
                              plan.radix(p) == 8);
                BOOST_REQUIRE_LE(plan.radix(p), max_radix);
                BOOST_REQUIRE_EQUAL(plan.stride_before(p), product);
                product *= plan.radix(p);
            }
            BOOST_REQUIRE_EQUAL(product, n);
            std::vector<cpx> x(n);
            std::vector<cd> want(n);
            for (int m = 0; m < n; ++m) {
                x[m] = { u(rng), u(rng) };
                want[m] = cd(x[m].re, x[m].im);
            }
            fft::fft_host(x.data(), n, plan, table.data());
            fft_double(want);
            std::vector<cd> err(n);
            for (int m = 0; m < n; ++m)
                err[m] = cd(x[m].re, x[m].im) - want[m];
            // float's rounding grows as sqrt(log2 n) (rms, relative)
            BOOST_REQUIRE_LT(rms(err) / rms(want),
                             2e-7 * std::sqrt(std::log2(double(n))) + 1e-7);
        }
    }
}

BOOST_AUTO_TEST_CASE(every_pass_is_a_permutation_with_in_range_twiddles_loaded_together)
{
    for (int n = 2; n <= 8192; n *= 2)
        for (int max_radix : { 2, 4, 8 }) {
            const auto plan = fft::plan_radices(n, max_radix);
            std::vector<fft::cpx> marks(n); // entry q holds q
            for (int q = 0; q < n; ++q)
                marks[q] = { float(q), 0.0f };
            for (int p = 0; p < plan.passes; ++p) {
                const int r = plan.radix(p);
                std::vector<int> read(n, 0), written(n, 0);
                for (int b = 0; b < n / r; ++b) {
                    const fft::butterfly bf{
                        fft::log2_of(n), plan.radix_bits(p), plan.stride_bits(p), b
                    };
                    // the shifts and masks are the Stockham map's divisions
                    const int ns = plan.stride_before(p);
                    for (int e = 0; e < r; ++e) {
                        BOOST_REQUIRE_EQUAL(bf.in(e), b + e * (n / r));
                        BOOST_REQUIRE_EQUAL(bf.out(e),
                                            (b / ns) * ns * r + (b % ns) + e * ns);
                        BOOST_REQUIRE_EQUAL(bf.twiddle(e), e * (b % ns) * (n / (ns * r)));
                    }
                    // The kernel's twiddle loads (all of them from e q1, under
                    // one test) give the table's entry twiddle(e) for every input.
                    fft::cpx w[8];
                    const bool twiddled =
                        r == 8 ? fft::load_twiddles<8>(bf, marks.data(), w)
                               : (r == 4 ? fft::load_twiddles<4>(bf, marks.data(), w)
                                         : fft::load_twiddles<2>(bf, marks.data(), w));
                    bool any = false;
                    for (int e = 1; e < r; ++e)
                        any = any || bf.twiddle(e) != 0;
                    BOOST_REQUIRE_EQUAL(twiddled, any);
                    for (int e = 1; twiddled && e < r; ++e)
                        BOOST_REQUIRE_EQUAL(w[e].re, float(bf.twiddle(e)));
                    for (int e = 0; e < r; ++e) {
                        ++read[bf.in(e)];
                        ++written[bf.out(e)];
                        BOOST_REQUIRE(bf.twiddle(e) >= 0 && bf.twiddle(e) < n);
                    }
                }
                for (int m = 0; m < n; ++m)
                    BOOST_REQUIRE(read[m] == 1 && written[m] == 1);
            }
        }
}

BOOST_AUTO_TEST_CASE(tables_are_the_roots_rounded_once)
{
    for (int n : { 4, 8, 256, 4096, 8192 }) {
        const auto t = fft::twiddle_table(n);
        const auto f = fft::fold_table(n);
        for (int q = 0; q < n; ++q) {
            const cd w = std::polar(1.0, -2.0 * M_PI * q / n);
            BOOST_REQUIRE_SMALL(t[q].re - w.real(), 6e-8);
            BOOST_REQUIRE_SMALL(t[q].im - w.imag(), 6e-8);
            const cd h = std::polar(1.0, -M_PI * q / n);
            BOOST_REQUIRE_SMALL(f[q].re - h.real(), 6e-8);
            BOOST_REQUIRE_SMALL(f[q].im - h.imag(), 6e-8);
        }
        BOOST_REQUIRE(t[n / 4].re == 0.0f && t[n / 4].im == -1.0f); // -i, exactly
        BOOST_REQUIRE(t[n / 2].re == -1.0f && t[n / 2].im == 0.0f);
        BOOST_REQUIRE(f[n / 2].re == 0.0f && f[n / 2].im == -1.0f);
    }
}

BOOST_AUTO_TEST_CASE(real_fold_gives_the_real_fft)
{
    std::mt19937_64 rng(2);
    std::normal_distribution<float> u(0, 100);
    for (int n : { 2, 4, 16, 256, 4096 }) {
        std::vector<float> y(2 * n);
        for (auto& v : y)
            v = u(rng);
        std::vector<cpx> z(n);
        for (int m = 0; m < n; ++m)
            z[m] = { y[2 * m], y[2 * m + 1] };
        fft::fft_host(z.data(), n, fft::plan_radices(n, 8), fft::twiddle_table(n).data());
        const auto fold = fft::fold_table(n);
        std::vector<cd> want(2 * n);
        for (int j = 0; j < 2 * n; ++j)
            want[j] = y[j];
        fft_double(want);
        want.resize(n);
        std::vector<cd> err(n);
        for (int k = 0; k < n; ++k) {
            const cpx x = fft::real_fold(z[k], z[(n - k) % n], fold[k]);
            err[k] = cd(x.re, x.im) - want[k];
        }
        BOOST_REQUIRE_LT(rms(err) / rms(want), 1e-6);
    }
}

// Every supported shape: columns, owners and slots, destination points,
// butterflies and fold channels each covered exactly once; resources in
// bounds.
BOOST_AUTO_TEST_CASE(geometry_covers_everything_once)
{
    for (int N = onepass::min_channels; N <= onepass::max_channels; N *= 2)
        for (int T : { 1, 4, 5, 8, 16 })
            for (int per_round : { 1, 2, 4 })
                for (int hint : { 1, 64, 100, 1000 }) {
                    BOOST_REQUIRE(onepass::supported(N, T, false));
                    BOOST_REQUIRE(!onepass::supported(N, T, true));
                    const auto g = onepass::make_geometry(N, T, per_round, hint);
                    BOOST_REQUIRE_LE(g.cluster, onepass::max_cluster);
                    BOOST_REQUIRE_EQUAL(g.cluster * g.cols_per_cta, 2 * N);
                    BOOST_REQUIRE_EQUAL(g.threads * onepass::cols_per_thread,
                                        g.cols_per_cta);
                    BOOST_REQUIRE(g.threads >= 32 && g.threads <= 256 &&
                                  g.threads % 32 == 0);
                    BOOST_REQUIRE_EQUAL(g.section % g.spectra_per_round(), 0);
                    BOOST_REQUIRE_GE(g.section, hint);
                    BOOST_REQUIRE_LE(g.smem_bytes(), 227 * 1024);
                    BOOST_REQUIRE_LE(g.channels_per_thread(), onepass::max_values);
                    BOOST_REQUIRE_EQUAL(g.channels_per_thread() * g.threads,
                                        g.per_round * N);
                    int rounds_slots = 0;
                    std::vector<int> seen(g.cluster * g.per_round, 0);
                    for (int u = 0; u < g.spectra_per_round(); ++u) {
                        BOOST_REQUIRE(g.owner(u) >= 0 && g.owner(u) < g.cluster);
                        BOOST_REQUIRE(g.slot(u) >= 0 && g.slot(u) < g.per_round);
                        ++seen[g.owner(u) * g.per_round + g.slot(u)];
                        ++rounds_slots;
                        BOOST_REQUIRE_EQUAL(g.slot(u) * g.cluster + g.owner(u), u);
                    }
                    for (int c : seen)
                        BOOST_REQUIRE_EQUAL(c, 1);
                    // Each owner buffer point written once per spectrum.
                    for (int parity : { 0, 1 })
                        for (int u = 0; u < g.spectra_per_round(); ++u) {
                            std::vector<int> pts(2 * g.buffer_points(), 0);
                            for (int q = 0; q < g.cluster; ++q)
                                for (int t = 0; t < g.threads; ++t) {
                                    const int d = onepass::dest_point(
                                        g, u, parity, g.first_column(q, t));
                                    BOOST_REQUIRE(d >= 0 &&
                                                  d + 1 < 2 * g.buffer_points());
                                    ++pts[d];
                                    ++pts[d + 1];
                                }
                            const int base = (parity * g.per_round + g.slot(u)) * N;
                            for (int m = 0; m < 2 * g.buffer_points(); ++m)
                                BOOST_REQUIRE_EQUAL(pts[m],
                                                    m >= base && m < base + N ? 1 : 0);
                        }
                    // Every FFT pass: every butterfly of every slot by one thread,
                    // at most max_values values per thread.
                    for (int p = 0; p < g.radices.passes; ++p) {
                        const int r = g.radices.radix(p);
                        BOOST_REQUIRE_LE(r, g.max_radix);
                        BOOST_REQUIRE_LE(g.butterflies_per_thread(r) * r,
                                         onepass::max_values);
                        BOOST_REQUIRE_GE(g.per_round * N / r, g.threads); // all busy
                        std::vector<int> b(g.per_round * N / r, 0);
                        for (int t = 0; t < g.threads; ++t)
                            for (int k = 0; k < g.butterflies_per_thread(r); ++k) {
                                const int beta = t + k * g.threads;
                                if (beta < int(b.size()))
                                    ++b[beta];
                            }
                        for (int c : b)
                            BOOST_REQUIRE_EQUAL(c, 1);
                    }
                    std::vector<int> ch(g.per_round * N, 0);
                    for (int t = 0; t < g.threads; ++t)
                        for (int v = 0; v < g.channels_per_thread(); ++v)
                            ++ch[t + v * g.threads];
                    for (int c : ch)
                        BOOST_REQUIRE_EQUAL(c, 1);
                }
}

namespace {

// Shared memory's cost of one warp instruction: each group of lanes that
// the hardware serves together (16 lanes for 8-byte accesses, 8 for
// 16-byte ones: 128 bytes) takes as many wavefronts as the most distinct
// 4-byte words any of the 32 banks holds; 1 is conflict-free.
int wavefronts(const std::vector<int>& first_words, int words_per_lane)
{
    const int group = 32 / words_per_lane * 1; // lanes whose words fill 128 bytes
    const int per = 128 / (4 * words_per_lane);
    int worst = 0;
    for (std::size_t g0 = 0; g0 < first_words.size(); g0 += std::size_t(per)) {
        std::vector<std::vector<int>> bank(32);
        for (std::size_t l = g0; l < std::min(first_words.size(), g0 + std::size_t(per));
             ++l)
            for (int w = 0; w < words_per_lane; ++w) {
                const int word = first_words[l] + w;
                auto& b = bank[std::size_t(word % 32)];
                if (std::find(b.begin(), b.end(), word) == b.end())
                    b.push_back(word);
            }
        for (const auto& b : bank)
            worst = std::max(worst, int(b.size()));
    }
    (void)group;
    return worst;
}

} // namespace

// The buffers' padding (geometry::phys): a one-to-one map that keeps a
// thread's pair of points whole and 16-byte aligned, and that spreads the
// FFT's strided stores, its loads, the fold's reads and the FIR's 16-byte
// stores over the banks: at most 2 wavefronts per 128 bytes (1 is
// conflict-free) in every geometry the plan runs (the heuristic's g and
// the tuner's 2g), where without it the first passes' stores take 8.
BOOST_AUTO_TEST_CASE(shared_memory_accesses_spread_over_the_banks)
{
    using onepass::geometry;
    int worst_padded = 0, worst_plain = 0;
    for (int N = onepass::min_channels; N <= onepass::max_channels; N *= 2)
        for (int per_round :
             { onepass::default_per_round(N), 2 * onepass::default_per_round(N) }) {
            const auto g = onepass::make_geometry(N, 16, per_round, 1);
            const int total = 2 * g.buffer_points();
            for (int m = 0; m < total; ++m) {
                BOOST_REQUIRE_LT(geometry::phys(m), g.rotation_point());
                if (m)
                    BOOST_REQUIRE_GT(geometry::phys(m), geometry::phys(m - 1));
                if (m % 2 == 0) {
                    BOOST_REQUIRE_EQUAL(geometry::phys(m) % 2, 0); // 16-byte aligned pair
                    BOOST_REQUIRE_EQUAL(geometry::phys(m + 1), geometry::phys(m) + 1);
                }
            }
            auto words = [](int point, bool padded) {
                return 2 * (padded ? geometry::phys(point) : point);
            };
            for (const bool padded : { true, false }) {
                int worst = 0;
                for (int w = 0; w < g.threads / 32; ++w) {
                    // The FFT: each pass's loads and stores, one instruction
                    // per (butterfly k, input e) across the warp's lanes.
                    for (int p = 0; p < g.radices.passes; ++p) {
                        const int lr = g.radices.radix_bits(p),
                                  lns = g.radices.stride_bits(p);
                        const int R = 1 << lr, nb = N / R;
                        for (int k = 0; k < g.butterflies_per_thread(R); ++k)
                            for (int e = 0; e < R; ++e) {
                                std::vector<int> in, out;
                                for (int lane = 0; lane < 32; ++lane) {
                                    const int beta = 32 * w + lane + k * g.threads;
                                    const fft::butterfly bf{
                                        g.log2n, lr, lns, beta % nb
                                    };
                                    const int base = (beta / nb) * N;
                                    in.push_back(words(base + bf.in(e), padded));
                                    out.push_back(words(base + bf.out(e), padded));
                                }
                                worst = std::max(
                                    { worst, wavefronts(in, 2), wavefronts(out, 2) });
                            }
                    }
                    // The fold's two reads per channel.
                    for (int v = 0; v < g.channels_per_thread(); ++v) {
                        std::vector<int> a, b;
                        for (int lane = 0; lane < 32; ++lane) {
                            const int idx = 32 * w + lane + v * g.threads;
                            const int base = (idx / N) * N, k = idx % N;
                            a.push_back(words(base + k, padded));
                            b.push_back(words(base + (N - k) % N, padded));
                        }
                        worst = std::max({ worst, wavefronts(a, 2), wavefronts(b, 2) });
                    }
                    // The FIR's 16-byte stores into an owner's buffer.
                    for (int q = 0; q < g.cluster; ++q) {
                        std::vector<int> st;
                        for (int lane = 0; lane < 32; ++lane)
                            st.push_back(
                                words(onepass::dest_point(
                                          g, 0, 1, g.first_column(q, 32 * w + lane)),
                                      padded));
                        worst = std::max(worst, wavefronts(st, 4));
                    }
                }
                (padded ? worst_padded : worst_plain) =
                    std::max(padded ? worst_padded : worst_plain, worst);
            }
        }
    BOOST_TEST_MESSAGE("most wavefronts per 128 bytes: " << worst_padded << " padded, "
                                                         << worst_plain << " without");
    BOOST_REQUIRE_LE(worst_padded, 2);
    BOOST_REQUIRE_GT(worst_plain, worst_padded);
}

namespace {

// ---------------------------------------------------------------------------
// The kernel, emulated: what each thread of each CTA of each cluster does,
// phase by phase, a barrier being the end of a phase for every thread.
// Input: per input, the samples from spectrum 0's first row on (row r,
// column j at r * 2N + j); returns X[s][k][i] (before corrections).

template <int MAXT>
std::vector<cpx> emulate(const onepass::geometry& g,
                         const std::vector<std::vector<float>>& x,
                         const std::vector<float>& weights,
                         int n_spectra)
{
    const int N = g.n_channels, step = 2 * N, I = int(x.size()), T = g.taps;
    const auto table = fft::twiddle_table(N);
    const auto fold = fft::fold_table(N);
    std::vector<cpx> out(std::size_t(n_spectra) * N * I, cpx{ NAN, NAN }); // poisoned
    const int sections = (n_spectra + g.section - 1) / g.section;
    for (int i = 0; i < I; ++i)
        for (int sec = 0; sec < sections; ++sec) {
            const int s_begin = sec * g.section;
            const int s_end = std::min(n_spectra, s_begin + g.section);
            auto sample = [&](int row, int j) {
                return row < 0 ? 0.0f : x[i][std::size_t(row) * step + j];
            };
            std::vector<std::vector<onepass::fir_state<MAXT>>> st(
                g.cluster, std::vector<onepass::fir_state<MAXT>>(g.threads));
            std::vector<std::vector<cpx>> smem(
                g.cluster, std::vector<cpx>(g.rotation_point(), cpx{ NAN, NAN }));
            for (int q = 0; q < g.cluster; ++q)
                for (int t = 0; t < g.threads; ++t) {
                    const int j0 = g.first_column(q, t);
                    onepass::load_taps(st[q][t], weights.data(), step, T, j0);
                    for (int c = 0; c < onepass::cols_per_thread; ++c)
                        for (int tt = 1; tt < MAXT; ++tt)
                            st[q][t].x[c][tt] =
                                sample(onepass::warm_row(s_begin, T, MAXT, tt), j0 + c);
                }
            int round = 0;
            for (int r0 = s_begin; r0 < s_end; r0 += g.spectra_per_round(), ++round) {
                const int parity = round & 1;
                // Phase 1: FIR of the round's spectra, to their owners.
                for (int u = 0; u < g.spectra_per_round(); ++u) {
                    const int s = r0 + u;
                    for (int q = 0; q < g.cluster; ++q)
                        for (int t = 0; t < g.threads; ++t) {
                            const int j0 = g.first_column(q, t);
                            float row[onepass::cols_per_thread];
                            for (int c = 0; c < onepass::cols_per_thread; ++c)
                                row[c] = s < s_end ? sample(s + T - 1, j0 + c) : 0.0f;
                            onepass::slide(st[q][t], row);
                            float y[onepass::cols_per_thread];
                            for (int c = 0; c < onepass::cols_per_thread; ++c)
                                y[c] = onepass::fir_column(st[q][t], c);
                            cpx* dst = smem[g.owner(u)].data() +
                                       onepass::geometry::phys(
                                           onepass::dest_point(g, u, parity, j0));
                            dst[0] = { y[0], y[1] };
                            dst[1] = { y[2], y[3] };
                        }
                }
                // (cluster barrier) Phase 2: each CTA's FFT passes.
                for (int q = 0; q < g.cluster; ++q) {
                    cpx* buf = smem[q].data();
                    const int lbase = parity * g.buffer_points();
                    for (int p = 0; p < g.radices.passes; ++p) {
                        std::vector<std::vector<cpx>> v(
                            g.threads, std::vector<cpx>(onepass::max_values));
                        for (int t = 0; t < g.threads; ++t)
                            onepass::fft_pass_compute_at(
                                g, p, t, buf, lbase, table.data(), v[t].data());
                        // (barrier)
                        for (int t = 0; t < g.threads; ++t)
                            onepass::fft_pass_store_at(g, p, t, buf, lbase, v[t].data());
                        // (barrier)
                    }
                    // Phase 3: fold and write each channel.
                    for (int t = 0; t < g.threads; ++t)
                        for (int v = 0; v < g.channels_per_thread(); ++v) {
                            int sigma, k;
                            const cpx X = onepass::fold_at(
                                g, buf, lbase, fold.data(), t, v, sigma, k);
                            const int s = r0 + sigma * g.cluster + q;
                            if (s < s_end)
                                out[(std::size_t(s) * N + k) * I + i] = X;
                        }
                }
            }
        }
    return out;
}

std::vector<cpx> emulate_any(const onepass::geometry& g,
                             const std::vector<std::vector<float>>& x,
                             const std::vector<float>& w,
                             int n_spectra)
{
    return onepass::window_for(g.taps) == 8 ? emulate<8>(g, x, w, n_spectra)
                                            : emulate<16>(g, x, w, n_spectra);
}

} // namespace

// The emulated kernel against float64, every supported N, odd and full tap
// counts, 1, 2 and 4 spectra per round, sections that end mid-round and
// calls whose spectra are not a multiple of anything.
BOOST_AUTO_TEST_CASE(emulated_kernel_matches_float64)
{
    std::mt19937_64 rng(3);
    std::uniform_real_distribution<float> wd(-1, 1);
    struct shape {
        int N, T, per_round, section, n_spectra, inputs;
    };
    for (const shape& sh : { shape{ 256, 16, 4, 8, 37, 2 },
                             shape{ 256, 3, 1, 5, 11, 1 },
                             shape{ 512, 16, 2, 12, 29, 2 },
                             shape{ 1024, 8, 2, 8, 19, 2 },
                             shape{ 1024, 16, 1, 4, 9, 1 },
                             shape{ 2048, 13, 1, 8, 17, 1 },
                             shape{ 4096, 16, 1, 8, 13, 2 },
                             shape{ 4096, 1, 4, 32, 35, 1 },
                             shape{ 2048, 16, 4, 16, 21, 1 } }) {
        const auto g = onepass::make_geometry(sh.N, sh.T, sh.per_round, sh.section);
        const int step = 2 * sh.N;
        auto x = ten_bit(sh.inputs, std::size_t(sh.n_spectra + sh.T - 1) * step, rng);
        std::vector<float> w(std::size_t(step) * sh.T);
        for (auto& v : w)
            v = wd(rng) * 0.05f;
        const auto got = emulate_any(g, x, w, sh.n_spectra);
        const auto want = pfb_double(x, w, sh.N, sh.T, sh.n_spectra);
        std::vector<cd> err(want.size());
        for (std::size_t e = 0; e < want.size(); ++e) {
            BOOST_REQUIRE(std::isfinite(got[e].re) &&
                          std::isfinite(got[e].im)); // all written
            err[e] = cd(got[e].re, got[e].im) - want[e];
        }
        BOOST_TEST_MESSAGE("N=" << sh.N << " T=" << sh.T << " rel rms "
                                << rms(err) / rms(want));
        BOOST_REQUIRE_LT(rms(err) / rms(want), 1e-6);
    }
}

// Through the CPU F-engine's corrections and quantiser (the same rotation
// table and rules the kernel applies): the int8 output of the emulated
// kernel equals the CPU plan's, but for values within float rounding of a
// half (at most 1 in 1000, and by one step).
BOOST_AUTO_TEST_CASE(emulated_kernel_matches_the_cpu_fengine_ci8)
{
    std::mt19937_64 rng(4);
    for (int N : { 256, 1024, 4096 }) {
        const int T = 16, n_spectra = 11;
        const auto ref = cpu_ci8_reference(N, T, 2, n_spectra, rng);
        const auto g = onepass::make_geometry(N, T, 1, 4);
        check_ci8(ref, emulate_any(g, ref.x, ref.w, n_spectra), N, n_spectra, "one pass");
    }
}
