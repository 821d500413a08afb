// The coordination benchmarks of the SCOOP/Qs paper: mutex, prodcons, condition, threadring
// (mutex.md, prodcons.md, condition.md, threadring.md), and ours after it, philosophers
// (docs/benchmarks/philosophers.md). Every wait blocks in a mutex, a condition variable or a TBB
// mutex; nothing polls.
//
//   mutex       threads / lock           n std::threads, each doing m times lock_guard<std::mutex> { ++c }
//                                        (the paper's C++), then joined; c read under the mutex.
//               tbb / spin-mutex         n tasks of a tbb::task_group in a task_arena of --workers threads,
//               tbb / queuing-mutex      each doing m times scoped_lock { ++c } on a tbb::spin_mutex or
//                                        tbb::queuing_mutex (TBB's own locks are meant for its tasks).
//   prodcons    threads / paper          n consumer and n producer std::threads on one std::deque with one
//                                        mutex and one condition variable: a producer notifies only when
//                                        the size goes 0 -> 1, a consumer that leaves items behind notifies
//                                        one more waiter (wake-ups chained, the paper's C++).
//               threads / notify-each    notify_one after every put; consumers `while empty: wait`.
//   condition   threads / paper          2n std::threads, one mutex and one condvar: a worker of the wrong
//                                        parity calls notify_one before it waits (passing the wake-up
//                                        along); every increment is followed by notify_one.
//               threads / broadcast      `while wrong parity: wait`, notify_all after each increment.
//               threads / two-cv         one condvar per parity; an increment signals one waiter of the
//                                        other parity.
//   threadring  threads / asio-wake      R pthreads with small stacks all serving one mutex-and-condvar
//                                        queue of handlers (the Benchmarks Game boost::asio program without
//                                        boost, as the paper measured it): a handler names the logical thread
//                                        that runs it; a hop posts the next handler and wakes an idle pool
//                                        thread, which runs it: the posting thread goes back to waiting, so
//                                        the token crosses OS threads at every hop.
//               threads / asio-pool      the same pool, but any thread may run a handler, the poster too:
//                                        it takes its own post before the woken thread is up.
//               threads / blocking       R std::threads, each blocked on its own mutex and condvar slot;
//                                        a hop stores t-1 in the successor's slot and signals it.
//   philosophers threads / scoped-lock   n std::threads round n forks, one std::mutex per fork; a meal is
//                                        std::scoped_lock(left.mx, right.mx) { take both, eat, put both
//                                        down }. libstdc++ locks one mutex, try_locks the other and, when
//                                        it is busy, unlocks and blocks on the busy one: never holding one
//                                        while blocking on another, so no deadlock, and no polling.
#include "kernels.hpp"

#include <oneapi/tbb/queuing_mutex.h>
#include <oneapi/tbb/spin_mutex.h>
#include <oneapi/tbb/task_arena.h>
#include <oneapi/tbb/task_group.h>
#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <system_error>
#include <thread>

