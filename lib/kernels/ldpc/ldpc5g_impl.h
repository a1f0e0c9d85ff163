/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Internal: the LDPC decoder's arithmetic, shared by the CPU backend and
// the CUDA kernel so that the fixed-point mode is bit-exact between them,
// and the backends behind ldpc5g_decoder_plan.
//
// Values are kept with "positive = bit 0". Per base-graph row and lift
// index z the check-to-variable messages are stored compressed: the two
// smallest scaled magnitudes, the edge of the smallest, and the signs.

#ifndef INCLUDED_GPUDSP_KERNELS_LDPC5G_IMPL_H
#define INCLUDED_GPUDSP_KERNELS_LDPC5G_IMPL_H

#include <gnuradio/gpudsp/kernels/ldpc5g.h>
#include <cstdint>
#include <string>

#ifdef __CUDACC__
#define LDPC_HD __host__ __device__ __forceinline__
// Loops over a row's edges are unrolled to ldpc_max_degree in the kernel,
// so that the row's values are registers (a per-thread array indexed by a
// loop variable lands in local memory).
#define LDPC_UNROLL _Pragma("unroll")
#else
#define LDPC_HD inline
#define LDPC_UNROLL
#endif

namespace gr {
namespace gpudsp {
namespace kernels {

constexpr int ldpc_max_degree = 19;        // BG1's largest row degree
constexpr int ldpc_app_max = 16383;        // fixed point: |APP| limit (int16 storage)
constexpr int ldpc_msg_max = 127;          // fixed point: |message| limit (int8)
constexpr float ldpc_float_certain = 1e4f; // float: the LLR of a filler bit

/*!
 * The one rule for received LLRs, in every path (docs/ldpc.md): NaN is an
 * erasure (0); +-inf and any |LLR| beyond certainty (ldpc_float_certain,
 * the LLR of a filler bit) are certainty, so min-sum's sums stay finite.
 * The fixed-point decoder then scales and rounds into +-ldpc_msg_max.
 */
LDPC_HD float ldpc_llr_in(float llr)
{
    if (!(llr == llr))
        return 0.0f;
    return llr > ldpc_float_certain    ? ldpc_float_certain
           : llr < -ldpc_float_certain ? -ldpc_float_certain
                                       : llr;
}

/*! Compressed messages of one check (row, z): scaled min1, min2, the edge
 *  of min1, sign bits of the variable-to-check values, and their parity
 *  in bit 31. */
template <typename T>
struct ldpc_check_state {
    T m1, m2;
    uint32_t signs;
    int32_t idx;
};

/*! Scaling and offset in the form the arithmetic uses. */
struct ldpc_norm {
    float scaling, offset;     // float mode
    int32_t scale16, offset_q; // fixed point: (max(m - offset_q, 0) * scale16) >> 4
};

LDPC_HD float ldpc_scale(float m, const ldpc_norm& n)
{
    const float v = m - n.offset;
    return v > 0.f ? n.scaling * v : 0.f;
}
/*! Fixed point: max(m - offset_q, 0) * scale16 / 16 rounded to nearest
 *  (ties up), but never 0 for a magnitude left above 0. Flooring (the
 *  earlier rule) turned a 1-step message into 0, an erasure: a chain of
 *  punctured bits then lost its sign after a few checks and the decoder
 *  stalled on noise-free input that float min-sum and an erasure decoder
 *  solve (found by qa_fuzz_kernels: K=42, E=46); it also scaled every
 *  message down by half a step on average. Measured (K=500, E=1000, QPSK,
 *  10 layered iterations, scaling 0.875, offset 0.375): BLER 1e-2 at 2.19 dB
 *  flooring, 2.16 dB flooring but at least 1, 2.03 dB with this rule, float
 *  1.96 dB. The vector path (ldpc5g_decoder_cpu.cc) computes the same. */
LDPC_HD int32_t ldpc_scale(int32_t m, const ldpc_norm& n)
{
    const int32_t v = m - n.offset_q;
    if (v <= 0)
        return 0;
    const int32_t s = (v * n.scale16 + 8) >> 4;
    return s > 0 ? s : 1;
}

template <typename T>
LDPC_HD T ldpc_c2v(const ldpc_check_state<T>& s, int edge)
{
    const T m = edge == s.idx ? s.m2 : s.m1;
    const bool negative = ((s.signs >> edge) ^ (s.signs >> 31)) & 1u;
    return negative ? T(-m) : m;
}

// The magnitude a variable-to-check value enters the minimum with.
LDPC_HD float ldpc_magnitude(float t) { return t < 0.f ? -t : t; }
LDPC_HD int32_t ldpc_magnitude(int32_t t)
{
    const int32_t a = t < 0 ? -t : t;
    return a < ldpc_msg_max ? a : ldpc_msg_max;
}
LDPC_HD float ldpc_clamp_app(float v) { return v; }
LDPC_HD int32_t ldpc_clamp_app(int32_t v)
{
    return v > ldpc_app_max ? ldpc_app_max : v < -ldpc_app_max ? -ldpc_app_max : v;
}

/*! One check's update from the variable-to-check values t[0..deg). */
template <typename T>
LDPC_HD ldpc_check_state<T> ldpc_check_update(const T* t, int deg, const ldpc_norm& n)
{
    T m1 = T(0), m2 = T(0);
    bool first = true, second = true;
    int32_t idx = 0;
    uint32_t signs = 0;
    LDPC_UNROLL
    for (int i = 0; i < ldpc_max_degree; ++i) {
        if (i >= deg)
            break;
        const T a = ldpc_magnitude(t[i]);
        if (t[i] < T(0))
            signs ^= (1u << i) | (1u << 31);
        if (first || a < m1) {
            if (!first) {
                m2 = m1;
                second = false;
            }
            m1 = a;
            idx = i;
            first = false;
        } else if (second || a < m2) {
            m2 = a;
            second = false;
        }
    }
    return { ldpc_scale(m1, n), ldpc_scale(m2, n), signs, idx };
}

struct ldpc5g_decoder_plan::impl {
    virtual ~impl() = default;
    virtual void decode(const float* llrs,
                        int batch,
                        uint8_t* bits,
                        int32_t* iterations,
                        uint8_t* ok) = 0;
    /*! Backends that read every LLR format and pack bits themselves
     *  override this and return true; the plan converts for the others. */
    virtual bool decode_any(const void* llrs,
                            ldpc5g_llr_format format,
                            int batch,
                            uint8_t* bits,
                            bool packed_bits,
                            int32_t* iterations,
                            uint8_t* ok)
    {
        (void)llrs, (void)format, (void)batch, (void)bits, (void)packed_bits;
        (void)iterations, (void)ok;
        return false;
    }
    virtual double last_kernel_seconds() const { return 0; }
    /*! How a decode of n codewords launches (CUDA; empty elsewhere). */
    virtual std::string launch_shape(int n) const
    {
        (void)n;
        return "";
    }

