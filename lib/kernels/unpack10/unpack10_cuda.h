/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Internal: launchers of the unpack10 CUDA kernels (no CUDA types here, so
// the plan compiles with the host compiler).

#ifndef INCLUDED_GPUDSP_KERNELS_UNPACK10_CUDA_H
#define INCLUDED_GPUDSP_KERNELS_UNPACK10_CUDA_H

#include <cstddef>
#include <cstdint>

namespace gr {
namespace gpudsp {
namespace kernels {
namespace cuda {

/*! Samples each thread takes per round: the kernels compiled, which the
 *  plan's tuner times (unpack10_per_thread_default untuned). */
constexpr int unpack10_per_thread_options[] = { 1, 2, 4, 8, 16 };
constexpr int unpack10_per_thread_default = 8;

constexpr int unpack10_threads = 256; //!< a block's

/*! Blocks of unpack10_threads a launch over n samples at \p per_thread
 *  samples a thread and round: one round of the grid up to 65536 blocks
 *  (134 M samples at 8 a thread), more rounds beyond. */
inline unsigned unpack10_blocks(std::size_t n_samples, int per_thread)
{
    const std::size_t per_block = std::size_t(unpack10_threads) * per_thread;
    const std::size_t wanted = (n_samples + per_block - 1) / per_block;
    return unsigned(wanted < 65536 ? wanted : 65536);
}

/*! Groups of 4 samples each thread of the group kernel takes per round
 *  (unpack10_groups.h, docs/formats.md): the kernels compiled, which the
 *  tuner times beside unpack10_per_thread_options. */
constexpr int unpack10_group_options[] = { 1, 2, 4 };

/*! Blocks of the group kernel a launch over n samples at \p groups groups a
 *  thread and round (one round of the grid up to 65536 blocks; at least
 *  one, which also writes the last n mod 4 samples). */
inline unsigned unpack10_group_blocks(std::size_t n_samples, int groups)
{
    const std::size_t per_block = std::size_t(unpack10_threads) * groups;
    const std::size_t wanted = (n_samples / 4 + per_block - 1) / per_block;
    return unsigned(wanted < 1 ? 1 : (wanted < 65536 ? wanted : 65536));
}

/*! Those blocks over the SMs times the blocks of the kernel one SM holds
 *  (the CUDA runtime's occupancy), on the current device: the per-sample
 *  kernel's at \p per_thread, or the group kernel's where \p groups > 0. */
double
unpack10_waves(std::size_t n_samples, int per_thread, bool float_out, int groups = 0);

void launch_unpack10(
    const uint8_t* in, float* out, std::size_t n_samples, int per_thread, void* stream);
void launch_unpack10(
    const uint8_t* in, int16_t* out, std::size_t n_samples, int per_thread, void* stream);
void launch_unpack10_groups(
    const uint8_t* in, float* out, std::size_t n_samples, int groups, void* stream);
void launch_unpack10_groups(
    const uint8_t* in, int16_t* out, std::size_t n_samples, int groups, void* stream);

} // namespace cuda
} // namespace kernels
} // namespace gpudsp
} // namespace gr

#endif
