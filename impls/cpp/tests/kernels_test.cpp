// Unit tests of the concbench-cpp kernels (src/kernels.hpp), run by `make test`. Every expected value
// is computed here, independently of the kernels:
//   fannkuch   every shape, several chunk counts and worker counts, against a brute force over all
//              n! permutations (each decoded from its index as fannkuch.md defines the order), n = 1..8;
//   big        both shapes against big.md's closed form: each worker draws its P targets from its own
//              LCG32, so the pings every worker receives follow without running any messages;
//   chameneos  every shape and both variants: place meetings = M, creature meetings = 2M, no
//              self-meetings, and the colour sum mod 3 equal to that of the initial colours;
//   Cowichan   the LCG against README.md's check values, rule 2's row partition against its closed
//              form, the sequential kernels against hand-made inputs (thresh's tie rule, winnow's
//              key order and chunked pick, outer's diagonal, product's fixed summation order, the
//              checksums) and against the stage files' debug values, then every parallel model
//              against the sequential kernels on random inputs at W = 1, 2, 3, 7 and n below and
//              above W;
//   coordination mutex (every shape, tbb at W = 1, 2, 3), prodcons, condition and threadring, every
//              shape at small sizes, n = 1, m = 0 and a ring of 2, against their closed forms: n*m,
//              N and N(N+1)/2 with N = n*m, 2*n*m, and (N mod R) + 1;
//   philosophers every philosopher's own count m, fork uses 2*n*m and no overlap at n = 2, 3, 5, 8, 33
//              (m = 0 among them), and the fork's overlap count itself on hand-made takes.
// The last line is "N passed, M failed"; the exit status is 1 when anything failed.
#include "../src/kernels.hpp"

#include <oneapi/tbb/global_control.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

int passed = 0, failed = 0;

// One test case: a name and the failures collected while checking it.
class Case {
public:
    explicit Case(std::string name) : name_(std::move(name)) {}
    ~Case() {
        if (problems_.empty()) {
            ++passed;
        } else {
            ++failed;
            std::printf("FAIL %s:%s\n", name_.c_str(), problems_.c_str());
        }
    }
    template <typename A, typename B>
    void eq(const char* what, const A& got, const B& want) {
        if (!(got == want)) problems_ += std::string(" ") + what + " = " + str(got) + ", want " + str(want) + ";";
    }
    void expect(const char* what, bool ok) {
        if (!ok) problems_ += std::string(" ") + what + " does not hold;";
    }

private:
    template <typename T>
    static std::string str(const T& v) {
        return std::to_string(v);
    }
    std::string name_, problems_;
};

// ======================= fannkuch =======================

// perm(i) of fannkuch.md: for k = n-1 down to 1, d = i div k!, i = i mod k!, rotate p[0..k] left by d.
std::vector<int> perm_of_index(int n, uint64_t i) {
    std::vector<uint64_t> fact(static_cast<size_t>(n) + 1, 1);
    for (int k = 1; k <= n; ++k) fact[static_cast<size_t>(k)] = fact[static_cast<size_t>(k) - 1] * static_cast<uint64_t>(k);
    std::vector<int> p(static_cast<size_t>(n));
    for (int k = 0; k < n; ++k) p[static_cast<size_t>(k)] = k;
    for (int k = n - 1; k >= 1; --k) {
        uint64_t d = i / fact[static_cast<size_t>(k)];
        i %= fact[static_cast<size_t>(k)];
        std::rotate(p.begin(), p.begin() + static_cast<long>(d), p.begin() + k + 1);
    }
    return p;
}

// Flips: while q[0] != 0, reverse q[0..q[0]].
int flips_of(std::vector<int> q) {
    int f = 0;
    while (q[0] != 0) {
        std::reverse(q.begin(), q.begin() + q[0] + 1);
        ++f;
    }
    return f;
}

cb::FannkuchTotals brute_force(int n) {
    uint64_t total = 1;
    for (int k = 2; k <= n; ++k) total *= static_cast<uint64_t>(k);
    cb::FannkuchTotals t;
    for (uint64_t i = 0; i < total; ++i) {
        int f = flips_of(perm_of_index(n, i));
        t.maxflips = std::max(t.maxflips, f);
        t.checksum += (i % 2 == 0) ? f : -f;
    }
    return t;
}

std::string digits1(const std::vector<int>& p) {  // the 1-based listing of fannkuch.md
    std::string s;
    for (int v : p) s += static_cast<char>('1' + v);
    return s;
}

