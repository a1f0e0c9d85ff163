/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The CUDA DDC's ring kernel (ddc_ring.h, ddc_ring_kernel in ddc_cuda.cu)
// on the host, as its blocks run it: the persistent walk (block b takes
// tiles b, b + grid, ...), the ring of stages filled by 16-byte copies
// (and byte copies at a launch's ends) while an earlier stage is decoded,
// the decode from the stage into the phase-major tile, the FIR of every
// thread and phase group, the groups' fixed-order sum, the rotation by the
// re-seeded recurrence, the outputs staged and stored by consecutive
// threads. Checked: each stage holds every byte its decode reads (and the
// 10-bit decode's words stay 4-byte aligned in shared memory, and read only
// the launch's bytes), each output is stored exactly once, the outputs equal
// the CPU plan (every format, odd D and T, odd first samples and input
// addresses, banks of two, mix first, outputs near 2^36), a stream cut into
// calls gives the same bits as one call, and the candidates fit.

#include "ddc_ring.h"
#include "kernels/common/packed10.h"
#include "qa_ddc_common.h"
#include <gnuradio/gpudsp/kernels/ddc.h>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <deque>
#include <set>

using namespace gr::gpudsp;
using namespace gr::gpudsp::kernels;

namespace {

using cvec = std::vector<std::complex<float>>;
// Per-block limits of sm_75 and sm_90 (opt-in).
constexpr std::size_t limits[] = { 65536, 232448 };

// One output of a bank: its reversed premultiplied taps (or, mixing first,
// reversed real taps), its phase and its outputs.
struct member {
    std::vector<ddc_cf> zr;
    std::vector<float> h;
    mixer_phase phase;
    cvec out;
};

// The launch's input: bytes from the input pointer, whose address is
// addr16 mod 16.
struct launch_input {
    const std::vector<uint8_t>* bytes;
    int addr16;
    long long first_sample, valid;
};

// Sample n of a stage holding input bytes from base on (the kernel's
// stage_sample), checking that the bytes were copied there and readable.
struct stage_view {
    const std::vector<uint8_t>& st;
    const std::vector<char>& copied; // 1: from the input, 2: zero fill
    long long base;
    void check(long long off, int len) const
    {
        BOOST_REQUIRE_GE(off, 0);
        BOOST_REQUIRE_LE(off + len, (long long)st.size());
        for (int b = 0; b < len; ++b)
            BOOST_REQUIRE_EQUAL(copied[off + b], 1);
    }
    template <class V>
    V at(long long byte) const
    {
        const long long off = byte - base;
        check(off, sizeof(V));
        V v;
        std::memcpy(&v, st.data() + off, sizeof v);
        return v;
    }
};

// The ring kernel's launch on the host: grid blocks, each walking its
// tiles with the stage ring; stores counted in `stores`.
void emulate(const ddc_ring_shape& rs,
             ddc_input f,
             bool mix,
             const launch_input& li,
             uint64_t first_output,
             std::size_t n_outputs,
             int grid,
             std::vector<member>& bank,
             std::vector<int>& stores)
{
    const ddc_tile_shape& sh = rs.sh;
    const int bits = ddc_sample_bits(f);
    const bool cplx = f == ddc_input::complex64;
    const int stage_bytes = ddc_ring_stage_bytes(sh, bits);
    const int n_threads = sh.threads();
    const int mis = li.addr16 & 3;
    const long long tiles = (long long)((n_outputs + sh.M - 1) / sh.M);
    const auto& in = *li.bytes;
    const ddc_ring_bytes readable = ddc_ring_readable(bits, li.first_sample, li.valid);
    BOOST_REQUIRE_LE(readable.hi, (long long)in.size());
    auto window_of = [&](long long i) {
        return ddc_ring_window_of(
            ddc_ring_needed(sh, bits, li.first_sample, li.valid, i * sh.M * sh.D, mis),
            li.addr16);
    };
    for (int blk = 0; blk < grid; ++blk) {
        std::vector<std::vector<uint8_t>> stages(rs.stages,
                                                 std::vector<uint8_t>(stage_bytes, 0xEE));
        std::vector<std::vector<char>> copied(rs.stages, std::vector<char>(stage_bytes));
        // The asynchronous copies land when a wait lets them (the newest
        // ddc_ring_in_flight groups stay pending); the byte copies at a
        // launch's ends are plain stores and land at once. A stage is
        // poisoned when a tile is issued into it.
        struct copy {
            int stage, at;
            uint8_t value;
        };
        std::deque<std::vector<copy>> pending; // one group a tile
        auto issue = [&](int j) {
            pending.emplace_back();
            const long long i = ddc_ring_tile(blk, j, grid);
            if (i >= tiles)
                return; // an empty group
            const int k = ddc_ring_stage_of(j, rs.stages);
            auto& st = stages[k];
            auto& cp = copied[k];
            std::fill(st.begin(), st.end(), 0xEE);
            std::fill(cp.begin(), cp.end(), 0);
            const ddc_ring_window w = window_of(i);
            BOOST_REQUIRE_LE(w.chunks * ddc_ring_chunk, stage_bytes);
            BOOST_REQUIRE_EQUAL((w.base + li.addr16) % ddc_ring_chunk, 0);
            std::vector<char> written(stage_bytes, 0);
            for (int tid = 0; tid < n_threads; ++tid)
                ddc_ring_for_chunks(
                    w,
                    readable,
                    tid,
                    n_threads,
                    [&](int c, long long o) {
                        BOOST_REQUIRE(o >= readable.lo && o + 16 <= readable.hi);
                        for (int b = 0; b < 16; ++b) {
                            BOOST_REQUIRE(!written[16 * c + b]);
                            written[16 * c + b] = 1;
                            pending.back().push_back({ k, 16 * c + b, in[o + b] });
                        }
                    },
                    [&](int c, long long o) {
                        for (int b = 0; b < 16; ++b) {
                            BOOST_REQUIRE(!written[16 * c + b]);
                            written[16 * c + b] = 1;
                            const bool ok = o + b >= readable.lo && o + b < readable.hi;
                            st[16 * c + b] = ok ? in[o + b] : 0;
                            cp[16 * c + b] = ok ? 1 : 2;
                        }
                    });
        };
        auto wait = [&](int in_flight) {
            while ((int)pending.size() > in_flight) {
                for (const copy& c : pending.front()) {
                    stages[c.stage][c.at] = c.value;
                    copied[c.stage][c.at] = 1;
                }
                pending.pop_front();
            }
        };
        for (int j = 0; j < rs.stages; ++j)
            issue(j);
        const std::size_t tile_elems = std::size_t(sh.D) * sh.row_stride;
        std::vector<float> tile_f(tile_elems);
        std::vector<ddc_cf> tile_c(tile_elems);
        std::vector<ddc_cf> parts(std::size_t(std::max(sh.G, 1)) * sh.M);
        for (int j = 0;; ++j) {
            const long long i = ddc_ring_tile(blk, j, grid);
            if (i >= tiles)
                break;
            wait(ddc_ring_in_flight(rs.stages));
            const stage_view sv{ stages[ddc_ring_stage_of(j, rs.stages)],
                                 copied[ddc_ring_stage_of(j, rs.stages)],
                                 window_of(i).base };
            const long long m0 = i * sh.M, s0 = m0 * sh.D;
            std::fill(tile_f.begin(), tile_f.end(), NAN);
            std::fill(tile_c.begin(), tile_c.end(), ddc_cf{ NAN, NAN });
            auto sample_c = [&](long long n) -> ddc_cf {
                const auto v = sv.at<std::complex<float>>(8 * n);
                return ddc_cf{ v.real(), v.imag() };
            };
            auto sample_f = [&](long long n) -> float {
                if (f == ddc_input::int16)
                    return float(sv.at<int16_t>(2 * n));
                return sv.at<float>(4 * n);
            };
            for (int tid = 0; tid < n_threads; ++tid) {
                if (mix) {
                    ddc_tile_for_mixed(
                        sh,
                        tid,
                        n_threads,
                        ddc_tile_stream_first(first_output, uint64_t(m0), sh.D, sh.T),
                        bank[0].phase.step,
                        bank[0].phase.offset,
                        [&](int s) {
                            const long long n = s0 + s;
                            return n < li.valid ? sample_c(li.first_sample + n)
                                                : ddc_cf{ 0.0f, 0.0f };
                        },
                        [&](int at, ddc_cf v) { tile_c[at] = v; });
                } else if (f == ddc_input::packed10) {
                    ddc_tile_for_packed10(
                        sh,
                        ddc_packed10_span_of(li.first_sample, li.valid, s0, mis),
                        tid,
                        n_threads,
                        [&](long long b) {
                            // aligned in shared memory as in global memory
                            BOOST_REQUIRE_EQUAL((b - sv.base) % 4, 0);
                            BOOST_REQUIRE(b >= readable.lo && b + 4 <= readable.hi);
                            return sv.at<uint32_t>(b);
                        },
                        [&](long long n) { return packed10_sample(in.data(), n); },
                        [&](int at, float x) { tile_f[at] = x; });
                } else if (cplx) {
                    ddc_tile_for_samples(sh, tid, n_threads, [&](int s, int at) {
                        const long long n = s0 + s;
                        tile_c[at] = n < li.valid ? sample_c(li.first_sample + n)
                                                  : ddc_cf{ 0.0f, 0.0f };
                    });
                } else {
                    ddc_tile_for_samples(sh, tid, n_threads, [&](int s, int at) {
                        const long long n = s0 + s;
                        tile_f[at] = n < li.valid ? sample_f(li.first_sample + n) : 0.0f;
                    });
                }
            }
            issue(ddc_ring_next(j, rs.stages)); // into the stage just decoded
            for (auto& o : bank) {
                // every thread's partials, then group 0's sums, rotation and
                // staging, then the stores by consecutive threads
                const int R = sh.R();
                std::vector<std::array<ddc_cf, 16>> acc(n_threads);
                for (int tid = 0; tid < n_threads; ++tid) {
                    const int t = tid % sh.TW, g = tid / sh.TW;
                    if (mix)
                        ddc_tile_partial_of(
                            sh, tile_c.data(), o.h.data(), t, g, acc[tid].data());
                    else if (cplx)
                        ddc_tile_partial_of(
                            sh, tile_c.data(), o.zr.data(), t, g, acc[tid].data());
                    else
                        ddc_tile_partial_of(
                            sh, tile_f.data(), o.zr.data(), t, g, acc[tid].data());
                    if (sh.G > 1)
                        for (int r = 0; r < R; ++r)
                            parts[g * sh.M + t * R + r] = acc[tid][r];
                }
                for (int t = 0; t < sh.TW; ++t) { // group 0
                    auto& a = acc[t];
                    for (int r = 0; r < R; ++r)
                        for (int k = 1; k < sh.G; ++k) {
                            a[r].re += parts[k * sh.M + t * R + r].re;
                            a[r].im += parts[k * sh.M + t * R + r].im;
                        }
                    if (mix) {
                        for (int r = 0; r < R; ++r)
                            parts[t * R + r] = a[r];
                    } else {
                        ddc_ring_rotations(first_output + uint64_t(m0 + t * R),
                                           R,
                                           sh.D,
                                           o.phase.step,
                                           o.phase.offset,
                                           [&](int r, ddc_cf v) {
                                               parts[t * R + r] = ddc_cmul(a[r], v);
                                           });
                    }
                }
                for (int tid = 0; tid < n_threads; ++tid)
                    for (int k = tid; k < sh.M; k += n_threads) {
                        const std::size_t m = std::size_t(m0 + k);
                        if (m < n_outputs) {
                            o.out[m] = std::complex<float>(parts[k].re, parts[k].im);
                            if (&o == &bank[0])
                                ++stores[m];
                        }
                    }
            }
        }
    }
}

// The bank member for a plan: its (reversed) taps and phase, outputs NaN.
member member_of(const ddc_plan& plan, bool mix, std::size_t n)
{
    member m;
    const int T = plan.config().n_taps();
    if (mix) {
        for (int j = 0; j < T; ++j)
            m.h.push_back(float(plan.config().taps[T - 1 - j].real()));
    } else {
        const cvec z = qa::ddc_premultiplied(plan);
        for (int j = 0; j < T; ++j)
            m.zr.push_back(ddc_cf{ z[T - 1 - j].real(), z[T - 1 - j].imag() });
    }
    m.phase = plan.phase();
    m.out.assign(n, std::complex<float>(NAN, NAN));
    return m;
}

// Input addresses the format allows (mod 16): samples stay aligned.
std::vector<int> addresses(ddc_input f)
{
    switch (f) {
    case ddc_input::packed10:
        return { 0, 3, 6, 13 };
    case ddc_input::int16:
        return { 0, 2, 14 };
    case ddc_input::float32:
        return { 0, 4, 12 };
    case ddc_input::complex64:
        break;
    }
    return { 0, 8 };
}

} // namespace