    /*! The configurations the tuner may time (ids, the first is the
     *  heuristic's); fewer than two: nothing to tune. */
    virtual std::vector<std::string> configurations() const { return {}; }
    /*! Runs configuration \p id from now on (one of configurations()). */
    virtual void use(const std::string& id) { (void)id; }
    /*! Allocates now what a decode of \p batch codewords in the current
     *  configuration would allocate at its start (the tuner's select: a
     *  switch's allocations are not the candidate's time). */
    virtual void reserve(int batch) { (void)batch; }
};

/*! What both backends need of a configuration. */
struct ldpc5g_layout {
    ldpc5g_params p;
    ldpc5g_decoder_config c;
    ldpc_norm norm;
    int cols_used;                  // variables: columns 0 .. cols_used - 1
    std::vector<int32_t> row_start; // rows_used + 1 offsets into edges
    std::vector<int32_t> edge_col, edge_shift;
    std::vector<int32_t> first_read;  // per circular-buffer position
    std::vector<int32_t> interleaved; // per rate-matching index
    int period;
    // Flooding: the edges into each column, rows ascending (the order the
    // messages are added in, on both backends).
    std::vector<int32_t> col_start, col_row, col_edge, col_shift;
    ldpc5g_layout(const ldpc5g_params& p,
                  const ldpc5g_decoder_config& c,
                  const ldpc5g_encoder_core& code);
};

std::unique_ptr<ldpc5g_decoder_plan::impl> make_ldpc5g_cpu(const ldpc5g_layout& l);

// CUDA launch geometry (ldpc5g_decoder_cuda.cu), here so that
// scripts/kernel-report.sh and the tests read the same numbers: one thread
// per lift index (whole warps; Z <= 384), and a codeword's a-posteriori
// values (the columns used, float or, in fixed point, int16) in shared
// memory where they fit the device's per-block opt-in limit, else in global
// memory (float BG1 Z=384, 102 KiB, on sm_86/89's 99 KiB; float BG1 Z >= 256
// and BG2 Z >= 320 on sm_75's 64 KiB): slower, but every (BG, Z) decodes
// everywhere with the same arithmetic. The fixed-point pair kernel
// (ldpc5g_pair_cuda.cu) keeps 4 bytes per variable and pair, as float; the
// plan runs it where they fit, or where one codeword's int16 values do not
// fit either.
constexpr int ldpc5g_cuda_max_threads = 384;
/*! Per-block shared-memory opt-in limits (bytes) of sm_75, sm_86/89, sm_80
 *  and sm_90: the launches the static report and the tests check. */
constexpr std::size_t ldpc5g_cuda_smem_limits[] = { 65536, 101376, 166912, 232448 };
constexpr int ldpc5g_cuda_threads(int Z) { return Z <= 32 ? 32 : (Z + 31) / 32 * 32; }
constexpr std::size_t ldpc5g_cuda_app_bytes(int Z, int cols_used, bool fixed_point)
{
    return std::size_t(cols_used) * Z * (fixed_point ? 2 : 4);
}
/*! Dynamic shared memory of a launch on a device allowing
 *  \p limit bytes per block: the a-posteriori values, or 0 (global). */
constexpr std::size_t
ldpc5g_cuda_shared_bytes(int Z, int cols_used, bool fixed_point, std::size_t limit)
{
    return ldpc5g_cuda_app_bytes(Z, cols_used, fixed_point) <= limit
               ? ldpc5g_cuda_app_bytes(Z, cols_used, fixed_point)
               : 0;
}
#ifdef GPUDSP_HAVE_CUDA
std::unique_ptr<ldpc5g_decoder_plan::impl> make_ldpc5g_cuda(
    const ldpc5g_layout& l, runtime::device_context::sptr ctx, const std::string& who);
#endif

} // namespace kernels
} // namespace gpudsp
} // namespace gr

#endif
