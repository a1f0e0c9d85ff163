/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The CUDA F-engine post-processing's tile arithmetic (fmath::postproc_tile),
// as the kernel walks it (grid of tiles, 256 threads x 4 elements): every
// (channel, input) of a spectrum is read once and written once, the two
// phases of an element meet at one shared-memory slot inside the array,
// a warp's reads are 32 channels of one input (its saturation ballot), and
// with few inputs every thread has an element (2 inputs: 512 channels).
// Also the fused form's index arithmetic (the cuFFT store callback's): the
// fast division, and every FFT output element mapped to its one place.

#include "fengine_math.h"
#include <boost/test/unit_test.hpp>
#include <random>
#include <vector>

using namespace gr::gpudsp::kernels;

BOOST_AUTO_TEST_CASE(every_value_once_and_warps_read_one_input)
{
    constexpr int threads = 256, per_thread = fmath::postproc_elems / threads;
    for (int n_inputs = 1; n_inputs <= 70; ++n_inputs)
        for (int n_channels : { 16, 32, 48, 1000, 1024, 4096 }) {
            const auto t = fmath::postproc_tile_for(n_inputs);
            BOOST_REQUIRE(t.inputs >= 1 && t.inputs <= 32 && t.channels >= 32);
            BOOST_REQUIRE_EQUAL(t.inputs * t.channels, fmath::postproc_elems);
            BOOST_REQUIRE_EQUAL(1 << t.inputs_log2, t.inputs);
            BOOST_REQUIRE_EQUAL(1 << t.channels_log2, t.channels);
            for (int e = 0; e < fmath::postproc_elems; ++e) { // the shifts divide
                BOOST_REQUIRE_EQUAL(t.load_input(e), e / t.channels);
                BOOST_REQUIRE_EQUAL(t.load_channel(e), e % t.channels);
                BOOST_REQUIRE_EQUAL(t.store_channel(e), e / t.inputs);
                BOOST_REQUIRE_EQUAL(t.store_input(e), e % t.inputs);
            }
            BOOST_REQUIRE(t.inputs >= std::min(n_inputs, 32));
            std::vector<int> read(std::size_t(n_inputs) * n_channels, 0), written = read;
            const int gx = (n_channels + t.channels - 1) / t.channels;
            const int gy = (n_inputs + t.inputs - 1) / t.inputs;
            int busy = 0;
            for (int bx = 0; bx < gx; ++bx)
                for (int by = 0; by < gy; ++by) {
                    std::vector<int> slot(fmath::postproc_smem_elems, -1);
                    for (int j = 0; j < per_thread; ++j)
                        for (int w = 0; w < threads / 32; ++w) {
                            const int e0 = w * 32 + j * threads;
                            for (int lane = 0; lane < 32; ++lane) {
                                const int e = e0 + lane;
                                const int il = t.load_input(e), kl = t.load_channel(e);
                                BOOST_REQUIRE_EQUAL(il, t.load_input(e0)); // one input per warp
                                const int i = by * t.inputs + il, k = bx * t.channels + kl;
                                if (i < n_inputs && k < n_channels) {
                                    ++read[std::size_t(i) * n_channels + k];
                                    const int at = t.smem_index(il, kl);
                                    BOOST_REQUIRE(at >= 0 && at < fmath::postproc_smem_elems);
                                    BOOST_REQUIRE_EQUAL(slot[at], -1);
                                    slot[at] = i * n_channels + k;
                                    ++busy;
                                }
                            }
                        }
                    for (int e = 0; e < fmath::postproc_elems; ++e) {
                        const int il = t.store_input(e), kl = t.store_channel(e);
                        const int i = by * t.inputs + il, k = bx * t.channels + kl;
                        if (i < n_inputs && k < n_channels) {
                            ++written[std::size_t(i) * n_channels + k];
                            BOOST_REQUIRE_EQUAL(slot[t.smem_index(il, kl)], i * n_channels + k);
                        }
                    }
                }
            for (std::size_t x = 0; x < read.size(); ++x)
                BOOST_REQUIRE(read[x] == 1 && written[x] == 1);
            // 2 inputs: every thread of every block busy where channels fill it
            if (n_inputs == 2 && n_channels % 512 == 0)
                BOOST_CHECK_EQUAL(busy, gx * gy * fmath::postproc_elems);
        }
}

