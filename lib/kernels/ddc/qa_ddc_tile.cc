/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The CUDA DDC tile kernel's arithmetic on the host (kernels/ddc/ddc_tile.h):
// (a NaN sample reaches exactly the outputs whose window holds it, as on
// the CPU;)
// shapes fit each architecture's shared memory with whole warps; the tile
// layout is one-to-one and the register windows of a warp fall in 32
// different banks (float) or 16 different bank pairs per half warp
// (complex); and the kernel's steps run on the host — tile loading with
// zeros past the valid samples, ddc_tile_partial for every thread and phase
// group, the fixed-order sum of the groups — give the CPU plan's outputs for
// odd D and T, every sample format, several tiles, at the smallest and
// largest shared-memory limits. Also execute_together's chunks
// (kernels/ddc/ddc_schedule.h): every output of every span exactly once, in the
// chunk holding its window's last sample, chunk after chunk.

#include "ddc_schedule.h"
#include "ddc_tile.h"
#include "kernels/common/packed10.h"
#include "qa_ddc_common.h"
#include <gnuradio/gpudsp/kernels/ddc.h>
#include <gnuradio/gpudsp/kernels/unpack10.h>
#include <cmath>
#include <cstring>
#include <set>

using namespace gr::gpudsp;
using namespace gr::gpudsp::kernels;

namespace {

// Per-block limits of sm_75, sm_86/89, sm_80, sm_90 (opt-in).
constexpr std::size_t limits[] = { 65536, 101376, 166912, 232448 };

} // namespace

namespace {

// What every shape the plan may run must satisfy: it fits, its layout is
// one-to-one, the loader's walk is right, a warp's window loads hit 32
// banks. (Spans over \p max_span skip the sample-by-sample checks.)
void check_shape(const ddc_tile_shape& sh, bool cplx, std::size_t limit, int max_span)
{
    const int D = sh.D, T = sh.T, R = sh.R();
    const int eb = cplx ? 8 : 4;
    BOOST_REQUIRE_LE(ddc_tile_shared_bytes(sh, eb), limit);
    BOOST_REQUIRE(sh.TW % 32 == 0 && sh.threads() <= ddc_tile_max_threads);
    BOOST_REQUIRE(sh.G >= 1 && sh.G <= D);
    BOOST_REQUIRE(sh.AC == 4 || (sh.AC == 8 && sh.A >= 8));
    // (16 in the ring kernel only; R = 4 with AC = 8 only)
    BOOST_REQUIRE(R == 8 || (!cplx && R == 4 && sh.AC == 8));
    BOOST_REQUIRE(ddc_tile_r_built(R, sh.AC, cplx, false));
    BOOST_REQUIRE_EQUAL(sh.A, (T + D - 1) / D);
    BOOST_REQUIRE_EQUAL(ddc_tile_tile_offset(sh) % 8, 0u);
    BOOST_REQUIRE_EQUAL(ddc_tile_parts_offset(sh, eb) % 8, 0u);
    BOOST_REQUIRE_EQUAL(sh.M, sh.TW * R);
    BOOST_REQUIRE_EQUAL(sh.span, (sh.M + sh.A - 1) * D);
    if (sh.span <= max_span) {
        // one-to-one, inside the tile
        std::vector<char> used(std::size_t(D) * sh.row_stride, 0);
        for (int s = 0; s < sh.span; ++s) {
            const int a = ddc_tile_addr(sh, s);
            BOOST_REQUIRE(a >= 0 && a < D * sh.row_stride);
            BOOST_REQUIRE(!used[a]);
            used[a] = 1;
        }
        // the loader's incremental walk, as the block's threads run it
        for (int tid : { 0, 1, 37 % sh.threads(), sh.threads() - 1 })
            ddc_tile_for_samples(sh, tid, sh.threads(), [&](int s, int at) {
                BOOST_REQUIRE_EQUAL(at, ddc_tile_addr(sh, s));
            });
    }
    // a warp's window loads (threads t0..t0+31, same p, a0, i)
    for (int a0 : { 0, std::max(0, sh.A - sh.AC) })
        for (int i = 0; i < R + sh.AC - 1; ++i) {
            const int p = D - 1;
            std::set<int> banks;
            for (int t = 0; t < 32; ++t) {
                const int q = t * R + a0 + i;
                const int s = q * D + p;
                const int word = ddc_tile_addr(sh, s) * (eb / 4);
                banks.insert(cplx ? (word / 2) % 16 + 16 * (t / 16) : word % 32);
            }
            BOOST_REQUIRE_EQUAL(banks.size(), 32u);
        }
}

} // namespace

