#pragma once
// A fixed pool of workers (one per GPU) that takes items in order until none is left.

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace perfsweep::adapters {

/// Call `work(item, worker)` for every item in [0, items) on min(workers, items) threads (the
/// calling thread alone for one), each worker taking the next item when it is free. Stops taking
/// items once `stop()` is true or a call threw; the first exception is rethrown after every
/// worker finished.
inline void run_pool(std::size_t workers, std::size_t items,
                     const std::function<void(std::size_t item, std::size_t worker)>& work,
                     const std::function<bool()>& stop) {
    std::atomic<std::size_t> next{0};
    std::mutex err_mutex;
    std::exception_ptr error;
    auto loop = [&](std::size_t worker) {
        for (;;) {
            if (stop())
                return;
            {
                std::lock_guard<std::mutex> lock(err_mutex);
                if (error)
                    return;
            }
            const std::size_t i = next.fetch_add(1);
            if (i >= items)
                return;
            try {
                work(i, worker);
            } catch (...) {
                std::lock_guard<std::mutex> lock(err_mutex);
                if (!error)
                    error = std::current_exception();
                return;
            }
        }
    };
    const std::size_t n = std::min(workers, items);
    if (n <= 1)
        loop(0);
    else {
        std::vector<std::thread> threads;
        for (std::size_t w = 0; w < n; ++w)
            threads.emplace_back(loop, w);
        for (auto& t : threads)
            t.join();
    }
    if (error)
        std::rethrow_exception(error);
}

} // namespace perfsweep::adapters
