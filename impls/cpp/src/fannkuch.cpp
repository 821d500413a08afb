// fannkuch (fannkuch.md): fannkuch-redux over all n! permutations, cut into K chunks of
// permutation indexes (default K = 150). Every task decodes its first index, walks its chunk with
// the count-array step, and returns (max flips, signed checksum by global index parity).
//
// Models and shapes:
//   threads / counter         --workers std::threads take task numbers from one atomic counter,
//                             keep a local (max, checksum), are joined and combined (the Scala
//                             threads program's scheme).
//   tbb / parallel-for        tbb::parallel_for over the task ids (grain 1, simple_partitioner)
//                             inside a task_arena of --workers threads, one result slot per task.
//   tbb / parallel-reduce     tbb::parallel_reduce over the task ids, grain 1, in the same arena.
//   tbb / task-group          a tbb::task_group with one task per chunk, in the same arena.
#include "kernels.hpp"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/parallel_reduce.h>
#include <oneapi/tbb/partitioner.h>
#include <oneapi/tbb/task_arena.h>
#include <oneapi/tbb/task_group.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <system_error>
#include <thread>

namespace cb {
namespace {

constexpr int kMaxN = kFannkuchMaxN;

struct Partial {
    int maxflips = 0;
    int64_t checksum = 0;
    void add(const Partial& o) {
        maxflips = std::max(maxflips, o.maxflips);
        checksum += o.checksum;
    }
};

struct Problem {
    int n = 0;
    uint64_t fact[kMaxN + 1] = {};
    uint64_t total = 0;  // n!
    uint64_t chunk = 0;  // ceil(n!/K)
    uint64_t tasks = 0;  // ceil(n!/chunk)

    Problem(int n_, uint64_t k) : n(n_) {
        fact[0] = 1;
        for (int i = 1; i <= kMaxN; ++i) fact[i] = fact[i - 1] * static_cast<uint64_t>(i);
        total = fact[n];
        chunk = (total + k - 1) / k;
        tasks = (total + chunk - 1) / chunk;
    }

    // Flips of one permutation: reverse q[0..q[0]] until q[0] = 0.
    static int flips(const int* p, int n) {
        int first = p[0];
        if (first == 0) return 0;
        int q[kMaxN];
        for (int i = 0; i < n; ++i) q[i] = p[i];
        int f = 0;
        do {
            for (int lo = 0, hi = first; lo < hi; ++lo, --hi) std::swap(q[lo], q[hi]);
            ++f;
            first = q[0];
        } while (first != 0);
        return f;
    }

    // Task t: indexes [t*chunk, min(n!, (t+1)*chunk)).
    Partial task(uint64_t t) const {
        uint64_t begin = t * chunk, end = std::min(total, begin + chunk);
        int p[kMaxN + 1], count[kMaxN + 1] = {}, tmp[kMaxN + 1];
        for (int i = 0; i < n; ++i) p[i] = i;
        // Decode the first index: for k = n-1..1, d = i div k!, rotate p[0..k] left by d.
        uint64_t rest = begin;
        for (int k = n - 1; k >= 1; --k) {
            int d = static_cast<int>(rest / fact[k]);
            rest %= fact[k];
            count[k] = d;
            for (int j = 0; j <= k; ++j) tmp[j] = p[(j + d) % (k + 1)];
            for (int j = 0; j <= k; ++j) p[j] = tmp[j];
        }
        Partial r;
        for (uint64_t i = begin;;) {
            int f = flips(p, n);
            if (f > r.maxflips) r.maxflips = f;
            r.checksum += (i & 1) ? -f : f;
            if (++i >= end) break;
            // Step to index i: swap p[0], p[1]; then carry through the count array.
            int first = p[1];
            p[1] = p[0];
            p[0] = first;
            int k = 1;
            while (++count[k] > k) {
                count[k] = 0;
                ++k;
                int nxt = p[1];
                p[0] = nxt;
                for (int j = 1; j < k; ++j) p[j] = p[j + 1];
                p[k] = first;
                first = nxt;
            }
        }
        return r;
    }
};

// threads / counter
Partial run_threads(const Problem& pb, int workers) {
    std::atomic<uint64_t> next{0};
    std::vector<Partial> slots(static_cast<size_t>(workers));
    std::vector<std::thread> threads;
    threads.reserve(static_cast<size_t>(workers));
    for (int w = 0; w < workers; ++w) {
        try {
            threads.emplace_back([&pb, &next, &slots, w] {
                Partial local;
                for (;;) {
                    uint64_t t = next.fetch_add(1, std::memory_order_relaxed);
                    if (t >= pb.tasks) break;
                    local.add(pb.task(t));
                }
                slots[static_cast<size_t>(w)] = local;
            });
        } catch (const std::system_error& e) {
            fail("fannkuch: cannot create worker thread " + std::to_string(w) + ": " + e.what());
        }
    }
    for (auto& t : threads) t.join();
    Partial total;
    for (const auto& s : slots) total.add(s);
    return total;
}

Partial run_tbb(const Problem& pb, int workers, FannkuchShape shape) {
    tbb::task_arena arena(workers);
    Partial total;
    if (shape == FannkuchShape::ParallelReduce) {
        total = arena.execute([&] {
            return tbb::parallel_reduce(
                tbb::blocked_range<uint64_t>(0, pb.tasks, 1), Partial{},
                [&pb](const tbb::blocked_range<uint64_t>& r, Partial acc) {
                    for (uint64_t t = r.begin(); t != r.end(); ++t) acc.add(pb.task(t));
                    return acc;
                },
                [](Partial a, const Partial& b) {
                    a.add(b);
                    return a;
                },
                tbb::simple_partitioner());
        });
    } else {
        std::vector<Partial> slots(pb.tasks);
        arena.execute([&] {
            if (shape == FannkuchShape::ParallelFor) {
                tbb::parallel_for(
                    tbb::blocked_range<uint64_t>(0, pb.tasks, 1),
                    [&](const tbb::blocked_range<uint64_t>& r) {
                        for (uint64_t t = r.begin(); t != r.end(); ++t) slots[t] = pb.task(t);
                    },
                    tbb::simple_partitioner());
            } else {
                tbb::task_group group;
                for (uint64_t t = 0; t < pb.tasks; ++t) group.run([&slots, &pb, t] { slots[t] = pb.task(t); });
                group.wait();
            }
        });
        for (const auto& s : slots) total.add(s);
    }
    return total;
}

}  // namespace

FannkuchRun fannkuch_run(FannkuchShape shape, int n, uint64_t chunks, int workers) {
    int64_t t0 = now_ns();
    Problem pb(n, chunks);
    Partial total = shape == FannkuchShape::Counter ? run_threads(pb, workers) : run_tbb(pb, workers, shape);
    int64_t t1 = now_ns();
    FannkuchRun out;
    out.ns = t1 - t0;
    out.totals.maxflips = total.maxflips;
    out.totals.checksum = total.checksum;
    return out;
}

}  // namespace cb
