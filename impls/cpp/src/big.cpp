// big (big.md): N workers in neighbourhoods of H ping random neighbours (their own LCG32, one ping
// outstanding at a time) until each has sent P pings; a sink counts the N exits.
//
// Model threads:
//   pool               an actor runtime over a pool of --workers std::threads (Encore's shape): every
//                      worker and the sink is an actor with a mailbox (a ring buffer under a mutex) and a
//                      scheduled flag; an actor is submitted to the pool when its mailbox turns non-empty
//                      and runs up to 100 messages per turn. Each pool thread has its own run queue
//                      (FIFO) and steals from the others' fronts when it runs dry; idle threads sleep on
//                      a condition variable. The pool is started once per process, before the first
//                      iteration (the runtime, not the benchmark).
//   thread-per-worker  one std::thread per worker with a mutex/condition-variable mailbox; the main
//                      thread is the sink. A failure to create the threads ends the process with one
//                      stderr line and exit status 1.
// Neighbour tables: one immutable table (local id -> worker) shared per neighbourhood.
#include "kernels.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>

namespace cb {
namespace {

enum class Kind : int32_t { Ping, Pong, Exit, Stop };
struct Msg {
    Kind kind;
    int32_t from;  // the sender's local id, or kStart
};
constexpr int32_t kStart = -1;

// An unbounded FIFO of messages (grows by doubling); not synchronised by itself.
class Ring {
public:
    bool empty() const { return size_ == 0; }
    void push(Msg m) {
        if (size_ == buf_.size()) grow();
        buf_[(head_ + size_) & (buf_.size() - 1)] = m;
        ++size_;
    }
    Msg pop() {
        Msg m = buf_[head_];
        head_ = (head_ + 1) & (buf_.size() - 1);
        --size_;
        return m;
    }

private:
    void grow() {
        std::vector<Msg> bigger(buf_.empty() ? 8 : buf_.size() * 2);
        for (size_t i = 0; i < size_; ++i) bigger[i] = buf_[(head_ + i) & (buf_.size() - 1)];
        buf_.swap(bigger);
        head_ = 0;
    }
    std::vector<Msg> buf_;
    size_t head_ = 0, size_ = 0;
};

// The per-worker state and handlers of big.md, shared by both shapes. Send is the shape's.
struct WorkerState {
    uint32_t rng;
    int32_t expected = kStart;
    uint64_t sent = 0, pings_recv = 0, pongs_recv = 0;
    int32_t local = 0;  // j
    int32_t hood_size = 0;  // S_g
};

[[noreturn]] void wrong_pinger(int w, int32_t from, int32_t expected) {
    fail("big: WrongPinger: worker " + std::to_string(w) + " got a pong from " + std::to_string(from) +
         ", expected " + std::to_string(expected));
}

// ======================= pool shape =======================

class Pool;

class Actor {
public:
    explicit Actor(Pool& pool) : pool_(pool) {}
    virtual ~Actor() = default;
    void send(Msg m);
    void run_turn();  // called by a pool thread; up to kBatch messages

protected:
    virtual void handle(Msg m) = 0;

private:
    static constexpr int kBatch = 100;
    Pool& pool_;
    std::mutex mx_;
    Ring box_;
    bool scheduled_ = false;
};

class Pool {
public:
    explicit Pool(int threads) : k_(threads) {
        for (int i = 0; i < k_; ++i) queues_.push_back(std::make_unique<Queue>());
        for (int i = 0; i < k_; ++i) {
            try {
                threads_.emplace_back([this, i] { loop(i); });
            } catch (const std::system_error& e) {
                fail("big: cannot start pool thread " + std::to_string(i) + ": " + e.what());
            }
        }
    }
    ~Pool() {
        {
            std::lock_guard<std::mutex> lk(sleep_mx_);
            stop_ = true;
        }
        sleep_cv_.notify_all();
        for (auto& t : threads_) t.join();
    }

