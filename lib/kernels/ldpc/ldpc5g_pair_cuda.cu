/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The LDPC decoder's throughput kernel: fixed-point layered normalised
// min-sum on two codewords per thread block, each value of both codewords
// in one 32-bit word (int16x2, ldpc5g_pair.h) so that every SIMD
// instruction advances two codewords. One thread per lift index z; the
// a-posteriori pairs in shared memory (4 bytes per variable and pair; global
// memory where they do not fit the block's limit); the compressed check
// messages in global memory (12 bytes per row, lift index and pair:
// coalesced, and small enough to stay in L1 beside the shared memory);
// the first ldpc_bg_rows rows specialised per base graph at compile time
// (ldpc5g_pair_bg.h: all 8 rows of BG1 at rate ~0.79, the issue's target),
// further rows through the generic step; rows in order with a barrier
// between them, all iterations in one launch, both codewords'
// parity checks after every iteration (two barrier reductions), a codeword
// that passes frozen (its state kept, so its values stay) while the other
// goes on. The prologue de-rate-matches from float, fp16 or int8 LLRs: int8
// LLRs are a quarter of the float bytes over PCIe. Arithmetic bit-exact
// with the CPU backend's fixed point (qa_ldpc5g_pair runs these functions
// on the CPU; the GPU suite compares this kernel with the CPU).

#include "ldpc5g_pair_cuda.h"
#include <cuda_fp16.h>
#include <utility>

