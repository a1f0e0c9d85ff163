/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The CUDA device context: every CUDA runtime call of gr-gpudsp's runtime
// goes through here, checked, with an error message that names the
// operation, the block and CUDA's own error text.

#include "cuda_check.h"
#include "context_factories.h"
#include <cuda_runtime.h>
#include <map>
#include <memory>
#include <mutex>

namespace gr {
namespace gpudsp {
namespace runtime {
namespace detail {

namespace {

cudaMemcpyKind to_cuda(copy_kind kind)
{
    switch (kind) {
    case copy_kind::host_to_device:
        return cudaMemcpyHostToDevice;
    case copy_kind::device_to_host:
        return cudaMemcpyDeviceToHost;
    case copy_kind::device_to_device:
        return cudaMemcpyDeviceToDevice;
    }
    return cudaMemcpyDefault;
}

class cuda_context : public device_context
{
public:
    explicit cuda_context(int device) : device_context(backend_kind::cuda, device)
    {
        int count = 0;
        cuda_check(cudaGetDeviceCount(&count), "cudaGetDeviceCount", device, "device_context");
        if (device >= count)
            throw device_error("device_context: CUDA device " + std::to_string(device) +
                               " is absent (" + std::to_string(count) + " found)");
    }

    void make_current() const override
    {
        cuda_check(cudaSetDevice(device()), "cudaSetDevice", device(), "device_context");
    }
    bool try_make_current() const noexcept override
    {
        return cudaSetDevice(device()) == cudaSuccess;
    }

    // A failed allocation (out of memory) is also CUDA's last error, which
    // the next launch's check would read and blame on that kernel: taken
    // back here, where the caller gets it as an exception (and may go on,
    // as the X-engine's and the tuner's fallbacks do).
    static cudaError_t cleared(cudaError_t e)
    {
        if (e != cudaSuccess)
            cudaGetLastError();
        return e;
    }

    void* device_alloc(std::size_t bytes, const std::string& who) override
    {
        make_current();
        void* p = nullptr;
        cuda_check(cleared(cudaMalloc(&p, bytes)), "cudaMalloc", device(), who);
        remember(p, bytes);
        note_alloc(true, bytes, who);
        return p;
    }
    void device_free(void* ptr, const std::string& who) noexcept override
    {
        if (!ptr)
            return;
        cudaSetDevice(device());
        cudaFree(ptr); // an error here (a fault left by a kernel) was reported there
        note_free(true, forget(ptr), who);
    }
    void* host_alloc(std::size_t bytes, const std::string& who) override
    {
        make_current();
        void* p = nullptr;
        cuda_check(cleared(cudaMallocHost(&p, bytes)), "cudaMallocHost", device(), who);
        remember(p, bytes);
        note_alloc(false, bytes, who);
        return p;
    }
    void host_free(void* ptr, const std::string& who) noexcept override
    {
        if (!ptr)
            return;
        cudaFreeHost(ptr);
        note_free(false, forget(ptr), who);
    }

    void memset_async(void* device_ptr,
                      int value,
                      std::size_t bytes,
                      stream_handle stream,
                      const std::string& who) override
    {
        make_current();
        cuda_check(cudaMemsetAsync(device_ptr, value, bytes, cuda(stream)),
              "cudaMemsetAsync",
              device(),
              who);
    }