// The fused form's store callback divides each FFT output index by the
// points per transform and the input count with fmath::fast_div: equal to
// `/` for every divisor it can meet and dividends across the 32-bit range.
BOOST_AUTO_TEST_CASE(fast_div_equals_division)
{
    std::vector<uint32_t> divisors;
    for (uint32_t d = 1; d <= 4100; ++d)
        divisors.push_back(d);
    for (int k = 12; k <= 31; ++k)
        for (int64_t delta : { -1, 0, 1 })
            divisors.push_back(uint32_t((int64_t(1) << k) + delta));
    std::mt19937 rng(5);
    for (int j = 0; j < 200; ++j)
        divisors.push_back(1 + rng() % 0x7FFFFFFFu);
    int checked = 0;
    for (const uint32_t d : divisors) {
        const auto f = fmath::fast_div::of(d);
        BOOST_REQUIRE_EQUAL(f.d, d);
        std::vector<uint32_t> ns = { 0,           1,           d - 1,
                                     d,           d + 1,       0xFFFFFFFFu,
                                     0xFFFFFFFEu, 0x80000000u, 0x7FFFFFFFu };
        for (uint32_t q : { 1u, 2u, 3u, 1000u, 0xFFFFFFFFu / d })
            for (int64_t delta : { -1, 0, 1 }) {
                const int64_t n = int64_t(q) * d + delta;
                if (n >= 0 && n <= 0xFFFFFFFFll)
                    ns.push_back(uint32_t(n));
            }
        for (int j = 0; j < 64; ++j)
            ns.push_back(rng());
        for (const uint32_t n : ns) {
            if (f.div(n) != n / d)
                BOOST_FAIL("fast_div: " << n << " / " << d << " gave " << f.div(n));
            ++checked;
        }
    }
    BOOST_TEST_MESSAGE(checked << " divisions");
}

// Every element the FFTs of a chunk store, as cuFFT's store callback sees
// it (offset from the run's output pointer, for each run of fft_runs over
// the [spectrum][input][N + 1] scratch), goes to one distinct place of the
// chunk's [spectrum][channel][input] output, holding the value of that
// spectrum, input and channel; the Nyquist point goes nowhere; nothing is
// left unwritten.
BOOST_AUTO_TEST_CASE(fused_store_writes_every_output_once)
{
    for (int n_inputs : { 1, 2, 3, 7, 64 })
        for (int n_channels : { 2, 5, 16, 1000, 1024 })
            for (bool complex_input : { false, true })
                for (int spectra : { 1, 3, 13 }) {
                    const int points = n_channels + 1; // the scratch's row length
                    const auto layout = fmath::scratch_layout::of(points, n_inputs);
                    std::vector<int> hits(std::size_t(spectra) * n_channels * n_inputs,
                                          0);
                    for (const auto& run : fmath::fft_runs(spectra)) {
                        const int64_t base =
                            fmath::scratch_index(run.begin, 0, n_inputs, points, 0);
                        // Points per transform cuFFT writes: N + 1 (R2C of
                        // 2N), N (C2C of N); rows n_channels + 1 apart.
                        const int written = complex_input ? n_channels : n_channels + 1;
                        for (int t = 0; t < (n_inputs << run.log2_count); ++t)
                            for (int k = 0; k < written; ++k) {
                                const int64_t offset = int64_t(t) * points + k;
                                fmath::scratch_element at;
                                const int64_t o = fmath::fused_output_index(
                                    layout, n_channels, uint32_t(base + offset), at);
                                const int s = run.begin + t / n_inputs;
                                const int i = t % n_inputs;
                                const int64_t want =
                                    k == n_channels
                                        ? -1
                                        : (int64_t(s) * n_channels + k) * n_inputs + i;
                                if (int(at.spectrum) != s || at.input != i ||
                                    at.point != k || o != want)
                                    BOOST_FAIL("element "
                                               << base + offset << " decoded as ("
                                               << at.spectrum << ", " << at.input << ", "
                                               << at.point << ") -> " << o);
                                if (o >= 0)
                                    ++hits[std::size_t(o)];
                            }
                    }
                    for (std::size_t j = 0; j < hits.size(); ++j)
                        if (hits[j] != 1)
                            BOOST_FAIL("output " << j << " written " << hits[j]
                                                 << " times (inputs " << n_inputs
                                                 << ", channels " << n_channels << ")");
                }
}

// Near the top of the 32-bit element range the decode still inverts
// scratch_index (the plan fuses only while the chunk's scratch has fewer
// than 2^32 values).
BOOST_AUTO_TEST_CASE(scratch_layout_inverts_large_indices)
{
    std::mt19937 rng(9);
    for (int n_inputs : { 1, 3, 64, 4095 })
        for (int n_channels : { 1024, 32768, 1 << 20 }) {
            const int points = n_channels + 1;
            const auto layout = fmath::scratch_layout::of(points, n_inputs);
            const uint64_t row = uint64_t(points) * n_inputs;
            const uint64_t spectra = 0xFFFFFFFFull / row;
            for (int j = 0; j < 2000; ++j) {
                const uint64_t s = j == 0 ? spectra - 1 : rng() % spectra;
                const int i = j == 0 ? n_inputs - 1 : int(rng() % n_inputs);
                const int k = j == 0 ? points - 1 : int(rng() % points);
                const int64_t e =
                    fmath::scratch_index(int64_t(s), i, n_inputs, points, k);
                BOOST_REQUIRE_LE(e, 0xFFFFFFFFll);
                const auto at = layout.at(uint32_t(e));
                BOOST_REQUIRE_EQUAL(at.spectrum, s);
                BOOST_REQUIRE_EQUAL(at.input, i);
                BOOST_REQUIRE_EQUAL(at.point, k);
            }
        }
}