namespace gr {
namespace gpudsp {
namespace kernels {

namespace {

template <typename In>
__device__ __forceinline__ float llr_value(const In* p, long long i, float fs);
template <>
__device__ __forceinline__ float llr_value<float>(const float* p, long long i, float)
{
    return p[i];
}
template <>
__device__ __forceinline__ float llr_value<__half>(const __half* p, long long i, float)
{
    return __half2float(p[i]);
}
// int8 LLRs count fixed-point steps: value / fixed_scale, IEEE-rounded as
// on the host (ldpc5g_plan.cc converts the same way for the CPU).
template <>
__device__ __forceinline__ float llr_value<int8_t>(const int8_t* p, long long i, float fs)
{
    return __fdiv_rn(float(p[i]), fs);
}

// Variable n's channel value of one codeword (ldpc5g_decoder_cuda.cu's
// prologue in fixed point).
template <typename In>
__device__ int channel_value(const ldpc_pair_config& c, const In* llr, int n)
{
    const int j = n - 2 * c.Z;
    if (n >= c.K && n < c.K_ldpc)
        return ldpc_app_max;
    int v = 0;
    if (j >= 0 && j < c.Ncb && c.first_read[j] >= 0) {
        const float sign = c.positive_is_zero ? 1.f : -1.f;
        for (int e = c.first_read[j]; e < c.E; e += c.period) {
            const int q = __float2int_rn(
                ldpc_llr_in(sign * llr_value(llr, c.interleaved[e], c.fixed_scale)) *
                c.fixed_scale); // half to even, as lrint
            v += q > ldpc_msg_max ? ldpc_msg_max : q < -ldpc_msg_max ? -ldpc_msg_max : q;
        }
    }
    return ldpc_clamp_app(v);
}

constexpr int bg_rows = ldpc_bg_rows;

// Codeword \p at's K hard decisions (negative(i): bit i is 1), threads
// first, first + stride, ... (a group's) striding over them: one byte per
// bit, or packed MSB first.
template <typename Negative>
__device__ __forceinline__ void write_bits_strided(uint8_t* bits,
                                                   std::size_t at,
                                                   int K,
                                                   bool packed,
                                                   Negative negative,
                                                   int first,
                                                   int stride)
{
    if (packed) {
        const int bytes = (K + 7) / 8;
        for (int j = first; j < bytes; j += stride) {
            unsigned v = 0;
            for (int b = 0; b < 8; ++b)
                if (8 * j + b < K && negative(8 * j + b))
                    v |= 0x80u >> b;
            bits[at * bytes + j] = uint8_t(v);
        }
    } else {
        for (int i = first; i < K; i += stride)
            bits[at * K + i] = negative(i) ? 1 : 0;
    }
}

// ... the block's threads striding over them (the index and stride read
// where used: passed in as values, they cost the latency kernel a 4-byte
// spill on sm_75/sm_80).
template <typename Negative>
__device__ __forceinline__ void
write_bits(uint8_t* bits, std::size_t at, int K, bool packed, Negative negative)
{
    if (packed) {
        const int bytes = (K + 7) / 8;
        for (int j = threadIdx.x; j < bytes; j += blockDim.x) {
            unsigned v = 0;
            for (int b = 0; b < 8; ++b)
                if (8 * j + b < K && negative(8 * j + b))
                    v |= 0x80u >> b;
            bits[at * bytes + j] = uint8_t(v);
        }
    } else {
        for (int i = threadIdx.x; i < K; i += blockDim.x)
            bits[at * K + i] = negative(i) ? 1 : 0;
    }
}

// The barrier between row steps: the block's, or (group kernel: each pair
// on lanes of one warp) the warp's.
struct block_sync {
    __device__ void operator()() const { __syncthreads(); }
};
struct warp_sync {
    __device__ void operator()() const { __syncwarp(); }
};

// The base graph's first rows (ldpc5g_pair_bg.h) in order, a barrier
// (Sync) after each; rows_used may end before the last. The lanes' states
// at this thread's lift index ([row][mins, lo, hi][L], L lift indices) are
// at states + st (an offset: one register instead of a pointer's two).
template <int BG, typename Sync, typename Where, std::size_t... R>
__device__ __forceinline__ void run_bg_rows(const ldpc_pair_config& c,
                                            uint32_t* app,
                                            uint32_t* __restrict__ states,
                                            int st,
                                            int L,
                                            Where where,
                                            bool active,
                                            uint32_t frozen,
                                            std::index_sequence<R...>)
{
    // A row's states are this thread's own (no other thread reads them),
    // so the next row's are loaded before this row's work, a row ahead of
    // their use: the sm_90 SASS of 2026-11-28 loaded them after the row's
    // barrier and used them 29-42 instructions later, an L2 round trip (the
    // states of a launch do not fit L1) exposed every row.
    constexpr int n_rows = int(sizeof...(R));
    auto load = [&](int k) {
        const uint32_t* s = states + (st + 3 * k * L);
        return ldpc_pair_bg_state{ s[0], s[L], s[2 * L] };
    };
    ldpc_pair_bg_state next{ 0u, 0u, 0u };
    if (active && c.rows_used > 0)
        next = load(0);
    auto row = [&](auto r) {
        constexpr int k = decltype(r)::value;
        if (k >= c.rows_used)
            return;
        if (active) {
            ldpc_pair_bg_state rs = next;
            if (k + 1 < n_rows && k + 1 < c.rows_used)
                next = load(k + 1);
            ldpc_pair_row_bg<BG, k>(app, where, rs, frozen, c.norm);
            uint32_t* s = states + (st + 3 * k * L);
            s[0] = rs.mins;
            s[L] = rs.lo;
            s[2 * L] = rs.hi;
        }
        Sync{}();
    };
    (row(std::integral_constant<int, int(R)>{}), ...);
}

// Parity failures of the base graph's first rows (ldpc_pair_parity's bits).
template <int BG, typename Where, std::size_t... R>
__device__ __forceinline__ uint32_t parity_of_bg_rows(const ldpc_pair_config& c,
                                                      const uint32_t* app,
                                                      Where where,
                                                      std::index_sequence<R...>)
{
    return ((int(R) < c.rows_used ? ldpc_pair_parity_bg<BG, int(R)>(app, where) : 0u) |
            ...);
}

// Iteration \p it (from 1) of a pair at lift where.z (the pair and group
// kernels): every row in order, a barrier (Sync) after each; both
// codewords' iteration counts (its: a in bits 0-15, b in 16-31) unless
// frozen; where checked, the verdicts (pass bits 0, 1) from the pair's
// parity failures, which \p vote turns from this lane's bits into the
// pair's (bit 0: a fails, bit 1: b), and under early exit passing codewords
// frozen. \p active: this lane has a pair to work on.
template <int BG, typename Sync, typename Vote>
__device__ __forceinline__ void pair_iteration(const ldpc_pair_config& c,
                                               uint32_t* app,
                                               uint32_t* __restrict__ states,
                                               int st_pair,
                                               const ldpc_bg_pairs& where,
                                               bool active,
                                               int it,
                                               uint32_t& frozen,
                                               uint32_t& its,
                                               uint32_t& pass,
                                               Vote vote)
{
    const int Z = c.Z, z = int(where.z);
    run_bg_rows<BG, Sync>(c,
                          app,
                          states,
                          st_pair + z,
                          Z,
                          where,
                          active,
                          frozen,
                          std::make_index_sequence<bg_rows>{});
    // The generic rows: each row's states loaded a row ahead, as above.
    auto load = [&](int r) {
        const uint32_t* s = states + (st_pair + r * 3 * Z + z);
        return ldpc_pair_state{ s[0], { s[Z], s[2 * Z] } };
    };
    ldpc_pair_state next{ 0u, { 0u, 0u } };
    if (active && bg_rows < c.rows_used)
        next = load(bg_rows);
    for (int r = bg_rows; r < c.rows_used; ++r) {
        const int e0 = c.row_start[r];
        if (active) {
            ldpc_pair_state st = next;
            if (r + 1 < c.rows_used)
                next = load(r + 1);
            ldpc_pair_row(
                app, c.edges + e0, c.row_start[r + 1] - e0, z, Z, st, frozen, c.norm);
            uint32_t* s = states + (st_pair + r * 3 * Z + z);
            s[0] = st.mins;
            s[Z] = st.tag[0];
            s[2 * Z] = st.tag[1];
        }
        Sync{}();
    }
    its = pk::sel(frozen & 1u ? 0xffffu : 0u, its, its & 0xffff0000u | uint32_t(it));
    its =
        pk::sel(frozen & 2u ? 0xffff0000u : 0u, its, its & 0xffffu | uint32_t(it) << 16);
    if (c.early || it == c.max_iterations) {
        uint32_t bad = 0;
        if (active) {
            bad =
                parity_of_bg_rows<BG>(c, app, where, std::make_index_sequence<bg_rows>{});
            for (int r = bg_rows; r < c.rows_used; ++r)
                bad |= ldpc_pair_parity(app,
                                        c.edges + c.row_start[r],
                                        c.row_start[r + 1] - c.row_start[r],
                                        z,
                                        Z);
        }
        const uint32_t now = ~vote(bad) & 3u;
        pass = (pass & frozen) | (now & ~frozen);
        if (c.early)
            frozen |= pass;
    }
}

// Two blocks per SM where the values are in shared memory; one where they
// are in global memory (64-bit addresses: more registers; the fallback for
// codes too large for the block's shared memory, bound by memory anyway).
template <typename In, bool SHARED, int BG>
__global__ void __launch_bounds__(ldpc5g_cuda_max_threads, SHARED ? 2 : 1)
    decode_pair_kernel(
        ldpc_pair_config c,
        const In* __restrict__ llrs,
        int n_cw,
        uint32_t* __restrict__ states,     // [pair][row][mins, tag a, tag b][Z]
        uint32_t* __restrict__ app_global, // [pair][cols Z] (not SHARED)
        uint8_t* __restrict__ bits,
        bool packed_bits,
        int32_t* __restrict__ iterations,
        uint8_t* __restrict__ ok)
{
    extern __shared__ uint32_t smem_pairs[];
    const int Z = c.Z, n_vars = c.cols_used * Z, pair = blockIdx.x, cw = 2 * pair;
    const bool two = cw + 1 < n_cw;
    uint32_t* app = SHARED ? smem_pairs : app_global + std::size_t(pair) * n_vars;
    const In* llr_a = llrs + (long long)cw * c.E;
    for (int n = threadIdx.x; n < n_vars; n += blockDim.x)
        app[n] = pk::make(channel_value(c, llr_a, n),
                          two ? channel_value(c, llr_a + c.E, n) : 0);
    const int st_pair = pair * c.rows_used * 3 * Z; // (< 2^31: launches <= 256 pairs)
    for (int k = threadIdx.x; k < c.rows_used * 3 * Z; k += blockDim.x)
        states[st_pair + k] = 0;
    __syncthreads();

    const int z = threadIdx.x;
    const bool active = z < Z;
    uint32_t frozen = two ? 0u : 2u;
    // (both codewords' iteration counts in one register, passes in bits
    // 0, 1: the row steps need every register they can get)
    uint32_t its = 0, pass = 0;
    const ldpc_bg_pairs where{ c.bg_shifts, uint32_t(z), uint32_t(Z) };
    for (int it = 0; it < c.max_iterations && frozen != 3u;)
        pair_iteration<BG, block_sync>(
            c,
            app,
            states,
            st_pair,
            where,
            active,
            ++it,
            frozen,
            its,
            pass,
            [](uint32_t bad) {
                return (__syncthreads_or(bad & 0x8000u) ? 1u : 0u) |
                       (__syncthreads_or(bad & 0x80000000u) ? 2u : 0u);
            });

#pragma unroll
    for (int k = 0; k < 2; ++k) {
        if (k == 1 && !two)
            break;
        const std::size_t at = std::size_t(cw + k);
        write_bits(
            bits, at, c.K, packed_bits, [&](int i) { return pk::lane(app[i], k) < 0; });
        if (threadIdx.x == 0) {
            iterations[at] = int32_t(its >> (16 * k) & 0xffffu);
            ok[at] = uint8_t(pass >> k & 1u);
        }
    }
}

// Small lifts (Z <= ldpc_group_max_z): ldpc_groups_per_warp(Z) pairs on
// each warp, pair g on lanes [g Z, (g + 1) Z) (ldpc_group_of), the pair
// kernel's steps per pair with the warp's barrier between rows (a pair's
// lifts never leave its warp) and each pair's parity from the warp's votes
// masked to its lanes. The warp's pairs run in step: a pair whose
// codewords have passed stays frozen (its rows leave its state and values
// as they are: ldpc_pair_keep) until the warp's last pair is done, so each
// codeword's values, iterations and verdict are the pair kernel's.
// Values in shared memory (at most 32 lifts x 68 columns x 4 bytes per
// warp); states as the pair kernel's, per pair.
template <typename In, int BG>
__global__ void __launch_bounds__(32 * ldpc_group_warps, 12) decode_group_kernel(
    ldpc_pair_config c,
    const In* __restrict__ llrs,
    int n_cw,
    uint32_t* __restrict__ states, // [pair][row][mins, tag a, tag b][Z]
    uint8_t* __restrict__ bits,
    bool packed_bits,
    int32_t* __restrict__ iterations,
    uint8_t* __restrict__ ok)
{
    extern __shared__ uint32_t smem_groups[];
    const int Z = c.Z, n_vars = c.cols_used * Z, G = ldpc_groups_per_warp(Z);
    const int warp = threadIdx.x / 32;
    const ldpc_group_lane me = ldpc_group_of(threadIdx.x % 32, Z);
    const int pair = (blockIdx.x * ldpc_group_warps + warp) * G + me.g, cw = 2 * pair;
    const bool real = me.active && cw < n_cw; // a lane of a pair with a codeword
    const bool two = real && cw + 1 < n_cw;
    const int z = me.z;
    uint32_t* app = smem_groups + (warp * G + (me.active ? me.g : 0)) * n_vars;
    const int st_pair = pair * c.rows_used * 3 * Z; // (< 2^31: launches <= 256 pairs)
    if (real) {
        const In* llr_a = llrs + (long long)cw * c.E;
        for (int n = z; n < n_vars; n += Z)
            app[n] = pk::make(channel_value(c, llr_a, n),
                              two ? channel_value(c, llr_a + c.E, n) : 0);
        for (int k = z; k < c.rows_used * 3 * Z; k += Z)
            states[st_pair + k] = 0;
    }
    __syncwarp();

    uint32_t frozen = !real ? 3u : two ? 0u : 2u;
    uint32_t its = 0, pass = 0;
    const ldpc_bg_pairs where{ c.bg_shifts, uint32_t(z), uint32_t(Z) };
    for (int it = 0; it < c.max_iterations && __any_sync(0xffffffffu, frozen != 3u);)
        pair_iteration<BG, warp_sync>(
            c,
            app,
            states,
            st_pair,
            where,
            real,
            ++it,
            frozen,
            its,
            pass,
            [&](uint32_t bad) {
                return (__ballot_sync(0xffffffffu, bad & 0x8000u) & me.mask ? 1u : 0u) |
                       (__ballot_sync(0xffffffffu, bad & 0x80000000u) & me.mask ? 2u
                                                                                : 0u);
            });

#pragma unroll
    for (int k = 0; k < 2; ++k) {
        if (!real || (k == 1 && !two))
            break;
        const std::size_t at = std::size_t(cw + k);
        write_bits_strided(
            bits,
            at,
            c.K,
            packed_bits,
            [&](int i) { return pk::lane(app[i], k) < 0; },
            z,
            Z);
        if (z == 0) {
            iterations[at] = int32_t(its >> (16 * k) & 0xffffu);
            ok[at] = uint8_t(pass >> k & 1u);
        }
    }
}

// The latency path: one codeword per block in both lanes (lifts z and
// z + Z/2: ldpc_bg_halves), so half the pair kernel's threads do one
// codeword's work and each SIMD instruction advances two lifts of it. For
// codes whose rows are all specialised (rows_used <= ldpc_bg_rows: BG1
// from rate ~0.77-0.79 up, BG2 from ~0.63, the 8-row target code) and even
// Z, values in shared memory; the same arithmetic lift by lift, so bit-exact with the CPU
// too (qa_ldpc5g_pair decodes as this kernel does).
template <typename In, int BG>
__global__ void __launch_bounds__(ldpc5g_cuda_max_threads / 2) decode_split_kernel(
    ldpc_pair_config c,
    const In* __restrict__ llrs,
    uint32_t* __restrict__ states, // [codeword][row][mins, lo, hi][Z/2]
    uint8_t* __restrict__ bits,
    bool packed_bits,
    int32_t* __restrict__ iterations,
    uint8_t* __restrict__ ok)
{
    extern __shared__ uint32_t smem_halves[];
    const int Z = c.Z, H = Z / 2, n_words = c.cols_used * H, cw = blockIdx.x;
    uint32_t* app = smem_halves;
    const In* llr = llrs + (long long)cw * c.E;
    for (int n = threadIdx.x; n < n_words; n += blockDim.x) {
        const int v = n / H * Z + n % H; // lift n % H of column n / H
        app[n] = pk::make(channel_value(c, llr, v), channel_value(c, llr, v + H));
    }
    const int st_cw = cw * c.rows_used * 3 * H;
    for (int k = threadIdx.x; k < c.rows_used * 3 * H; k += blockDim.x)
        states[st_cw + k] = 0;
    __syncthreads();

    const int z = threadIdx.x;
    const bool active = z < H;
    const auto rows = std::make_index_sequence<bg_rows>{};
    int its = 0;
    bool pass = false;
    for (int it = 0; it < c.max_iterations;) {
        run_bg_rows<BG, block_sync>(
            c,
            app,
            states,
            st_cw + z,
            H,
            ldpc_bg_split{ c.bg_halves, uint32_t(z), uint32_t(H) },
            active,
            0u,
            rows);
        its = ++it;
        if (c.early || it == c.max_iterations) {
            const uint32_t bad =
                active ? parity_of_bg_rows<BG>(
                             c,
                             app,
                             ldpc_bg_split{ c.bg_halves, uint32_t(z), uint32_t(H) },
                             rows)
                       : 0u;
            pass = !__syncthreads_or(bad); // (either lane: one codeword)
            if (c.early && pass)
                break;
        }
    }

    // Bit i is lift i % Z of column i / Z: lane (i % Z) / H of word
    // (i / Z) H + (i % Z) % H.
    auto hard = [&](int i) {
        const int l = i % Z;
        return pk::lane(app[i / Z * H + l % H], l / H) < 0;
    };
    write_bits(bits, std::size_t(cw), c.K, packed_bits, hard);
    if (threadIdx.x == 0) {
        iterations[cw] = its;
        ok[cw] = pass ? 1 : 0;
    }
}

template <typename In, int BG>
void launch_as(const ldpc_pair_config& c,
               const void* llrs,
               int n,
               void* states,
               void* app,
               std::size_t smem,
               uint8_t* bits,
               bool packed,
               int32_t* its,
               uint8_t* ok,
               cudaStream_t s)
{
    const pair_launch l = pair_launch_of(c, n, smem);
    auto* st = static_cast<uint32_t*>(states);
    auto* in = static_cast<const In*>(llrs);
    switch (l.form) {
    case pair_form::split:
        decode_split_kernel<In, BG>
            <<<l.blocks, l.threads, l.smem, s>>>(c, in, st, bits, packed, its, ok);
        return;
    case pair_form::group:
        decode_group_kernel<In, BG>
            <<<l.blocks, l.threads, l.smem, s>>>(c, in, n, st, bits, packed, its, ok);
        return;
    case pair_form::pair_shared:
        decode_pair_kernel<In, true, BG><<<l.blocks, l.threads, l.smem, s>>>(
            c, in, n, st, nullptr, bits, packed, its, ok);
        return;
    case pair_form::pair_global:
        decode_pair_kernel<In, false, BG><<<l.blocks, l.threads, 0, s>>>(
            c, in, n, st, static_cast<uint32_t*>(app), bits, packed, its, ok);
        return;
    }
}

// The kernel instance of a launch, for the occupancy query.
template <typename In, int BG>
const void* kernel_of(pair_form f)
{
    switch (f) {
    case pair_form::split:
        return reinterpret_cast<const void*>(decode_split_kernel<In, BG>);
    case pair_form::group:
        return reinterpret_cast<const void*>(decode_group_kernel<In, BG>);
    case pair_form::pair_shared:
        return reinterpret_cast<const void*>(decode_pair_kernel<In, true, BG>);
    case pair_form::pair_global:
        break;
    }
    return reinterpret_cast<const void*>(decode_pair_kernel<In, false, BG>);
}

} // namespace

std::size_t ldpc_pair_state_bytes(const ldpc_pair_config& c, int n)
{
    return std::size_t((n + 1) / 2) * c.rows_used * 3 * c.Z * 4;
}

std::size_t ldpc_pair_app_bytes(const ldpc_pair_config& c, int n, std::size_t smem)
{
    return smem ? 0 : std::size_t((n + 1) / 2) * c.cols_used * c.Z * 4;
}

pair_launch pair_launch_of(const ldpc_pair_config& c, int n, std::size_t smem)
{
    const int blocks = (n + 1) / 2, threads = ldpc5g_cuda_threads(c.Z);
    const int per_block = ldpc_group_warps * ldpc_groups_per_warp(c.Z); // pairs
    if (n == 1 && smem && ldpc_pair_split_fits(c))
        return { pair_form::split, 1, ldpc5g_cuda_threads(c.Z / 2), smem / 2 };
    if (smem && c.Z <= ldpc_group_max_z) // (smem: one pair's values)
        return { pair_form::group,
                 (blocks + per_block - 1) / per_block,
                 32 * ldpc_group_warps,
                 smem * per_block };
    if (smem)
        return { pair_form::pair_shared, blocks, threads, smem };
    return { pair_form::pair_global, blocks, threads, 0 };
}

int pair_blocks_per_sm(const ldpc_pair_config& c,
                       ldpc5g_llr_format format,
                       const pair_launch& l)
{
    const bool bg1 = c.bg == 1;
    const void* k =
        format == ldpc5g_llr_format::f16
            ? (bg1 ? kernel_of<__half, 1>(l.form) : kernel_of<__half, 2>(l.form))
        : format == ldpc5g_llr_format::i8
            ? (bg1 ? kernel_of<int8_t, 1>(l.form) : kernel_of<int8_t, 2>(l.form))
            : (bg1 ? kernel_of<float, 1>(l.form) : kernel_of<float, 2>(l.form));
    int per_sm = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, l.threads, l.smem) !=
        cudaSuccess) {
        cudaGetLastError(); // (a figure for a note)
        return 0;
    }
    return per_sm;
}

void ldpc_pair_launch(const ldpc_pair_config& c,
                      const void* llrs,
                      ldpc5g_llr_format format,
                      int n,
                      void* states,
                      void* app,
                      std::size_t smem,
                      uint8_t* bits,
                      bool packed_bits,
                      int32_t* iterations,
                      uint8_t* ok,
                      cudaStream_t stream)
{
    const bool bg1 = c.bg == 1;
    auto launch = bg1 ? launch_as<float, 1> : launch_as<float, 2>;
    if (format == ldpc5g_llr_format::f16)
        launch = bg1 ? launch_as<__half, 1> : launch_as<__half, 2>;
    else if (format == ldpc5g_llr_format::i8)
        launch = bg1 ? launch_as<int8_t, 1> : launch_as<int8_t, 2>;
    launch(c, llrs, n, states, app, smem, bits, packed_bits, iterations, ok, stream);
}

cudaError_t ldpc_pair_allow_shared(int optin)
{
    for (const void* k : { (const void*)decode_split_kernel<float, 1>,
                           (const void*)decode_split_kernel<__half, 1>,
                           (const void*)decode_split_kernel<int8_t, 1>,
                           (const void*)decode_split_kernel<float, 2>,
                           (const void*)decode_split_kernel<__half, 2>,
                           (const void*)decode_split_kernel<int8_t, 2>,
                           (const void*)decode_pair_kernel<float, true, 1>,
                           (const void*)decode_pair_kernel<__half, true, 1>,
                           (const void*)decode_pair_kernel<int8_t, true, 1>,
                           (const void*)decode_pair_kernel<float, true, 2>,
                           (const void*)decode_pair_kernel<__half, true, 2>,
                           (const void*)decode_pair_kernel<int8_t, true, 2> }) {
        const cudaError_t e =
            cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, optin);
        if (e != cudaSuccess)
            return e;
    }
    return cudaSuccess;
}

} // namespace kernels
} // namespace gpudsp
} // namespace gr