    void submit(Actor* a) {
        int target = (tl_pool_ == this) ? tl_index_ : static_cast<int>(rr_.fetch_add(1, std::memory_order_relaxed) % k_);
        {
            std::lock_guard<std::mutex> lk(queues_[target]->mx);
            queues_[target]->q.push_back(a);
        }
        queued_.fetch_add(1, std::memory_order_seq_cst);
        if (idle_.load(std::memory_order_seq_cst) > 0) {
            std::lock_guard<std::mutex> lk(sleep_mx_);
            sleep_cv_.notify_one();
        }
    }

    // Waits until every pool thread is asleep with nothing queued: no actor is mid-turn.
    void wait_quiescent() {
        std::unique_lock<std::mutex> lk(sleep_mx_);
        quiet_cv_.wait(lk, [this] { return idle_.load() == k_ && queued_.load() == 0; });
    }

private:
    struct alignas(64) Queue {
        std::mutex mx;
        std::deque<Actor*> q;
    };

    Actor* pop_from(int i) {
        std::lock_guard<std::mutex> lk(queues_[i]->mx);
        if (queues_[i]->q.empty()) return nullptr;
        Actor* a = queues_[i]->q.front();
        queues_[i]->q.pop_front();
        return a;
    }

    void loop(int i) {
        tl_pool_ = this;
        tl_index_ = i;
        for (;;) {
            Actor* a = pop_from(i);
            for (int d = 1; !a && d < k_; ++d) a = pop_from((i + d) % k_);  // steal
            if (a) {
                queued_.fetch_sub(1, std::memory_order_seq_cst);
                a->run_turn();
                continue;
            }
            std::unique_lock<std::mutex> lk(sleep_mx_);
            if (idle_.fetch_add(1, std::memory_order_seq_cst) + 1 == k_) quiet_cv_.notify_all();
            while (!stop_ && queued_.load(std::memory_order_seq_cst) == 0) sleep_cv_.wait(lk);
            idle_.fetch_sub(1, std::memory_order_seq_cst);
            if (stop_) return;
        }
    }

