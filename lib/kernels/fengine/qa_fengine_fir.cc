/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The CUDA F-engine FIR's per-thread loop (fir::column_run, the register
// ring of pfb_fir_registers) on the host: for every window size, tap count,
// section start and length, its outputs equal the filter's definition bit
// for bit (the same fused multiply-adds in the same order), every spectrum
// of the section is written once, and the column's blocks are read once
// each, in order, from fir::first_block, unread before block 0.

#include "fengine_fir.h"
#include "kernels/common/packed10.h"
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

using namespace gr::gpudsp::kernels;

namespace {

struct cf {
    float x, y;
};

template <typename T>
struct host_rows {
    const std::vector<T>* column; // block b's sample at [b]
    int block;                    // the next block
    std::vector<int> read;        // blocks read, in order
    std::vector<T> out;
    std::vector<int> stored;
    T next(bool present)
    {
        BOOST_REQUIRE_EQUAL(present, block >= 0); // unread exactly before block 0
        T v = fir::zero_of(T());
        if (present) {
            v = (*column)[std::size_t(block)];
            read.push_back(block);
        }
        ++block;
        return v;
    }
    void store(int s, T y)
    {
        out[std::size_t(s)] = y;
        ++stored[std::size_t(s)];
    }
};

float random_value(std::mt19937_64& rng, float)
{
    return std::uniform_real_distribution<float>(-100, 100)(rng);
}
cf random_value(std::mt19937_64& rng, cf)
{
    return { random_value(rng, 0.0f), random_value(rng, 0.0f) };
}
bool same(float a, float b) { return a == b; }
bool same(cf a, cf b) { return a.x == b.x && a.y == b.y; }

template <int MAXT, typename T>
void check_every_section(std::mt19937_64& rng)
{
    for (int taps = 1; taps <= MAXT; ++taps) {
        // The taps right-aligned behind MAXT - taps zeros, as the kernel loads them.
        float w[MAXT];
        for (int t = 0; t < MAXT; ++t)
            w[t] = t < MAXT - taps ? 0.0f : random_value(rng, 0.0f) / 100;
        const int n_spectra = 3 * MAXT + 5;
        std::vector<T> column(std::size_t(n_spectra + taps - 1));
        for (auto& v : column)
            v = random_value(rng, T());
        for (int s_begin : { 0, 1, 3, MAXT, 2 * MAXT + 1 })
            for (int s_end = s_begin + 1; s_end <= n_spectra; ++s_end) {
                host_rows<T> rows{ &column,
                                   fir::first_block(s_begin, taps, MAXT),
                                   {},
                                   std::vector<T>(std::size_t(n_spectra)),
                                   std::vector<int>(std::size_t(n_spectra), 0) };
                fir::column_run<MAXT, T>(w, taps, s_begin, s_end, rows);
                for (int s = 0; s < n_spectra; ++s) {
                    BOOST_REQUIRE_EQUAL(rows.stored[std::size_t(s)],
                                        s >= s_begin && s < s_end ? 1 : 0);
                    if (s < s_begin || s >= s_end)
                        continue;
                    // The definition: taps in order, one fused multiply-add each.
                    T want = fir::zero_of(T());
                    for (int t = 0; t < MAXT; ++t) {
                        const int blk = s + taps - MAXT + t;
                        want = fir::fma_w(w[t],
                                          blk >= 0 ? column[std::size_t(blk)]
                                                   : fir::zero_of(T()),
                                          want);
                    }
                    BOOST_REQUIRE(same(rows.out[std::size_t(s)], want));
                }
                // Blocks max(0, first) .. s_end + taps - 2, each once, in order.
                const int from = std::max(0, fir::first_block(s_begin, taps, MAXT));
                BOOST_REQUIRE_EQUAL(rows.read.size(),
                                    std::size_t(s_end + taps - 1 - from));
                for (std::size_t k = 0; k < rows.read.size(); ++k)
                    BOOST_REQUIRE_EQUAL(rows.read[k], from + int(k));
            }
    }
}

} // namespace

BOOST_AUTO_TEST_CASE(column_run_is_the_filter_for_every_section)
{
    std::mt19937_64 rng(21);
    check_every_section<1, float>(rng);
    check_every_section<2, float>(rng);
    check_every_section<4, float>(rng);
    check_every_section<8, float>(rng);
    check_every_section<16, float>(rng);
    check_every_section<4, cf>(rng);
    check_every_section<16, cf>(rng);
}

// The packed cursor's decode (a bit offset advanced by 10 x step) equals
// the indexed one at every sample of a stream.
BOOST_AUTO_TEST_CASE(packed10_at_bit_is_the_sample)
{
    std::mt19937_64 rng(22);
    std::vector<uint8_t> bytes(1001);
    for (auto& b : bytes)
        b = uint8_t(rng());
    const int64_t samples = int64_t(bytes.size()) * 8 / 10 - 1;
    for (int step : { 1, 3, 8, 2 * 257 }) // odd row steps move the bit phase
        for (int64_t first = 0; first < 8; ++first) {
            int64_t bit = 10 * first;
            for (int64_t n = first; n < samples; n += step, bit += 10 * int64_t(step))
                BOOST_REQUIRE_EQUAL(packed10_at_bit(bytes.data(), bit),
                                    packed10_sample(bytes.data(), n));
        }
}