    stream_handle stream_create(const std::string& who) override
    {
        make_current();
        cudaStream_t s = nullptr;
        // Non-blocking: never serialised behind the legacy default stream.
        cuda_check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking),
              "cudaStreamCreateWithFlags",
              device(),
              who);
        return s;
    }
    void stream_destroy(stream_handle stream) noexcept override
    {
        cudaSetDevice(device());
        cudaStreamDestroy(cuda(stream));
    }
    void stream_synchronize(stream_handle stream, const std::string& who) override
    {
        note_synchronization(who);
        cuda_check(
            cudaStreamSynchronize(cuda(stream)), "cudaStreamSynchronize", device(), who);
    }
    event_handle event_create(const std::string& who) override
    {
        make_current();
        cudaEvent_t e = nullptr;
        cuda_check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming),
              "cudaEventCreateWithFlags",
              device(),
              who);
        return e;
    }
    void event_destroy(event_handle event) noexcept override
    {
        cudaSetDevice(device());
        cudaEventDestroy(static_cast<cudaEvent_t>(event));
    }
    void event_record(event_handle event,
                      stream_handle stream,
                      const std::string& who) override
    {
        cuda_check(cudaEventRecord(static_cast<cudaEvent_t>(event), cuda(stream)),
              "cudaEventRecord",
              device(),
              who);
    }
    void stream_wait_event(stream_handle stream,
                           event_handle event,
                           const std::string& who) override
    {
        cuda_check(cudaStreamWaitEvent(cuda(stream), static_cast<cudaEvent_t>(event), 0),
              "cudaStreamWaitEvent",
              device(),
              who);
    }
    void event_synchronize(event_handle event, const std::string& who) override
    {
        note_synchronization(who);
        cuda_check(cudaEventSynchronize(static_cast<cudaEvent_t>(event)),
              "cudaEventSynchronize",
              device(),
              who);
    }
    event_handle timer_create(const std::string& who) override
    {
        make_current();
        cudaEvent_t e = nullptr;
        cuda_check(cudaEventCreate(&e), "cudaEventCreate", device(), who);
        return e;
    }
    double
    elapsed_seconds(event_handle start, event_handle end, const std::string& who) override
    {
        float ms = 0;
        cuda_check(cudaEventElapsedTime(&ms,
                                        static_cast<cudaEvent_t>(start),
                                        static_cast<cudaEvent_t>(end)),
                   "cudaEventElapsedTime",
                   device(),
                   who);
        return 1e-3 * double(ms);
    }
    device_info info() const override
    {
        for (const auto& d : devices())
            if (d.index == device())
                return d;
        throw device_error("device_context: CUDA device " + std::to_string(device()) +
                           " is not among the usable devices");
    }
    bool event_query(event_handle event, const std::string& who) override
    {
        const cudaError_t err = cudaEventQuery(static_cast<cudaEvent_t>(event));
        if (err == cudaErrorNotReady)
            return false;
        cuda_check(err, "cudaEventQuery", device(), who);
        return true;
    }
    void enqueue_host_work(stream_handle stream,
                           std::function<void()> work,
                           std::vector<memory_span>,
                           const std::string& who) override
    {
        // The driver runs it on its own thread once the stream gets there;
        // it must not call CUDA (cudaLaunchHostFunc's rule, and ours).
        // An exception is kept and raised by check_last_error(), as a
        // kernel fault would be.
        auto* fn = new std::function<void()>([this, work = std::move(work), who] {
            try {
                work();
            } catch (const std::exception& e) {
                keep_host_error(who + ": " + e.what());
            }
        });
        const cudaError_t err = cudaLaunchHostFunc(
            cuda(stream),
            [](void* p) {
                std::unique_ptr<std::function<void()>> f(
                    static_cast<std::function<void()>*>(p));
                (*f)();
            },
            fn);
        if (err != cudaSuccess)
            delete fn;
        cuda_check(err, "cudaLaunchHostFunc", device(), who);
    }
    std::size_t free_memory() override
    {
        make_current();
        std::size_t free = 0, total = 0;
        cuda_check(
            cudaMemGetInfo(&free, &total), "cudaMemGetInfo", device(), "device_context");
        return free;
    }
    void check_last_error(const std::string& operation, const std::string& who) override
    {
        cuda_check(cudaGetLastError(), operation.c_str(), device(), who);
        std::string host_error;
        {
            std::lock_guard<std::mutex> lock(d_mutex);
            host_error.swap(d_host_error);
        }
        if (!host_error.empty())
            throw device_error(who + ": host work on CUDA device " +
                               std::to_string(device()) + " failed: " + host_error);
    }

protected:
    void do_copy_async(void* dst,
                       const void* src,
                       std::size_t bytes,
                       copy_kind kind,
                       stream_handle stream,
                       const std::string& who) override
    {
        make_current();
        cuda_check(cudaMemcpyAsync(dst, src, bytes, to_cuda(kind), cuda(stream)),
              "cudaMemcpyAsync",
              device(),
              who);
    }

private:
    static cudaStream_t cuda(stream_handle s) { return static_cast<cudaStream_t>(s); }

    void remember(void* p, std::size_t bytes)
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        d_sizes[p] = bytes;
    }
    std::size_t forget(void* p)
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        auto it = d_sizes.find(p);
        if (it == d_sizes.end())
            return 0;
        const std::size_t bytes = it->second;
        d_sizes.erase(it);
        return bytes;
    }

    void keep_host_error(const std::string& what)
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        if (d_host_error.empty())
            d_host_error = what;
    }

    std::mutex d_mutex;
    std::map<void*, std::size_t> d_sizes;
    std::string d_host_error;
};

} // namespace

device_context::sptr make_cuda_context(int device)
{
    return std::make_shared<cuda_context>(device);
}

std::vector<device_info> cuda_devices() noexcept
{
    std::vector<device_info> result;
    int count = 0;
    // No driver, no device, or a driver too old all end here with an error
    // code: the machine simply has no usable CUDA device.
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        cudaGetLastError(); // clear the sticky-free error state
        return result;
    }
    int driver = 0, runtime = 0;
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    for (int i = 0; i < count; ++i) {
        cudaDeviceProp prop;
        if (cudaGetDeviceProperties(&prop, i) != cudaSuccess)
            continue;
        device_info info;
        info.index = i;
        info.name = prop.name;
        info.compute_major = prop.major;
        info.compute_minor = prop.minor;
        info.total_memory = prop.totalGlobalMem;
        info.multiprocessors = prop.multiProcessorCount;
        info.l2_bytes = std::size_t(prop.l2CacheSize);
        info.driver_version = driver;
        info.runtime_version = runtime;
        result.push_back(info);
    }
    return result;
}

} // namespace detail
} // namespace runtime
} // namespace gpudsp
} // namespace gr
