/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The CUDA F-engine FIR's per-thread loop (fir::column_run, the register
// ring of pfb_fir_registers) on the host: for every window size, tap count,
// section start and length, its outputs equal the filter's definition bit
// for bit (the same fused multiply-adds in the same order), every spectrum
// of the section is written once, and the column's blocks are read once
// each, in order, from fir::first_block, unread before block 0 and after
// the section's last, each requested fir::lookahead spectra before it is
// used (the loads in flight while a spectrum is computed).

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
    int last;                     // the section's last block
    int lead;                     // blocks requested ahead of a store: lookahead + taps
    std::vector<int> read;        // blocks read, in order
    std::vector<T> out;
    std::vector<int> stored;
    int calls_beyond = 0; // (the lookahead's, past the last block)
    int decoded = 0;      // the next block value() must see
    struct raw {
        T v;
        int block;
    };
    raw fetch(bool present)
    {
        // Unread exactly before block 0 and after the section's last.
        BOOST_REQUIRE_EQUAL(present, block >= 0 && block <= last);
        calls_beyond += block > last;
        raw r{ fir::zero_of(T()), block };
        if (present) {
            r.v = (*column)[std::size_t(block)];
            read.push_back(block);
        }
        ++block;
        return r;
    }
    T value(raw r)
    {
        // Once a block, in the order fetched (the 10-bit rows' phase cursor).
        BOOST_REQUIRE_EQUAL(r.block, decoded);
        ++decoded;
        return r.v;
    }
    void store(int s, T y)
    {
        // Spectrum s + lookahead's block requested before spectrum s is stored.
        BOOST_REQUIRE_EQUAL(block, s + lead);
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
                                   s_end + taps - 2,
                                   fir::lookahead<MAXT, T>() + taps,
                                   {},
                                   std::vector<T>(std::size_t(n_spectra)),
                                   std::vector<int>(std::size_t(n_spectra), 0) };
                rows.decoded = rows.block;
                fir::column_run<MAXT, T>(w, taps, s_begin, s_end, rows);
                BOOST_REQUIRE_EQUAL(rows.decoded, rows.last + 1); // every block used
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
                // The cursor runs at most the lookahead past the last block.
                BOOST_REQUIRE_LE(rows.calls_beyond, (fir::lookahead<MAXT, T>()));
            }
    }
}

} // namespace

BOOST_AUTO_TEST_CASE(column_run_is_the_filter_for_every_section)
{
    // (8 floats or 4 complex values in flight at the widest window)
    BOOST_CHECK_EQUAL((fir::lookahead<16, float>()), 8);
    BOOST_CHECK_EQUAL((fir::lookahead<16, cf>()), 4);
    std::mt19937_64 rng(21);
    check_every_section<1, float>(rng);
    check_every_section<2, float>(rng);
    check_every_section<4, float>(rng);
    check_every_section<8, float>(rng);
    check_every_section<16, float>(rng);
    check_every_section<1, cf>(rng);
    check_every_section<2, cf>(rng);
    check_every_section<4, cf>(rng);
    check_every_section<8, cf>(rng);
    check_every_section<16, cf>(rng);
}

namespace {

// The kernel's 10-bit rows (fir_rows<packed10> in pfb_fengine_cuda.cu) on
// the host: a packed10_walk over the stream, two bytes fetched a block,
// decoded on use; a fetch that is not present (before the stream, after
// the section) loads nothing but moves the walk on.
struct host_packed10_rows {
    const std::vector<uint8_t>* bytes;
    packed10_walk walk;
    int64_t n, step; // the next block's sample; samples a block
    std::vector<float> out;
    struct raw {
        unsigned b0, b1;
    };
    raw fetch(bool present)
    {
        raw r{ 0u, 0u };
        const int64_t b = walk.next_byte();
        if (present) {
            BOOST_REQUIRE(n >= 0 && b + 1 < int64_t(bytes->size()));
            r = { (*bytes)[std::size_t(b)], (*bytes)[std::size_t(b) + 1] };
        }
        n += step;
        return r;
    }
    float value(raw r) { return float(walk.decode(r.b0, r.b1)); }
    void store(int s, float y) { out[std::size_t(s)] = y; }
};

} // namespace