BOOST_AUTO_TEST_CASE(shapes_fit_and_the_layout_is_conflict_free)
{
    for (std::size_t limit : limits)
        for (bool cplx : { false, true })
            for (int D : { 1, 2, 3, 5, 8, 16, 31, 64, 100, 257 })
                for (int T : { 1, 3, 8, 55, 128, 256, 1000, 1024, 4096, 20000 }) {
                    const auto sh = ddc_tile_shape_for(D, T, cplx, limit);
                    const auto all = ddc_tile_shape_candidates(D, T, cplx, limit);
                    if (sh.A == 0) { // the smallest tile (one warp, one group) is too big
                        const int eb = cplx ? 8 : 4;
                        BOOST_REQUIRE_GT(ddc_tile_shared_bytes(
                                             ddc_tile_shape_with(D, T, 32, 1, 4), eb),
                                         limit);
                        BOOST_REQUIRE(all.empty());
                        continue;
                    }
                    BOOST_REQUIRE_EQUAL(sh.T, T);
                    check_shape(sh, cplx, limit, 200000);
                    // The tuner's candidates: the heuristic's first, each
                    // valid, each named differently.
                    BOOST_REQUIRE(!all.empty());
                    BOOST_REQUIRE_EQUAL(std::memcmp(&all[0], &sh, sizeof sh), 0);
                    std::set<std::string> ids;
                    for (const auto& c : all) {
                        BOOST_REQUIRE(ids.insert(ddc_tile_shape_id(c)).second);
                        check_shape(c, cplx, limit, limit == limits[3] ? 20000 : 0);
                    }
                    // every width that fits with one group is offered
                    for (int tw = 32; tw <= ddc_tile_max_threads; tw *= 2)
                        if (ddc_tile_shared_bytes(ddc_tile_shape_with(D, T, tw, 1, 4),
                                                  cplx ? 8 : 4) <= limit)
                            BOOST_REQUIRE(
                                ids.count("TW=" + std::to_string(tw) + " G=1 AC=4"));
                    // and, for real input with phases of 8 taps or more, 4
                    // outputs a thread wherever its smallest tile fits (16
                    // never: the ring kernel's)
                    for (const int lgR : { 2, 4 }) {
                        const bool fits = ddc_tile_shared_bytes(
                                              ddc_tile_shape_with(D, T, 32, 1, 4, lgR),
                                              cplx ? 8 : 4) <= limit;
                        int offered = 0;
                        for (const auto& c : all)
                            offered += c.lgR == lgR;
                        BOOST_REQUIRE_EQUAL(
                            offered, !cplx && fits && lgR == 2 && sh.A >= 8 ? 1 : 0);
                    }
                }
}

