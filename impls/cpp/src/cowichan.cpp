// The Cowichan kernels (randmat.md, thresh.md, winnow.md, outer.md, product.md; shared rules and the
// pipeline in chain.md). Every stage is written once as a loop over a range of rows [lo, hi); the
// models differ only in how the ranges reach the threads and how partial results are merged:
//
//   Seq       the whole range on the calling thread: the tests' reference and the untimed builder of
//             a standalone stage's input.
//   Threads   (shape blocks) W std::threads on chain.md rule 2's static row blocks, started per phase
//             and joined at its end; partial histograms and sorted candidate runs are merged by the
//             calling thread after the join. Every output array is shared; each thread writes its rows.
//   Tbb       (shape parallel-for, the paper's C++) inside one task_arena of W threads: parallel_for
//             over a blocked_range of rows; thresh's maximum by parallel_reduce with per-thread
//             histograms in a combinable; winnow's per-row counts by parallel_for, offsets by
//             parallel_scan, the gather by parallel_for and the sort by parallel_sort.
//
// Float rules (chain.md rule 4): the Makefile compiles with -ffp-contract=off, and every sum runs in
// the order the stage file fixes (product: ascending j, one accumulator).
#include "kernels.hpp"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/combinable.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/parallel_reduce.h>
#include <oneapi/tbb/parallel_scan.h>
#include <oneapi/tbb/parallel_sort.h>
#include <oneapi/tbb/task_arena.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <system_error>
#include <thread>

namespace cb {

std::vector<RowBlock> row_blocks(int64_t rows, int workers) {
    std::vector<RowBlock> blocks(static_cast<size_t>(workers));
    int64_t start = 0;
    for (int w = 0; w < workers; ++w) {
        int64_t h = (rows - start) / (workers - w);  // smaller blocks first
        blocks[static_cast<size_t>(w)] = {start, h};
        start += h;
    }
    return blocks;
}

namespace {

// ---- the row kernels, shared by every model ----

// randmat.md: row i has its own generator seeded S + i (mod 2^32); the draw follows the step.
void randmat_rows(uint8_t* m, int64_t n, uint32_t seed, int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) {
        uint32_t s = seed + static_cast<uint32_t>(i);
        uint8_t* row = m + i * n;
        for (int64_t j = 0; j < n; ++j) {
            s = lcg32_step(s);
            row[j] = static_cast<uint8_t>(s % 100u);
        }
    }
}

struct Hist {
    std::array<int64_t, 100> count{};
    int max = -1;  // -1: no cell seen
    void add(const Hist& o) {
        for (size_t v = 0; v < count.size(); ++v) count[v] += o.count[v];
        max = std::max(max, o.max);
    }
};

// Counts rows [lo, hi) into h and returns their maximum (-1 for no rows).
int hist_rows(const uint8_t* m, int64_t n, int64_t lo, int64_t hi, Hist& h) {
    int mx = -1;
    for (int64_t k = lo * n, end = hi * n; k < end; ++k) {
        int x = m[k];
        ++h.count[static_cast<size_t>(x)];
        if (x > mx) mx = x;
    }
    h.max = std::max(h.max, mx);
    return mx;
}

// thresh.md step 2: whole bins from nmax down; stop right after the bin that pushes the running total
// above count = floor(n*n*p/100).
int choose_threshold(const std::array<int64_t, 100>& hist, int nmax, int64_t n, int p) {
    int64_t count = n * n * p / 100;
    int64_t prefix = 0;
    int t = nmax;
    for (int v = nmax; v >= 0 && prefix <= count; --v) {
        prefix += hist[static_cast<size_t>(v)];
        t = v;
    }
    return t;
}

void mask_rows(const uint8_t* m, uint8_t* mask, int64_t n, int t, int64_t lo, int64_t hi) {
    for (int64_t k = lo * n, end = hi * n; k < end; ++k) mask[k] = m[k] >= t ? 1 : 0;
}

// A winnow candidate; the order is winnow.md's key (value, i, j).
struct Cell {
    int32_t value, i, j;
    bool operator<(const Cell& o) const {
        if (value != o.value) return value < o.value;
        if (i != o.i) return i < o.i;
        return j < o.j;
    }
};

int64_t count_row(const uint8_t* mask, int64_t n, int64_t i) {
    int64_t c = 0;
    for (const uint8_t *p = mask + i * n, *end = p + n; p != end; ++p) c += *p;
    return c;
}

// Appends the masked cells of rows [lo, hi) at out, row by row; returns the end.
Cell* gather_rows(const uint8_t* m, const uint8_t* mask, int64_t n, int64_t lo, int64_t hi, Cell* out) {
    for (int64_t i = lo; i < hi; ++i)
        for (int64_t j = 0; j < n; ++j)
            if (mask[i * n + j])
                *out++ = {m[i * n + j], static_cast<int32_t>(i), static_cast<int32_t>(j)};
    return out;
}

// winnow.md's selection from the sorted candidates, entries [lo, hi) of the nelts points.
void pick(const Cell* sorted, int64_t chunk, CowPoint* points, int64_t lo, int64_t hi) {
    for (int64_t k = lo; k < hi; ++k) {
        const Cell& c = sorted[k * chunk];
        points[k] = {c.i, c.j};
    }
}

// outer.md: integer differences converted to double; running maximum from -1 over j != i; the
// diagonal is nelts times that maximum.
void outer_rows(const CowPoint* pts, int64_t nelts, double* d, double* v, int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) {
        const int32_t xi = pts[i].i, yi = pts[i].j;
        double* row = d + i * nelts;
        double mx = -1.0;
        auto cell = [&](int64_t j) {
            double dx = static_cast<double>(xi - pts[j].i);
            double dy = static_cast<double>(yi - pts[j].j);
            double dist = std::sqrt(dx * dx + dy * dy);
            row[j] = dist;
            mx = std::max(mx, dist);
        };
        for (int64_t j = 0; j < i; ++j) cell(j);
        for (int64_t j = i + 1; j < nelts; ++j) cell(j);
        row[i] = static_cast<double>(nelts) * mx;
        double x = static_cast<double>(xi), y = static_cast<double>(yi);
        v[i] = std::sqrt(x * x + y * y);
    }
}