BOOST_AUTO_TEST_CASE(candidates_fit_and_are_named_once)
{
    for (std::size_t limit : limits)
        for (ddc_input f : { ddc_input::packed10, ddc_input::complex64 })
            for (int D : { 1, 3, 16, 64, 257 })
                for (int T : { 1, 55, 256, 1024, 20000 }) {
                    const int bits = ddc_sample_bits(f);
                    const auto all = ddc_ring_candidates(D, T, bits, limit);
                    std::set<std::string> ids;
                    for (const auto& r : all) {
                        BOOST_REQUIRE(ids.insert(ddc_ring_id(r)).second);
                        BOOST_REQUIRE(r.stages == 1 || r.stages == 2);
                        BOOST_REQUIRE_LE(ddc_ring_shared_bytes(r.sh, bits, r.stages),
                                         limit);
                        BOOST_REQUIRE_EQUAL(
                            ddc_ring_stage_offset(r.sh, bits == 64 ? 8 : 4) % 16, 0u);
                        BOOST_REQUIRE(r.sh.AC == 4 || (r.sh.AC == 8 && r.sh.A >= 8));
                        BOOST_REQUIRE(
                            ddc_tile_r_built(r.sh.R(), r.sh.AC, bits == 64, true));
                        BOOST_REQUIRE(r.per_sm == 0 || r.per_sm == 1);
                    }
                    // the first candidate also, where two of its blocks
                    // fit an SM, on one block an SM
                    if (!all.empty()) {
                        int fewer = 0;
                        for (const auto& r : all) {
                            const bool same =
                                std::memcmp(&r.sh, &all[0].sh, sizeof r.sh) == 0 &&
                                r.stages == all[0].stages;
                            fewer += same && r.per_sm == 1;
                        }
                        const std::size_t two = (limit + 1024) / 2 - 1024;
                        BOOST_REQUIRE_EQUAL(
                            fewer,
                            ddc_ring_shared_bytes(all[0].sh, bits, all[0].stages) <= two
                                ? 1
                                : 0);
                    }
                    // a ring is offered wherever its smallest tile fits, at
                    // each number of outputs a thread built for the format
                    for (const int lgR : { 2, 3, 4 }) {
                        const bool fits =
                            ddc_ring_shared_bytes(
                                ddc_tile_shape_with(D, T, 32, 1, 4, lgR), bits, 1) <=
                            limit;
                        const bool built =
                            lgR == 3 || (bits != 64 && (T + D - 1) / D >= 8);
                        const bool offered =
                            std::any_of(all.begin(), all.end(), [&](auto& r) {
                                return r.sh.lgR == lgR;
                            });
                        BOOST_REQUIRE_EQUAL(offered, fits && built);
                    }
                }
}