namespace {

using cvec = std::vector<std::complex<float>>;

// A tile's M sums as the block computes them: every thread's partials
// (ddc_tile_partial), the groups added in the kernel's fixed order.
template <class X, class Z>
std::vector<ddc_cf> tile_sums(const ddc_tile_shape& sh, const X* tile, const Z* taps)
{
    std::vector<ddc_cf> parts(std::size_t(sh.G) * sh.M);
    for (int g = 0; g < sh.G; ++g)
        for (int t = 0; t < sh.TW; ++t) {
            ddc_cf acc[16];
            ddc_tile_partial_of(sh, tile, taps, t, g, acc);
            for (int r = 0; r < sh.R(); ++r)
                parts[g * sh.M + t * sh.R() + r] = acc[r];
        }
    std::vector<ddc_cf> sums(parts.begin(), parts.begin() + sh.M);
    for (int i = 0; i < sh.M; ++i)
        for (int g = 1; g < sh.G; ++g) {
            sums[i].re += parts[g * sh.M + i].re;
            sums[i].im += parts[g * sh.M + i].im;
        }
    return sums;
}

// The kernel's steps on the host: outputs [0, n) from in (first window
// sample at first_sample), output 0 being stream output first_output, with
// the plan's taps z and phase; rotated by the kernel's ddc_rotate_output.
template <class X, class Load>
cvec simulate(const ddc_tile_shape& sh,
              int T,
              Load load,
              std::size_t n,
              const cvec& z,
              const mixer_phase& phase,
              uint64_t first_output = 0)
{
    std::vector<ddc_cf> zr(T);
    for (int j = 0; j < T; ++j)
        zr[j] = ddc_cf{ z[T - 1 - j].real(), z[T - 1 - j].imag() };
    const long long valid = (long long)(n - 1) * sh.D + T;
    cvec y(n);
    std::vector<X> tile(std::size_t(sh.D) * sh.row_stride);
    for (std::size_t m0 = 0; m0 < n; m0 += sh.M) {
        ddc_tile_for_samples(sh, 0, 1, [&](int s, int at) {
            const long long k = (long long)m0 * sh.D + s;
            tile[at] = k < valid ? load(k) : X{};
        });
        const std::vector<ddc_cf> sums = tile_sums(sh, tile.data(), zr.data());
        for (int i = 0; i < sh.M && m0 + i < n; ++i) {
            const ddc_cf v = ddc_rotate_output(
                sums[i], first_output + m0 + i, sh.D, phase.step, phase.offset);
            y[m0 + i] = std::complex<float>(v.re, v.im);
        }
    }
    return y;
}

} // namespace

BOOST_AUTO_TEST_CASE(kernel_steps_match_the_cpu_plan)
{
    unsigned seed = 11;
    int simulated = 0;
    for (std::size_t limit : { limits[0], limits[3] })
        for (auto f : { ddc_input::complex64,
                        ddc_input::float32,
                        ddc_input::int16,
                        ddc_input::packed10 })
            for (auto td : { std::make_pair(55, 5),
                             std::make_pair(1, 1),
                             std::make_pair(3, 8),
                             std::make_pair(256, 16),
                             std::make_pair(1024, 64),
                             std::make_pair(37, 3),
                             std::make_pair(300, 7) }) {
                const int T = td.first, D = td.second;
                const auto c = qa::ddc_config(f, T, D, 0.21e6, seed++);
                const bool cplx = f == ddc_input::complex64;
                const auto sh = ddc_tile_shape_for(D, T, cplx, limit);
                if (sh.A == 0) // the simple kernel's case
                    continue;
                ++simulated;
                // two and a bit tiles; an odd first sample for packed10;
                // outputs from 0 or past stream sample 2^40 (exact phase)
                const std::size_t n = 2 * sh.M + 37;
                const int64_t first = f == ddc_input::packed10 ? 3 : 0;
                const uint64_t first_output = seed % 2 ? (uint64_t(1) << 40) / D + 5 : 0;
                const std::size_t samples = first + (n - 1) * D + T;
                ddc_plan plan(c, runtime::backend_choice{}, "qa");
                const auto in = qa::ddc_random_input(f, samples, seed);
                cvec want(n);
                plan.execute(in.data(), first, first_output, n, want.data(), nullptr);
                const cvec z = qa::ddc_premultiplied(plan);
                cvec got;
                if (cplx) {
                    const auto* x = reinterpret_cast<const float*>(in.data());
                    got = simulate<ddc_cf>(
                        sh,
                        T,
                        [&](long long k) {
                            return ddc_cf{ x[2 * (first + k)], x[2 * (first + k) + 1] };
                        },
                        n,
                        z,
                        plan.phase(),
                        first_output);
                } else {
                    got = simulate<float>(
                        sh,
                        T,
                        [&](long long k) -> float {
                            const int64_t s = first + k;
                            if (f == ddc_input::float32)
                                return reinterpret_cast<const float*>(in.data())[s];
                            if (f == ddc_input::int16) {
                                int16_t v;
                                std::memcpy(&v, in.data() + 2 * s, 2);
                                return float(v);
                            }
                            return float(packed10_sample(in.data(), s));
                        },
                        n,
                        z,
                        plan.phase(),
                        first_output);
                }
                const double err64 = qa::ddc_err64(
                    got, qa::ddc_reference64(plan, in, first, first_output, n));
                BOOST_CHECK_MESSAGE(qa::ddc_rel_err(got, want) < 2e-5 && err64 < 1e-5,
                                    "format " << int(f) << " T=" << T << " D=" << D
                                              << " limit " << limit << " G=" << sh.G
                                              << " TW=" << sh.TW << ": "
                                              << qa::ddc_rel_err(got, want)
                                              << ", against float64 " << err64);
            }
    BOOST_CHECK_GE(simulated, 50); // of 56: D = 64 does not fit sm_75's 64 KiB
}

