/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The GNSS correlator on the CPU, fused in one pass over blocks of 512
// samples: the carrier is a per-job table of in-block rotations, applied
// per sample, times one exact rotation per block (from the 64-bit phase),
// applied to the block's sums, so nothing drifts; the taps' code replicas
// are generated once for all antennas from the fixed-point code phase
// (gnss_replica_cpu.cc); then each antenna's samples are loaded once, wiped
// off in registers and multiplied into every tap's accumulator (registers
// too), whose W float lanes are rotated and added into float64 lanes per
// block. One body, instantiated for W = 16 (AVX-512), 8 (AVX2)
// and 4 (the x86-64 baseline), chosen at run time (runtime/cpu_simd.h).

#include "gnss_correlator_impl.h"
#include "gnss_replica_cpu.h"
#include "kernels/common/cpu_worker_pool.h"
#include <gnuradio/gpudsp/runtime/cpu_simd.h>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <utility>

namespace gr {
namespace gpudsp {
namespace kernels {

namespace {

// Samples per block: (block + 15) * code_step < one code period (at most
// one chip per sample, codes of >= 1023 chips), so a block's replica needs
// no wrap; each accumulator lane sums 512 / W products in float.
constexpr int block = 512;
static_assert(block % 16 == 0, "whole groups of the widest SIMD level");
constexpr int max_taps_per_pass = 8; // accumulators held in registers

#define GNSS_INLINE inline __attribute__((always_inline))

typedef float f4 __attribute__((vector_size(16)));
typedef float f8 __attribute__((vector_size(32)));
typedef float f16 __attribute__((vector_size(64)));
typedef double d2 __attribute__((vector_size(16)));
typedef double d4 __attribute__((vector_size(32)));
typedef double d8 __attribute__((vector_size(64)));

// A SIMD level: W float lanes V, W/2 double lanes D, its code replica.
template <int lanes, class float_lanes, class double_lanes, gnss_replicas_fn fn>
struct simd_level {
    static constexpr int W = lanes;
    typedef float_lanes V;
    typedef double_lanes D;
    static constexpr gnss_replicas_fn replicas = fn;
};
using isa_baseline = simd_level<4, f4, d2, gnss_code_replicas_scalar>;
using isa_avx2 = simd_level<8, f8, d4, gnss_code_replicas_avx2>;
using isa_avx512 = simd_level<16, f16, d8, gnss_code_replicas_avx512>;

// (Helpers take and give vectors by reference: always inlined into a
// function of the right target, they never cross an ABI boundary.)

// W interleaved I/Q samples (float or int16) as W I and W Q lanes in
// gnss_lane_sample's order: two W-lane loads and one in-lane shuffle each
// (vshufps: sample s's I is float 2 s of the two concatenated), where the
// samples' own order would take lane-crossing permutations and blends.
template <class V, class In, std::size_t... I>
GNSS_INLINE void load_iq(const In* x, V& a, V& b, std::index_sequence<I...>)
{
    constexpr int W = int(sizeof...(I));
    typedef In raw __attribute__((vector_size(W * sizeof(In))));
    raw r0, r1;
    std::memcpy(&r0, x, sizeof r0);
    std::memcpy(&r1, x + W, sizeof r1);
    const V lo = __builtin_convertvector(r0, V), hi = __builtin_convertvector(r1, V);
    a = __builtin_shufflevector(lo, hi, (2 * gnss_lane_sample(W, I))...);
    b = __builtin_shufflevector(lo, hi, (2 * gnss_lane_sample(W, I) + 1)...);
}

// The W float lanes of v added pairwise into W/2 double lanes.
template <class D, class V, std::size_t... I>
GNSS_INLINE D widen(const V& v, std::index_sequence<I...>)
{
    constexpr std::size_t H = sizeof...(I);
    return __builtin_convertvector(__builtin_shufflevector(v, v, I...), D) +
           __builtin_convertvector(__builtin_shufflevector(v, v, (I + H)...), D);
}

// (acc[0 .. H) + j acc[H .. 2H)) += (re + j im) (br + j bi), H = W/2
// double lanes, re and im widened pairwise. (Memory is accessed by memcpy:
// a vector type's alignment depends on the target the code around it is
// compiled for.)
template <class D, class V>
GNSS_INLINE void add_rotated(double* acc, const V& re, const V& im, double br, double bi)
{
    constexpr std::size_t H = sizeof(D) / sizeof(double);
    const D r = widen<D>(re, std::make_index_sequence<H>{});
    const D i = widen<D>(im, std::make_index_sequence<H>{});
    D a, b;
    std::memcpy(&a, acc, sizeof a);
    std::memcpy(&b, acc + H, sizeof b);
    a += r * br - i * bi;
    b += r * bi + i * br;
    std::memcpy(acc, &a, sizeof a);
    std::memcpy(acc + H, &b, sizeof b);
}

// One antenna's block of n samples: wipe off the carrier, the in-block
// rotations (cr, ci) times the block's first sample's (br, bi), and add
// the products with L taps' replicas (code[l * block ..]) into the W/2
// double lanes at acc + W l (I) and acc + W l + W/2 (Q). The rotations
// within the block are applied per sample; the block's own, common to its
// samples, to its sums (in float64), so the carrier costs one complex
// product per sample. cr, ci and code hold whole W-lane groups, each in
// gnss_lane_sample's order as load_iq gives the samples.
template <class isa, int L, class In>
GNSS_INLINE void wipe_dot(const In* x,
                          int n,
                          const float* cr,
                          const float* ci,
                          double br,
                          double bi,
                          const float* code,
                          double* acc)
{
    constexpr int W = isa::W;
    typedef typename isa::V V;
    V ar[L] = {}, ai[L] = {};
    alignas(64) In tail[2 * W] = {}; // the last partial group, zero-padded
    for (int g = 0; g < n; g += W) {
        const In* xg = x + 2 * g;
        if (g + W > n) {
            std::copy(xg, xg + 2 * (n - g), tail);
            xg = tail;
        }
        V a, b, c, s;
        load_iq(xg, a, b, std::make_index_sequence<W>{});
        std::memcpy(&c, cr + g, sizeof c);
        std::memcpy(&s, ci + g, sizeof s);
        const V wr = a * c - b * s, wi = a * s + b * c;
        for (int l = 0; l < L; ++l) {
            V v;
            std::memcpy(&v, code + l * block + g, sizeof v);
            ar[l] += wr * v;
            ai[l] += wi * v;
        }
    }
    for (int l = 0; l < L; ++l)
        add_rotated<typename isa::D>(acc + W * l, ar[l], ai[l], br, bi);
}

// All L taps, at most max_taps_per_pass at a time.
template <class isa, class In>
GNSS_INLINE void wipe_dot_taps(const In* x,
                               int n,
                               const float* cr,
                               const float* ci,
                               double br,
                               double bi,
                               const float* code,
                               int L,
                               double* acc)
{
    for (int l0 = 0; l0 < L; l0 += max_taps_per_pass) {
        const float* c = code + l0 * block;
        double* a = acc + isa::W * l0;
        switch (std::min(L - l0, max_taps_per_pass)) {
        case 1: wipe_dot<isa, 1>(x, n, cr, ci, br, bi, c, a); break;
        case 2: wipe_dot<isa, 2>(x, n, cr, ci, br, bi, c, a); break;
        case 3: wipe_dot<isa, 3>(x, n, cr, ci, br, bi, c, a); break;
        case 4: wipe_dot<isa, 4>(x, n, cr, ci, br, bi, c, a); break;
        case 5: wipe_dot<isa, 5>(x, n, cr, ci, br, bi, c, a); break;
        case 6: wipe_dot<isa, 6>(x, n, cr, ci, br, bi, c, a); break;
        case 7: wipe_dot<isa, 7>(x, n, cr, ci, br, bi, c, a); break;
        default: wipe_dot<isa, 8>(x, n, cr, ci, br, bi, c, a); break;
        }
    }
}

// A system's taps in groups whose replicas share a base phase
// (gnss_code_replicas): taps sorted by offset, each group spanning at most
// group_span chips from its first. A block's replica then reads below
// chip L + group_span + block + 15 < 2 L for every code (L >= 1023, checked
// by the constructor): the table holding the code twice needs no wrap.
constexpr int64_t group_span = 256;
struct tap_groups {
    std::vector<uint64_t> base; // [group]: offset, chips * 2^F in [0, modulus)
    std::vector<int> first;     // [group + 1]: the group's taps in tap / rel
    std::vector<int> tap;       // the taps, in offset order
    std::vector<uint64_t> rel;  // their offsets from their group's base
};

// What one job needs besides its fixed-point parameters.
struct job_inputs {
    const std::vector<const void*>* antennas;
    gnss_input input;
    const tap_groups* groups;
    int L;
    gnss_code_table table;
};

// One thread's working memory.
struct scratch {
    std::vector<float> code; // [tap][block]; past a block's n: finite values
                             // (whole SIMD groups, or an earlier block's),
                             // multiplied by zero-padded samples
    std::vector<double> acc; // [antenna][tap][I/Q][W/2 lanes]
};

// Correlates one job into out[antenna * L + tap].
template <class isa>
GNSS_INLINE void correlate_body(const gnss_fixed_job& job,
                                const job_inputs& in,
                                scratch& s,
                                std::complex<float>* out)
{
    constexpr int W = isa::W;
    const int L = in.L;
    const int M = int(in.antennas->size());
    s.code.resize(std::size_t(L) * block); // (past n: finite, see scratch)
    s.acc.assign(std::size_t(M) * L * W, 0.0);
    double* acc = s.acc.data();
    // The in-block carrier rotations exp(-2j pi step k), from float64:
    // exp(-2j pi step (16 a + b)) = row[a] col[b], each a chain of at most
    // 32 products (error ~1e-15, far below float), each W-lane group in
    // gnss_lane_sample's order. Products written out: std::complex's
    // operator* calls __muldc3 (NaN rules), which cost a third of a
    // 5000-sample job.
    alignas(64) float rot_r[block], rot_i[block];
    {
        const double step_cyc = double(int64_t(job.carrier_step)) * 0x1p-64;
        double col_r[16], col_i[16], row_r, row_i, one_r, one_i, sixteen_r, sixteen_i;
        sincos(-2 * M_PI * step_cyc, &one_i, &one_r);
        sincos(-2 * M_PI * step_cyc * 16, &sixteen_i, &sixteen_r);
        col_r[0] = 1;
        col_i[0] = 0;
        for (int b = 1; b < 16; ++b) {
            col_r[b] = col_r[b - 1] * one_r - col_i[b - 1] * one_i;
            col_i[b] = col_r[b - 1] * one_i + col_i[b - 1] * one_r;
        }
        row_r = 1;
        row_i = 0;
        int lane_of[W]; // the lane holding each sample of a group
        for (int j = 0; j < W; ++j)
            lane_of[gnss_lane_sample(W, j)] = j;
        for (int a = 0; a < block / 16; ++a) {
            for (int b = 0; b < 16; ++b) {
                const int k = 16 * a + b; // sample k's lane: k - k % W + lane
                rot_r[k - k % W + lane_of[k % W]] = float(row_r * col_r[b] - row_i * col_i[b]);
                rot_i[k - k % W + lane_of[k % W]] = float(row_r * col_i[b] + row_i * col_r[b]);
            }
            const double r = row_r * sixteen_r - row_i * sixteen_i;
            row_i = row_r * sixteen_i + row_i * sixteen_r;
            row_r = r;
        }
    }
    const tap_groups& g = *in.groups;
    float* outs[gnss_replica_max_taps]; // each tap's replica, in offset order
    for (int i = 0; i < L; ++i)
        outs[i] = s.code.data() + std::size_t(g.tap[i]) * block;
    const uint64_t block_advance = (uint64_t(block) * job.code_step) % job.code_modulus;
    uint64_t q = job.code_phase; // code phase at the block's first sample
    for (int64_t i0 = 0; i0 < job.length; i0 += block) {
        const int n = int(std::min<int64_t>(block, job.length - i0));
        const uint64_t ph = job.carrier_phase + job.carrier_step * uint64_t(i0);
        double sa, ca;
        sincos(-2 * M_PI * double(int64_t(ph)) * 0x1p-64, &sa, &ca);
        for (std::size_t k = 0; k + 1 < g.first.size(); ++k) {
            uint64_t qb = q + g.base[k];
            if (qb >= job.code_modulus)
                qb -= job.code_modulus;
            isa::replicas(outs + g.first[k],
                          g.rel.data() + g.first[k],
                          g.first[k + 1] - g.first[k],
                          n,
                          qb,
                          job.code_step,
                          job.code_frac_bits,
                          in.table);
        }
        const int64_t first = job.start + i0;
        for (int m = 0; m < M; ++m) {
            const void* x = (*in.antennas)[m];
            double* am = acc + std::size_t(m) * L * W;
            if (in.input == gnss_input::complex64)
                wipe_dot_taps<isa>(static_cast<const float*>(x) + 2 * first,
                                   n, rot_r, rot_i, ca, sa, s.code.data(), L, am);
            else
                wipe_dot_taps<isa>(static_cast<const int16_t*>(x) + 2 * first,
                                   n, rot_r, rot_i, ca, sa, s.code.data(), L, am);
        }
        q += block_advance;
        if (q >= job.code_modulus)
            q -= job.code_modulus;
    }
    for (int r2 = 0; r2 < M * L; ++r2) {
        double re = 0, im = 0;
        for (int j = 0; j < W / 2; ++j) {
            re += acc[W * r2 + j];
            im += acc[W * r2 + W / 2 + j];
        }
        out[r2] = std::complex<float>(float(re), float(im));
    }
}

void correlate_baseline(const gnss_fixed_job& job,
                        const job_inputs& in,
                        scratch& s,
                        std::complex<float>* out)
{
    correlate_body<isa_baseline>(job, in, s, out);
}

__attribute__((target("avx2,fma"))) void correlate_avx2(const gnss_fixed_job& job,
                                                       const job_inputs& in,
                                                       scratch& s,
                                                       std::complex<float>* out)
{
    correlate_body<isa_avx2>(job, in, s, out);
}

__attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,fma"))) void
correlate_avx512(const gnss_fixed_job& job,
                 const job_inputs& in,
                 scratch& s,
                 std::complex<float>* out)
{
    correlate_body<isa_avx512>(job, in, s, out);
}

class gnss_correlator_cpu : public gnss_correlator_plan::impl
{
public:
    gnss_correlator_cpu(int n_antennas,
                        const std::vector<int64_t>& taps,
                        gnss_input input)
        : d_m(n_antennas), d_l(taps.size() / gnss_n_systems), d_input(input)
    {
        // (the plan's checks: at most 64 taps, codes of 1023 chips or more)
        if (d_l > std::size_t(gnss_replica_max_taps))
            throw std::logic_error("gnss_correlator_cpu: more taps than the replicas take");
        // Each system's taps in groups, once (a job's modulus is its
        // system's). The plan puts the offsets on the 2^-32 chip grid.
        for (int s = 0; s < gnss_n_systems; ++s) {
            const int L = gnss_signal(gnss_system(s)).code_length;
            if (group_span + block + 15 >= L)
                throw std::logic_error("gnss_correlator_cpu: a code too short for the "
                                       "replicas' table without a wrap");
            const int F = gnss_code_frac_bits(L);
            const uint64_t modulus = uint64_t(L) << F;
            const int64_t* t = taps.data() + s * d_l;
            auto& g = d_groups[s];
            g.tap.resize(d_l);
            for (std::size_t l = 0; l < d_l; ++l) {
                if (t[l] % (int64_t(1) << (F - 32)) != 0)
                    throw std::logic_error("gnss_correlator_cpu: tap offset off the "
                                           "2^-32 chip grid");
                g.tap[l] = int(l);
            }
            std::stable_sort(g.tap.begin(), g.tap.end(), [&](int a, int b) {
                return t[a] < t[b];
            });
            int64_t lead = 0; // the current group's first offset
            for (std::size_t i = 0; i < d_l; ++i) {
                const int64_t off = t[g.tap[i]];
                if (i == 0 || ((off - lead) >> F) >= group_span) {
                    lead = off;
                    g.first.push_back(int(i));
                    g.base.push_back(off < 0 ? modulus - uint64_t(-off) : uint64_t(off));
                }
                g.rel.push_back(uint64_t(off - lead));
            }
            g.first.push_back(int(d_l));
        }
        set_threads(1);
    }

