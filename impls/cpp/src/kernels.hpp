// concbench-cpp kernels: big, chameneos and fannkuch as plain functions with structured results.
// main.cpp turns them into protocol lines; tests/kernels_test.cpp checks them directly. Nothing here
// reads the command line or writes stdout.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
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

enum class ChameneosShape { Rendezvous, RendezvousCondvar };

// The CAS word of shape rendezvous holds meetings left in 32 bits and the waiting id + 1 in the other 32.
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

// n in 1..kFannkuchMaxN, chunks (K) in 1..kFannkuchMaxChunks, workers >= 1. The TBB shapes run in a
// task_arena of `workers` threads (at most the process's TBB parallelism limit).
FannkuchRun fannkuch_run(FannkuchShape shape, int n, uint64_t chunks, int workers);

}  // namespace cb
