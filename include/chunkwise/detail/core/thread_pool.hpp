#pragma once
// Internal: the persistent thread pool behind thread_policy.
//
// A job is a set of indices handed out one at a time through an atomic counter (dynamic
// scheduling). The thread that submits a job always works on it itself, so a job completes even
// when every pool thread is busy: that is what makes map_blocks from inside a block safe. Pool
// threads join open jobs, newest first, and the submitter returns only once every thread that
// joined has left the job (the job lives on the submitter's stack).

#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <thread>
#include <vector>

namespace chunkwise::detail {

/// Work that the submitting thread and pool threads share. `work(slot)` claims and runs indices
/// until none are left; slot 0 is the submitter, slot t+1 is pool thread t.
class pool_job {
public:
    virtual void work(std::size_t slot) noexcept = 0;

protected:
    ~pool_job() = default;

private:
    friend class thread_pool;
    std::size_t wanted_ = 0;  // helpers still allowed to join
    std::size_t active_ = 0;  // helpers inside work()
    bool open_ = false;
};

class thread_pool {
public:
    explicit thread_pool(std::size_t threads) {
        threads_.reserve(threads);
        try {
            for (std::size_t t = 0; t < threads; ++t) threads_.emplace_back([this, t] { loop(t + 1); });
        } catch (...) {
            shutdown();
            throw;
        }
    }

    thread_pool(const thread_pool&) = delete;
    thread_pool& operator=(const thread_pool&) = delete;

    ~thread_pool() { shutdown(); }

    [[nodiscard]] std::size_t size() const noexcept { return threads_.size(); }

    /// Runs `job` on the calling thread (slot 0) plus at most `helpers` pool threads; returns when
    /// the job's work is done and no pool thread is inside it any more.
    void run(pool_job& job, std::size_t helpers) {
        if (helpers > threads_.size()) helpers = threads_.size();
        if (helpers > 0) {
            {
                std::lock_guard lock(mutex_);
                job.wanted_ = helpers;
                job.active_ = 0;
                job.open_ = true;
                open_.push_back(&job);
            }
            if (helpers == threads_.size()) {
                work_cv_.notify_all();
            } else {
                for (std::size_t i = 0; i < helpers; ++i) work_cv_.notify_one();
            }
        }
        job.work(0);
        if (helpers > 0) {
            std::unique_lock lock(mutex_);
            job.open_ = false;
            std::erase(open_, &job);
            done_cv_.wait(lock, [&] { return job.active_ == 0; });
        }
    }

private:
    pool_job* find_open() const noexcept {
        for (auto it = open_.rbegin(); it != open_.rend(); ++it) {
            if ((*it)->wanted_ > 0) return *it;
        }
        return nullptr;
    }

    void loop(std::size_t slot) noexcept {
        std::unique_lock lock(mutex_);
        for (;;) {
            pool_job* job = nullptr;
            work_cv_.wait(lock, [&] { return stop_ || (job = find_open()) != nullptr; });
            if (job == nullptr) return;  // stop_ and nothing left to join
            --job->wanted_;
            ++job->active_;
            lock.unlock();
            job->work(slot);
            lock.lock();
            if (--job->active_ == 0 && !job->open_) done_cv_.notify_all();
        }
    }

    void shutdown() noexcept {
        {
            std::lock_guard lock(mutex_);
            stop_ = true;
        }
        work_cv_.notify_all();
        for (std::thread& t : threads_) {
            if (t.joinable()) t.join();
        }
    }

    std::mutex mutex_;
    std::condition_variable work_cv_;
    std::condition_variable done_cv_;
    std::vector<pool_job*> open_;
    bool stop_ = false;
    std::vector<std::thread> threads_;
};

}  // namespace chunkwise::detail
