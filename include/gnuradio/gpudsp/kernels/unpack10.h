/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUDSP_KERNELS_UNPACK10_H
#define INCLUDED_GPUDSP_KERNELS_UNPACK10_H

#include <gnuradio/gpudsp/api.h>
#include <gnuradio/gpudsp/runtime/backend.h>
#include <gnuradio/gpudsp/runtime/device_context.h>
#include <gnuradio/gpudsp/runtime/tuning.h>
#include <cstddef>
#include <cstdint>
#include <string>

namespace gr {
namespace gpudsp {
namespace kernels {

/*!
 * \brief Packed 10-bit two's-complement samples: sample i occupies bits
 * [10i, 10i+10) of the byte stream, most significant bit first (4 samples
 * per 5 bytes). Values -512..511.
 */
enum class sample_format { float32, int16 };

/*! \brief Bytes that hold \p n_samples packed samples: ceil(10 n / 8). */
inline std::size_t packed10_bytes(std::size_t n_samples)
{
    return (10 * n_samples + 7) / 8;
}

/*! \brief CPU unpack of \p n_samples samples (reads packed10_bytes(n) bytes). */
GPUDSP_API void unpack10_cpu(const uint8_t* in, float* out, std::size_t n_samples);
GPUDSP_API void unpack10_cpu(const uint8_t* in, int16_t* out, std::size_t n_samples);

/*!
 * \brief The unpack10 job on one backend.
 *
 * execute() works on pointers of the plan's memory space: host memory for
 * the CPU backend, device memory (for instance a device_buffer's) for CUDA
 * and the emulated device; it is enqueued on \p stream and does not wait.
 * execute_host() takes host arrays and stages them through the device.
 */
class GPUDSP_API unpack10_plan
{
public:
    unpack10_plan(sample_format format,
                  runtime::backend_choice where,
                  const std::string& who);

    void execute(const void* in,
                 void* out,
                 std::size_t n_samples,
                 runtime::stream_handle stream);
    void execute_host(const uint8_t* in, void* out, std::size_t n_samples);

    sample_format format() const { return d_format; }
    const runtime::backend_choice& where() const { return d_where; }
    std::size_t sample_size() const
    {
        return d_format == sample_format::float32 ? sizeof(float) : sizeof(int16_t);
    }
    /*! \brief The configuration that runs (CUDA: samples per thread, or
     *  4-sample groups per thread of the group kernel) and
     *  where it came from: tuned when the plan was built, cached, shipped,
     *  or the heuristic (docs/gpu.md, "Tuning"). */
    const runtime::tune_result& tuning() const { return d_tuning; }
    /*! \brief How a CUDA call of \p n_samples launches: blocks, samples a
     *  thread and waves (blocks over what the GPU holds at once); empty on
     *  the other backends. For benchmark notes. */
    std::string launch_shape(std::size_t n_samples) const;

private:
    void tune();
    void launch(const uint8_t* in,
                void* out,
                std::size_t n_samples,
                int per_thread,
                int groups,
                runtime::stream_handle stream);

    sample_format d_format;
    runtime::backend_choice d_where;
    std::string d_who;
    runtime::device_context::sptr d_ctx; // null for the CPU backend
    int d_per_thread = 8;                // CUDA: samples per thread and round
    int d_groups = 0; // CUDA: the group kernel's 4-sample groups a thread (0: not it)
    runtime::tune_result d_tuning;
};

} // namespace kernels
} // namespace gpudsp
} // namespace gr

#endif /* INCLUDED_GPUDSP_KERNELS_UNPACK10_H */