namespace cb {
namespace {

// Starts body(i) for i in 0..count-1 on std::threads; a thread that cannot be created fails the run.
template <typename Body>
std::vector<std::thread> start_threads(const char* benchmark, int count, Body body) {
    std::vector<std::thread> threads;
    threads.reserve(static_cast<size_t>(count));
    for (int i = 0; i < count; ++i) {
        try {
            threads.emplace_back(body, i);
        } catch (const std::system_error& e) {
            fail(std::string(benchmark) + ": cannot create thread " + std::to_string(i) + " of " +
                 std::to_string(count) + ": " + e.what());
        }
    }
    return threads;
}

void join_all(std::vector<std::thread>& threads) {
    for (auto& t : threads) t.join();
}

}  // namespace

// ======================= mutex =======================

struct MutexRunner::Impl {
    std::unique_ptr<tbb::task_arena> arena;  // tbb shapes only
};

MutexRunner::MutexRunner(MutexShape shape, int workers) : shape_(shape), impl_(std::make_unique<Impl>()) {
    if (shape_ != MutexShape::Lock) {
        impl_->arena = std::make_unique<tbb::task_arena>(workers);
        impl_->arena->initialize();
    }
}

MutexRunner::~MutexRunner() = default;

namespace {

// n tasks in the arena, each taking `Lock` m times around one increment.
template <typename Lock>
uint64_t tbb_increments(tbb::task_arena& arena, int n, uint64_t m) {
    Lock mx;
    uint64_t c = 0;
    arena.execute([&] {
        tbb::task_group group;
        for (int i = 0; i < n; ++i)
            group.run([&] {
                for (uint64_t k = 0; k < m; ++k) {
                    typename Lock::scoped_lock lock(mx);
                    ++c;
                }
            });
        group.wait();
    });
    typename Lock::scoped_lock lock(mx);
    return c;
}

}  // namespace

CountRun MutexRunner::run(int n, uint64_t m) {
    CountRun out;
    int64_t t0 = now_ns();
    if (shape_ == MutexShape::Lock) {
        std::mutex mx;
        uint64_t c = 0;
        auto threads = start_threads("mutex", n, [&](int) {
            for (uint64_t k = 0; k < m; ++k) {
                std::lock_guard<std::mutex> lock(mx);
                ++c;
            }
        });
        join_all(threads);
        std::lock_guard<std::mutex> lock(mx);
        out.value = c;
    } else if (shape_ == MutexShape::SpinMutex) {
        out.value = tbb_increments<tbb::spin_mutex>(*impl_->arena, n, m);
    } else {
        out.value = tbb_increments<tbb::queuing_mutex>(*impl_->arena, n, m);
    }
    out.ns = now_ns() - t0;
    return out;
}

// ======================= prodcons =======================

namespace {

struct alignas(64) ConsumerTally {
    uint64_t count = 0, sum = 0;
};

}  // namespace

ProdconsRun prodcons_run(ProdconsShape shape, int n, uint64_t m) {
    const bool paper = shape == ProdconsShape::Paper;
    std::mutex mx;
    std::condition_variable nonempty;
    std::deque<uint64_t> queue;
    std::vector<ConsumerTally> tallies(static_cast<size_t>(n));
    ProdconsRun out;
    int64_t t0 = now_ns();
    // Threads 0..n-1 consume, n..2n-1 produce; all 2n are started before any is joined.
    auto threads = start_threads("prodcons", 2 * n, [&](int i) {
        if (i < n) {
            ConsumerTally tally;
            for (uint64_t k = 0; k < m; ++k) {
                uint64_t v;
                {
                    std::unique_lock<std::mutex> lock(mx);
                    while (queue.empty()) nonempty.wait(lock);
                    v = queue.front();
                    queue.pop_front();
                    if (paper && !queue.empty()) nonempty.notify_one();  // chain the wake-up
                }
                tally.sum += v;
                ++tally.count;
            }
            tallies[static_cast<size_t>(i)] = tally;
        } else {
            const uint64_t base = static_cast<uint64_t>(i - n) * m;
            for (uint64_t k = 0; k < m; ++k) {
                std::unique_lock<std::mutex> lock(mx);
                queue.push_back(base + k + 1);
                if (paper) {
                    if (queue.size() == 1) nonempty.notify_one();  // only on 0 -> 1
                } else {
                    lock.unlock();
                    nonempty.notify_one();
                }
            }
        }
    });
    join_all(threads);
    for (const auto& t : tallies) {
        out.consumed += t.count;
        out.sum += t.sum;
    }
    out.ns = now_ns() - t0;
    return out;
}

// ======================= condition =======================

CountRun condition_run(ConditionShape shape, int n, uint64_t m) {
    std::mutex mx;
    std::condition_variable cv;          // paper, broadcast
    std::condition_variable parity_cv[2];  // two-cv: the waiters of each parity
    uint64_t x = 0;
    CountRun out;
    int64_t t0 = now_ns();
    auto threads = start_threads("condition", 2 * n, [&](int w) {
        const uint64_t f = static_cast<uint64_t>(w % 2);
        for (uint64_t k = 0; k < m; ++k) {
            std::unique_lock<std::mutex> lock(mx);
            switch (shape) {
            case ConditionShape::Paper:
                while ((x & 1) != f) {
                    cv.notify_one();  // pass the wake-up along to another waiter
                    cv.wait(lock);
                }
                ++x;
                cv.notify_one();
                break;
            case ConditionShape::Broadcast:
                while ((x & 1) != f) cv.wait(lock);
                ++x;
                cv.notify_all();
                break;
            case ConditionShape::TwoCv:
                while ((x & 1) != f) parity_cv[f].wait(lock);
                ++x;
                parity_cv[1 - f].notify_one();  // x now has the other parity
                break;
            }
        }
    });
    join_all(threads);
    {
        std::lock_guard<std::mutex> lock(mx);
        out.value = x;
    }
    out.ns = now_ns() - t0;
    return out;
}

// ======================= threadring =======================

namespace {

// Where the entity that receives 0 reports its id; main waits here.
struct Report {
    std::mutex mx;
    std::condition_variable cv;
    int id = 0;