void test_fannkuch_brute_force_itself() {
    // The brute force's own pieces against fannkuch.md's worked examples.
    Case c("fannkuch brute force: permutation order and flips of fannkuch.md");
    const char* first[] = {"1234", "2134", "2314", "3214", "3124", "1324", "2341", "3241", "3421", "4321", "4231", "2431", "3412"};
    for (uint64_t i = 0; i < 13; ++i)
        if (digits1(perm_of_index(4, i)) != first[i]) c.expect(("n=4 index " + std::to_string(i)).c_str(), false);
    c.expect("n=4 index 23 is 4213", digits1(perm_of_index(4, 23)) == "4213");
    c.eq("flips of 1-based {4,2,1,5,3}", flips_of({3, 1, 0, 4, 2}), 5);
}

void test_fannkuch() {
    const cb::FannkuchShape shapes[] = {cb::FannkuchShape::Counter, cb::FannkuchShape::ParallelFor,
                                        cb::FannkuchShape::ParallelReduce, cb::FannkuchShape::TaskGroup};
    const char* names[] = {"counter", "parallel-for", "parallel-reduce", "task-group"};
    for (int n = 1; n <= 8; ++n) {
        cb::FannkuchTotals want = brute_force(n);
        uint64_t total = 1;
        for (int k = 2; k <= n; ++k) total *= static_cast<uint64_t>(k);
        // One chunk, the default 150, the Erlang-style K = n, and more chunks than permutations.
        const uint64_t chunk_counts[] = {1, 150, static_cast<uint64_t>(n), total + 3};
        for (int s = 0; s < 4; ++s)
            for (uint64_t k : chunk_counts)
                for (int workers : {1, 3}) {
                    Case c("fannkuch " + std::string(names[s]) + " n=" + std::to_string(n) + " chunks=" +
                           std::to_string(k) + " workers=" + std::to_string(workers));
                    cb::FannkuchRun run = cb::fannkuch_run(shapes[s], n, k, workers);
                    c.eq("maxflips", run.totals.maxflips, want.maxflips);
                    c.eq("checksum", run.totals.checksum, want.checksum);
                    c.expect("ns >= 0", run.ns >= 0);
                }
    }
}

// ======================= big =======================

// big.md's closed form: worker w (rng seeded with w) pings table[rng mod S_g] P times, each ping
// answered by one pong, so pingsRecv follows from the draws alone and pongsRecv = P for everyone.
std::vector<uint64_t> big_expected_pings(const cb::BigConfig& cfg) {
    std::vector<uint64_t> recv(static_cast<size_t>(cfg.n), 0);
    for (int64_t w = 0; w < cfg.n; ++w) {
        int64_t first = (w / cfg.hood) * cfg.hood;
        int64_t size = std::min(cfg.n, first + cfg.hood) - first;
        uint32_t rng = static_cast<uint32_t>(w);
        for (uint64_t i = 0; i < cfg.pings; ++i) {
            rng = 1664525u * rng + 1013904223u;
            recv[static_cast<size_t>(first + rng % static_cast<uint32_t>(size))] += 1;
        }
    }
    return recv;
}

void test_big() {
    const cb::BigConfig sizes[] = {{20, 200, 1000}, {50, 100, 20}, {13, 30, 4}, {7, 0, 3}, {1, 5, 1}, {5, 40, 5}};
    struct Setup {
        cb::BigShape shape;
        int workers;
        const char* name;
    };
    const Setup setups[] = {{cb::BigShape::Pool, 1, "pool workers=1"},
                            {cb::BigShape::Pool, 2, "pool workers=2"},
                            {cb::BigShape::Pool, 3, "pool workers=3"},
                            {cb::BigShape::ThreadPerWorker, 2, "thread-per-worker"}};
    for (const Setup& s : setups) {
        cb::BigRunner runner(s.shape, s.workers);  // one runner for every run, like one process's iterations
        for (int round = 0; round < 2; ++round)
            for (const cb::BigConfig& cfg : sizes) {
                Case c(std::string("big ") + s.name + " (N, P, H) = (" + std::to_string(cfg.n) + ", " +
                       std::to_string(cfg.pings) + ", " + std::to_string(cfg.hood) + ") round " +
                       std::to_string(round));
                std::vector<uint64_t> want = big_expected_pings(cfg);
                cb::BigRun run = runner.run(cfg);
                c.eq("workers reported", run.pings_recv.size(), want.size());
                c.eq("pong counts reported", run.pongs_recv.size(), want.size());
                if (run.pings_recv.size() != want.size() || run.pongs_recv.size() != want.size()) continue;
                uint64_t messages = 0, checksum = 0, want_checksum = 0;
                for (size_t w = 0; w < want.size(); ++w) {
                    messages += run.pings_recv[w] + run.pongs_recv[w];
                    checksum += run.pings_recv[w] * (w + 1);
                    want_checksum += want[w] * (w + 1);
                    if (run.pings_recv[w] != want[w])
                        c.eq(("pingsRecv[" + std::to_string(w) + "]").c_str(), run.pings_recv[w], want[w]);
                    if (run.pongs_recv[w] != cfg.pings)
                        c.eq(("pongsRecv[" + std::to_string(w) + "]").c_str(), run.pongs_recv[w], cfg.pings);
                }
                c.eq("messages", messages, 2 * static_cast<uint64_t>(cfg.n) * cfg.pings);
                c.eq("checksum", checksum, want_checksum);
            }
    }
}