// product.md: one accumulator per row, strictly ascending j, each product and sum rounded.
void product_rows(const double* d, const double* v, double* r, int64_t nelts, int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) {
        const double* row = d + i * nelts;
        double acc = 0.0;
        for (int64_t j = 0; j < nelts; ++j) acc = acc + row[j] * v[j];
        r[i] = acc;
    }
}

// Threads: one std::thread per non-empty rule-2 block, body(w, lo, hi), all joined before returning.
template <typename Body>
void run_blocks(int64_t rows, int workers, const Body& body) {
    std::vector<RowBlock> blocks = row_blocks(rows, workers);
    std::vector<std::thread> threads;
    threads.reserve(blocks.size());
    for (int w = 0; w < workers; ++w) {
        const RowBlock b = blocks[static_cast<size_t>(w)];
        if (b.rows == 0) continue;
        try {
            threads.emplace_back([&body, w, b] { body(w, b.start, b.start + b.rows); });
        } catch (const std::system_error& e) {
            fail("cowichan: cannot create worker thread " + std::to_string(w) + ": " + e.what());
        }
    }
    for (auto& t : threads) t.join();
}

}  // namespace

struct Cowichan::Impl {
    std::unique_ptr<tbb::task_arena> arena;  // Tbb only

    // A parallel-for over the rows [0, rows) in the model's way: body(lo, hi).
    template <typename Body>
    void for_rows(CowichanModel model, int workers, int64_t rows, const Body& body) {
        switch (model) {
        case CowichanModel::Seq: body(int64_t{0}, rows); break;
        case CowichanModel::Threads:
            run_blocks(rows, workers, [&body](int, int64_t lo, int64_t hi) { body(lo, hi); });
            break;
        case CowichanModel::Tbb:
            arena->execute([&] {
                tbb::parallel_for(tbb::blocked_range<int64_t>(0, rows),
                                  [&body](const tbb::blocked_range<int64_t>& r) { body(r.begin(), r.end()); });
            });
            break;
        }
    }
};

Cowichan::Cowichan(CowichanModel model, int workers)
    : model_(model), workers_(workers), impl_(std::make_unique<Impl>()) {
    if (model_ == CowichanModel::Tbb) {
        impl_->arena = std::make_unique<tbb::task_arena>(workers_);
        impl_->arena->initialize();
    }
}

Cowichan::~Cowichan() = default;

ByteMatrix Cowichan::randmat(int64_t n, uint32_t seed) {
    ByteMatrix m(static_cast<size_t>(n * n));
    uint8_t* out = m.data();
    impl_->for_rows(model_, workers_, n, [=](int64_t lo, int64_t hi) { randmat_rows(out, n, seed, lo, hi); });
    return m;
}