BOOST_AUTO_TEST_CASE(rotations_are_a_function_of_the_output_alone)
{
    // Runs of 16 (R = 16: two seeds) starting anywhere give the same bits
    // for the same output, within ~1.25e-7 Q of the exact rotation (Q - 1
    // roundings at most since the seed), also near output 2^40.
    constexpr int Q = ddc_rotate_reseed, run = 16;
    const uint64_t step = 0x1234567890abcdefULL, offset = 0x0fedcba987654321ULL;
    for (uint64_t base : { uint64_t(0), uint64_t(1) << 40 })
        for (int D : { 1, 7, 16 })
            for (int start = 0; start < 2 * Q + 8; ++start) {
                std::vector<ddc_cf> got(run);
                ddc_ring_rotations(
                    base + start, run, D, step, offset, [&](int r, ddc_cf v) {
                        got[r] = v;
                    });
                for (int r = 0; r < run; ++r) {
                    const uint64_t m = base + start + r;
                    // the same run from its seed
                    std::vector<ddc_cf> seeded(static_cast<std::size_t>(Q));
                    ddc_ring_rotations(
                        m - m % Q, Q, D, step, offset, [&](int k, ddc_cf v) {
                            seeded[std::size_t(k)] = v;
                        });
                    BOOST_REQUIRE_EQUAL(
                        std::memcmp(&got[r], &seeded[m % Q], sizeof(ddc_cf)), 0);
                    const uint64_t p = step * (m * uint64_t(D)) + offset;
                    const std::complex<double> exact =
                        std::polar(1.0, -2 * M_PI * double(int64_t(p)) * 0x1p-64);
                    BOOST_REQUIRE_LT(
                        std::abs(std::complex<double>(got[r].re, got[r].im) - exact),
                        1.25e-7 * Q);
                }
            }
}