// ======================= chameneos =======================

// chameneos.md: creature i starts with TEN[i mod 10] (blue 0, red 1, yellow 2); complement keeps the
// colour sum mod 3, so the final sum mod 3 is the initial one.
int initial_colour_sum_mod3(int creatures) {
    const int ten[10] = {0, 1, 2, 1, 2, 0, 1, 2, 1, 0};
    int sum = 0;
    for (int i = 0; i < creatures; ++i) sum += ten[i % 10];
    return sum % 3;
}

void check_game(Case& c, const cb::GameReport& g, const std::string& game, int creatures, uint64_t meetings) {
    c.eq((game + "creatures").c_str(), g.creatures, creatures);
    c.eq((game + "place meetings").c_str(), g.place_meetings, meetings);
    c.eq((game + "creature meetings").c_str(), g.creature_meetings, 2 * meetings);
    c.eq((game + "self meetings").c_str(), g.self_meetings, static_cast<int64_t>(0));
    c.eq((game + "colour sum mod 3").c_str(), g.colour_sum_mod3, initial_colour_sum_mod3(creatures));
    c.eq((game + "counts reported").c_str(), g.counts.size(), static_cast<size_t>(creatures));
    int64_t sum = 0;
    bool each_in_range = true;
    for (int64_t k : g.counts) {
        sum += k;
        each_in_range = each_in_range && k >= 0 && static_cast<uint64_t>(k) <= meetings;
    }
    c.eq((game + "sum of counts").c_str(), sum, static_cast<int64_t>(2 * meetings));
    c.expect((game + "0 <= every count <= M").c_str(), each_in_range);
}

void test_chameneos() {
    const cb::ChameneosShape shapes[] = {cb::ChameneosShape::Rendezvous, cb::ChameneosShape::RendezvousCondvar,
                                         cb::ChameneosShape::BestExchange};
    const char* names[] = {"rendezvous", "rendezvous-condvar", "best-exchange"};
    struct Encore {
        int creatures;
        uint64_t meetings;
    };
    const Encore encore[] = {{2, 1}, {2, 500}, {3, 1}, {3, 1000}, {7, 999}, {10, 1000}, {70, 1000}, {800, 2000}};
    for (int s = 0; s < 3; ++s) {
        for (const Encore& e : encore) {
            Case c(std::string("chameneos ") + names[s] + " encore C=" + std::to_string(e.creatures) +
                   " M=" + std::to_string(e.meetings));
            cb::EncoreRun run = cb::chameneos_encore(shapes[s], e.creatures, e.meetings);
            check_game(c, run.game, "", e.creatures, e.meetings);
        }
        for (uint64_t n : {1ull, 2ull, 1000ull})
            for (bool concurrent : {false, true}) {
                Case c(std::string("chameneos ") + names[s] + " redux n=" + std::to_string(n) +
                       (concurrent ? " concurrent games" : " sequential games"));
                cb::ReduxRun run = cb::chameneos_redux(shapes[s], n, concurrent);
                check_game(c, run.a, "game A ", 3, n);
                check_game(c, run.b, "game B ", 10, n);
            }
    }
}


// ======================= Cowichan =======================

