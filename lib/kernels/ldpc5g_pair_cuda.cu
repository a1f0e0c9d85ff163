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
// messages of the first ldpc_pair_register_rows rows in registers (12
// bytes per row: 24 registers for the 8 rows of BG1 at rate ~0.79, the
// issue's target), further rows' in global memory; rows in order with a
// barrier between them, all iterations in one launch, both codewords'
// parity checks after every iteration (two barrier reductions), a codeword
// that passes frozen (its state kept, so its values stay) while the other
// goes on. The prologue de-rate-matches from float, fp16 or int8 LLRs: int8
// LLRs are a quarter of the float bytes over PCIe. Arithmetic bit-exact
// with the CPU backend's fixed point (qa_ldpc5g_pair runs these functions
// on the CPU; the GPU suite compares this kernel with the CPU).

#include "ldpc5g_pair.h"
#include "ldpc5g_pair_cuda.h"
#include <cuda_fp16.h>

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

constexpr int register_rows = 8;

template <typename In, bool SHARED>
__global__ void __launch_bounds__(ldpc5g_cuda_max_threads, 2)
    decode_pair_kernel(ldpc_pair_config c,
                       const In* __restrict__ llrs,
                       int n_cw,
                       uint32_t* __restrict__ states, // [pair][row][mins, tag a, tag b][Z]
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
    const int memory_rows = c.rows_used > register_rows ? c.rows_used - register_rows : 0;
    uint32_t* st_mem = states + std::size_t(pair) * memory_rows * 3 * Z;
    for (int k = threadIdx.x; k < memory_rows * 3 * Z; k += blockDim.x)
        st_mem[k] = 0;
    __syncthreads();

    const int z = threadIdx.x;
    const bool active = z < Z;
    ldpc_pair_state reg[register_rows];
#pragma unroll
    for (int r = 0; r < register_rows; ++r)
        reg[r] = ldpc_pair_state{ 0u, { 0u, 0u } };
    uint32_t frozen = two ? 0u : 2u;
    int its[2] = { 0, 0 };
    bool pass[2] = { false, false };
    for (int it = 0; it < c.max_iterations && frozen != 3u;) {
#pragma unroll
        for (int r = 0; r < register_rows; ++r) {
            if (r >= c.rows_used)
                break;
            const int e0 = c.row_start[r];
            if (active)
                ldpc_pair_row(
                    app, c.edges + e0, c.row_start[r + 1] - e0, z, Z, reg[r], frozen, c.norm);
            __syncthreads();
        }
        for (int r = register_rows; r < c.rows_used; ++r) {
            const int e0 = c.row_start[r];
            uint32_t* s = st_mem + std::size_t(r - register_rows) * 3 * Z + z;
            if (active) {
                ldpc_pair_state st{ s[0], { s[Z], s[2 * Z] } };
                ldpc_pair_row(
                    app, c.edges + e0, c.row_start[r + 1] - e0, z, Z, st, frozen, c.norm);
                s[0] = st.mins;
                s[Z] = st.tag[0];
                s[2 * Z] = st.tag[1];
            }
            __syncthreads();
        }
        ++it;
        for (int k = 0; k < 2; ++k)
            if (!(frozen >> k & 1u))
                its[k] = it;
        if (c.early || it == c.max_iterations) {
            uint32_t bad = 0;
            if (active)
                for (int r = 0; r < c.rows_used; ++r)
                    bad |= ldpc_pair_parity(
                        app, c.edges + c.row_start[r], c.row_start[r + 1] - c.row_start[r], z, Z);
            const bool bad_a = __syncthreads_or(bad & 0x8000u);
            const bool bad_b = __syncthreads_or(bad & 0x80000000u);
            if (!(frozen & 1u))
                pass[0] = !bad_a;
            if (!(frozen & 2u))
                pass[1] = !bad_b;
            if (c.early)
                frozen |= (pass[0] ? 1u : 0u) | (pass[1] ? 2u : 0u);
        }
    }

#pragma unroll
    for (int k = 0; k < 2; ++k) {
        if (k == 1 && !two)
            break;
        const std::size_t at = std::size_t(cw + k);
        if (packed_bits) {
            const int bytes = (c.K + 7) / 8;
            for (int j = threadIdx.x; j < bytes; j += blockDim.x) {
                unsigned v = 0;
                for (int b = 0; b < 8; ++b) {
                    const int i = 8 * j + b;
                    if (i < c.K && pk::lane(app[i], k) < 0)
                        v |= 0x80u >> b;
                }
                bits[at * bytes + j] = uint8_t(v);
            }
        } else {
            for (int i = threadIdx.x; i < c.K; i += blockDim.x)
                bits[at * c.K + i] = pk::lane(app[i], k) < 0 ? 1 : 0;
        }
        if (threadIdx.x == 0) {
            iterations[at] = its[k];
            ok[at] = pass[k] ? 1 : 0;
        }
    }
}

template <typename In>
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
    const int blocks = (n + 1) / 2, threads = ldpc5g_cuda_threads(c.Z);
    auto* st = static_cast<uint32_t*>(states);
    auto* in = static_cast<const In*>(llrs);
    if (smem)
        decode_pair_kernel<In, true><<<blocks, threads, smem, s>>>(
            c, in, n, st, nullptr, bits, packed, its, ok);
    else
        decode_pair_kernel<In, false><<<blocks, threads, 0, s>>>(
            c, in, n, st, static_cast<uint32_t*>(app), bits, packed, its, ok);
}

} // namespace

std::size_t ldpc_pair_state_bytes(const ldpc_pair_config& c, int n)
{
    const int rows = c.rows_used > register_rows ? c.rows_used - register_rows : 0;
    return std::size_t((n + 1) / 2) * rows * 3 * c.Z * 4;
}

std::size_t ldpc_pair_app_bytes(const ldpc_pair_config& c, int n, std::size_t smem)
{
    return smem ? 0 : std::size_t((n + 1) / 2) * c.cols_used * c.Z * 4;
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
    switch (format) {
    case ldpc5g_llr_format::f16:
        launch_as<__half>(
            c, llrs, n, states, app, smem, bits, packed_bits, iterations, ok, stream);
        break;
    case ldpc5g_llr_format::i8:
        launch_as<int8_t>(
            c, llrs, n, states, app, smem, bits, packed_bits, iterations, ok, stream);
        break;
    default:
        launch_as<float>(
            c, llrs, n, states, app, smem, bits, packed_bits, iterations, ok, stream);
    }
}

cudaError_t ldpc_pair_allow_shared(int optin)
{
    for (const void* k : { (const void*)decode_pair_kernel<float, true>,
                           (const void*)decode_pair_kernel<__half, true>,
                           (const void*)decode_pair_kernel<int8_t, true> }) {
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