    int k_;
    std::vector<std::unique_ptr<Queue>> queues_;
    std::vector<std::thread> threads_;
    std::atomic<long> queued_{0};
    std::atomic<int> idle_{0};
    std::atomic<unsigned> rr_{0};
    std::mutex sleep_mx_;
    std::condition_variable sleep_cv_, quiet_cv_;
    bool stop_ = false;
    static thread_local Pool* tl_pool_;
    static thread_local int tl_index_;
};

thread_local Pool* Pool::tl_pool_ = nullptr;
thread_local int Pool::tl_index_ = 0;

void Actor::send(Msg m) {
    bool submit;
    {
        std::lock_guard<std::mutex> lk(mx_);
        box_.push(m);
        submit = !scheduled_;
        scheduled_ = true;
    }
    if (submit) pool_.submit(this);
}

void Actor::run_turn() {
    for (int n = 0; n < kBatch; ++n) {
        Msg m;
        {
            std::lock_guard<std::mutex> lk(mx_);
            if (box_.empty()) {
                scheduled_ = false;
                return;
            }
            m = box_.pop();
        }
        handle(m);
    }
    {
        std::lock_guard<std::mutex> lk(mx_);
        if (box_.empty()) {
            scheduled_ = false;
            return;
        }
    }
    pool_.submit(this);  // still scheduled: back to the pool for another turn
}

class SinkActor : public Actor {
public:
    SinkActor(Pool& pool, int64_t n) : Actor(pool), n_(n) {}
    void wait_done() {
        std::unique_lock<std::mutex> lk(mx_);
        cv_.wait(lk, [this] { return done_; });
    }

protected:
    void handle(Msg) override {
        if (++exits_ == n_) {
            std::lock_guard<std::mutex> lk(mx_);
            done_ = true;
            cv_.notify_all();
        }
    }

private:
    int64_t n_, exits_ = 0;
    std::mutex mx_;
    std::condition_variable cv_;
    bool done_ = false;
};

class WorkerActor : public Actor {
public:
    WorkerActor(Pool& pool, int w) : Actor(pool), w_(w) { st.rng = static_cast<uint32_t>(w); }
    WorkerState st;
    const std::vector<WorkerActor*>* table = nullptr;
    Actor* sink = nullptr;
    uint64_t pings = 0;  // P

protected:
    void handle(Msg m) override {
        if (m.kind == Kind::Pong) {
            if (m.from != st.expected) wrong_pinger(w_, m.from, st.expected);
            if (m.from != kStart) st.pongs_recv += 1;
            if (st.sent == pings) {
                sink->send({Kind::Exit, st.local});
            } else {
                st.rng = 1664525u * st.rng + 1013904223u;
                int32_t t = static_cast<int32_t>(st.rng % static_cast<uint32_t>(st.hood_size));
                st.expected = t;
                st.sent += 1;
                (*table)[static_cast<size_t>(t)]->send({Kind::Ping, st.local});
            }
        } else {  // Ping
            st.pings_recv += 1;
            (*table)[static_cast<size_t>(m.from)]->send({Kind::Pong, st.local});
        }
    }

private:
    int w_;
};

BigRun run_pool(Pool& pool, const BigConfig& cfg) {
    int64_t t0 = now_ns();
    // 1. Create the sink and the workers; wire the per-neighbourhood tables.
    auto sink = std::make_unique<SinkActor>(pool, cfg.n);
    std::vector<std::unique_ptr<WorkerActor>> workers;
    workers.reserve(static_cast<size_t>(cfg.n));
    for (int64_t w = 0; w < cfg.n; ++w) workers.push_back(std::make_unique<WorkerActor>(pool, static_cast<int>(w)));
    int64_t hoods = (cfg.n + cfg.hood - 1) / cfg.hood;
    std::vector<std::vector<WorkerActor*>> tables(static_cast<size_t>(hoods));
    for (int64_t g = 0; g < hoods; ++g) {
        int64_t first = g * cfg.hood, last = std::min(cfg.n, first + cfg.hood);
        auto& table = tables[static_cast<size_t>(g)];
        for (int64_t w = first; w < last; ++w) table.push_back(workers[static_cast<size_t>(w)].get());
        for (int64_t w = first; w < last; ++w) {
            WorkerActor& a = *workers[static_cast<size_t>(w)];
            a.table = &table;
            a.sink = sink.get();
            a.pings = cfg.pings;
            a.st.local = static_cast<int32_t>(w - first);
            a.st.hood_size = static_cast<int32_t>(last - first);
        }
    }
    // 2. pong(START) to every worker in order; 3. wait for the sink.
    for (auto& a : workers) a->send({Kind::Pong, kStart});
    sink->wait_done();
    int64_t t1 = now_ns();

    pool.wait_quiescent();  // untimed: let the last turns finish before reading and tearing down
    BigRun out;
    out.ns = t1 - t0;
    for (auto& a : workers) {
        out.pings_recv.push_back(a->st.pings_recv);
        out.pongs_recv.push_back(a->st.pongs_recv);
    }
    return out;
}

// ======================= thread-per-worker shape =======================

struct ThreadWorker;

struct ThreadSink {
    std::mutex mx;
    std::condition_variable cv;
    int64_t exits = 0, n = 0;
    void exit_message() {
        std::lock_guard<std::mutex> lk(mx);
        if (++exits == n) cv.notify_all();
    }
};

struct ThreadWorker {
    std::mutex mx;
    std::condition_variable cv;
    Ring box;
    WorkerState st;
    int w = 0;
    uint64_t pings = 0;
    const std::vector<ThreadWorker*>* table = nullptr;
    ThreadSink* sink = nullptr;
    std::thread thread;

    void send(Msg m) {
        {
            std::lock_guard<std::mutex> lk(mx);
            box.push(m);
        }
        cv.notify_one();
    }