// Bitwise equality of two double arrays (the float stages are bit-exact under the float rules).
bool same_bits(const cb::Doubles& a, const cb::Doubles& b) {
    return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

long long q6(double x) { return std::llround(x * 1e6); }

void test_lcg() {
    Case c("cowichan LCG32 check values of README.md");
    c.eq("seed 0, first state", cb::lcg32_step(0), 1013904223u);
    c.eq("seed 0, draw mod 100", cb::lcg32_step(0) % 100u, 23u);
    c.eq("seed 12345, first state", cb::lcg32_step(12345), 87628868u);
    c.eq("seed 12345, draw mod 1000", cb::lcg32_step(12345) % 1000u, 868u);
    // The 32-bit wrap, against the state kept in 64 bits and masked (README.md's fallback).
    uint64_t wide = 4294967295u;
    uint32_t s = 4294967295u;
    for (int k = 0; k < 100; ++k) {
        wide = (1664525u * wide + 1013904223u) & 0xffffffffu;
        s = cb::lcg32_step(s);
    }
    c.eq("100 steps from 2^32-1", static_cast<uint64_t>(s), wide);
}

void test_row_blocks() {
    {
        Case c("cowichan rule 2: n=10, W=4 gives 2, 2, 3, 3");
        std::vector<cb::RowBlock> b = cb::row_blocks(10, 4);
        c.eq("blocks", b.size(), static_cast<size_t>(4));
        if (b.size() == 4) {
            const int64_t start[] = {0, 2, 4, 7}, rows[] = {2, 2, 3, 3};
            for (int w = 0; w < 4; ++w) {
                c.eq("start", b[static_cast<size_t>(w)].start, start[w]);
                c.eq("rows", b[static_cast<size_t>(w)].rows, rows[w]);
            }
        }
    }
    // The closed form of the rule: W - R mod W blocks of floor(R/W) first, then R mod W of one more,
    // contiguous from row 0.
    Case c("cowichan rule 2: R = 0..60, W = 1..17 against the closed form");
    for (int64_t rows = 0; rows <= 60; ++rows)
        for (int workers = 1; workers <= 17; ++workers) {
            std::vector<cb::RowBlock> b = cb::row_blocks(rows, workers);
            if (b.size() != static_cast<size_t>(workers)) {
                c.eq("blocks", b.size(), static_cast<size_t>(workers));
                continue;
            }
            int64_t small = rows / workers, big_from = workers - rows % workers, start = 0;
            for (int w = 0; w < workers; ++w) {
                int64_t want = w < big_from ? small : small + 1;
                if (b[static_cast<size_t>(w)].start != start || b[static_cast<size_t>(w)].rows != want)
                    c.expect(("R=" + std::to_string(rows) + " W=" + std::to_string(workers) + " block " +
                              std::to_string(w)).c_str(),
                             false);
                start += want;
            }
        }
}

// randmat.md computed here directly: row i's generator seeded S + i, drawing after each step.
cb::ByteMatrix randmat_here(int64_t n, uint32_t seed) {
    cb::ByteMatrix m(static_cast<size_t>(n * n));
    for (int64_t i = 0; i < n; ++i) {
        uint64_t s = (static_cast<uint64_t>(seed) + static_cast<uint64_t>(i)) & 0xffffffffu;
        for (int64_t j = 0; j < n; ++j) {
            s = (1664525u * s + 1013904223u) & 0xffffffffu;
            m[static_cast<size_t>(i * n + j)] = static_cast<uint8_t>(s % 100);
        }
    }
    return m;
}

void test_cowichan_sequential_hand_made() {
    cb::Cowichan seq(cb::CowichanModel::Seq, 1);
    {
        Case c("cowichan randmat: sequential kernel against a direct computation");
        for (int64_t n : {1, 2, 7, 33})
            for (uint32_t seed : {0u, 1u, 4294967295u, 4294967290u})
                c.expect(("n=" + std::to_string(n) + " seed=" + std::to_string(seed)).c_str(),
                         seq.randmat(n, seed) == randmat_here(n, seed));
    }
    {
        // Whole bins from the maximum down; stop right after the bin that takes the total above
        // count = floor(n*n*p/100); every cell equal to t is kept; empty bins are passed over.
        Case c("cowichan thresh: the tie rule on hand-made matrices");
        const cb::ByteMatrix m = {99, 99, 98, 5};
        struct Want {
            int p, t;
        };
        for (Want w : {Want{0, 99}, Want{25, 99}, Want{49, 99}, Want{50, 98}, Want{74, 98}, Want{75, 5},
                       Want{99, 5}, Want{100, 0}}) {
            cb::ThreshOut th = seq.thresh(m, 2, w.p);
            c.eq(("p=" + std::to_string(w.p) + " threshold").c_str(), th.threshold, w.t);
            for (size_t k = 0; k < m.size(); ++k)
                if (th.mask[k] != (m[k] >= w.t ? 1 : 0)) c.expect("mask = (M >= t)", false);
        }
        const cb::ByteMatrix gaps = {50, 50, 10, 10, 10, 0, 0, 0, 0};  // count = 2 at p = 30
        c.eq("bins 49..11 empty: threshold", seq.thresh(gaps, 3, 30).threshold, 10);
        c.eq("p = 22 (count 1): threshold", seq.thresh(gaps, 3, 22).threshold, 50);
        const cb::ByteMatrix low = {7, 3, 3, 0};
        c.eq("maximum below 99, p = 0: threshold", seq.thresh(low, 2, 0).threshold, 7);
        c.eq("maximum below 99, p = 50: threshold", seq.thresh(low, 2, 50).threshold, 3);
    }
    {
        Case c("cowichan winnow: key order (value, i, j) and the chunked pick on a hand-made matrix");
        const cb::ByteMatrix m = {5, 3, 5,  //
                                  3, 5, 1,  //
                                  9, 3, 3};
        const cb::ByteMatrix mask = {1, 1, 1,  //
                                     1, 1, 0,  //
                                     1, 1, 1};
        // Sorted: (3,0,1) (3,1,0) (3,2,1) (3,2,2) (5,0,0) (5,0,2) (5,1,1) (9,2,0); the masked 1 is out.
        const std::vector<cb::CowPoint> all = {{0, 1}, {1, 0}, {2, 1}, {2, 2}, {0, 0}, {0, 2}, {1, 1}, {2, 0}};
        cb::WinnowOut w = seq.winnow(m, mask, 3, 8);
        c.eq("candidates", w.candidates, static_cast<int64_t>(8));
        c.expect("nelts = K: the whole sorted list", w.points == all);
        w = seq.winnow(m, mask, 3, 3);  // chunk = 2: entries 0, 2, 4
        c.expect("nelts = 3: entries 0, 2, 4", w.points == std::vector<cb::CowPoint>{all[0], all[2], all[4]});
        w = seq.winnow(m, mask, 3, 1);
        c.expect("nelts = 1: the smallest", w.points == std::vector<cb::CowPoint>{all[0]});
        w = seq.winnow(m, mask, 3, 9);
        c.eq("K < nelts: candidates", w.candidates, static_cast<int64_t>(8));
        c.expect("K < nelts: no points", w.points.empty());
    }
    {
        Case c("cowichan outer: distances, the diagonal and v on hand-made points");
        cb::OuterOut o = seq.outer({{0, 0}, {3, 4}, {6, 8}});
        const cb::Doubles d = {30, 5, 10, 5, 15, 5, 10, 5, 30}, v = {0, 5, 10};
        c.expect("matrix", same_bits(o.matrix, d));
        c.expect("vector", same_bits(o.vector, v));
        o = seq.outer({{4, 7}});
        c.expect("nelts = 1: the diagonal is -1", same_bits(o.matrix, cb::Doubles{-1.0}));
        c.eq("q(-1) in the checksum (two's complement)", cb::cowichan_checksum_q(o.matrix),
             static_cast<uint64_t>(0) - 1000000u);
    }
    {
        Case c("cowichan product: ascending j, one rounded accumulator, no FMA");
        const cb::Doubles d = {1, 2, 3, 4};
        c.expect("2x2", same_bits(seq.product(d, {0.5, 0.25}), cb::Doubles{1.0, 2.5}));
        // Ascending j gives (1e16 - 1e16) + 1 = 1; reversed it would be 0.
        c.expect("order", same_bits(seq.product({1e16, -1e16, 1, 0, 0, 0, 0, 0, 0}, {1, 1, 1}),
                                    cb::Doubles{1.0, 0.0, 0.0}));
        // (1 + 2^-30)^2 rounds to 1 + 2^-29, which cancels the first product; a fused multiply-add
        // would keep the 2^-60.
        const double a = 1.0 + std::ldexp(1.0, -30), b = 1.0 + std::ldexp(1.0, -29);
        c.expect("no contraction", same_bits(seq.product({1, a, 0, 0}, {-b, a}), cb::Doubles{0.0, 0.0}));
    }
    {
        Case c("cowichan checksums on hand-made arrays");
        c.eq("bytes", cb::cowichan_checksum(cb::ByteMatrix{3, 0, 2}), static_cast<uint64_t>(9));
        c.eq("points (flat i0 j0 i1 j1)", cb::cowichan_checksum(std::vector<cb::CowPoint>{{1, 2}, {3, 4}}),
             static_cast<uint64_t>(30));
        c.eq("q of -1, 2, 0.5", cb::cowichan_checksum_q({-1.0, 2.0, 0.5}), static_cast<uint64_t>(4500000));
        c.eq("q(2^-20) rounds to 1", cb::cowichan_checksum_q({std::ldexp(1.0, -20)}), static_cast<uint64_t>(1));
        c.eq("wraps mod 2^64", cb::cowichan_checksum(cb::ByteMatrix(70000, 99)) % 1000,
             static_cast<uint64_t>(99) * (70000ull * 70001ull / 2) % 1000);
    }
}

// The stage files' debug values at n = 100, p = 1, nelts = 100, seed 0 (intermediates, not results).
void test_cowichan_debug_values() {
    cb::Cowichan seq(cb::CowichanModel::Seq, 1);
    Case c("cowichan sequential stages: the debug values of the stage files at n = 100");
    cb::ByteMatrix m = seq.randmat(100, 0);
    const int row0[] = {23, 62, 97, 84, 47, 22, 29, 8, 43, 34}, row1[] = {48, 67, 38, 65, 32},
              row99[] = {98, 93, 32, 19, 30};
    for (int j = 0; j < 10; ++j) c.eq("randmat row 0", static_cast<int>(m[static_cast<size_t>(j)]), row0[j]);
    for (int j = 0; j < 5; ++j) c.eq("randmat row 1", static_cast<int>(m[static_cast<size_t>(100 + j)]), row1[j]);
    for (int j = 0; j < 5; ++j) c.eq("randmat row 99", static_cast<int>(m[static_cast<size_t>(9900 + j)]), row99[j]);
    cb::ThreshOut th = seq.thresh(m, 100, 1);
    c.eq("threshold", th.threshold, 99);
    int64_t kept = 0;
    for (uint8_t b : th.mask) kept += b;
    c.eq("kept", kept, static_cast<int64_t>(112));
    cb::WinnowOut w = seq.winnow(m, th.mask, 100, 100);
    c.eq("candidates", w.candidates, static_cast<int64_t>(112));
    if (w.points.size() != 100) {
        c.expect("100 points", false);
        return;
    }
    c.expect("points[0] = (1, 57)", w.points[0] == cb::CowPoint{1, 57});
    c.expect("points[99] = (86, 66)", w.points[99] == cb::CowPoint{86, 66});
    cb::OuterOut o = seq.outer(w.points);
    c.eq("q(D[0][0])", q6(o.matrix[0]), 9712878049ll);
    c.eq("q(D[0][1])", q6(o.matrix[1]), 24000000ll);
    c.eq("q(v[0])", q6(o.vector[0]), 57008771ll);
    cb::Doubles r = seq.product(o.matrix, o.vector);
    c.eq("q(r[0])", q6(r[0]), 946205299014ll);
}

// Every parallel model against the sequential kernels, stage by stage on the same inputs, and chain.
void test_cowichan_models() {
    cb::Cowichan seq(cb::CowichanModel::Seq, 1);
    struct Model {
        cb::CowichanModel model;
        const char* name;
    };
    const Model models[] = {{cb::CowichanModel::Threads, "threads/blocks"}, {cb::CowichanModel::Tbb, "tbb/parallel-for"}};
    uint32_t rng = 2024;  // random doubles and points for outer and product beyond winnow's outputs
    auto draw = [&rng](uint32_t m) {
        rng = cb::lcg32_step(rng);
        return rng % m;
    };
    for (const Model& md : models)
        for (int workers : {1, 2, 3, 7}) {
            cb::Cowichan par(md.model, workers);
            for (int64_t n : {1, 2, 3, 5, 8, 13, 40})
                for (uint32_t seed : {0u, 12345u, 4294967295u})
                    for (int p : {0, 1, 10, 50, 100}) {
                        Case c(std::string("cowichan ") + md.name + " W=" + std::to_string(workers) +
                               " n=" + std::to_string(n) + " seed=" + std::to_string(seed) + " p=" + std::to_string(p));
                        cb::ByteMatrix m = seq.randmat(n, seed);
                        c.expect("randmat", par.randmat(n, seed) == m);
                        cb::ThreshOut want_th = seq.thresh(m, n, p), th = par.thresh(m, n, p);
                        c.eq("threshold", th.threshold, want_th.threshold);
                        c.expect("mask", th.mask == want_th.mask);
                        for (int64_t nelts : {int64_t{1}, int64_t{3}, n, n * n / 2 + 1}) {
                            cb::WinnowOut want_w = seq.winnow(m, want_th.mask, n, nelts);
                            cb::WinnowOut w = par.winnow(m, want_th.mask, n, nelts);
                            c.eq("candidates", w.candidates, want_w.candidates);
                            c.expect("points", w.points == want_w.points);
                            cb::ChainOut want_ch = seq.chain(n, p, nelts, seed), ch = par.chain(n, p, nelts, seed);
                            c.eq("chain candidates", ch.candidates, want_ch.candidates);
                            c.expect("chain r", same_bits(ch.r, want_ch.r));
                            if (want_w.points.empty()) continue;
                            cb::OuterOut want_o = seq.outer(want_w.points), o = par.outer(want_w.points);
                            c.expect("outer matrix", same_bits(o.matrix, want_o.matrix));
                            c.expect("outer vector", same_bits(o.vector, want_o.vector));
                            c.expect("product", same_bits(par.product(want_o.matrix, want_o.vector),
                                                          seq.product(want_o.matrix, want_o.vector)));
                        }
                    }
            // outer on random distinct points, product on random doubles of mixed signs and scales.
            for (int64_t nelts : {1, 2, 3, 6, 17, 50}) {
                Case c(std::string("cowichan ") + md.name + " W=" + std::to_string(workers) +
                       " random outer/product inputs, nelts=" + std::to_string(nelts));
                std::vector<cb::CowPoint> pts;
                while (static_cast<int64_t>(pts.size()) < nelts) {
                    cb::CowPoint pt{static_cast<int32_t>(draw(16000)), static_cast<int32_t>(draw(16000))};
                    if (std::find(pts.begin(), pts.end(), pt) == pts.end()) pts.push_back(pt);
                }
                cb::OuterOut want_o = seq.outer(pts), o = par.outer(pts);
                c.expect("outer matrix", same_bits(o.matrix, want_o.matrix));
                c.expect("outer vector", same_bits(o.vector, want_o.vector));
                cb::Doubles d(static_cast<size_t>(nelts * nelts)), v(static_cast<size_t>(nelts));
                for (double& x : d) x = (static_cast<double>(draw(2000001)) - 1e6) / 7.0 * std::ldexp(1.0, static_cast<int>(draw(40)) - 20);
                for (double& x : v) x = (static_cast<double>(draw(2000001)) - 1e6) / 3.0;
                c.expect("product", same_bits(par.product(d, v), seq.product(d, v)));
            }
        }
}


// ======================= coordination =======================

struct Nm {
    int n;
    uint64_t m;
};
const Nm kNm[] = {{1, 0}, {1, 1}, {1, 50}, {2, 1}, {3, 7}, {8, 1000}, {33, 20}};

void test_mutex() {
    struct S {
        cb::MutexShape shape;
        const char* name;
        int workers;
    };
    const S shapes[] = {{cb::MutexShape::Lock, "threads/lock", 1},
                        {cb::MutexShape::SpinMutex, "tbb/spin-mutex W=1", 1},
                        {cb::MutexShape::SpinMutex, "tbb/spin-mutex W=2", 2},
                        {cb::MutexShape::SpinMutex, "tbb/spin-mutex W=3", 3},
                        {cb::MutexShape::QueuingMutex, "tbb/queuing-mutex W=1", 1},
                        {cb::MutexShape::QueuingMutex, "tbb/queuing-mutex W=2", 2},
                        {cb::MutexShape::QueuingMutex, "tbb/queuing-mutex W=3", 3}};
    for (const S& s : shapes) {
        cb::MutexRunner runner(s.shape, s.workers);
        for (const Nm& p : kNm)
            for (int rep = 0; rep < 2; ++rep) {  // the runner is reused across runs, as the binary does
                Case c(std::string("mutex ") + s.name + " n=" + std::to_string(p.n) + " m=" + std::to_string(p.m) +
                       " run " + std::to_string(rep));
                cb::CountRun run = runner.run(p.n, p.m);
                c.eq("count", run.value, static_cast<uint64_t>(p.n) * p.m);
                c.expect("ns >= 0", run.ns >= 0);
            }
    }
}

void test_prodcons() {
    const cb::ProdconsShape shapes[] = {cb::ProdconsShape::Paper, cb::ProdconsShape::NotifyEach};
    const char* names[] = {"paper", "notify-each"};
    for (int s = 0; s < 2; ++s)
        for (const Nm& p : kNm) {
            Case c(std::string("prodcons ") + names[s] + " n=" + std::to_string(p.n) + " m=" + std::to_string(p.m));
            cb::ProdconsRun run = cb::prodcons_run(shapes[s], p.n, p.m);
            const uint64_t total = static_cast<uint64_t>(p.n) * p.m;
            c.eq("consumed", run.consumed, total);
            c.eq("sum", run.sum, total * (total + 1) / 2);
        }
}

void test_condition() {
    const cb::ConditionShape shapes[] = {cb::ConditionShape::Paper, cb::ConditionShape::Broadcast,
                                         cb::ConditionShape::TwoCv};
    const char* names[] = {"paper", "broadcast", "two-cv"};
    const Nm sizes[] = {{1, 0}, {1, 1}, {1, 100}, {2, 3}, {3, 17}, {8, 100}};
    for (int s = 0; s < 3; ++s)
        for (const Nm& p : sizes) {
            Case c(std::string("condition ") + names[s] + " n=" + std::to_string(p.n) + " m=" + std::to_string(p.m));
            cb::CountRun run = cb::condition_run(shapes[s], p.n, p.m);
            c.eq("value", run.value, 2 * static_cast<uint64_t>(p.n) * p.m);
        }
}

void test_threadring() {
    const cb::ThreadringShape shapes[] = {cb::ThreadringShape::AsioWake, cb::ThreadringShape::AsioPool,
                                          cb::ThreadringShape::Blocking};
    const char* names[] = {"asio-wake", "asio-pool", "blocking"};
    struct Rn {
        int ring;
        uint64_t n;
    };
    const Rn sizes[] = {{2, 0}, {2, 1}, {2, 2}, {2, 101}, {3, 5}, {7, 6}, {7, 7}, {503, 0}, {503, 502}, {503, 503},
                        {503, 1000}, {50, 5000}};
    for (int s = 0; s < 3; ++s)
        for (const Rn& p : sizes) {
            Case c(std::string("threadring ") + names[s] + " R=" + std::to_string(p.ring) + " N=" + std::to_string(p.n));
            cb::ThreadringRun run = cb::threadring_run(shapes[s], p.ring, p.n);
            c.eq("id", run.id, static_cast<int>(p.n % static_cast<uint64_t>(p.ring)) + 1);
        }
}

// The overlap detector: a take that finds the fork held counts one; a put-down frees it.
void test_fork() {
    Case c("philosophers fork bookkeeping");
    cb::Fork f;
    c.eq("holder on the table", f.holder, cb::Fork::kNone);
    f.take(3);
    c.eq("holder after a take", f.holder, 3);
    f.use();
    f.put_down();
    f.take(4);
    c.eq("overlaps after take, put down, take", f.overlaps, static_cast<uint64_t>(0));
    f.take(5);  // what a broken exclusion would do: 5 takes the fork 4 is eating with
    c.eq("overlaps after a take of a held fork", f.overlaps, static_cast<uint64_t>(1));
    c.eq("holder", f.holder, 5);
    c.eq("uses", f.uses, static_cast<uint64_t>(1));
}

void test_philosophers() {
    const Nm sizes[] = {{2, 0}, {2, 1}, {2, 300}, {3, 7}, {5, 200}, {8, 1000}, {33, 20}};
    for (const Nm& p : sizes)
        for (int rep = 0; rep < 2; ++rep) {
            Case c(std::string("philosophers scoped-lock n=") + std::to_string(p.n) + " m=" + std::to_string(p.m) +
                   " run " + std::to_string(rep));
            cb::PhilosophersRun run = cb::philosophers_run(cb::PhilosophersShape::ScopedLock, p.n, p.m);
            c.eq("philosophers", run.meals.size(), static_cast<size_t>(p.n));
            for (uint64_t meals : run.meals) c.eq("one philosopher's meals", meals, p.m);
            c.eq("fork uses", run.fork_uses, 2 * static_cast<uint64_t>(p.n) * p.m);
            c.eq("overlaps", run.overlaps, static_cast<uint64_t>(0));
            c.expect("ns >= 0", run.ns >= 0);
        }
}

}  // namespace

int main() {
    // As the binary does: let the TBB arenas have the threads they ask for, beyond the CPUs TBB sees.
    tbb::global_control parallelism(tbb::global_control::max_allowed_parallelism, 7);
    test_fannkuch_brute_force_itself();
    test_fannkuch();
    test_big();
    test_chameneos();
    test_lcg();
    test_row_blocks();
    test_cowichan_sequential_hand_made();
    test_cowichan_debug_values();
    test_cowichan_models();
    test_mutex();
    test_prodcons();
    test_condition();
    test_threadring();
    test_fork();
    test_philosophers();
    std::printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