BOOST_AUTO_TEST_CASE(every_tuner_candidate_matches_the_cpu_plan)
{
    // Each tile shape the tuner may choose, through the kernel's steps, on
    // a complex and a packed 10-bit input.
    unsigned seed = 101;
    int simulated = 0;
    for (auto f : { ddc_input::complex64, ddc_input::packed10 })
        for (auto td : { std::make_pair(55, 5),
                         std::make_pair(3, 8),
                         std::make_pair(37, 3),
                         std::make_pair(300, 7),
                         std::make_pair(256, 16) }) {
            const int T = td.first, D = td.second;
            const auto c = qa::ddc_config(f, T, D, 0.17e6, seed++);
            const bool cplx = f == ddc_input::complex64;
            for (const auto& sh : ddc_tile_shape_candidates(D, T, cplx, limits[3])) {
                ++simulated;
                const std::size_t n = sh.M + 29; // a tile and a bit
                const int64_t first = cplx ? 0 : 1;
                const std::size_t samples = first + (n - 1) * D + T;
                ddc_plan plan(c, runtime::backend_choice{}, "qa");
                const auto in = qa::ddc_random_input(f, samples, seed);
                cvec want(n);
                plan.execute(in.data(), first, 0, n, want.data(), nullptr);
                const cvec z = qa::ddc_premultiplied(plan);
                cvec got;
                if (cplx) {
                    const auto* x = reinterpret_cast<const float*>(in.data());
                    got = simulate<ddc_cf>(
                        sh,
                        T,
                        [&](long long k) {
                            return ddc_cf{ x[2 * (first + k)], x[2 * (first + k) + 1] };
                        },
                        n,
                        z,
                        plan.phase());
                } else {
                    got = simulate<float>(
                        sh,
                        T,
                        [&](long long k) {
                            return float(packed10_sample(in.data(), first + k));
                        },
                        n,
                        z,
                        plan.phase());
                }
                const double err64 =
                    qa::ddc_err64(got, qa::ddc_reference64(plan, in, first, 0, n));
                BOOST_CHECK_MESSAGE(
                    qa::ddc_rel_err(got, want) < 2e-5 && err64 < 1e-5,
                    "T=" << T << " D=" << D << " " << ddc_tile_shape_id(sh) << ": "
                         << qa::ddc_rel_err(got, want) << ", against float64 " << err64);
            }
        }
    BOOST_CHECK_GE(simulated, 40);
}

BOOST_AUTO_TEST_CASE(a_nan_reaches_only_the_windows_that_hold_it)
{
    // T = 55, D = 5: 11 taps per phase (a window step of 8, then single
    // taps), the NaN inside some windows; T = 3, D = 8: phases 3..7 have no
    // tap, the NaN on phase 5 lies in no window, so no output may see it.
    for (auto tdo : { std::make_tuple(55, 5, 1), std::make_tuple(3, 8, 5) }) {
        const int T = std::get<0>(tdo), D = std::get<1>(tdo);
        ddc_config c;
        c.input = ddc_input::float32;
        c.decimation = D;
        c.center_freq = 0.1e6;
        c.samp_rate = 1e6;
        for (int k = 0; k < T; ++k)
            c.taps.emplace_back(1.0 + k, 0.0);
        const auto sh = ddc_tile_shape_for(D, T, false, limits[3]);
        const std::size_t n = sh.M + 50;
        std::vector<float> x((n - 1) * D + T, 0.5f);
        const std::size_t bad = sh.M / 2 * D + std::get<2>(tdo);
        x[bad] = std::nanf("");
        ddc_plan plan(c, runtime::backend_choice{}, "qa");
        cvec want(n);
        plan.execute(x.data(), 0, 0, n, want.data(), nullptr);
        const auto got = simulate<float>(
            sh,
            T,
            [&](long long k) { return x[k]; },
            n,
            qa::ddc_premultiplied(plan),
            plan.phase());
        int nan_outputs = 0;
        for (std::size_t m = 0; m < n; ++m) {
            const bool in_window = bad >= m * D && bad < m * D + T;
            nan_outputs += in_window;
            BOOST_REQUIRE_EQUAL(std::isnan(want[m].real()), in_window);
            BOOST_REQUIRE_MESSAGE(std::isnan(got[m].real()) == in_window,
                                  "T=" << T << " D=" << D << " output " << m);
        }
        BOOST_CHECK_EQUAL(nan_outputs > 0, T == 55);
    }
}

