/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Internal: a fixed set of CPU threads kept between calls, so that a call
// of a few tens of microseconds (a GNSS millisecond) is not spent creating
// and joining threads. run(T, f) calls f(0) .. f(T - 1), f(0) on the
// caller's thread, and returns when all have returned; the first exception
// a worker throws is rethrown by run. A process forked after a call with
// T > 1 has none of the workers: it must not use this pool (make a new
// plan in the child).
//
// Waking workers costs tens of microseconds on a loaded or large machine
// (condition variables, other cores' caches), more than a short call's
// work: threads_that_pay() says how many threads finish a call soonest,
// from the measured cost of waking them, so that more threads are never
// slower than one.

#ifndef INCLUDED_GPUDSP_KERNELS_CPU_WORKER_POOL_H
#define INCLUDED_GPUDSP_KERNELS_CPU_WORKER_POOL_H

#include <condition_variable>
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace gr {
namespace gpudsp {
namespace kernels {

class cpu_worker_pool
{
public:
    cpu_worker_pool() = default;
    cpu_worker_pool(const cpu_worker_pool&) = delete;
    cpu_worker_pool& operator=(const cpu_worker_pool&) = delete;
    ~cpu_worker_pool()
    {
        {
            std::lock_guard<std::mutex> lock(d_mutex);
            d_stop = true;
        }
        d_start.notify_all();
        for (auto& t : d_threads)
            t.join();
    }

    /*! The round trip of waking T - 1 workers with nothing to do and
     *  waiting for them: the median of 21, measured on first use per T. */
    double wake_seconds(std::size_t T)
    {
        if (T <= 1)
            return 0;
        if (d_wake.size() < T + 1)
            d_wake.resize(T + 1, -1.0);
        if (d_wake[T] < 0) {
            const std::function<void(std::size_t)> nothing = [](std::size_t) {};
            run(T, nothing); // (creates the workers)
            std::vector<double> t(21);
            for (auto& v : t) {
                const auto t0 = std::chrono::steady_clock::now();
                run(T, nothing);
                v = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
                        .count();
            }
            std::nth_element(t.begin(), t.begin() + 10, t.end());
            d_wake[T] = t[10];
        }
        return d_wake[T];
    }

    /*! Of 1, 2, 4 ... and T threads, the number that finishes work of
     *  \p alone seconds on one thread soonest; a split must save at least a
     *  tenth of \p alone (beyond timing noise), else 1. The caller works
     *  while the workers wake (half the measured round trip w, each way):
     *  with n threads the call takes (alone + (n - 1) w / 2) / n, then w / 2
     *  to learn that the last worker is done. Waking more workers costs at
     *  least as much as waking fewer: w is the largest round trip measured
     *  up to n, so that a noisy median at one n (on a loaded machine) never
     *  makes more threads look cheaper than fewer. */
    std::size_t threads_that_pay(std::size_t T, double alone)
    {
        std::size_t best = 1;
        double best_time = 0.9 * alone;
        double w = 0;
        for (std::size_t n = 2; n <= T; n = n < T && 2 * n > T ? T : 2 * n) {
            w = std::max(w, wake_seconds(n));
            const double t = (alone + double(n - 1) * w / 2) / double(n) + w / 2;
            if (t < best_time) {
                best = n;
                best_time = t;
            }
        }
        return best;
    }

    void run(std::size_t T, const std::function<void(std::size_t)>& f)
    {
        if (T <= 1) {
            if (T == 1)
                f(0);
            return;
        }
        while (d_threads.size() < T - 1) // workers 1 .. T - 1, made once
            d_threads.emplace_back(&cpu_worker_pool::worker, this, d_threads.size() + 1);
        {
            std::lock_guard<std::mutex> lock(d_mutex);
            d_task = &f;
            d_active = T;
            d_pending = T - 1;
            d_error = nullptr;
            ++d_generation;
        }
        d_start.notify_all();
        std::exception_ptr mine;
        try {
            f(0);
        } catch (...) {
            mine = std::current_exception();
        }
        std::unique_lock<std::mutex> lock(d_mutex);
        d_done.wait(lock, [this] { return d_pending == 0; });
        d_task = nullptr;
        if (mine)
            std::rethrow_exception(mine);
        if (d_error)
            std::rethrow_exception(d_error);
    }

private:
    void worker(std::size_t w)
    {
        std::size_t seen = 0;
        for (;;) {
            const std::function<void(std::size_t)>* task;
            {
                std::unique_lock<std::mutex> lock(d_mutex);
                d_start.wait(lock, [&] { return d_stop || d_generation != seen; });
                if (d_stop)
                    return;
                seen = d_generation;
                if (w >= d_active) // not needed this call
                    continue;
                task = d_task;
            }
            std::exception_ptr error;
            try {
                (*task)(w);
            } catch (...) {
                error = std::current_exception();
            }
            std::lock_guard<std::mutex> lock(d_mutex);
            if (error && !d_error)
                d_error = error;
            if (--d_pending == 0)
                d_done.notify_one();
        }
    }

    std::vector<std::thread> d_threads;
    std::mutex d_mutex;
    std::condition_variable d_start, d_done;
    const std::function<void(std::size_t)>* d_task = nullptr;
    std::size_t d_active = 0;  // threads taking part in this call
    std::size_t d_pending = 0; // workers not yet done with it
    std::size_t d_generation = 0;
    std::exception_ptr d_error;
    bool d_stop = false;
    std::vector<double> d_wake; // [T]: wake_seconds(T), -1 until measured
};

} // namespace kernels
} // namespace gpudsp
} // namespace gr

#endif