    void post(int who) {
        std::lock_guard<std::mutex> lock(mx);
        id = who;
        cv.notify_one();
    }
    int wait() {
        std::unique_lock<std::mutex> lock(mx);
        while (id == 0) cv.wait(lock);
        return id;
    }
};

// ---- asio-pool: one handler queue served by R pool threads ----

struct Handler {
    int id;      // the logical thread (1..R) this handler runs as
    uint64_t t;  // the token it received
    int poster;  // the pool thread that posted it (-1: main); asio-wake never runs it there
};

struct AsioPool {
    int ring = 0;
    bool wake = false;  // asio-wake: a handler is run by a thread its post woke, never by its poster
    std::mutex mx;
    std::condition_variable ready;
    std::deque<Handler> queue;
    bool stop = false;
    Report report;
    std::atomic<int> next_index{0};

    void post(Handler h) {
        {
            std::lock_guard<std::mutex> lock(mx);
            queue.push_back(h);
        }
        ready.notify_one();
    }

    void serve() {
        const int me = next_index.fetch_add(1);
        for (;;) {
            Handler h;
            {
                std::unique_lock<std::mutex> lock(mx);
                // asio-wake: the thread that posted the next handler waits for another to take it, as the
                // Asio pool's posting thread returned to its queue while the thread it woke ran the handler.
                while ((queue.empty() || (wake && queue.front().poster == me)) && !stop) ready.wait(lock);
                if (stop) return;
                h = queue.front();
                queue.pop_front();
            }
            if (h.t == 0) report.post(h.id);
            else post({h.id % ring + 1, h.t - 1, me});
        }
    }
};

void* asio_pool_thread(void* arg) {
    static_cast<AsioPool*>(arg)->serve();
    return nullptr;
}

ThreadringRun threadring_asio_pool(int ring, uint64_t n, bool wake) {
    AsioPool pool;
    pool.ring = ring;
    pool.wake = wake;
    std::vector<pthread_t> threads(static_cast<size_t>(ring));
    // The Benchmarks Game program gave its threads 4 KB stacks; glibc's floor is PTHREAD_STACK_MIN.
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, std::max<size_t>(PTHREAD_STACK_MIN, 32 * 1024));
    ThreadringRun out;
    int64_t t0 = now_ns();
    for (int i = 0; i < ring; ++i) {
        int rc = pthread_create(&threads[static_cast<size_t>(i)], &attr, asio_pool_thread, &pool);
        if (rc != 0)
            fail("threadring: cannot create pool thread " + std::to_string(i) + " of " + std::to_string(ring) +
                 ": " + std::strerror(rc));
    }
    pool.post({1, n, -1});
    out.id = pool.report.wait();
    out.ns = now_ns() - t0;
    // Untimed: stop the pool.
    {
        std::lock_guard<std::mutex> lock(pool.mx);
        pool.stop = true;
    }
    pool.ready.notify_all();
    for (pthread_t t : threads) pthread_join(t, nullptr);
    pthread_attr_destroy(&attr);
    return out;
}

// ---- blocking: one thread per entity, each blocked on its own slot ----

struct alignas(64) Slot {
    std::mutex mx;
    std::condition_variable cv;
    bool has = false, stop = false;
    uint64_t t = 0;