BOOST_AUTO_TEST_CASE(chunks_cover_every_output_once_where_its_window_ends)
{
    std::mt19937 rng(9);
    std::uniform_int_distribution<int> pick(0, 1 << 30);
    long checked = 0;
    for (int trial = 0; trial < 300; ++trial) {
        // Spans of other shapes and positions over one input.
        std::vector<ddc_span> spans;
        const int count = 1 + pick(rng) % 5;
        for (int i = 0; i < count; ++i) {
            const int64_t D = 1 + pick(rng) % 70, T = 1 + pick(rng) % 300;
            spans.push_back(
                { int64_t(pick(rng) % 500), std::size_t(pick(rng) % 400), D, T });
        }
        const int64_t chunks[] = { 0, 1, 3, 7, 64, 1000, 1 + pick(rng) % 5000, 1 << 30 };
        for (const int64_t chunk : chunks) {
            std::vector<std::vector<int>> seen(spans.size());
            for (std::size_t i = 0; i < spans.size(); ++i)
                seen[i].assign(spans[i].n, 0);
            // Output k's chunk: (window end - the first end of all) / chunk.
            int64_t lo = INT64_MAX;
            for (const auto& s : spans)
                if (s.n)
                    lo = std::min(lo, s.window_end(0));
            auto chunk_of = [&](const ddc_span& s, std::size_t k) {
                return chunk > 0 ? (s.window_end(k) - lo) / chunk : 0;
            };
            int64_t previous = -1; // chunks come in order
            ddc_for_chunks(spans.data(),
                           spans.size(),
                           chunk,
                           [&](std::size_t i, std::size_t k0, std::size_t k1) {
                               BOOST_REQUIRE(i < spans.size() && k0 < k1 &&
                                             k1 <= spans[i].n);
                               const auto& s = spans[i];
                               const int64_t c = chunk_of(s, k0);
                               BOOST_CHECK_EQUAL(chunk_of(s, k1 - 1), c);
                               BOOST_CHECK_GE(c, previous);
                               previous = c;
                               for (std::size_t k = k0; k < k1; ++k)
                                   ++seen[i][k];
                           });
            for (std::size_t i = 0; i < spans.size(); ++i)
                for (std::size_t k = 0; k < spans[i].n; ++k) {
                    BOOST_REQUIRE_MESSAGE(seen[i][k] == 1,
                                          "trial " << trial << " chunk " << chunk
                                                   << " span " << i << " output " << k
                                                   << " seen " << seen[i][k]);
                    ++checked;
                }
        }
    }
    BOOST_TEST_MESSAGE(checked << " outputs placed");
    BOOST_CHECK_GT(checked, 100000);
}

BOOST_AUTO_TEST_CASE(sixteen_samples_from_aligned_words_equal_the_sample_decode)
{
    // Every alignment of the stream's first byte, every chunk of a random
    // stream whose bytes include all 10-bit extremes.
    std::mt19937 rng(41);
    std::vector<uint8_t> bytes(4 + 20 * 64 + 8);
    for (auto& b : bytes)
        b = uint8_t(rng());
    std::memset(&bytes[4], 0x80, 5);      // -512 four times (1000000000 ...)
    std::memset(&bytes[4 + 20], 0x7f, 5); // 511-ish patterns
    for (int mis = 0; mis < 4; ++mis) {
        const uint8_t* stream = bytes.data() + mis; // sample 0's byte
        for (int k = 0; k < 64; ++k) {
            uint32_t w[6];
            for (int j = 0; j < 6; ++j) // little-endian words from aligned bytes
                std::memcpy(&w[j], bytes.data() + 20 * k + 4 * j, 4);
            int v[16];
            packed10_sixteen(w, mis, v);
            for (int i = 0; i < 16; ++i)
                BOOST_REQUIRE_EQUAL(v[i], packed10_sample(stream, 16 * k + i));
        }
    }
}