ThreshOut Cowichan::thresh(const ByteMatrix& m, int64_t n, int p) {
    const uint8_t* in = m.data();
    Hist hist;
    switch (model_) {
    case CowichanModel::Seq: hist_rows(in, n, 0, n, hist); break;
    case CowichanModel::Threads: {
        std::vector<Hist> slots(static_cast<size_t>(workers_));
        run_blocks(n, workers_,
                   [&](int w, int64_t lo, int64_t hi) { hist_rows(in, n, lo, hi, slots[static_cast<size_t>(w)]); });
        for (const Hist& h : slots) hist.add(h);  // after the join
        break;
    }
    case CowichanModel::Tbb: {
        tbb::combinable<Hist> local;
        int nmax = impl_->arena->execute([&] {
            return tbb::parallel_reduce(
                tbb::blocked_range<int64_t>(0, n), -1,
                [&](const tbb::blocked_range<int64_t>& r, int mx) {
                    return std::max(mx, hist_rows(in, n, r.begin(), r.end(), local.local()));
                },
                [](int a, int b) { return std::max(a, b); });
        });
        local.combine_each([&hist](const Hist& h) { hist.add(h); });
        hist.max = nmax;
        break;
    }
    }
    ThreshOut out;
    out.threshold = choose_threshold(hist.count, hist.max, n, p);
    out.mask = ByteMatrix(static_cast<size_t>(n * n));
    uint8_t* mask = out.mask.data();
    const int t = out.threshold;
    impl_->for_rows(model_, workers_, n, [=](int64_t lo, int64_t hi) { mask_rows(in, mask, n, t, lo, hi); });
    return out;
}

WinnowOut Cowichan::winnow(const ByteMatrix& m, const ByteMatrix& mask, int64_t n, int64_t nelts) {
    const uint8_t* mv = m.data();
    const uint8_t* kv = mask.data();
    WinnowOut out;
    Buffer<Cell> sorted;  // all K candidates in key order
    switch (model_) {
    case CowichanModel::Seq: {
        int64_t k = 0;
        for (int64_t i = 0; i < n; ++i) k += count_row(kv, n, i);
        sorted = Buffer<Cell>(static_cast<size_t>(k));
        gather_rows(mv, kv, n, 0, n, sorted.data());
        std::sort(sorted.begin(), sorted.end());
        break;
    }
    case CowichanModel::Threads: {
        // Each thread gathers and sorts its block's candidates; the runs are merged pairwise after
        // the join, neighbours first with the stride doubling.
        std::vector<Buffer<Cell>> runs(static_cast<size_t>(workers_));
        run_blocks(n, workers_, [&](int w, int64_t lo, int64_t hi) {
            int64_t k = 0;
            for (int64_t i = lo; i < hi; ++i) k += count_row(kv, n, i);
            Buffer<Cell>& run = runs[static_cast<size_t>(w)];
            run = Buffer<Cell>(static_cast<size_t>(k));
            gather_rows(mv, kv, n, lo, hi, run.data());
            std::sort(run.begin(), run.end());
        });
        for (size_t stride = 1; stride < runs.size(); stride *= 2)
            for (size_t a = 0; a + stride < runs.size(); a += 2 * stride) {
                Buffer<Cell>& left = runs[a];
                Buffer<Cell>& right = runs[a + stride];
                Buffer<Cell> merged(left.size() + right.size());
                std::merge(left.begin(), left.end(), right.begin(), right.end(), merged.begin());
                left = std::move(merged);
                Buffer<Cell>().swap(right);
            }
        sorted = std::move(runs[0]);
        break;
    }
    case CowichanModel::Tbb: {
        Buffer<int64_t> offset(static_cast<size_t>(n));
        Buffer<Cell>* dst = &sorted;
        impl_->arena->execute([&] {
            tbb::parallel_for(tbb::blocked_range<int64_t>(0, n), [&](const tbb::blocked_range<int64_t>& r) {
                for (int64_t i = r.begin(); i != r.end(); ++i) offset[static_cast<size_t>(i)] = count_row(kv, n, i);
            });
            // Exclusive prefix sum of the row counts: each row's write offset; the total is K.
            int64_t k = tbb::parallel_scan(
                tbb::blocked_range<int64_t>(0, n), int64_t{0},
                [&](const tbb::blocked_range<int64_t>& r, int64_t sum, bool is_final) {
                    for (int64_t i = r.begin(); i != r.end(); ++i) {
                        int64_t c = offset[static_cast<size_t>(i)];
                        if (is_final) offset[static_cast<size_t>(i)] = sum;
                        sum += c;
                    }
                    return sum;
                },
                std::plus<int64_t>());
            *dst = Buffer<Cell>(static_cast<size_t>(k));
            Cell* cells = dst->data();
            tbb::parallel_for(tbb::blocked_range<int64_t>(0, n), [&](const tbb::blocked_range<int64_t>& r) {
                gather_rows(mv, kv, n, r.begin(), r.end(), cells + offset[static_cast<size_t>(r.begin())]);
            });
            tbb::parallel_sort(dst->begin(), dst->end());
        });
        break;
    }
    }
    out.candidates = static_cast<int64_t>(sorted.size());
    if (out.candidates < nelts) return out;
    out.points.resize(static_cast<size_t>(nelts));
    const Cell* cells = sorted.data();
    CowPoint* points = out.points.data();
    const int64_t chunk = out.candidates / nelts;
    if (model_ == CowichanModel::Tbb)
        impl_->for_rows(model_, workers_, nelts, [=](int64_t lo, int64_t hi) { pick(cells, chunk, points, lo, hi); });
    else
        pick(cells, chunk, points, 0, nelts);  // Threads: after the merge, on the calling thread
    return out;
}

