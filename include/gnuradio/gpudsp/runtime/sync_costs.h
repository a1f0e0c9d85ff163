/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUDSP_RUNTIME_SYNC_COSTS_H
#define INCLUDED_GPUDSP_RUNTIME_SYNC_COSTS_H

#include <gnuradio/gpudsp/api.h>
#include <string>
#include <vector>

namespace gr {
namespace gpudsp {
namespace runtime {

/*! \brief One measured synchronisation cost on a CUDA device (sync_costs). */
struct sync_cost {
    std::string what;  //!< "block barrier, 192 threads", "cluster barrier, 4 CTAs", ...
    double cycles = 0; //!< SM clock cycles per round (clock64)
    double ns = 0;     //!< nanoseconds per round (%globaltimer)
};

/*!
 * \brief What synchronisation costs on CUDA device \p device, measured by
 * one small kernel per case (a diagnostic for the benchmark; a design
 * that splits one short job over SMs, as one LDPC codeword over a thread-
 * block cluster, pays these once per step): a block barrier
 * (`__syncthreads`) of 192 and 1024 threads; on sm_90 and later a cluster
 * barrier of 2, 4, 8 and 16 CTAs of 192 threads (16 where the device allows
 * a non-portable cluster size) three ways: cooperative groups'
 * `cluster.sync()`, PTX `barrier.cluster` arrive (release) and wait
 * (acquire), and the barrier alone (arrive.relaxed); and a
 * chain of dependent 4-byte reads from another CTA's shared memory
 * (distributed shared memory) beside the same chain in the CTA's own.
 * Each case is timed over \p rounds rounds inside the kernel.
 * Throws std::runtime_error without CUDA or without that device; a case
 * the device cannot run is left out.
 */
GPUDSP_API std::vector<sync_cost> sync_costs(int device, int rounds = 4096);

} // namespace runtime
} // namespace gpudsp
} // namespace gr

#endif