BOOST_AUTO_TEST_CASE(packed10_tile_loader_fills_the_tile_as_the_sample_loader)
{
    // The chunk loader against the sample-at-a-time one: every tile element
    // written once with the same value, zeros past the valid samples, no
    // word read outside the launch's bytes, for odd first samples, every
    // alignment, tiles cut short and thread counts that leave threads
    // idle.
    std::mt19937 rng(43);
    std::vector<uint8_t> bytes(4 + 20000);
    for (auto& b : bytes)
        b = uint8_t(rng());
    struct shape_case {
        int D, T, tw, g, lgR;
    };
    // (D >= 16: the interior chunks' one-wrap path, at every phase; 4, 8
    // and 16 outputs a thread: the rows' padding)
    const shape_case shapes[] = { { 16, 256, 32, 1, 3 }, { 7, 33, 64, 2, 3 },
                                  { 3, 5, 32, 1, 3 },    { 64, 1024, 32, 8, 3 },
                                  { 1, 4, 32, 1, 3 },    { 17, 300, 32, 2, 3 },
                                  { 31, 62, 64, 1, 3 },  { 16, 256, 32, 1, 2 },
                                  { 17, 300, 32, 2, 4 }, { 3, 5, 32, 1, 4 } };
    for (const auto& c : shapes)
        for (int mis = 0; mis < 4; ++mis)
            for (long long first_sample : { 0LL, 1LL, 15LL, 16LL, 37LL, 160LL })
                for (long long s0 : { 0LL, 5LL, 1000LL })
                    for (int n_threads : { 1, 32, 256 }) {
                        const ddc_tile_shape sh =
                            ddc_tile_shape_with(c.D, c.T, c.tw, c.g, 4, c.lgR);
                        const uint8_t* stream = bytes.data() + mis;
                        const long long total = (long long)(bytes.size() - 4) * 8 / 10;
                        // valid: the whole tile, or cut inside it
                        for (long long valid :
                             { s0 + sh.span, s0 + sh.span / 2 + 3, s0 + 1 }) {
                            if (first_sample + valid > total - 64)
                                continue;
                            BOOST_TEST_CONTEXT(
                                "D " << c.D << " T " << c.T << " R " << sh.R() << " mis "
                                     << mis << " first " << first_sample << " s0 " << s0
                                     << " threads " << n_threads << " valid " << valid)
                            {
                                const ddc_packed10_span span =
                                    ddc_packed10_span_of(first_sample, valid, s0, mis);
                                const std::size_t size =
                                    std::size_t(sh.D) * sh.row_stride;
                                std::vector<float> want(size, -9999.0f),
                                    got(size, -9999.0f);
                                std::vector<int> writes(size, 0);
                                long long words = 0;
                                ddc_tile_for_samples(sh, 0, 1, [&](int s, int at) {
                                    const long long n = s0 + s;
                                    want[at] = n < valid ? float(packed10_sample(
                                                               stream, first_sample + n))
                                                         : 0.0f;
                                });
                                for (int tid = 0; tid < n_threads; ++tid)
                                    ddc_tile_for_packed10(
                                        sh,
                                        span,
                                        tid,
                                        n_threads,
                                        [&](long long b) {
                                            BOOST_REQUIRE((b + mis) % 4 == 0);
                                            BOOST_REQUIRE(b >= span.lo &&
                                                          b + 4 <= span.hi);
                                            uint32_t w;
                                            std::memcpy(&w, stream + b, 4);
                                            ++words;
                                            return w;
                                        },
                                        [&](long long n) {
                                            BOOST_REQUIRE(n >= span.first &&
                                                          n < span.valid);
                                            return packed10_sample(stream, n);
                                        },
                                        [&](int at, float x) {
                                            BOOST_REQUIRE(at >= 0 &&
                                                          std::size_t(at) < size);
                                            got[at] = x;
                                            ++writes[at];
                                        });
                                for (std::size_t i = 0; i < size; ++i) {
                                    BOOST_REQUIRE_EQUAL(got[i], want[i]);
                                    BOOST_REQUIRE_LE(writes[i], 1);
                                }
                                // whole chunks inside the launch come from words
                                if (valid == s0 + sh.span && sh.span >= 64)
                                    BOOST_REQUIRE_GT(words, 0);
                            }
                        }
                    }
}

