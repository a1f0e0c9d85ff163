/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The split F-engine's arithmetic and data flow on the host (its kernels
// need a GPU): the FIR's permuted writes, the post-processing's pairs,
// tiles and runs (every channel of every input written exactly once, shared
// memory in bounds), and the whole form emulated as it runs — the FIR, the
// rows' N2-point FFTs in float (cuFFT's part), then every block and thread
// of the post-processing kernel with the shared functions of
// fengine_split.h — against a float64 polyphase filter bank, and through
// the CPU F-engine's corrections and quantiser against its int8 output.

#include "fengine_split.h"
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

int log2_exact(int u)
{
    int l = 0;
    while ((1 << l) < u)
        ++l;
    return l;
}

// The N2-point forward FFT of a row in float: the library's radix-8 FFT for
// powers of two, float64 rounded once otherwise (cuFFT's part; its bits
// differ from either, within float rounding).
void row_fft(cpx* row, int n2)
{
    if ((n2 & (n2 - 1)) == 0 && n2 > 1) {
        fft::fft_host(row, n2, fft::plan_radices(n2, 8), fft::twiddle_table(n2).data());
        return;
    }
    std::vector<cd> a(n2);
    for (int m = 0; m < n2; ++m)
        a[m] = cd(row[m].re, row[m].im);
    fft_double(a);
    for (int m = 0; m < n2; ++m)
        row[m] = { float(a[m].real()), float(a[m].imag()) };
}

template <int U>
void postproc_blocks(const std::vector<cpx>& spec,
                     int N,
                     int I,
                     int n_spectra,
                     std::vector<cpx>& X,
                     std::vector<int>& written)
{
    const int n2 = N / U;
    const auto tw = fft::twiddle_table(N);
    const auto fold = fft::fold_table(N);
    const split::tile t = split::tile_for(I, split::threads_for(U));
    BOOST_REQUIRE_LE(t.smem_elems(U), split::max_smem_elems(U));
    const int bx_count = (split::pairs(n2) + t.pairs - 1) / t.pairs;
    const int by_count = (I + t.inputs - 1) / t.inputs;
    std::vector<cpx> smem(std::size_t(t.smem_elems(U)));
    for (int s = 0; s < n_spectra; ++s)
        for (int by = 0; by < by_count; ++by)
            for (int bx = 0; bx < bx_count; ++bx) {
                // Compute phase: every thread its pair of its input.
                for (int th = 0; th < split::threads_for(U); ++th) {
                    const int pl = t.compute_pair(th), il = t.compute_input(th);
                    const int p = bx * t.pairs + pl, i = by * t.inputs + il;
                    if (p >= split::pairs(n2) || i >= I)
                        continue;
                    const cpx* rows = spec.data() + (std::size_t(s) * I + i) * N;
                    cpx za[U], zb[U], xa[U], xb[U];
                    for (int r = 0; r < U; ++r) {
                        za[r] = rows[std::size_t(r) * n2 + p];
                        zb[r] = rows[std::size_t(r) * n2 + split::mirror(p, n2)];
                    }
                    split::pair_channels<U>(
                        za, zb, p, n2, tw.data(), fold.data(), xa, xb);
                    for (int q = 0; q < U; ++q) {
                        smem[std::size_t(t.smem_index(q, pl, il))] = xa[q];
                        if (split::has_mirror(p, n2))
                            smem[std::size_t(t.smem_index(U + q, pl, il))] = xb[q];
                    }
                }
                // Store phase: every run, input-contiguous.
                for (int run = 0; run < 2 * U; ++run)
                    for (int th = 0; th < split::threads_for(U); ++th) {
                        const int pl = t.store_pair(th), il = t.store_input(th);
                        const int p = bx * t.pairs + pl, i = by * t.inputs + il;
                        if (!split::writes(p, run, n2, U) || i >= I)
                            continue;
                        const int k = split::channel(p, run, n2, U);
                        BOOST_REQUIRE(k >= 0 && k < N);
                        const std::size_t e = (std::size_t(s) * N + k) * I + i;
                        const int at = t.smem_index(run, pl, il);
                        BOOST_REQUIRE(at >= 0 && at < t.smem_elems(U));
                        X[e] = smem[std::size_t(at)];
                        ++written[e];
                    }
            }
}

// The split form on real input x[i] (T taps w): X[s][k][i], each value
// checked to be written exactly once.
std::vector<cpx> emulate_split(const std::vector<std::vector<float>>& x,
                               const std::vector<float>& w,
                               int N,
                               int T,
                               int U,
                               int n_spectra)
{
    const int I = int(x.size()), step = 2 * N, n2 = N / U, shift = log2_exact(U);
    // The FIR, written to the permuted place: [s][i][r][m] as pairs.
    const std::vector<float> plain = fir_float(x, w, N, T, n_spectra);
    std::vector<float> fir(plain.size());
    for (std::size_t row = 0; row < plain.size() / std::size_t(step); ++row)
        for (int j = 0; j < step; ++j)
            fir[row * step + std::size_t(split::fir_position(j, shift, n2))] =
                plain[row * step + std::size_t(j)];
    // cuFFT's part: every row's N2-point FFT.
    std::vector<cpx> spec(fir.size() / 2);
    for (std::size_t e = 0; e < spec.size(); ++e)
        spec[e] = { fir[2 * e], fir[2 * e + 1] };
    for (std::size_t row = 0; row < spec.size() / std::size_t(n2); ++row)
        row_fft(spec.data() + row * n2, n2);
    std::vector<cpx> X(std::size_t(n_spectra) * N * I, { NAN, NAN });
    std::vector<int> written(X.size(), 0);
    switch (U) {
    case 1:
        postproc_blocks<1>(spec, N, I, n_spectra, X, written);
        break;
    case 2:
        postproc_blocks<2>(spec, N, I, n_spectra, X, written);
        break;
    case 4:
        postproc_blocks<4>(spec, N, I, n_spectra, X, written);
        break;
    default:
        postproc_blocks<8>(spec, N, I, n_spectra, X, written);
    }
    for (std::size_t e = 0; e < written.size(); ++e)
        BOOST_REQUIRE_EQUAL(written[e], 1);
    return X;
}

} // namespace