BOOST_AUTO_TEST_CASE(ring_kernel_steps_match_the_cpu_plan)
{
    unsigned seed = 501;
    int emulated = 0;
    for (std::size_t limit : limits)
        for (auto f : { ddc_input::complex64,
                        ddc_input::float32,
                        ddc_input::int16,
                        ddc_input::packed10 })
            for (auto td : { std::make_pair(55, 5),
                             std::make_pair(1, 1),
                             std::make_pair(3, 8),
                             std::make_pair(256, 16),
                             std::make_pair(300, 7) }) {
                const int T = td.first, D = td.second;
                // for each number of outputs a thread, its first candidate
                // at the larger limit, its last at the smaller (different
                // stages and widths)
                std::vector<ddc_ring_shape> picks;
                for (const auto& r :
                     ddc_ring_candidates(D, T, ddc_sample_bits(f), limit)) {
                    auto same = std::find_if(picks.begin(), picks.end(), [&](auto& p) {
                        return p.sh.lgR == r.sh.lgR;
                    });
                    if (same == picks.end())
                        picks.push_back(r);
                    else if (limit == limits[0])
                        *same = r;
                }
                for (const auto& rs : picks) {
                    const auto addrs = addresses(f);
                    const int addr16 = addrs[seed % addrs.size()];
                    const int64_t first = f == ddc_input::packed10 ? 3 : 1;
                    const uint64_t first_output = seed % 2 ? uint64_t(1) << 36 : 5;
                    // two tiles and a bit per block of 2, the last block short
                    const std::size_t n = 4 * rs.sh.M + 37;
                    const int grid = 2;
                    auto c = qa::ddc_config(f, T, D, 0.21e6, seed++);
                    auto c2 = qa::ddc_config(f, T, D, -0.33e6, seed++);
                    const auto in =
                        qa::ddc_random_input(f, first + (n - 1) * D + T, seed++);
                    ddc_plan plan(c, runtime::backend_choice{}, "qa");
                    ddc_plan plan2(c2, runtime::backend_choice{}, "qa2");
                    cvec want(n), want2(n);
                    plan.execute(in.data(), first, first_output, n, want.data(), nullptr);
                    plan2.execute(
                        in.data(), first, first_output, n, want2.data(), nullptr);
                    std::vector<member> bank{ member_of(plan, false, n),
                                              member_of(plan2, false, n) };
                    std::vector<int> stores(n, 0);
                    emulate(rs,
                            f,
                            false,
                            { &in, addr16, first, (long long)(n - 1) * D + T },
                            first_output,
                            n,
                            grid,
                            bank,
                            stores);
                    ++emulated;
                    for (std::size_t m = 0; m < n; ++m)
                        BOOST_REQUIRE_EQUAL(stores[m], 1);
                    const double err64 = std::max(
                        qa::ddc_err64(
                            bank[0].out,
                            qa::ddc_reference64(plan, in, first, first_output, n)),
                        qa::ddc_err64(
                            bank[1].out,
                            qa::ddc_reference64(plan2, in, first, first_output, n)));
                    BOOST_CHECK_MESSAGE(
                        qa::ddc_rel_err(bank[0].out, want) < 2e-5 &&
                            qa::ddc_rel_err(bank[1].out, want2) < 2e-5 && err64 < 1e-5,
                        "format " << int(f) << " T=" << T << " D=" << D << " "
                                  << ddc_ring_id(rs) << ": "
                                  << qa::ddc_rel_err(bank[0].out, want) << ", "
                                  << qa::ddc_rel_err(bank[1].out, want2)
                                  << ", against float64 " << err64);
                }
            }
    BOOST_CHECK_GE(emulated, 74); // (R = 4 and 16 where phases have 8 taps or more)
}