    void set_threads(int n) override { d_scratch.resize(std::size_t(n)); }

    // Each job is summed by one thread in the same order whatever the
    // threads, so the results do not depend on them. The threads take jobs,
    // longest first, from a shared counter: a worker that wakes late (tens
    // of microseconds on a loaded machine) takes fewer instead of holding
    // the call up, and jobs of different lengths (1 ms L1 beside 4 ms E1-B
    // integrations) even out.
    void execute(const std::vector<const void*>& antennas,
                 const std::vector<gnss_fixed_job>& jobs,
                 std::complex<float>* out,
                 runtime::stream_handle,
                 const std::function<void()>& meanwhile) override
    {
        if (meanwhile)
            meanwhile(); // (nothing to overlap: the work is this thread's)
        for (const auto& j : jobs)
            prepare_table(j.system); // before the workers start
        // Split only when it pays: the call's time on one thread, from the
        // rate of earlier one-thread calls (the first call runs on one to
        // measure it), against the measured cost of waking the workers.
        double units = 0; // samples x antennas x taps
        for (const auto& j : jobs)
            units += double(j.length) * double(d_m) * double(d_l);
        std::size_t T = std::min(d_scratch.size(), jobs.size());
        if (T > 1)
            T = d_seconds_per_unit > 0
                    ? d_pool.threads_that_pay(T, units * d_seconds_per_unit)
                    : 1;
        const auto t0 = std::chrono::steady_clock::now();
        d_order.resize(jobs.size());
        for (std::size_t j = 0; j < jobs.size(); ++j)
            d_order[j] = j;
        std::sort(d_order.begin(), d_order.end(), [&](std::size_t a, std::size_t b) {
            return jobs[a].length != jobs[b].length ? jobs[a].length > jobs[b].length : a < b;
        });
        std::atomic<std::size_t> next{ 0 };
        d_pool.run(T, [&](std::size_t w) {
            for (std::size_t k; (k = next.fetch_add(1)) < jobs.size();) {
                const std::size_t j = d_order[k];
                correlate_job(antennas, jobs[j], out + j * d_m * d_l, d_scratch[w]);
            }
        });
        if (T == 1 && units > 0) { // a running average of the one-thread rate
            const double rate =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
                    .count() /
                units;
            d_seconds_per_unit =
                d_seconds_per_unit > 0 ? 0.75 * d_seconds_per_unit + 0.25 * rate : rate;
        }
    }

private:
    void correlate_job(const std::vector<const void*>& antennas,
                       const gnss_fixed_job& job,
                       std::complex<float>* out,
                       scratch& s)
    {
        static const auto correlate = runtime::cpu_use_avx512() ? correlate_avx512
                                      : runtime::cpu_use_avx2() ? correlate_avx2
                                                                : correlate_baseline;
        const auto& t = d_tables[job.system];
        const job_inputs in{ &antennas,
                             d_input,
                             &d_groups[job.system],
                             int(d_l),
                             { t.chips2.data() + std::size_t(job.prn - 1) * 2 * t.length,
                               t.sub,
                               t.sub_phases } };
        correlate(job, in, s, out);
    }

