// chameneos (chameneos.md): creatures pair up at one meeting place until M meetings (n per game for
// redux) have happened; then every further request is refused and each creature reports its count,
// its self-meetings and its final colour.
//
// Model threads, rendezvous form, one OS thread (std::thread) per creature:
//   rendezvous          the meeting place is one 64-bit atomic word: meetings left (high half) and the
//                       waiting creature's id + 1 (low half, 0 = nobody). A creature updates it by CAS:
//                       with nobody waiting it installs itself and spins with sched_yield until met;
//                       otherwise it takes the waiting creature, counts one meeting down, and hands the
//                       partner the new colour through the partner's own slot (the SCOOP study's C++
//                       program as it describes it).
//   rendezvous-condvar  the meeting place is a mutex and one condition variable; the first arrival
//                       waits on the condition variable until a partner has met it.
//   best-exchange       our improved version beside the faithful port (issue 26): the same single-word
//                       exchange on a cache line of its own, but the waiting creature waits adaptively:
//                       it spins on its own wake word (only when the process may run on more than one
//                       CPU) for at most 10 us (a limit each creature halves after a spin that timed
//                       out and doubles after one that ended met), then yields a few times, then parks
//                       on that word with a futex; the partner completes the meeting and makes the
//                       wake-up syscall only when it finds the creature parked.
// variant=encore: C creatures (--param), M meetings (--option meetings, default 8 000 000), with a start
// latch so no meeting forms before all C creatures are ready. variant=redux: game A (3 creatures) then
// game B (10 creatures), n meetings each (--param); --option concurrent_games=1 runs both at once.
#include "kernels.hpp"

#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>