// The 10-bit rows through column_run, as the kernel builds them (rows_at:
// the walk from the column's first block, before the stream in a first
// section), equal the filter over the indexed decode bit for bit.
BOOST_AUTO_TEST_CASE(packed10_rows_through_column_run)
{
    constexpr int MAXT = 16;
    std::mt19937_64 rng(24);
    for (int step : { 8, 6, 2048, 3 }) // (odd: the bit phase moves each block)
        for (int taps : { 1, 5, 16 }) {
            float w[MAXT];
            for (int t = 0; t < MAXT; ++t)
                w[t] = t < MAXT - taps ? 0.0f : random_value(rng, 0.0f) / 100;
            const int n_spectra = 2 * MAXT + 7;
            const int64_t samples = int64_t(n_spectra + taps) * step + 8;
            std::vector<uint8_t> bytes(std::size_t((10 * samples + 7) / 8 + 1));
            for (auto& b : bytes)
                b = uint8_t(rng());
            for (int j : { 0, 1, 5 })
                for (int s_begin : { 0, 3, MAXT + 1 }) {
                    const int s_end = n_spectra;
                    const int64_t n0 =
                        j + int64_t(fir::first_block(s_begin, taps, MAXT)) * step;
                    host_packed10_rows rows{ &bytes,
                                             packed10_walk::from(n0, step),
                                             n0,
                                             step,
                                             std::vector<float>(std::size_t(n_spectra)) };
                    fir::column_run<MAXT, float>(w, taps, s_begin, s_end, rows);
                    for (int s = s_begin; s < s_end; ++s) {
                        float want = 0;
                        for (int t = 0; t < MAXT; ++t) {
                            const int64_t blk = s + taps - MAXT + t;
                            const float x =
                                blk >= 0
                                    ? float(packed10_sample(bytes.data(), j + blk * step))
                                    : 0.0f;
                            want = fmaf(w[t], x, want);
                        }
                        BOOST_REQUIRE_EQUAL(rows.out[std::size_t(s)], want);
                    }
                }
        }
}

// The 10-bit walk the FIR's rows use: every step-th sample's two bytes
// fetched up to 8 samples ahead, decoded in order with the walk's own
// phase, equal the indexed decode; the two bytes lie inside the stream.
BOOST_AUTO_TEST_CASE(packed10_walk_decodes_ahead_fetched_bytes)
{
    std::mt19937_64 rng(23);
    std::vector<uint8_t> bytes(1001);
    for (auto& b : bytes)
        b = uint8_t(rng());
    const int64_t samples = int64_t(bytes.size()) * 8 / 10;
    for (int step : { 1, 2, 3, 8, 2 * 257, 2048 })
        for (int64_t first = 0; first < 8; ++first)
            for (int ahead : { 1, 4, 8 }) {
                auto walk = packed10_walk::from(first, step);
                std::vector<std::pair<unsigned, unsigned>> fetched;
                int64_t n_fetched = first, n_decoded = first;
                auto fetch = [&] {
                    const int64_t b = walk.next_byte();
                    BOOST_REQUIRE_EQUAL(b, 10 * n_fetched / 8);
                    BOOST_REQUIRE_LT(b + 1, int64_t(bytes.size()));
                    fetched.emplace_back(bytes[std::size_t(b)],
                                         bytes[std::size_t(b) + 1]);
                    n_fetched += step;
                };
                for (int k = 0; k < ahead && n_fetched < samples; ++k)
                    fetch();
                for (std::size_t k = 0; k < fetched.size(); ++k) {
                    BOOST_REQUIRE_EQUAL(walk.decode(fetched[k].first, fetched[k].second),
                                        packed10_sample(bytes.data(), n_decoded));
                    n_decoded += step;
                    if (n_fetched < samples)
                        fetch();
                }
                BOOST_REQUIRE_EQUAL(n_decoded, n_fetched);
            }
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