    void put(uint64_t token) {
        {
            std::lock_guard<std::mutex> lock(mx);
            t = token;
            has = true;
        }
        cv.notify_one();
    }
};

ThreadringRun threadring_blocking(int ring, uint64_t n) {
    std::unique_ptr<Slot[]> slots(new Slot[static_cast<size_t>(ring)]);
    Report report;
    ThreadringRun out;
    int64_t t0 = now_ns();
    auto threads = start_threads("threadring", ring, [&](int i) {
        Slot& own = slots[static_cast<size_t>(i)];
        Slot& next = slots[static_cast<size_t>((i + 1) % ring)];
        for (;;) {
            uint64_t t;
            {
                std::unique_lock<std::mutex> lock(own.mx);
                while (!own.has && !own.stop) own.cv.wait(lock);
                if (own.stop) return;
                t = own.t;
                own.has = false;
            }
            if (t == 0) report.post(i + 1);
            else next.put(t - 1);
        }
    });
    slots[0].put(n);
    out.id = report.wait();
    out.ns = now_ns() - t0;
    // Untimed: stop every entity.
    for (int i = 0; i < ring; ++i) {
        Slot& s = slots[static_cast<size_t>(i)];
        {
            std::lock_guard<std::mutex> lock(s.mx);
            s.stop = true;
        }
        s.cv.notify_one();
    }
    join_all(threads);
    return out;
}

}  // namespace

ThreadringRun threadring_run(ThreadringShape shape, int ring, uint64_t n) {
    switch (shape) {
    case ThreadringShape::AsioWake: return threadring_asio_pool(ring, n, true);
    case ThreadringShape::AsioPool: return threadring_asio_pool(ring, n, false);
    case ThreadringShape::Blocking: break;
    }
    return threadring_blocking(ring, n);
}

// ======================= philosophers =======================

namespace {

struct alignas(64) Seat {
    uint64_t meals = 0;  // the philosopher's own counter, written by it alone
};

}  // namespace

PhilosophersRun philosophers_run(PhilosophersShape shape, int n, uint64_t m) {
    (void)shape;  // one shape: ScopedLock
    PhilosophersRun out;
    int64_t t0 = now_ns();
    std::unique_ptr<Fork[]> forks(new Fork[static_cast<size_t>(n)]);
    std::unique_ptr<Seat[]> seats(new Seat[static_cast<size_t>(n)]);
    auto threads = start_threads("philosophers", n, [&](int i) {
        Fork& left = forks[static_cast<size_t>(i)];
        Fork& right = forks[static_cast<size_t>((i + 1) % n)];
        uint64_t& meals = seats[static_cast<size_t>(i)].meals;
        for (uint64_t k = 0; k < m; ++k) {
            std::scoped_lock both(left.mx, right.mx);
            left.take(i);
            right.take(i);
            ++meals;  // eat
            left.use();
            right.use();
            left.put_down();
            right.put_down();
        }
    });
    join_all(threads);
    out.ns = now_ns() - t0;
    // Untimed: read the counters (the joins order every write before these reads).
    out.meals.reserve(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
        out.meals.push_back(seats[static_cast<size_t>(i)].meals);
        out.fork_uses += forks[static_cast<size_t>(i)].uses;
        out.overlaps += forks[static_cast<size_t>(i)].overlaps;
    }
    return out;
}

}  // namespace cb