// Mix first (complex input, real taps: ddc_tile_for_mixed, real-tap
// ddc_tile_partial, no rotation), as every thread of the block runs it,
// against the CPU plan (which mixes first too): odd D and T, several tiles,
// both shared-memory limits, and outputs near stream sample 2^40 (the
// mixer's exact seed).
BOOST_AUTO_TEST_CASE(mixed_kernel_steps_match_the_cpu_plan)
{
    unsigned seed = 71;
    int simulated = 0;
    for (std::size_t limit : { limits[0], limits[3] })
        for (auto td : { std::make_pair(55, 5),
                         std::make_pair(4, 1),
                         std::make_pair(8, 3),
                         std::make_pair(256, 16),
                         std::make_pair(1024, 64),
                         std::make_pair(300, 7) })
            for (uint64_t first_output : { uint64_t(0), uint64_t(1) << 36 }) {
                const int T = td.first, D = td.second;
                auto c = qa::ddc_config(ddc_input::complex64, T, D, 0.2137e6, seed++);
                for (auto& h : c.taps)
                    h = h.real();
                const auto sh = ddc_tile_shape_for(D, T, true, limit);
                if (sh.A == 0)
                    continue;
                ++simulated;
                const std::size_t n = 2 * sh.M + 37;
                const std::size_t samples = (n - 1) * D + T;
                ddc_plan plan(c, runtime::backend_choice{}, "qa");
                const auto in = qa::ddc_random_input(ddc_input::complex64, samples, seed);
                const auto* x = reinterpret_cast<const float*>(in.data());
                cvec want(n);
                plan.execute(in.data(), 0, first_output, n, want.data(), nullptr);
                std::vector<float> h(T);
                for (int j = 0; j < T; ++j)
                    h[j] = float(c.taps[T - 1 - j].real());
                const long long valid = (long long)(n - 1) * D + T;
                cvec got(n);
                std::vector<ddc_cf> tile(std::size_t(D) * sh.row_stride,
                                         ddc_cf{ NAN, NAN });
                for (std::size_t m0 = 0; m0 < n; m0 += sh.M) {
                    const uint64_t n0 = ddc_tile_stream_first(first_output, m0, D, T);
                    std::vector<int> stored(tile.size(), 0);
                    for (int tid = 0; tid < sh.threads(); ++tid)
                        ddc_tile_for_mixed(
                            sh,
                            tid,
                            sh.threads(),
                            n0,
                            plan.phase().step,
                            plan.phase().offset,
                            [&](int s) {
                                const long long k = (long long)m0 * D + s;
                                return k < valid ? ddc_cf{ x[2 * k], x[2 * k + 1] }
                                                 : ddc_cf{ 0.0f, 0.0f };
                            },
                            [&](int at, ddc_cf v) {
                                tile[at] = v;
                                ++stored[at];
                            });
                    int n_stored = 0;
                    for (int k : stored) {
                        BOOST_REQUIRE_LE(k, 1);
                        n_stored += k;
                    }
                    BOOST_REQUIRE_EQUAL(n_stored, sh.span); // every sample once
                    const std::vector<ddc_cf> sums = tile_sums(sh, tile.data(), h.data());
                    for (int i = 0; i < sh.M && m0 + i < n; ++i)
                        got[m0 + i] = std::complex<float>(sums[i].re, sums[i].im);
                }
                const double err64 =
                    qa::ddc_err64(got, qa::ddc_reference64(plan, in, 0, first_output, n));
                BOOST_CHECK_MESSAGE(qa::ddc_rel_err(got, want) < 2e-5 && err64 < 1e-5,
                                    "T=" << T << " D=" << D << " limit " << limit
                                         << " first output " << first_output << ": "
                                         << qa::ddc_rel_err(got, want)
                                         << ", against float64 " << err64);
            }
    BOOST_CHECK_GE(simulated, 22);
}
