/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The CUDA F-engine post-processing's tile arithmetic (fmath::postproc_tile),
// as the kernel walks it (grid of tiles, 256 threads x 4 elements): every
// (channel, input) of a spectrum is read once and written once, the two
// phases of an element meet at one shared-memory slot inside the array,
// a warp's reads are 32 channels of one input (its saturation ballot), and
// with few inputs every thread has an element (2 inputs: 512 channels).

#include "kernels/fengine_math.h"
#include <boost/test/unit_test.hpp>
#include <vector>

using namespace gr::gpudsp::kernels;

BOOST_AUTO_TEST_CASE(every_value_once_and_warps_read_one_input)
{
    constexpr int threads = 256, per_thread = fmath::postproc_elems / threads;
    for (int n_inputs = 1; n_inputs <= 70; ++n_inputs)
        for (int n_channels : { 16, 32, 48, 1000, 1024, 4096 }) {
            const auto t = fmath::postproc_tile_for(n_inputs);
            BOOST_REQUIRE(t.inputs >= 1 && t.inputs <= 32 && t.channels >= 32);
            BOOST_REQUIRE_EQUAL(t.inputs * t.channels, fmath::postproc_elems);
            BOOST_REQUIRE(t.inputs >= std::min(n_inputs, 32));
            std::vector<int> read(std::size_t(n_inputs) * n_channels, 0), written = read;
            const int gx = (n_channels + t.channels - 1) / t.channels;
            const int gy = (n_inputs + t.inputs - 1) / t.inputs;
            int busy = 0;
            for (int bx = 0; bx < gx; ++bx)
                for (int by = 0; by < gy; ++by) {
                    std::vector<int> slot(fmath::postproc_smem_elems, -1);
                    for (int j = 0; j < per_thread; ++j)
                        for (int w = 0; w < threads / 32; ++w) {
                            const int e0 = w * 32 + j * threads;
                            for (int lane = 0; lane < 32; ++lane) {
                                const int e = e0 + lane;
                                const int il = t.load_input(e), kl = t.load_channel(e);
                                BOOST_REQUIRE_EQUAL(il, t.load_input(e0)); // one input per warp
                                const int i = by * t.inputs + il, k = bx * t.channels + kl;
                                if (i < n_inputs && k < n_channels) {
                                    ++read[std::size_t(i) * n_channels + k];
                                    const int at = t.smem_index(il, kl);
                                    BOOST_REQUIRE(at >= 0 && at < fmath::postproc_smem_elems);
                                    BOOST_REQUIRE_EQUAL(slot[at], -1);
                                    slot[at] = i * n_channels + k;
                                    ++busy;
                                }
                            }
                        }
                    for (int e = 0; e < fmath::postproc_elems; ++e) {
                        const int il = t.store_input(e), kl = t.store_channel(e);
                        const int i = by * t.inputs + il, k = bx * t.channels + kl;
                        if (i < n_inputs && k < n_channels) {
                            ++written[std::size_t(i) * n_channels + k];
                            BOOST_REQUIRE_EQUAL(slot[t.smem_index(il, kl)], i * n_channels + k);
                        }
                    }
                }
            for (std::size_t x = 0; x < read.size(); ++x)
                BOOST_REQUIRE(read[x] == 1 && written[x] == 1);
            // 2 inputs: every thread of every block busy where channels fill it
            if (n_inputs == 2 && n_channels % 512 == 0)
                BOOST_CHECK_EQUAL(busy, gx * gy * fmath::postproc_elems);
        }
}
