// concbench-cpp kernels: big, chameneos, fannkuch, the Cowichan family and the coordination benchmarks
// (mutex, prodcons, condition, threadring, philosophers) as plain functions with structured results.
// main.cpp turns them into protocol lines; tests/kernels_test.cpp checks them directly. Nothing here
// reads the command line or writes stdout.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <utility>
#include <vector>

namespace cb {

inline int64_t now_ns() {  // steady_clock (CLOCK_MONOTONIC) in nanoseconds
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

// A runtime failure (e.g. threads that cannot be created): one stderr line, exit status 1, without
// waiting for threads already started.
[[noreturn]] inline void fail(const std::string& message) {
    std::fflush(stdout);
    std::fprintf(stderr, "concbench-cpp: %s\n", message.c_str());
    std::fflush(stderr);
    std::_Exit(1);
}

// ---- big (big.md) ----

enum class BigShape { Pool, ThreadPerWorker };

struct BigConfig {
    int64_t n = 0;       // N workers
    uint64_t pings = 0;  // P pings each
    int64_t hood = 1;    // H, the neighbourhood size
};

struct BigRun {
    int64_t ns = 0;                   // steps 1-3 of big.md
    std::vector<uint64_t> pings_recv;  // per worker w = 0..N-1
    std::vector<uint64_t> pongs_recv;  // per worker (START pongs not counted)
};

// One runner per process: shape pool starts its --workers threads in the constructor (the runtime,
// untimed) and keeps them across runs; thread-per-worker starts N threads in every run.
class BigRunner {
public:
    BigRunner(BigShape shape, int workers);
    ~BigRunner();
    BigRunner(const BigRunner&) = delete;
    BigRunner& operator=(const BigRunner&) = delete;
    BigRun run(const BigConfig& cfg);

    struct PoolImpl;

private:
    BigShape shape_;
    std::unique_ptr<PoolImpl> pool_;
};

// ---- chameneos (chameneos.md) ----

enum class ChameneosShape { Rendezvous, RendezvousCondvar, BestExchange };

// The CAS word of shapes rendezvous and best-exchange holds meetings left in 32 bits and the waiting id + 1 in the other 32.
constexpr uint64_t kChameneosMaxMeetings = 0xffffffffu;
constexpr int64_t kChameneosMaxCreatures = 10000000;

struct GameReport {
    int creatures = 0;
    uint64_t meetings = 0;           // M asked for
    uint64_t place_meetings = 0;     // counted by the meeting place
    uint64_t creature_meetings = 0;  // sum of the creatures' own counts
    int64_t self_meetings = 0;       // sum over the creatures; 0 in a correct run
    int colour_sum_mod3 = 0;         // sum of final colours mod 3 (blue 0, red 1, yellow 2)
    std::vector<int64_t> counts;     // per creature
};

struct EncoreRun {
    int64_t ns = 0;
    GameReport game;
};

struct ReduxRun {
    int64_t ns = 0;
    GameReport a, b;  // game A (3 creatures), game B (the 10 standard creatures)
};

// variant=encore: C >= 2 creatures (one thread each, behind a start latch), M >= 1 meetings.
EncoreRun chameneos_encore(ChameneosShape shape, int creatures, uint64_t meetings);
// variant=redux: game A then game B (or both at once with `concurrent`), n meetings each.
ReduxRun chameneos_redux(ChameneosShape shape, uint64_t n, bool concurrent);

// ---- fannkuch (fannkuch.md) ----

enum class FannkuchShape { Counter, ParallelFor, ParallelReduce, TaskGroup };

constexpr int kFannkuchMaxN = 16;  // 16! < 2^63, and the flips of 16! permutations fit in int64
// Bounds K: parallel-for and task-group keep one result slot (and task-group one task) per chunk.
constexpr int64_t kFannkuchMaxChunks = 10000000;

struct FannkuchTotals {
    int maxflips = 0;
    int64_t checksum = 0;
};

struct FannkuchRun {
    int64_t ns = 0;
    FannkuchTotals totals;
};

// n in 1..kFannkuchMaxN, chunks (K) >= 1 (the tbb shapes: at most kFannkuchMaxChunks), workers >= 1. The
// TBB shapes run in a task_arena of `workers` threads (at most the process's TBB parallelism limit).
FannkuchRun fannkuch_run(FannkuchShape shape, int n, uint64_t chunks, int workers);

// ---- Cowichan: randmat, thresh, winnow, outer, product, chain (chain.md holds the shared rules) ----

// The bound of n, the matrix side: i, j fit in int32, n*n*100 in int64; memory runs out long before.
// nelts needs none: winnow fails the run when K < nelts (K <= n*n), before anything nelts-sized.
constexpr int64_t kCowichanMaxN = 1000000;

// How a stage runs: Seq on the calling thread (the tests' reference and the untimed input builder),
// Threads as W std::threads on rule-2 row blocks joined at the end of each phase, Tbb as parallel_for /
// parallel_reduce / parallel_scan / parallel_sort inside one task_arena of W threads.
enum class CowichanModel { Seq, Threads, Tbb };

// std::allocator that default-initialises: output buffers are allocated inside the timer without a
// zeroing pass by the main thread, so the workers first-touch their own pages.
template <typename T>
struct UninitAllocator : std::allocator<T> {
    template <typename U>
    struct rebind {
        using other = UninitAllocator<U>;
    };
    UninitAllocator() = default;
    template <typename U>
    UninitAllocator(const UninitAllocator<U>&) noexcept {}
    template <typename U>
    void construct(U* p) noexcept {
        ::new (static_cast<void*>(p)) U;
    }
    template <typename U, typename... A>
    void construct(U* p, A&&... args) {
        ::new (static_cast<void*>(p)) U(std::forward<A>(args)...);
    }
};
template <typename T>
using Buffer = std::vector<T, UninitAllocator<T>>;

using ByteMatrix = Buffer<uint8_t>;  // n*n, row-major
using Doubles = Buffer<double>;

// One LCG32 step (README.md): s -> 1664525*s + 1013904223 mod 2^32.
inline uint32_t lcg32_step(uint32_t s) { return 1664525u * s + 1013904223u; }

// chain.md rule 2: worker w gets rows [start, start + rows); every one of the W blocks, empty ones
// included (an empty block's worker is not started).
struct RowBlock {
    int64_t start = 0, rows = 0;
};
std::vector<RowBlock> row_blocks(int64_t rows, int workers);

struct CowPoint {
    int32_t i = 0, j = 0;  // (x, y) = (row, column)
    bool operator==(const CowPoint& o) const { return i == o.i && j == o.j; }
};

struct ThreshOut {
    int threshold = 0;
    ByteMatrix mask;  // n*n, 0 or 1
};

struct WinnowOut {
    int64_t candidates = 0;       // K
    std::vector<CowPoint> points;  // nelts points; empty when K < nelts (the run fails)
};

struct OuterOut {
    Doubles matrix;  // nelts*nelts
    Doubles vector;  // nelts
};

struct ChainOut {
    int64_t candidates = 0;  // winnow's K; r is empty when K < nelts
    Doubles r;
    int64_t stage_ns[5] = {};  // randmat, thresh, winnow, outer, product
};

// One executor per process: Tbb keeps its task_arena of `workers` threads across calls (the runtime,
// made outside the timers); Threads starts its threads in every phase, inside the timers.
class Cowichan {
public:
    Cowichan(CowichanModel model, int workers);
    ~Cowichan();
    Cowichan(const Cowichan&) = delete;
    Cowichan& operator=(const Cowichan&) = delete;

    ByteMatrix randmat(int64_t n, uint32_t seed);
    // m holds values 0..99; p in 0..100.
    ThreshOut thresh(const ByteMatrix& m, int64_t n, int p);
    WinnowOut winnow(const ByteMatrix& m, const ByteMatrix& mask, int64_t n, int64_t nelts);
    OuterOut outer(const std::vector<CowPoint>& points);
    // d is nelts*nelts with nelts = v.size().
    Doubles product(const Doubles& d, const Doubles& v);
    // The five stages back to back, each timed (stage_ns); the caller times the whole.
    ChainOut chain(int64_t n, int p, int64_t nelts, uint32_t seed);

    struct Impl;

private:
    CowichanModel model_;
    int workers_;
    std::unique_ptr<Impl> impl_;
};

// Checksums (README.md, chain.md rule 5), wrapping mod 2^64 over the flat index k: sum v[k]*(k+1).
uint64_t cowichan_checksum(const ByteMatrix& v);
uint64_t cowichan_checksum_q(const Doubles& v);  // of q(x) = llround(x*1e6)
uint64_t cowichan_checksum(const std::vector<CowPoint>& points);  // of the flat [i0, j0, i1, j1, ...]

// ---- coordination: mutex, prodcons, condition, threadring (SCOOP/Qs paper; coordination.cpp) ----

// n, the workers per role, is one OS thread each (2n for prodcons and condition): bounded so a run
// cannot ask for more threads than a machine gives; the ring likewise. mutex's tbb shapes run n tasks,
// not threads: their n is bounded by the count n*m in 64 bits alone (main.cpp).
constexpr int64_t kCoordMaxN = 10000;
constexpr int64_t kCoordMaxM = 1000000000000LL;  // n*m and N(N+1)/2 (mod 2^64) stay well defined
constexpr int64_t kRingMax = 10000;

// mutex: Lock is n std::threads around lock_guard<std::mutex> (the paper's C++); SpinMutex and
// QueuingMutex run the n workers as tbb tasks in a task_arena of `workers` threads.
enum class MutexShape { Lock, SpinMutex, QueuingMutex };

struct CountRun {
    int64_t ns = 0;
    uint64_t value = 0;  // the counter read at the end
};

// One runner per process: the tbb shapes keep their task_arena (the runtime, made untimed) across runs.
class MutexRunner {
public:
    MutexRunner(MutexShape shape, int workers);
    ~MutexRunner();
    MutexRunner(const MutexRunner&) = delete;
    MutexRunner& operator=(const MutexRunner&) = delete;
    CountRun run(int n, uint64_t m);

    struct Impl;

private:
    MutexShape shape_;
    std::unique_ptr<Impl> impl_;
};

// prodcons: n producers and n consumers (std::threads) on one std::deque, one mutex, one condvar.
enum class ProdconsShape { Paper, NotifyEach };

struct ProdconsRun {
    int64_t ns = 0;
    uint64_t consumed = 0;
    uint64_t sum = 0;  // mod 2^64
};

ProdconsRun prodcons_run(ProdconsShape shape, int n, uint64_t m);

// condition: n even-parity and n odd-parity std::threads increment x when x mod 2 is their parity.
enum class ConditionShape { Paper, Broadcast, TwoCv };

CountRun condition_run(ConditionShape shape, int n, uint64_t m);

// threadring: R entities pass a token N, N-1, ..., 0; the one that receives 0 reports its id.
enum class ThreadringShape { AsioWake, AsioPool, Blocking };

struct ThreadringRun {
    int64_t ns = 0;  // creation of the ring to the report; the teardown is left out
    int id = 0;
};

ThreadringRun threadring_run(ThreadringShape shape, int ring, uint64_t n);

// ---- philosophers (docs/benchmarks/philosophers.md; coordination.cpp) ----

// n philosophers round a table of n forks: philosopher i eats with fork i (left) and fork (i+1) mod n
// (right). n >= 2 (one fork for both hands would lock one mutex twice), one std::thread each, so at
// most kCoordMaxN; m at most kCoordMaxM keeps 2*n*m inside 64 bits.
constexpr int64_t kPhilosophersMinN = 2;

// ScopedLock: a meal is std::scoped_lock(left.mx, right.mx) around taking, eating and putting down.
enum class PhilosophersShape { ScopedLock };

// One fork. mx guards the other fields, which only a philosopher holding mx reads or writes: holder is
// the philosopher eating with the fork (kNone while it lies on the table), uses counts the meals eaten
// with it, overlaps the takes that found it already held (0 unless the exclusion is broken).
struct alignas(64) Fork {
    static constexpr int kNone = -1;
    std::mutex mx;
    int holder = kNone;
    uint64_t uses = 0;
    uint64_t overlaps = 0;

    void take(int who) {  // mx held
        if (holder != kNone) ++overlaps;
        holder = who;
    }
    void use() { ++uses; }               // mx held
    void put_down() { holder = kNone; }  // mx held
};

struct PhilosophersRun {
    int64_t ns = 0;               // creating the forks to the last join
    std::vector<uint64_t> meals;  // per philosopher, its own counter
    uint64_t fork_uses = 0;       // summed over the forks
    uint64_t overlaps = 0;        // summed over the forks
};

PhilosophersRun philosophers_run(PhilosophersShape shape, int n, uint64_t m);

}  // namespace cb