BOOST_AUTO_TEST_CASE(mixed_ring_kernel_matches_the_cpu_plan)
{
    unsigned seed = 601;
    int emulated = 0;
    for (std::size_t limit : limits)
        for (auto td : { std::make_pair(55, 5),
                         std::make_pair(4, 1),
                         std::make_pair(256, 16),
                         std::make_pair(300, 7) })
            for (uint64_t first_output : { uint64_t(0), uint64_t(1) << 36 }) {
                const int T = td.first, D = td.second;
                const auto rings = ddc_ring_candidates(D, T, 64, limit);
                if (rings.empty())
                    continue;
                for (const auto& rs : rings) {
                    auto c = qa::ddc_config(ddc_input::complex64, T, D, 0.2137e6, seed++);
                    for (auto& h : c.taps)
                        h = h.real();
                    // three tiles for one block, two for the other
                    const std::size_t n = 4 * rs.sh.M + 37;
                    const int64_t first = seed % 2;
                    const auto in = qa::ddc_random_input(
                        ddc_input::complex64, first + (n - 1) * D + T, seed++);
                    ddc_plan plan(c, runtime::backend_choice{}, "qa");
                    cvec want(n);
                    plan.execute(in.data(), first, first_output, n, want.data(), nullptr);
                    std::vector<member> bank{ member_of(plan, true, n) };
                    std::vector<int> stores(n, 0);
                    emulate(
                        rs,
                        ddc_input::complex64,
                        true,
                        { &in, int(8 * (seed % 2)), first, (long long)(n - 1) * D + T },
                        first_output,
                        n,
                        2,
                        bank,
                        stores);
                    ++emulated;
                    for (std::size_t m = 0; m < n; ++m)
                        BOOST_REQUIRE_EQUAL(stores[m], 1);
                    const double err64 = qa::ddc_err64(
                        bank[0].out,
                        qa::ddc_reference64(plan, in, first, first_output, n));
                    BOOST_CHECK_MESSAGE(qa::ddc_rel_err(bank[0].out, want) < 2e-5 &&
                                            err64 < 1e-5,
                                        "T=" << T << " D=" << D << " " << ddc_ring_id(rs)
                                             << " first output " << first_output << ": "
                                             << qa::ddc_rel_err(bank[0].out, want)
                                             << ", against float64 " << err64);
                }
            }
    BOOST_CHECK_GE(emulated, 20);
}