// The FIR's place for each float column: a permutation of the spectrum's
// 2N floats that puts pair r + U m at row r, place m.
BOOST_AUTO_TEST_CASE(fir_positions_are_the_rows)
{
    for (int N : { 32, 40, 96, 1000, 4096 })
        for (int U : split::unzip_factors(N)) {
            const int n2 = N / U, shift = log2_exact(U);
            std::vector<int> seen(2 * N, 0);
            for (int j = 0; j < 2 * N; ++j) {
                const int at = split::fir_position(j, shift, n2);
                BOOST_REQUIRE(at >= 0 && at < 2 * N);
                ++seen[at];
                const int n = j / 2, row = (at / 2) / n2, place = (at / 2) % n2;
                BOOST_REQUIRE_EQUAL(row, n % U);
                BOOST_REQUIRE_EQUAL(place, n / U);
                BOOST_REQUIRE_EQUAL(at % 2, j % 2);
            }
            for (int v : seen)
                BOOST_REQUIRE_EQUAL(v, 1);
        }
}

BOOST_AUTO_TEST_CASE(unzip_factors_and_the_heuristic)
{
    BOOST_CHECK((split::unzip_factors(32768) == std::vector<int>{ 1, 2, 4, 8 }));
    BOOST_CHECK((split::unzip_factors(1000) == std::vector<int>{ 1, 2, 4, 8 }));
    BOOST_CHECK((split::unzip_factors(96) == std::vector<int>{ 1, 2 }));
    BOOST_CHECK((split::unzip_factors(31).empty()));
    BOOST_CHECK_EQUAL(split::heuristic_unzip(4096), 0); // one cuFFT pass already
    BOOST_CHECK_EQUAL(split::heuristic_unzip(8192), 2);
    BOOST_CHECK_EQUAL(split::heuristic_unzip(16384), 4);
    BOOST_CHECK_EQUAL(split::heuristic_unzip(32768), 8);
    BOOST_CHECK_EQUAL(split::heuristic_unzip(1 << 20), 8);
    BOOST_CHECK_EQUAL(split::heuristic_unzip(6000), 2);  // 3000-point rows
    BOOST_CHECK_EQUAL(split::heuristic_unzip(20000), 8); // 2500-point rows
}

// The whole form, emulated, against the float64 filter bank: every unzip
// factor, powers of two and not (odd rows: N2 = 125), 1 to 3 inputs and 70
// (three tiles of inputs), odd tap counts.
BOOST_AUTO_TEST_CASE(emulated_split_matches_float64)
{
    std::mt19937_64 rng(11);
    std::uniform_real_distribution<float> wd(-1, 1);
    struct shape {
        int N, T, inputs, n_spectra;
    };
    for (const shape& sh : { shape{ 32, 4, 3, 5 },
                             shape{ 256, 16, 2, 4 },
                             shape{ 1000, 5, 1, 3 },
                             shape{ 1200, 16, 2, 2 },
                             shape{ 64, 3, 70, 2 },
                             shape{ 8192, 16, 2, 2 },
                             shape{ 32768, 16, 1, 2 } })
        for (int U : split::unzip_factors(sh.N)) {
            if (sh.N >= 8192 && U == 1)
                continue; // the plain fold: covered at smaller N
            const int step = 2 * sh.N;
            auto x = ten_bit(sh.inputs, std::size_t(sh.n_spectra + sh.T - 1) * step, rng);
            std::vector<float> w(std::size_t(step) * sh.T);
            for (auto& v : w)
                v = wd(rng) * 0.05f;
            const auto got = emulate_split(x, w, sh.N, sh.T, U, sh.n_spectra);
            const auto want = pfb_double(x, w, sh.N, sh.T, sh.n_spectra);
            std::vector<cd> err(want.size());
            for (std::size_t e = 0; e < want.size(); ++e)
                err[e] = cd(got[e].re, got[e].im) - want[e];
            BOOST_TEST_MESSAGE("N=" << sh.N << " U=" << U << " T=" << sh.T << " I="
                                    << sh.inputs << ": rel rms " << rms(err) / rms(want));
            BOOST_REQUIRE_LT(rms(err) / rms(want), 1e-6);
        }
}

// Through the CPU F-engine's corrections and quantiser: the emulated form's
// int8 output equals the CPU plan's but for values within float rounding
// of a half (at most 1 in 1000, and by one step).
BOOST_AUTO_TEST_CASE(emulated_split_matches_the_cpu_fengine_ci8)
{
    std::mt19937_64 rng(12);
    for (const auto& nu : { std::make_pair(8192, 2), std::make_pair(2048, 8) }) {
        const int N = nu.first, U = nu.second, T = 16, n_spectra = 4;
        const auto ref = cpu_ci8_reference(N, T, 2, n_spectra, rng);
        check_ci8(
            ref, emulate_split(ref.x, ref.w, N, T, U, n_spectra), N, n_spectra, "split");
    }
}
