// Unit tests of the concbench-cpp kernels (src/kernels.hpp), run by `make test`. Every expected value
// is computed here, independently of the kernels:
//   fannkuch   every shape, several chunk counts and worker counts, against a brute force over all
//              n! permutations (each decoded from its index as fannkuch.md defines the order), n = 1..8;
//   big        both shapes against big.md's closed form: each worker draws its P targets from its own
//              LCG32, so the pings every worker receives follow without running any messages;
//   chameneos  both shapes and both variants: place meetings = M, creature meetings = 2M, no
//              self-meetings, and the colour sum mod 3 equal to that of the initial colours.
// The last line is "N passed, M failed"; the exit status is 1 when anything failed.
#include "../src/kernels.hpp"

#include <oneapi/tbb/global_control.h>

#include <algorithm>
#include <cstdio>
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
    const cb::ChameneosShape shapes[] = {cb::ChameneosShape::Rendezvous, cb::ChameneosShape::RendezvousCondvar};
    const char* names[] = {"rendezvous", "rendezvous-condvar"};
    struct Encore {
        int creatures;
        uint64_t meetings;
    };
    const Encore encore[] = {{2, 1}, {2, 500}, {3, 1}, {3, 1000}, {7, 999}, {10, 1000}, {70, 1000}, {800, 2000}};
    for (int s = 0; s < 2; ++s) {
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

}  // namespace

int main() {
    // As the binary does: let the TBB arenas have the threads they ask for, beyond the CPUs TBB sees.
    tbb::global_control parallelism(tbb::global_control::max_allowed_parallelism, 3);
    test_fannkuch_brute_force_itself();
    test_fannkuch();
    test_big();
    test_chameneos();
    std::printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
