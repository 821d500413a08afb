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
// variant=encore: C creatures (--param), M meetings (--option meetings, default 8 000 000), with a start
// latch so no meeting forms before all C creatures are ready. variant=redux: game A (3 creatures) then
// game B (10 creatures), n meetings each (--param); --option concurrent_games=1 runs both at once.
#include "kernels.hpp"

#include <sched.h>

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
    std::atomic<int> met{0};  // rendezvous (CAS) form
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

// ---- rendezvous: one atomic word, CAS, sched_yield while waiting
struct CasPlace {
    std::atomic<uint64_t> state;  // (meetings left << 32) | (waiting id + 1)
    explicit CasPlace(uint32_t meetings) : state(static_cast<uint64_t>(meetings) << 32) {}
};

void creature_cas(CasPlace& place, Creature* all, int id, Latch* gate) {
    Creature& me = all[id];
    if (gate) gate->arrive_and_wait();
    uint64_t s = place.state.load(std::memory_order_acquire);
    for (;;) {
        uint32_t left = static_cast<uint32_t>(s >> 32);
        uint32_t waiting = static_cast<uint32_t>(s);
        if (left == 0) break;  // refused: stop
        if (waiting == 0) {
            uint64_t mine = (static_cast<uint64_t>(left) << 32) | static_cast<uint32_t>(id + 1);
            if (!place.state.compare_exchange_weak(s, mine, std::memory_order_acq_rel, std::memory_order_acquire))
                continue;
            while (!me.met.load(std::memory_order_acquire)) sched_yield();
            me.met.store(0, std::memory_order_relaxed);
            me.count += 1;
            if (me.partner == id) me.self += 1;
            me.colour = me.new_colour;
        } else {
            uint64_t taken = static_cast<uint64_t>(left - 1) << 32;
            if (!place.state.compare_exchange_weak(s, taken, std::memory_order_acq_rel, std::memory_order_acquire))
                continue;
            int wid = static_cast<int>(waiting) - 1;
            Creature& other = all[wid];
            int c = complement(me.colour, other.colour);
            other.partner = id;
            other.new_colour = c;
            other.met.store(1, std::memory_order_release);
            me.count += 1;
            if (wid == id) me.self += 1;
            me.colour = c;
        }
        s = place.state.load(std::memory_order_acquire);
    }
}

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
                    threads_.emplace_back([p, all, i, gate] { creature_cas(*p, all, i, gate); });
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