BOOST_AUTO_TEST_CASE(a_stream_cut_into_calls_gives_the_same_bits)
{
    // The FIR adds each output's taps in the same order wherever its tile
    // starts, and the rotation depends on the output alone: the calls'
    // outputs equal one call's bit for bit.
    unsigned seed = 701;
    for (auto f : { ddc_input::packed10, ddc_input::complex64, ddc_input::int16 })
        for (auto td : { std::make_pair(256, 16), std::make_pair(55, 5) }) {
            const int T = td.first, D = td.second;
            const auto rings = ddc_ring_candidates(D, T, ddc_sample_bits(f), limits[1]);
            BOOST_REQUIRE(!rings.empty());
            // the first candidate, the last of the shape search (R = 16 for
            // real input where offered; after it only the first on one
            // block an SM) and the first R = 8 one with two stages
            std::vector<ddc_ring_shape> cuts{ rings.front() };
            for (auto r = rings.rbegin(); r != rings.rend(); ++r)
                if (r->per_sm == 0) {
                    cuts.push_back(*r);
                    break;
                }
            for (const auto& r : rings)
                if (r.stages == 2 && r.sh.R() == 8) {
                    cuts.push_back(r);
                    break;
                }
            for (const auto& rs : cuts) {
                const std::size_t n = 2 * rs.sh.M + 101;
                const auto c = qa::ddc_config(f, T, D, 0.11e6, seed++);
                const int64_t first = f == ddc_input::packed10 ? 5 : 0;
                const auto in = qa::ddc_random_input(f, first + (n - 1) * D + T, seed++);
                ddc_plan plan(c, runtime::backend_choice{}, "qa");
                const uint64_t first_output = 3;
                std::vector<member> whole{ member_of(plan, false, n) };
                std::vector<int> stores(n, 0);
                emulate(rs,
                        f,
                        false,
                        { &in, 0, first, (long long)(n - 1) * D + T },
                        first_output,
                        n,
                        2,
                        whole,
                        stores);
                cvec cut(n);
                std::size_t done = 0;
                for (std::size_t len : { std::size_t(7), std::size_t(rs.sh.M + 3), n }) {
                    len = std::min(len, n - done);
                    if (!len)
                        break;
                    std::vector<member> part{ member_of(plan, false, len) };
                    std::vector<int> st(len, 0);
                    emulate(rs,
                            f,
                            false,
                            { &in,
                              0,
                              first + (long long)(done * D),
                              (long long)(len - 1) * D + T },
                            first_output + done,
                            len,
                            3,
                            part,
                            st);
                    std::copy(part[0].out.begin(), part[0].out.end(), cut.begin() + done);
                    done += len;
                }
                BOOST_REQUIRE_EQUAL(done, n);
                BOOST_CHECK_MESSAGE(
                    std::memcmp(cut.data(), whole[0].out.data(), n * sizeof(cut[0])) == 0,
                    "format " << int(f) << " T=" << T << " D=" << D << " "
                              << ddc_ring_id(rs));
            }
        }
}
