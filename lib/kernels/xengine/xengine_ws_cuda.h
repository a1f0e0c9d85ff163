/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Internal: the X-engine's persistent warp-specialized Gram kernel
// (xengine_ws.cu, sm_90a only): whether it runs here, its tensor map and its
// launch. The Gram form's plan (xengine_gram.cu) packs Y and calls it.

#ifndef INCLUDED_GPUDSP_KERNELS_XENGINE_WS_CUDA_H
#define INCLUDED_GPUDSP_KERNELS_XENGINE_WS_CUDA_H

#include <cuda_runtime.h>
#include <string>

namespace gr {
namespace gpudsp {
namespace kernels {

/*! A CUtensorMap (the driver's 128-byte, 128-byte aligned opaque object),
 *  kept without the driver's header. */
struct alignas(128) xws_map {
    unsigned char bytes[128];
};

/*! Why the kernel with B tiles of \p bn (128, 256) rows, or its direct
 *  variant (\p direct: it packs the input itself, bn 128), cannot run on
 *  \p device (current); empty if it can (then its shared-memory limit is
 *  set). */
std::string xengine_ws_unusable(int device, int bn, bool direct = false);

/*! The tensor map of a launch's Y at \p y (t_pad spectra, n_rows rows, nc
 *  channels); an error message, or empty. */
std::string xengine_ws_encode(xws_map& map, const void* y, int t_pad, int n_rows, int nc);

/*! The direct variant's tensor map of a call's input at \p x ([spectrum]
 *  [channel][input] ci8; 16-byte aligned, n_inputs a multiple of 8). */
std::string xengine_ws_encode_input(
    xws_map& map, const void* x, int n_spectra, int n_channels, int n_inputs);

/*! Adds the launch's G = Y Y^T, pairs a >= b, to the int32 partials of
 *  channels channel0 .. (\p part: [channel][pair][re, im], every channel);
 *  \p direct: \p map is the input's (Y is formed in the kernel). */
void xengine_ws_launch(int bn,
                       bool direct,
                       const xws_map& map,
                       int grid,
                       long long n_tiles,
                       long long per_channel,
                       int k_blocks,
                       int n_rows,
                       int n_inputs,
                       int channel0,
                       int* part,
                       cudaStream_t stream);

/*! Why the channel variant (a block forms all of a channel's rows; at most 128
 *  inputs; the caller checks their format and TMA's multiple of 8) cannot run
 *  on \p device (current) for
 *  \p n_inputs inputs; empty if it can (then its shared-memory limit is
 *  set). */
std::string xengine_wsc_unusable(int device, int n_inputs);

/*! Adds every channel's G = Y Y^T, pairs a >= b, to the int32 partials
 *  (\p part: [channel][pair][re, im]), the channels' stages shared evenly
 *  by \p grid blocks (at most n_channels x k_blocks); \p map is the
 *  input's (xengine_ws_encode_input). */
void xengine_wsc_launch(const xws_map& map,
                        int grid,
                        long long n_channels,
                        int k_blocks,
                        int n_inputs,
                        int* part,
                        cudaStream_t stream);

} // namespace kernels
} // namespace gpudsp
} // namespace gr

#endif
