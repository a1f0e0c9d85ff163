/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Internal: the arithmetic of the DDC's ring kernel (ddc_cuda.cu), compiled
// by g++ and nvcc so that qa_ddc_ring runs it on the host (docs/ddc.md,
// "The ring kernel").
//
// The ring kernel is the tile kernel (ddc_tile.h) on a persistent grid: a
// block walks tiles blockIdx.x, + gridDim.x, ... and, while it filters one
// tile, the input bytes of a later tile are already on their way into a
// ring of shared-memory stages by 16-byte asynchronous copies (cp.async),
// so that memory latency hides behind the FIR instead of stalling a block
// between its load and its compute. A tile's bytes are decoded from its
// stage into the phase-major tile (shared to shared) and filtered as
// before; the outputs are rotated by a recurrence re-seeded from the exact
// 64-bit phase every ddc_rotate_reseed outputs and stored by consecutive
// threads (coalesced).
//
// A stage holds the bytes of the input from a 16-byte aligned address, so
// a byte's address modulo 16 is the same in global and shared memory: the
// 10-bit decoder's aligned words stay aligned.

#ifndef INCLUDED_GPUDSP_KERNELS_DDC_RING_H
#define INCLUDED_GPUDSP_KERNELS_DDC_RING_H

#include "ddc_tile.h"
#include <gnuradio/gpudsp/kernels/ddc.h>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gr {
namespace gpudsp {
namespace kernels {

constexpr int ddc_ring_chunk = 16; // bytes of one asynchronous copy

/*! Bits of one sample of an input format (the stage holds its bytes). */
inline int ddc_sample_bits(ddc_input f)
{
    switch (f) {
    case ddc_input::packed10:
        return 10;
    case ddc_input::int16:
        return 16;
    case ddc_input::float32:
        return 32;
    case ddc_input::complex64:
        break;
    }
    return 64;
}

/*! Readable bytes of a launch, as offsets from the input pointer: the
 *  bytes of its valid samples [first_sample, first_sample + valid). */
struct ddc_ring_bytes {
    long long lo, hi;
};
GPUDSP_HD ddc_ring_bytes ddc_ring_readable(int sample_bits,
                                           long long first_sample,
                                           long long valid)
{
    if (sample_bits == 10)
        return { (10 * first_sample) >> 3, (10 * (first_sample + valid) + 7) >> 3 };
    const int b = sample_bits / 8;
    return { first_sample * b, (first_sample + valid) * b };
}

/*! The bytes a tile's decode reads, from \p s0 samples after the launch's
 *  first (the tile's sample 0), clipped to the readable ones: 10-bit input
 *  reads the aligned words of the 16-sample chunks that hold the tile
 *  (ddc_tile_for_packed10: 20 k - mis up to 24 bytes on), the others their
 *  samples. \p mis: the input pointer's address mod 4. */
GPUDSP_HD ddc_ring_bytes ddc_ring_needed(const ddc_tile_shape& sh,
                                         int sample_bits,
                                         long long first_sample,
                                         long long valid,
                                         long long s0,
                                         int mis)
{
    const ddc_ring_bytes r = ddc_ring_readable(sample_bits, first_sample, valid);
    long long lo, hi;
    if (sample_bits == 10) {
        const long long first = first_sample + s0;
        lo = 20 * (first / 16) - mis;
        hi = 20 * ((first + sh.span - 1) / 16) - mis + 24;
    } else {
        const int b = sample_bits / 8;
        const long long end = s0 + sh.span < valid ? s0 + sh.span : valid;
        lo = (first_sample + s0) * b;
        hi = (first_sample + end) * b;
    }
    return { lo > r.lo ? lo : r.lo, hi < r.hi ? hi : r.hi };
}

/*! Bytes of one stage: the most a tile's needed bytes span, from their
 *  first byte's 16-byte aligned address to their last one's end, rounded
 *  up to whole chunks. */
GPUDSP_HD int ddc_ring_stage_bytes(const ddc_tile_shape& sh, int sample_bits)
{
    const long long need = sample_bits == 10 ? 20LL * ((sh.span + 14) / 16) + 24
                                             : (long long)sh.span * (sample_bits / 8);
    return int((need + 2 * (ddc_ring_chunk - 1)) / ddc_ring_chunk * ddc_ring_chunk);
}

/*! Where a tile's bytes sit in its stage: stage byte j holds input byte
 *  base + j (base + the input's address mod 16 is a multiple of 16), for
 *  \p chunks chunks of 16. */
struct ddc_ring_window {
    long long base;
    int chunks;
};
GPUDSP_HD ddc_ring_window ddc_ring_window_of(const ddc_ring_bytes& need, int addr16)
{
    const long long base =
        ((need.lo + addr16) & ~(long long)(ddc_ring_chunk - 1)) - addr16;
    return { base, int((need.hi - base + ddc_ring_chunk - 1) / ddc_ring_chunk) };
}

/*!
 * The copies that fill a stage, thread \p tid of \p n_threads: chunk c
 * (input bytes w.base + 16 c ..) goes by full(c, offset) where all its 16
 * bytes are readable (one 16-byte asynchronous copy), else by
 * partial(c, offset) (the readable bytes one at a time, zeros for the
 * rest: only at a launch's ends).
 */
template <class Full, class Partial>
GPUDSP_HD void ddc_ring_for_chunks(const ddc_ring_window& w,
                                   const ddc_ring_bytes& readable,
                                   int tid,
                                   int n_threads,
                                   Full full,
                                   Partial partial)
{
    for (int c = tid; c < w.chunks; c += n_threads) {
        const long long o = w.base + (long long)c * ddc_ring_chunk;
        if (o >= readable.lo && o + ddc_ring_chunk <= readable.hi)
            full(c, o);
        else
            partial(c, o);
    }
}

/*! The ring's schedule, the kernel's and its emulation's: a block's j-th
 *  tile is tile ddc_ring_tile(block, j, grid); tiles j < stages are issued
 *  first, one commit group each; at step j the block waits until at most
 *  ddc_ring_in_flight(stages) groups are pending (tile j's has landed),
 *  decodes stage ddc_ring_stage_of(j), then issues tile
 *  ddc_ring_next(j) into it (an empty group past the last tile). */
GPUDSP_HD constexpr long long ddc_ring_tile(int block, int j, int grid)
{
    return block + (long long)j * grid;
}
GPUDSP_HD constexpr int ddc_ring_in_flight(int stages) { return stages - 1; }
GPUDSP_HD constexpr int ddc_ring_stage_of(int j, int stages) { return j % stages; }
GPUDSP_HD constexpr int ddc_ring_next(int j, int stages) { return j + stages; }

/*! Outputs between exact re-seeds of the output rotation (Q, a power of
 *  two): outputs m with m mod Q = 0 take exp(-2j pi phi(mD)) from the 64-bit
 *  phase, the next Q - 1 one complex multiplication each by
 *  exp(-2j pi phi(D)), so the rotation is within ~Q - 1 float roundings of
 *  the exact one and, a function of m alone, gives the same bits wherever a
 *  call starts. A thread rotates its R (4, 8 or 16) consecutive outputs
 *  from one step and a seed every 8 outputs: one seed at R <= 8 where the
 *  call's first output is a multiple of 8 (the tuner's calls), two
 *  otherwise or at R = 16. A longer interval Q would save at most one
 *  sincospif a thread, for up to Q - 1 multiplications to reach its first
 *  output from the seed before it and Q - 1 roundings: 8, not a tuning
 *  dimension. */
constexpr int ddc_rotate_reseed = 8;

/*! fn(r, rotation of output m_first + r) for r = 0 .. count - 1 (phase of
 *  output m: step m D + offset), by the recurrence above. */
template <class Fn>
GPUDSP_HD void ddc_ring_rotations(
    uint64_t m_first, int count, int D, uint64_t step, uint64_t offset, Fn fn)
{
    const uint64_t dstep = step * uint64_t(D), mask = uint64_t(ddc_rotate_reseed - 1);
    const ddc_cf w = ddc_mixer_at(dstep);
    const int lead = int(m_first & mask);
    ddc_cf v = ddc_mixer_at(dstep * (m_first - uint64_t(lead)) + offset);
    for (int k = 0; k < lead; ++k)
        v = ddc_cmul(v, w);
    for (int r = 0; r < count; ++r) {
        const uint64_t m = m_first + uint64_t(r);
        if (r > 0)
            v = (m & mask) == 0 ? ddc_mixer_at(dstep * m + offset) : ddc_cmul(v, w);
        fn(r, v);
    }
}

/*! Shared memory of the ring kernel: the taps, the tile, the groups'
 *  partial sums (at least M: the outputs are staged there for coalesced
 *  stores), then \p stages stages from a 16-byte aligned offset. */
GPUDSP_HD std::size_t ddc_ring_stage_offset(const ddc_tile_shape& sh, int sample_bytes)
{
    const int g = sh.G > 1 ? sh.G : 1;
    const std::size_t end =
        ddc_tile_parts_offset(sh, sample_bytes) + std::size_t(g) * sh.M * sizeof(ddc_cf);
    return (end + ddc_ring_chunk - 1) / ddc_ring_chunk * ddc_ring_chunk;
}
GPUDSP_HD std::size_t
ddc_ring_shared_bytes(const ddc_tile_shape& sh, int sample_bits, int stages)
{
    const int eb = sample_bits == 64 ? 8 : 4; // tile element: complex or float
    return ddc_ring_stage_offset(sh, eb) +
           std::size_t(stages) * ddc_ring_stage_bytes(sh, sample_bits);
}

/*! A ring candidate: a tile shape and its number of stages (one stage
 *  already overlaps a tile's load with the previous tile's FIR; two also
 *  with its decode), and the persistent grid's blocks an SM (0: as many as
 *  fit). */
struct ddc_ring_shape {
    ddc_tile_shape sh;
    int stages = 1;
    int per_sm = 0;
};

/*! The ring shapes the tuner may time: for 1 and 2 stages and each number
 *  of outputs per thread (ddc_tile_r_log2s: 8, then 4 and 16 for real
 *  input with phases of 8 taps or more), the tile shape ddc_tile_shape_for
 *  would choose for two blocks an SM and for one, with the stages counted
 *  (the most outputs per tile, then phase groups up to 256 threads),
 *  without repeats; then, where two blocks of the first of them fit an SM,
 *  that one on a grid of one block an SM. None where no tile fits. */
inline std::vector<ddc_ring_shape>
ddc_ring_candidates(int D, int T, int sample_bits, std::size_t smem_limit)
{
    std::vector<ddc_ring_shape> out;
    const int ac = (T + D - 1) / D >= 8 ? 8 : 4;
    const std::size_t two_per_sm =
        smem_limit >= 2048 ? (smem_limit + 1024) / 2 - 1024 : 0;
    for (const int lgR : ddc_tile_r_log2s(sample_bits == 64, true))
        for (const int stages : { 1, 2 })
            if (ddc_tile_r_built(1 << lgR, ac, sample_bits == 64, true))
                for (const std::size_t budget : { two_per_sm, smem_limit })
                    for (int tw = ddc_tile_max_threads; tw >= 32; tw /= 2) {
                        auto shape = [&](int g) {
                            return ddc_tile_shape_with(D, T, tw, g, ac, lgR);
                        };
                        int g = 1;
                        while (g * 2 <= D && tw * g * 2 <= ddc_tile_max_threads)
                            g *= 2;
                        while (g > 1 && ddc_ring_shared_bytes(
                                            shape(g), sample_bits, stages) > budget)
                            g /= 2;
                        const ddc_tile_shape sh = shape(g);
                        if (ddc_ring_shared_bytes(sh, sample_bits, stages) > budget)
                            continue;
                        bool seen = false;
                        for (const auto& r : out)
                            seen |= r.stages == stages && r.sh.TW == sh.TW &&
                                    r.sh.G == sh.G && r.sh.lgR == sh.lgR;
                        if (!seen)
                            out.push_back({ sh, stages });
                        break;
                    }
    if (!out.empty()) {
        const ddc_ring_shape first = out[0];
        if (ddc_ring_shared_bytes(first.sh, sample_bits, first.stages) <= two_per_sm) {
            ddc_ring_shape fewer = first;
            fewer.per_sm = 1;
            out.push_back(fewer);
        }
    }
    return out;
}

/*! The tuner's name of a ring shape: "ring TW=128 G=2 AC=8 S=1" (R=..
 *  before S where not 8; P=1 after it where the grid is one block an SM). */
inline std::string ddc_ring_id(const ddc_ring_shape& r)
{
    return "ring " + ddc_tile_shape_id(r.sh) + " S=" + std::to_string(r.stages) +
           (r.per_sm ? " P=" + std::to_string(r.per_sm) : "");
}

} // namespace kernels
} // namespace gpudsp
} // namespace gr

#endif