namespace cb {
namespace {

constexpr int kTen[10] = {0, 1, 2, 1, 2, 0, 1, 2, 1, 0};  // blue = 0, red = 1, yellow = 2

int complement(int a, int b) { return a == b ? a : 3 - a - b; }

struct alignas(64) Creature {
    int id = 0;
    int colour = 0;
    int64_t count = 0;
    int64_t self = 0;
    // Filled by the partner when this creature was the waiting one.
    int partner = -1;
    int new_colour = 0;
    std::atomic<int> met{0};  // rendezvous (CAS) form; best-exchange: kIdle, kMet or kParked
    bool met_flag = false;    // condvar form, guarded by the place's mutex
};

// A start latch: every creature waits until all C are ready (encore variant).
class Latch {
public:
    explicit Latch(int n) : left_(n) {}
    void arrive_and_wait() {
        std::unique_lock<std::mutex> lk(mx_);
        if (--left_ == 0) {
            cv_.notify_all();
            return;
        }
        cv_.wait(lk, [this] { return left_ == 0; });
    }

private:
    std::mutex mx_;
    std::condition_variable cv_;
    int left_;
};

// ---- rendezvous and best-exchange: one atomic word, (meetings left << 32) | (waiting id + 1), updated by CAS

struct CasPlace {  // rendezvous
    std::atomic<uint64_t> state;
    explicit CasPlace(uint32_t meetings) : state(static_cast<uint64_t>(meetings) << 32) {}
};

struct alignas(64) ExchangePlace {  // best-exchange: the word on a cache line of its own
    std::atomic<uint64_t> state;
    explicit ExchangePlace(uint32_t meetings) : state(static_cast<uint64_t>(meetings) << 32) {}
};

// One creature at a single-word place. With nobody waiting it installs itself and waits until met;
// otherwise it takes the waiting creature, counts one meeting down, and completes the meeting: it hands
// the partner its id and the new colour through the partner's own slot and wakes it. `Wait` says how the
// first arrival waits and how its partner wakes it (YieldWait, AdaptiveWait).
template <class Wait>
void creature_word(std::atomic<uint64_t>& state, Creature* all, int id, Latch* gate, Wait wait) {
    Creature& me = all[id];
    if (gate) gate->arrive_and_wait();
    uint64_t s = state.load(std::memory_order_acquire);
    for (;;) {
        uint32_t left = static_cast<uint32_t>(s >> 32);
        uint32_t waiting = static_cast<uint32_t>(s);
        if (left == 0) break;  // refused: stop
        if (waiting == 0) {
            wait.before_offer(me);  // ordered before the partner can see me by the CAS (release)
            uint64_t mine = (static_cast<uint64_t>(left) << 32) | static_cast<uint32_t>(id + 1);
            if (!state.compare_exchange_weak(s, mine, std::memory_order_acq_rel, std::memory_order_acquire))
                continue;
            wait.until_met(me);
            me.count += 1;
            if (me.partner == id) me.self += 1;
            me.colour = me.new_colour;
        } else {
            uint64_t taken = static_cast<uint64_t>(left - 1) << 32;
            if (!state.compare_exchange_weak(s, taken, std::memory_order_acq_rel, std::memory_order_acquire))
                continue;
            int wid = static_cast<int>(waiting) - 1;
            Creature& other = all[wid];
            int c = complement(me.colour, other.colour);
            other.partner = id;
            other.new_colour = c;
            wait.wake(other);
            me.count += 1;
            if (wid == id) me.self += 1;
            me.colour = c;
        }
        s = state.load(std::memory_order_acquire);
    }
}

// rendezvous (the SCOOP study's C++ program): the first arrival polls its slot with sched_yield.
struct YieldWait {
    void before_offer(Creature&) {}
    void until_met(Creature& me) {
        while (!me.met.load(std::memory_order_acquire)) sched_yield();
        me.met.store(0, std::memory_order_relaxed);
    }
    void wake(Creature& other) { other.met.store(1, std::memory_order_release); }
};

// ---- best-exchange: the same word, adaptive waiting (spin, then yield, then park on a futex)

// The waiting creature's own word (Creature::met): it sets kIdle before it offers itself, may move it to
// kParked before it sleeps, and its partner moves it to kMet, with one exchange, after writing the
// partner id and the new colour.
constexpr int kIdle = 0, kMet = 1, kParked = 2;
// Waiting, in three steps. (1) While another CPU may run the partner, read the wake word back to back
// (no spin-wait hint, which would delay seeing the partner's store) for at most the creature's spin limit:
// a running partner completes the meeting within a few hundred nanoseconds, and a park and wake-up cost
// some microseconds, so spinning longer than kMaxSpinNs buys nothing. The limit adapts, per creature: a
// spin that ends met doubles it (up to kMaxSpinNs), one that times out (the partner was not running, e.g.
// on a loaded machine) halves it (down to kMinSpinNs). (2) Yield the CPU kYields times: a runnable partner
// queued on it may come and meet the creature. (3) Park on the wake word with a futex until met.
constexpr int64_t kMaxSpinNs = 10000;
constexpr int64_t kMinSpinNs = 500;
constexpr int kYields = 4;

static_assert(sizeof(std::atomic<int>) == sizeof(int) && std::atomic<int>::is_always_lock_free,
              "the futex waits on the atomic's own int");

void futex_wait(std::atomic<int>& word, int expected) {
    // Returns at once if the word no longer holds `expected`; spurious returns are re-checked by the caller.
    syscall(SYS_futex, reinterpret_cast<int*>(&word), FUTEX_WAIT_PRIVATE, expected, nullptr, nullptr, 0);
}

void futex_wake_one(std::atomic<int>& word) {
    syscall(SYS_futex, reinterpret_cast<int*>(&word), FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
}

// Spinning helps only when the partner can run at the same time: not when the process may use one CPU.
bool may_spin() {
    static const bool many = [] {
        cpu_set_t set;
        CPU_ZERO(&set);
        if (sched_getaffinity(0, sizeof(set), &set) != 0) return std::thread::hardware_concurrency() > 1;
        return CPU_COUNT(&set) > 1;
    }();
    return many;
}

// Waits until a partner has met `me` (its wake word is kMet). `spin`: another CPU may run the partner;
// `spin_ns`: the creature's current spin limit.
void await_partner(Creature& me, bool spin, int64_t& spin_ns) {
    std::atomic<int>& word = me.met;
    if (spin) {
        int64_t deadline = 0;  // the clock is read every 256 reads only: a short wait reads it never
        for (unsigned i = 1;; ++i) {
            if (word.load(std::memory_order_acquire) == kMet) {
                spin_ns = std::min(2 * spin_ns, kMaxSpinNs);
                return;
            }
            if (i % 256 == 0) {
                int64_t t = now_ns();
                if (deadline == 0) deadline = t + spin_ns;
                else if (t > deadline) break;
            }
        }
        spin_ns = std::max(spin_ns / 2, kMinSpinNs);
    }
    for (int i = 0; i < kYields; ++i) {
        if (word.load(std::memory_order_acquire) == kMet) return;
        sched_yield();
    }
    int expected = kIdle;
    if (!word.compare_exchange_strong(expected, kParked, std::memory_order_acquire)) return;  // met meanwhile
    while (word.load(std::memory_order_acquire) != kMet) futex_wait(word, kParked);
}

// best-exchange's waiting, one per creature (it keeps the creature's spin limit).
struct AdaptiveWait {
    bool spin = may_spin();
    int64_t spin_ns = kMaxSpinNs;
    // My wake word is kIdle before the CAS publishes me, so the partner finds it so.
    void before_offer(Creature& me) { me.met.store(kIdle, std::memory_order_relaxed); }
    void until_met(Creature& me) { await_partner(me, spin, spin_ns); }
    // A syscall only when the waiting creature has parked.
    void wake(Creature& other) {
        if (other.met.exchange(kMet, std::memory_order_acq_rel) == kParked) futex_wake_one(other.met);
    }
};

// ---- rendezvous-condvar: a mutex and one condition variable
struct CvPlace {
    std::mutex mx;
    std::condition_variable cv;
    uint64_t left;
    int waiting = -1;
    explicit CvPlace(uint64_t meetings) : left(meetings) {}
};

void creature_cv(CvPlace& place, Creature* all, int id, Latch* gate) {
    Creature& me = all[id];
    if (gate) gate->arrive_and_wait();
    for (;;) {
        std::unique_lock<std::mutex> lk(place.mx);
        if (place.left == 0) break;  // refused: stop
        if (place.waiting < 0) {
            place.waiting = id;
            me.met_flag = false;
            place.cv.wait(lk, [&me] { return me.met_flag; });
            lk.unlock();
            me.count += 1;
            if (me.partner == id) me.self += 1;
            me.colour = me.new_colour;
        } else {
            int wid = place.waiting;
            place.waiting = -1;
            place.left -= 1;
            Creature& other = all[wid];
            int c = complement(me.colour, other.colour);
            other.partner = id;
            other.new_colour = c;
            other.met_flag = true;
            lk.unlock();
            place.cv.notify_all();
            me.count += 1;
            if (wid == id) me.self += 1;
            me.colour = c;
        }
    }
}

// One game: C creatures, M meetings. start() creates the threads, join() waits for all reports.
class Game {
public:
    Game(ChameneosShape shape, int creatures, uint64_t meetings, bool gate)
        : shape_(shape), c_(creatures), m_(meetings), all_(new Creature[static_cast<size_t>(creatures)]) {
        for (int i = 0; i < c_; ++i) {
            all_[i].id = i;
            all_[i].colour = kTen[i % 10];
        }
        if (gate) gate_ = std::make_unique<Latch>(c_);
        if (shape_ == ChameneosShape::Rendezvous) cas_ = std::make_unique<CasPlace>(static_cast<uint32_t>(m_));
        else if (shape_ == ChameneosShape::BestExchange)
            exchange_ = std::make_unique<ExchangePlace>(static_cast<uint32_t>(m_));
        else cv_ = std::make_unique<CvPlace>(m_);
    }

    void start() {
        threads_.reserve(static_cast<size_t>(c_));
        Creature* all = all_.get();
        Latch* gate = gate_.get();
        for (int i = 0; i < c_; ++i) {
            try {
                if (shape_ == ChameneosShape::Rendezvous) {
                    CasPlace* p = cas_.get();
                    threads_.emplace_back([p, all, i, gate] { creature_word(p->state, all, i, gate, YieldWait{}); });
                } else if (shape_ == ChameneosShape::BestExchange) {
                    ExchangePlace* p = exchange_.get();
                    threads_.emplace_back(
                        [p, all, i, gate] { creature_word(p->state, all, i, gate, AdaptiveWait{}); });
                } else {
                    CvPlace* p = cv_.get();
                    threads_.emplace_back([p, all, i, gate] { creature_cv(*p, all, i, gate); });
                }
            } catch (const std::system_error& e) {
                fail("chameneos: cannot create the thread of creature " + std::to_string(i) + " of " +
                     std::to_string(c_) + ": " + e.what());
            }
        }
    }

    void join() {
        for (auto& t : threads_) t.join();
        threads_.clear();
    }

    // After join(): what the meeting place counted and what the creatures reported.
    GameReport report() const {
        GameReport r;
        r.creatures = c_;
        r.meetings = m_;
        if (shape_ == ChameneosShape::Rendezvous) r.place_meetings = m_ - (cas_->state.load() >> 32);
        else if (shape_ == ChameneosShape::BestExchange) r.place_meetings = m_ - (exchange_->state.load() >> 32);
        else r.place_meetings = m_ - cv_->left;
        int64_t colours = 0;
        for (int i = 0; i < c_; ++i) {
            r.creature_meetings += static_cast<uint64_t>(all_[i].count);
            r.self_meetings += all_[i].self;
            colours += all_[i].colour;
            r.counts.push_back(all_[i].count);
        }
        r.colour_sum_mod3 = static_cast<int>(colours % 3);
        return r;
    }

private:
    ChameneosShape shape_;
    int c_;
    uint64_t m_;
    std::unique_ptr<Creature[]> all_;
    std::unique_ptr<Latch> gate_;
    std::unique_ptr<CasPlace> cas_;
    std::unique_ptr<ExchangePlace> exchange_;
    std::unique_ptr<CvPlace> cv_;
    std::vector<std::thread> threads_;
};

}  // namespace

EncoreRun chameneos_encore(ChameneosShape shape, int creatures, uint64_t meetings) {
    int64_t t0 = now_ns();
    Game game(shape, creatures, meetings, true);
    game.start();
    game.join();
    int64_t t1 = now_ns();
    EncoreRun out;
    out.ns = t1 - t0;
    out.game = game.report();
    return out;
}

ReduxRun chameneos_redux(ChameneosShape shape, uint64_t n, bool concurrent) {
    int64_t t0 = now_ns();
    Game a(shape, 3, n, false), b(shape, 10, n, false);
    if (concurrent) {
        a.start();
        b.start();
        a.join();
        b.join();
    } else {
        a.start();
        a.join();
        b.start();
        b.join();
    }
    int64_t t1 = now_ns();
    ReduxRun out;
    out.ns = t1 - t0;
    out.a = a.report();
    out.b = b.report();
    return out;
}

}  // namespace cb