    void loop() {
        for (;;) {
            Msg m;
            {
                std::unique_lock<std::mutex> lk(mx);
                cv.wait(lk, [this] { return !box.empty(); });
                m = box.pop();
            }
            switch (m.kind) {
            case Kind::Stop:
                return;
            case Kind::Pong:
                if (m.from != st.expected) wrong_pinger(w, m.from, st.expected);
                if (m.from != kStart) st.pongs_recv += 1;
                if (st.sent == pings) {
                    sink->exit_message();
                } else {
                    st.rng = 1664525u * st.rng + 1013904223u;
                    int32_t t = static_cast<int32_t>(st.rng % static_cast<uint32_t>(st.hood_size));
                    st.expected = t;
                    st.sent += 1;
                    (*table)[static_cast<size_t>(t)]->send({Kind::Ping, st.local});
                }
                break;
            case Kind::Ping:
                st.pings_recv += 1;
                (*table)[static_cast<size_t>(m.from)]->send({Kind::Pong, st.local});
                break;
            case Kind::Exit:
                break;
            }
        }
    }
};

BigRun run_threads(const BigConfig& cfg) {
    int64_t t0 = now_ns();
    ThreadSink sink;
    sink.n = cfg.n;
    std::vector<std::unique_ptr<ThreadWorker>> workers;
    workers.reserve(static_cast<size_t>(cfg.n));
    int64_t hoods = (cfg.n + cfg.hood - 1) / cfg.hood;
    std::vector<std::vector<ThreadWorker*>> tables(static_cast<size_t>(hoods));
    for (int64_t w = 0; w < cfg.n; ++w) {
        auto tw = std::make_unique<ThreadWorker>();
        int64_t g = w / cfg.hood, first = g * cfg.hood, last = std::min(cfg.n, first + cfg.hood);
        tw->w = static_cast<int>(w);
        tw->st.rng = static_cast<uint32_t>(w);
        tw->st.local = static_cast<int32_t>(w - first);
        tw->st.hood_size = static_cast<int32_t>(last - first);
        tw->pings = cfg.pings;
        tw->table = &tables[static_cast<size_t>(g)];
        tw->sink = &sink;
        tables[static_cast<size_t>(g)].push_back(tw.get());
        workers.push_back(std::move(tw));
    }
    for (auto& tw : workers) {
        try {
            ThreadWorker* p = tw.get();
            tw->thread = std::thread([p] { p->loop(); });
        } catch (const std::system_error& e) {
            fail("big: thread-per-worker cannot create the thread of worker " + std::to_string(tw->w) + " of " +
                 std::to_string(cfg.n) + ": " + e.what());
        }
    }
    for (auto& tw : workers) tw->send({Kind::Pong, kStart});
    {
        std::unique_lock<std::mutex> lk(sink.mx);
        sink.cv.wait(lk, [&sink] { return sink.exits == sink.n; });
    }
    int64_t t1 = now_ns();

    // Untimed: stop the workers (they answer pings until here), join, read the counters.
    for (auto& tw : workers) tw->send({Kind::Stop, 0});
    for (auto& tw : workers) tw->thread.join();
    BigRun out;
    out.ns = t1 - t0;
    for (auto& tw : workers) {
        out.pings_recv.push_back(tw->st.pings_recv);
        out.pongs_recv.push_back(tw->st.pongs_recv);
    }
    return out;
}

}  // namespace

struct BigRunner::PoolImpl {
    explicit PoolImpl(int threads) : pool(threads) {}
    Pool pool;
};

BigRunner::BigRunner(BigShape shape, int workers) : shape_(shape) {
    if (shape_ == BigShape::Pool) pool_ = std::make_unique<PoolImpl>(workers);
}

BigRunner::~BigRunner() = default;

BigRun BigRunner::run(const BigConfig& cfg) {
    if (shape_ == BigShape::Pool) return run_pool(pool_->pool, cfg);
    return run_threads(cfg);
}

}  // namespace cb
