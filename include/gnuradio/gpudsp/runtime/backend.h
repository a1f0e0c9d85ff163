/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUDSP_RUNTIME_BACKEND_H
#define INCLUDED_GPUDSP_RUNTIME_BACKEND_H

#include <gnuradio/gpudsp/api.h>
#include <cstddef>
#include <string>
#include <vector>

namespace gr {
namespace gpudsp {
namespace runtime {

/*!
 * \brief Where a block or a kernel plan runs.
 *
 * `emulated` is the test backend: a "device" whose memory is a separate,
 * poisoned host allocation reached only through the same copy calls as a
 * CUDA device, and whose kernels are the CPU reference. It lets CI, which
 * has no GPU, run every device-buffer code path.
 */
enum class backend_kind { cpu, cuda, emulated };

GPUDSP_API const char* to_string(backend_kind kind);

/*! \brief One CUDA device as the runtime sees it. */
struct GPUDSP_API device_info {
    int index = 0;         //!< index as CUDA numbers it (after CUDA_VISIBLE_DEVICES)
    std::string name;      //!< e.g. "NVIDIA H100 80GB HBM3"
    int compute_major = 0; //!< compute capability, major
    int compute_minor = 0; //!< compute capability, minor
    std::size_t total_memory = 0; //!< bytes of device memory
    int multiprocessors = 0;      //!< streaming multiprocessors
    std::size_t l2_bytes = 0;     //!< L2 cache
    int driver_version = 0;       //!< CUDA driver API version, e.g. 13000
    int runtime_version = 0;      //!< CUDA runtime version the module runs, e.g. 13000
};

/*! \brief True when the library was built with the CUDA backend. */
GPUDSP_API bool built_with_cuda();

/*!
 * \brief True when at least one usable CUDA device exists.
 *
 * Never throws, crashes or hangs: no driver, no device, or a build without
 * CUDA all answer false.
 */
GPUDSP_API bool cuda_available();

/*! \brief The usable CUDA devices (empty when there are none). Never throws. */
GPUDSP_API std::vector<device_info> devices();

/*! \brief A resolved choice of backend and device. */
struct GPUDSP_API backend_choice {
    backend_kind kind = backend_kind::cpu;
    int device = 0;
    std::string describe() const; //!< e.g. "cuda device 0 (NVIDIA H100 ...)" or "cpu"
};

/*!
 * \brief Resolves the user's `backend` ("auto", "cuda", "cpu", "emulated")
 * and `device` index.
 *
 * "auto" picks CUDA when a usable device exists, else CPU. "cuda" without a
 * usable device, an unknown backend string or a device index that is
 * negative or absent throws std::invalid_argument / std::runtime_error whose
 * message starts with \p who.
 */
GPUDSP_API backend_choice resolve_backend(const std::string& backend,
                                          int device,
                                          const std::string& who);

} // namespace runtime
} // namespace gpudsp
} // namespace gr

#endif /* INCLUDED_GPUDSP_RUNTIME_BACKEND_H */