    // A system's table, made when a job first needs it (the L5 and E5a
    // tables are 4-5 MB each as float).
    void prepare_table(int system)
    {
        auto& t = d_tables[system];
        if (t.length)
            return;
        const auto sys = gnss_system(system);
        const auto& spec = gnss_signal(sys);
        const auto& codes = gnss_codes(sys);
        // (+32: the replica loads up to 32 entries from a chip)
        t.chips2.resize(std::size_t(spec.n_prns) * 2 * spec.code_length + 32);
        for (int p = 0; p < spec.n_prns; ++p)
            for (int c = 0; c < 2 * spec.code_length; ++c)
                t.chips2[std::size_t(p) * 2 * spec.code_length + c] =
                    codes[std::size_t(p) * spec.code_length + c % spec.code_length];
        t.sub_phases = spec.sub_phases;
        for (int j = 0; j < spec.sub_phases; ++j)
            t.sub[j] = float(gnss_subcarrier(sys, j));
        t.length = spec.code_length;
    }

    struct table {
        int length = 0; // 0 until prepared
        int sub_phases = 1;
        std::vector<float> chips2; // per PRN: the code twice
        float sub[16] = {};        // 12 used; padded for the lane permutations
    };

    int d_m;
    std::size_t d_l;             // taps per job
    tap_groups d_groups[gnss_n_systems];
    gnss_input d_input;
    table d_tables[gnss_n_systems];
    std::vector<scratch> d_scratch; // one per thread
    std::vector<std::size_t> d_order; // jobs, longest first
    cpu_worker_pool d_pool;         // threads kept between calls
    double d_seconds_per_unit = 0;  // one thread, per sample x antenna x tap (0: unknown)
};

} // namespace

std::unique_ptr<gnss_correlator_plan::impl> make_gnss_correlator_cpu(
    int n_antennas, const std::vector<int64_t>& taps, gnss_input input)
{
    return std::make_unique<gnss_correlator_cpu>(n_antennas, taps, input);
}

} // namespace kernels
} // namespace gpudsp
} // namespace gr