OuterOut Cowichan::outer(const std::vector<CowPoint>& points) {
    const int64_t nelts = static_cast<int64_t>(points.size());
    OuterOut out;
    out.matrix = Doubles(static_cast<size_t>(nelts * nelts));
    out.vector = Doubles(static_cast<size_t>(nelts));
    const CowPoint* pts = points.data();
    double* d = out.matrix.data();
    double* v = out.vector.data();
    impl_->for_rows(model_, workers_, nelts, [=](int64_t lo, int64_t hi) { outer_rows(pts, nelts, d, v, lo, hi); });
    return out;
}

Doubles Cowichan::product(const Doubles& d, const Doubles& v) {
    const int64_t nelts = static_cast<int64_t>(v.size());
    Doubles r(static_cast<size_t>(nelts));
    const double* dm = d.data();
    const double* vv = v.data();
    double* out = r.data();
    impl_->for_rows(model_, workers_, nelts, [=](int64_t lo, int64_t hi) { product_rows(dm, vv, out, nelts, lo, hi); });
    return r;
}

ChainOut Cowichan::chain(int64_t n, int p, int64_t nelts, uint32_t seed) {
    ChainOut out;
    int64_t t0 = now_ns(), t1, t2, t3;
    WinnowOut w;
    {
        // The matrix and the mask are freed once winnow is done (inside its stage time).
        ByteMatrix m = randmat(n, seed);
        t1 = now_ns();
        ThreshOut th = thresh(m, n, p);
        t2 = now_ns();
        w = winnow(m, th.mask, n, nelts);
    }
    t3 = now_ns();
    out.candidates = w.candidates;
    out.stage_ns[0] = t1 - t0;
    out.stage_ns[1] = t2 - t1;
    out.stage_ns[2] = t3 - t2;
    if (w.points.empty()) return out;  // K < nelts: the caller fails the run
    OuterOut o = outer(w.points);
    int64_t t4 = now_ns();
    out.r = product(o.matrix, o.vector);
    int64_t t5 = now_ns();
    out.stage_ns[3] = t4 - t3;
    out.stage_ns[4] = t5 - t4;
    return out;
}

uint64_t cowichan_checksum(const ByteMatrix& v) {
    uint64_t cs = 0;
    for (size_t k = 0; k < v.size(); ++k) cs += static_cast<uint64_t>(v[k]) * (k + 1);
    return cs;
}

uint64_t cowichan_checksum_q(const Doubles& v) {
    uint64_t cs = 0;
    for (size_t k = 0; k < v.size(); ++k) {
        long long q = std::llround(v[k] * 1e6);  // one binary64 multiply, then half away from zero
        cs += static_cast<uint64_t>(q) * (k + 1);  // two's complement for negative q
    }
    return cs;
}

uint64_t cowichan_checksum(const std::vector<CowPoint>& points) {
    uint64_t cs = 0;
    for (size_t k = 0; k < points.size(); ++k) {
        cs += static_cast<uint64_t>(static_cast<int64_t>(points[k].i)) * (2 * k + 1);
        cs += static_cast<uint64_t>(static_cast<int64_t>(points[k].j)) * (2 * k + 2);
    }
    return cs;
}

}  // namespace cb
