package main

// The Cowichan kernels (chain.md and its stage files randmat.md, thresh.md, winnow.md,
// outer.md, product.md): five stages over an n×n byte matrix, run standalone or back to back
// as chain. Every output lives in one shared contiguous row-major slice; workers write
// disjoint rows of it.
//
// Shape channel (the paper's Go scheme, the faithful port): W goroutines receive row indices,
// one per receive, from an unbuffered channel filled by a producer goroutine; they write rows
// of the shared output and signal a done channel. thresh's workers send their partial
// histograms on a channel and the receiver (main) merges them; winnow's workers send their
// sorted runs on a channel from which merger goroutines take two runs and put back their merge
// (W-1 merges in all), and the chunked pick is farmed out over a channel of indices again.
//
// Shape blocks: W goroutines on static row blocks (chain.md rule 2), joined with a WaitGroup;
// thresh's per-block histograms are merged after the join, winnow's per-block sorted runs are
// merged in a tree whose stride doubles at each level (each level's merges in parallel).
//
// W is --workers (the harness passes the core count, which is also GOMAXPROCS); without it,
// GOMAXPROCS. Float stages keep binary64 with no fused multiply-add: every product is
// converted explicitly (float64(a*b)), which the Go spec forbids fusing (chain.md rule 4).

import (
	"fmt"
	"math"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

const (
	// cowichanMaxN bounds n: n² < 2^40, so a candidate's flat index fits below its value in a
	// 64-bit sort key (winnowKey), and n²·p stays far inside int64.
	cowichanMaxN = 1000000
	// keyShift places a cell's value above its flat index i·n + j in winnow's sort key, so
	// that ordering keys is ordering (value, i, j).
	keyShift = 40
	keyMask  = 1<<keyShift - 1
)

// cowichanBenchmark is the table entry shared by the six benchmarks: the same parameter and
// options (p, nelts and seed are accepted by every stage, used where they matter). nelts's
// default is "{param}": it is n when absent.
func cowichanBenchmark(prepare func(r *request) (iterationFunc, error)) *benchmarkDef {
	return &benchmarkDef{
		Param: intDomain(1, cowichanMaxN),
		Models: map[string]modelDef{
			"goroutines": {
				Shapes: []string{"row-channel", "blocks"},
				Options: map[string]domain{
					"p":     intDomain(0, 100).withDefault("1"),
					"nelts": intAtLeast(1).withDefault("{param}"),
					"seed":  intDomain(0, math.MaxUint32).withDefault("0"),
				},
			},
		},
		prepare: prepare,
	}
}

// cowichanParams is one request of the family, inside its domains.
type cowichanParams struct {
	n, p, nelts, workers int
	seed                 uint32
}

// cowPoints are winnow's points: x = row i, y = column j.
type cowPoints struct{ x, y []int }

func newPoints(k int) cowPoints { return cowPoints{make([]int, k), make([]int, k)} }

// cowichanShape is one program shape of the five stages. Each stage allocates its output and
// returns it complete in the caller's hands, with its compute time (the paper's C: the
// longest worker's time in compute loops, receives and sends left out) where the shape
// measures it.
type cowichanShape struct {
	measures bool // whether the stages report compute times (compute_ns)
	randmat  func(n int, seed uint32, w int) (m []byte, compute int64)
	thresh   func(m []byte, n, p, w int) (mask []byte, t int, compute int64)
	winnow   func(m, mask []byte, n, nelts, w int) (pts cowPoints, k int, compute int64, err error)
	outer    func(pts cowPoints, w int) (d, v []float64, compute int64)
	product  func(d, v []float64, w int) (r []float64, compute int64)
}

var cowichanShapes = map[string]cowichanShape{
	"row-channel": {true, randmatChannel, threshChannel, winnowChannel, outerChannel, productChannel},
	"blocks":      {false, randmatBlocks, threshBlocks, winnowBlocks, outerBlocks, productBlocks},
}

// cowichanRequest reads the request; nelts is n when absent, W is GOMAXPROCS when --workers is.
func cowichanRequest(r *request) (cowichanParams, cowichanShape, error) {
	prm := cowichanParams{
		n:       int(r.paramInt()),
		p:       int(r.intOption("p")),
		nelts:   int(r.intOption("nelts")), // the default "{param}": n
		seed:    uint32(r.intOption("seed")),
		workers: r.workers,
	}
	if prm.workers == 0 {
		prm.workers = runtime.GOMAXPROCS(0)
	}
	shape, ok := cowichanShapes[r.shape]
	if !ok {
		return prm, shape, usagef("unknown shape %q for %s", r.shape, r.benchmark)
	}
	return prm, shape, nil
}

// ---- the row kernels, shared by both shapes

func lcgNext(s uint32) uint32 { return 1664525*s + 1013904223 }

// randmatRow fills one row from its own generator, seeded with S + i (randmat.md).
func randmatRow(row []byte, s uint32) {
	for j := range row {
		s = lcgNext(s)
		row[j] = byte(s % 100)
	}
}

// histogram has 256 bins so that indexing by a byte needs no bounds check; bins 100..255 stay 0.
type histogram [256]int64

func histRow(h *histogram, row []byte) {
	for _, c := range row {
		h[c]++
	}
}

// top is the largest value present (the local maximum), -1 for an empty histogram.
func (h *histogram) top() int {
	for v := 99; v >= 0; v-- {
		if h[v] != 0 {
			return v
		}
	}
	return -1
}

// chooseThreshold is thresh.md's sequential scan with its tie rule: bins taken whole from nmax
// down, stopping right after the first that lifts the running total above count.
func chooseThreshold(h *histogram, nmax, n, p int) int {
	count := int64(n) * int64(n) * int64(p) / 100
	var prefix int64
	t := nmax
	for v := nmax; v >= 0 && prefix <= count; v-- {
		prefix += h[v]
		t = v
	}
	return t
}

func maskRow(dst, row []byte, t byte) {
	for j, c := range row {
		var b byte
		if c >= t {
			b = 1
		}
		dst[j] = b
	}
}

// gatherRow appends the keys of row i's masked cells: value above, flat index i·n + j below.
func gatherRow(keys []uint64, m, mask []byte, i, n int) []uint64 {
	base := i * n
	row, rmask := m[base:base+n], mask[base:base+n]
	for j, b := range rmask {
		if b != 0 {
			keys = append(keys, uint64(row[j])<<keyShift|uint64(base+j))
		}
	}
	return keys
}

// keySlice sorts keys ascending, i.e. by (value, i, j).
type keySlice []uint64

func (k keySlice) Len() int           { return len(k) }
func (k keySlice) Less(a, b int) bool { return k[a] < k[b] }
func (k keySlice) Swap(a, b int)      { k[a], k[b] = k[b], k[a] }

func mergeKeys(a, b []uint64) []uint64 {
	out := make([]uint64, len(a)+len(b))
	i, j, k := 0, 0, 0
	for i < len(a) && j < len(b) {
		if a[i] <= b[j] {
			out[k] = a[i]
			i++
		} else {
			out[k] = b[j]
			j++
		}
		k++
	}
	k += copy(out[k:], a[i:])
	copy(out[k:], b[j:])
	return out
}

// winnowChunk is the pick's stride, or an error when there are fewer candidates than points.
func winnowChunk(k, nelts int) (int, error) {
	if k < nelts {
		return 0, fmt.Errorf("winnow: %d candidates, fewer than nelts = %d", k, nelts)
	}
	return k / nelts, nil
}

func pickPoint(pts cowPoints, sorted []uint64, k, chunk, n int) {
	flat := int(sorted[k*chunk] & keyMask)
	pts.x[k], pts.y[k] = flat/n, flat%n
}

// outerRow writes row i of D and returns v[i] (outer.md). dx*dx + dy*dy is exact here, and
// the explicit conversions keep it unfused anyway.
func outerRow(drow []float64, x, y []int, i int) float64 {
	m := -1.0
	xi, yi := x[i], y[i]
	for j := range x {
		if j == i {
			continue
		}
		dx := float64(xi - x[j])
		dy := float64(yi - y[j])
		d := math.Sqrt(float64(dx*dx) + float64(dy*dy))
		drow[j] = d
		if d > m {
			m = d
		}
	}
	drow[i] = float64(len(x)) * m
	fx, fy := float64(xi), float64(yi)
	return math.Sqrt(float64(fx*fx) + float64(fy*fy))
}

// productRow is one row's sum in strictly ascending j, each product rounded before the add.
func productRow(drow, v []float64) float64 {
	acc := 0.0
	for j, d := range drow {
		acc = acc + float64(d*v[j])
	}
	return acc
}

// ---- shape channel: the paper's row indices over a channel

// feedRows is the producer: a goroutine sending 0..rows-1 on an unbuffered channel, one index
// per send, then closing it.
func feedRows(rows int) <-chan int {
	feed := make(chan int)
	go func() {
		for i := 0; i < rows; i++ {
			feed <- i
		}
		close(feed)
	}()
	return feed
}

// channelWorkers is how many goroutines take rows: W, but never more than there are rows.
func channelWorkers(rows, w int) int {
	if rows < w {
		return rows
	}
	return w
}

// channelRows runs the workers over rows fed one per receive; each calls row(i) for every
// index it receives and signals done when the feed is closed. busy[k] is worker k's time
// inside row (its receives left out).
func channelRows(rows, w int, row func(i int)) (busy []int64) {
	w = channelWorkers(rows, w)
	feed := feedRows(rows)
	busy = make([]int64, w)
	done := make(chan struct{})
	for k := 0; k < w; k++ {
		go func(k int) {
			var ns int64
			for i := range feed {
				t0 := time.Now()
				row(i)
				ns += int64(time.Since(t0))
			}
			busy[k] = ns
			done <- struct{}{}
		}(k)
	}
	for k := 0; k < w; k++ {
		<-done
	}
	return busy
}

func maxInt64(xs ...int64) int64 {
	var m int64
	for _, x := range xs {
		if x > m {
			m = x
		}
	}
	return m
}

func randmatChannel(n int, seed uint32, w int) ([]byte, int64) {
	m := make([]byte, n*n)
	busy := channelRows(n, w, func(i int) { randmatRow(m[i*n:(i+1)*n], seed+uint32(i)) })
	return m, maxInt64(busy...)
}

// histPartial is what a thresh worker sends: its histogram and its compute time.
type histPartial struct {
	worker int
	hist   histogram
	ns     int64
}

func threshChannel(m []byte, n, p, w int) ([]byte, int, int64) {
	w = channelWorkers(n, w)
	feed := feedRows(n)
	parts := make(chan *histPartial, w)
	for k := 0; k < w; k++ {
		go func(k int) {
			part := &histPartial{worker: k}
			for i := range feed {
				t0 := time.Now()
				histRow(&part.hist, m[i*n:(i+1)*n])
				part.ns += int64(time.Since(t0))
			}
			parts <- part
		}(k)
	}
	// The receiver merges: bin sums and the maximum (the top of the merged histogram is the
	// maximum of the local maxima).
	var hist histogram
	busy := make([]int64, w)
	for k := 0; k < w; k++ {
		part := <-parts
		for v := 0; v < 100; v++ {
			hist[v] += part.hist[v]
		}
		busy[part.worker] = part.ns
	}
	t := chooseThreshold(&hist, hist.top(), n, p)
	mask := make([]byte, n*n)
	busy2 := channelRows(n, w, func(i int) { maskRow(mask[i*n:(i+1)*n], m[i*n:(i+1)*n], byte(t)) })
	// A worker's compute time is its histogram phase plus its mask phase.
	var compute int64
	for k := range busy {
		compute = maxInt64(compute, busy[k]+busy2[k])
	}
	return mask, t, compute
}

// sortedRun is a sorted list of keys and the compute time on its critical path: the gather
// and sort of its worker, or the longer of two merged runs plus the merge.
type sortedRun struct {
	keys []uint64
	ns   int64
}

func winnowChannel(m, mask []byte, n, nelts, w int) (cowPoints, int, int64, error) {
	gatherers := channelWorkers(n, w)
	feed := feedRows(n)
	// Never more runs pending than gatherers: a merge takes two and gives one back.
	runs := make(chan sortedRun, gatherers)
	for k := 0; k < gatherers; k++ {
		go func() {
			var run sortedRun
			for i := range feed {
				t0 := time.Now()
				run.keys = gatherRow(run.keys, m, mask, i, n)
				run.ns += int64(time.Since(t0))
			}
			t0 := time.Now()
			sort.Sort(keySlice(run.keys))
			run.ns += int64(time.Since(t0))
			runs <- run
		}()
	}
	all := mergeOverChannel(runs, gatherers)
	chunk, err := winnowChunk(len(all.keys), nelts)
	if err != nil {
		return cowPoints{}, len(all.keys), 0, err
	}
	pts := newPoints(nelts)
	busy := channelRows(nelts, w, func(k int) { pickPoint(pts, all.keys, k, chunk, n) })
	return pts, len(all.keys), all.ns + maxInt64(busy...), nil
}

// mergeOverChannel reduces w runs sent on runs to one: w-1 merger goroutines each receive two
// runs and send back their merge, and the one that completes the last merge hands the whole
// list over instead. The pairing depends on scheduling; the merged list does not.
func mergeOverChannel(runs chan sortedRun, w int) sortedRun {
	if w == 1 {
		return <-runs
	}
	whole := make(chan sortedRun, 1)
	var merges atomic.Int32
	for k := 0; k < w-1; k++ {
		go func() {
			a, b := <-runs, <-runs
			t0 := time.Now()
			c := sortedRun{mergeKeys(a.keys, b.keys), maxInt64(a.ns, b.ns)}
			c.ns += int64(time.Since(t0))
			if int(merges.Add(1)) == w-1 {
				whole <- c
			} else {
				runs <- c
			}
		}()
	}
	return <-whole
}

func outerChannel(pts cowPoints, w int) ([]float64, []float64, int64) {
	nelts := len(pts.x)
	d, v := make([]float64, nelts*nelts), make([]float64, nelts)
	busy := channelRows(nelts, w, func(i int) { v[i] = outerRow(d[i*nelts:(i+1)*nelts], pts.x, pts.y, i) })
	return d, v, maxInt64(busy...)
}

func productChannel(d, v []float64, w int) ([]float64, int64) {
	nelts := len(v)
	r := make([]float64, nelts)
	busy := channelRows(nelts, w, func(i int) { r[i] = productRow(d[i*nelts:(i+1)*nelts], v) })
	return r, maxInt64(busy...)
}

// ---- shape blocks: static row blocks joined with a WaitGroup

// blockStarts is chain.md rule 2: block k holds rows [s[k], s[k+1]), with
// s[k+1] = s[k] + floor((rows - s[k]) / (w - k)), so the smaller blocks come first.
func blockStarts(rows, w int) []int {
	s := make([]int, w+1)
	for k := 0; k < w; k++ {
		s[k+1] = s[k] + (rows-s[k])/(w-k)
	}
	return s
}

// forBlocks runs body on every non-empty block of rule 2, one goroutine each, and waits for
// them all; an empty block starts no goroutine.
func forBlocks(rows, w int, body func(k, lo, hi int)) {
	s := blockStarts(rows, w)
	var wg sync.WaitGroup
	for k := 0; k < w; k++ {
		if s[k+1] == s[k] {
			continue
		}
		wg.Add(1)
		go func(k int) {
			defer wg.Done()
			body(k, s[k], s[k+1])
		}(k)
	}
	wg.Wait()
}

func randmatBlocks(n int, seed uint32, w int) ([]byte, int64) {
	m := make([]byte, n*n)
	forBlocks(n, w, func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			randmatRow(m[i*n:(i+1)*n], seed+uint32(i))
		}
	})
	return m, 0
}

func threshBlocks(m []byte, n, p, w int) ([]byte, int, int64) {
	hists := make([]histogram, w) // one slot per block, written once at its end
	forBlocks(n, w, func(k, lo, hi int) {
		var h histogram
		histRow(&h, m[lo*n:hi*n])
		hists[k] = h
	})
	var hist histogram
	for k := range hists {
		for v := 0; v < 100; v++ {
			hist[v] += hists[k][v]
		}
	}
	t := chooseThreshold(&hist, hist.top(), n, p)
	mask := make([]byte, n*n)
	forBlocks(n, w, func(_, lo, hi int) { maskRow(mask[lo*n:hi*n], m[lo*n:hi*n], byte(t)) })
	return mask, t, 0
}

func winnowBlocks(m, mask []byte, n, nelts, w int) (cowPoints, int, int64, error) {
	runs := make([][]uint64, w)
	forBlocks(n, w, func(k, lo, hi int) {
		var keys []uint64
		for i := lo; i < hi; i++ {
			keys = gatherRow(keys, m, mask, i, n)
		}
		sort.Sort(keySlice(keys))
		runs[k] = keys
	})
	// Tree merge: at stride s, run k takes in run k+s; s doubles each level.
	for stride := 1; stride < w; stride *= 2 {
		var wg sync.WaitGroup
		for k := 0; k+stride < w; k += 2 * stride {
			wg.Add(1)
			go func(k int) {
				defer wg.Done()
				runs[k] = mergeKeys(runs[k], runs[k+stride])
			}(k)
		}
		wg.Wait()
	}
	all := runs[0]
	chunk, err := winnowChunk(len(all), nelts)
	if err != nil {
		return cowPoints{}, len(all), 0, err
	}
	pts := newPoints(nelts)
	forBlocks(nelts, w, func(_, lo, hi int) {
		for k := lo; k < hi; k++ {
			pickPoint(pts, all, k, chunk, n)
		}
	})
	return pts, len(all), 0, nil
}

func outerBlocks(pts cowPoints, w int) ([]float64, []float64, int64) {
	nelts := len(pts.x)
	d, v := make([]float64, nelts*nelts), make([]float64, nelts)
	forBlocks(nelts, w, func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			v[i] = outerRow(d[i*nelts:(i+1)*nelts], pts.x, pts.y, i)
		}
	})
	return d, v, 0
}

func productBlocks(d, v []float64, w int) ([]float64, int64) {
	nelts := len(v)
	r := make([]float64, nelts)
	forBlocks(nelts, w, func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			r[i] = productRow(d[i*nelts:(i+1)*nelts], v)
		}
	})
	return r, 0
}

// ---- checksums (chain.md rule 5), all untimed

func byteChecksum(v []byte) uint64 {
	var cs uint64
	for k, x := range v {
		cs += uint64(x) * uint64(k+1)
	}
	return cs
}

// quantise is q(x): one binary64 multiplication, rounded half away from zero.
func quantise(x float64) int64 { return int64(math.Round(x * 1e6)) }

// floatChecksum sums q(v[k])·(k+1) mod 2^64; a negative q enters as its two's complement.
func floatChecksum(v []float64) uint64 {
	var cs uint64
	for k, x := range v {
		cs += uint64(quantise(x)) * uint64(k+1)
	}
	return cs
}

// pointsChecksum is the checksum of the flat array [i0, j0, i1, j1, …].
func pointsChecksum(pts cowPoints) uint64 {
	var cs uint64
	for k := range pts.x {
		cs += uint64(pts.x[k])*uint64(2*k+1) + uint64(pts.y[k])*uint64(2*k+2)
	}
	return cs
}

func countOnes(mask []byte) int64 {
	var c int64
	for _, b := range mask {
		c += int64(b)
	}
	return c
}

// ---- standalone stages and chain

// cowichanInput is a stage's read-only input, built once before the first iteration by the
// preceding stages (blocks shape, untimed; chain.md rule 3).
type cowichanInput struct {
	m, mask []byte
	pts     cowPoints
	d, v    []float64
}

// buildInput runs the stages before stage (1 = thresh … 4 = product); a winnow with too few
// candidates ends the run.
func buildInput(prm cowichanParams, stage int) *cowichanInput {
	sh := cowichanShapes["blocks"]
	in := &cowichanInput{}
	in.m, _ = sh.randmat(prm.n, prm.seed, prm.workers)
	if stage >= 2 {
		in.mask, _, _ = sh.thresh(in.m, prm.n, prm.p, prm.workers)
	}
	if stage >= 3 {
		var err error
		if in.pts, _, _, err = sh.winnow(in.m, in.mask, prm.n, prm.nelts, prm.workers); err != nil {
			fatal("%v", err)
		}
		in.m, in.mask = nil, nil
	}
	if stage >= 4 {
		in.d, in.v, _ = sh.outer(in.pts, prm.workers)
	}
	runtime.GC() // the garbage of the build is not the first iteration's
	return in
}

// cowichanMetrics is compute_ns where the shape measures it.
func cowichanMetrics(sh cowichanShape, compute int64) []metric {
	if !sh.measures {
		return nil
	}
	return []metric{intMetric("compute_ns", compute)}
}

// prepareCowichan returns the iteration of one stage (or chain): lazy input, then the timed
// stage, then the result string.
func prepareCowichan(stage func(prm cowichanParams, sh cowichanShape, in *cowichanInput) outcome, inputStage int) func(r *request) (iterationFunc, error) {
	return func(r *request) (iterationFunc, error) {
		prm, sh, err := cowichanRequest(r)
		if err != nil {
			return nil, err
		}
		var in *cowichanInput
		return func() outcome {
			if in == nil {
				in = buildInput(prm, inputStage)
			}
			return stage(prm, sh, in)
		}, nil
	}
}

var (
	prepareRandmat = prepareCowichan(runRandmat, 0)
	prepareThresh  = prepareCowichan(runThresh, 1)
	prepareWinnow  = prepareCowichan(runWinnow, 2)
	prepareOuter   = prepareCowichan(runOuter, 3)
	prepareProduct = prepareCowichan(runProduct, 4)
	prepareChain   = prepareCowichan(runChain, 0)
)

func runRandmat(prm cowichanParams, sh cowichanShape, _ *cowichanInput) outcome {
	start := time.Now()
	m, compute := sh.randmat(prm.n, prm.seed, prm.workers)
	ns := time.Since(start).Nanoseconds()
	return outcome{ns, fmt.Sprintf("checksum=%d", byteChecksum(m)), cowichanMetrics(sh, compute)}
}

func runThresh(prm cowichanParams, sh cowichanShape, in *cowichanInput) outcome {
	start := time.Now()
	mask, t, compute := sh.thresh(in.m, prm.n, prm.p, prm.workers)
	ns := time.Since(start).Nanoseconds()
	return outcome{ns, fmt.Sprintf("threshold=%d kept=%d checksum=%d", t, countOnes(mask), byteChecksum(mask)),
		cowichanMetrics(sh, compute)}
}

func runWinnow(prm cowichanParams, sh cowichanShape, in *cowichanInput) outcome {
	start := time.Now()
	pts, k, compute, err := sh.winnow(in.m, in.mask, prm.n, prm.nelts, prm.workers)
	ns := time.Since(start).Nanoseconds()
	if err != nil {
		fatal("%v", err)
	}
	return outcome{ns, fmt.Sprintf("candidates=%d checksum=%d", k, pointsChecksum(pts)), cowichanMetrics(sh, compute)}
}

func runOuter(prm cowichanParams, sh cowichanShape, in *cowichanInput) outcome {
	start := time.Now()
	d, v, compute := sh.outer(in.pts, prm.workers)
	ns := time.Since(start).Nanoseconds()
	return outcome{ns, fmt.Sprintf("matrix=%d vector=%d", floatChecksum(d), floatChecksum(v)), cowichanMetrics(sh, compute)}
}

func runProduct(prm cowichanParams, sh cowichanShape, in *cowichanInput) outcome {
	start := time.Now()
	r, compute := sh.product(in.d, in.v, prm.workers)
	ns := time.Since(start).Nanoseconds()
	return outcome{ns, fmt.Sprintf("checksum=%d", floatChecksum(r)), cowichanMetrics(sh, compute)}
}

// runChain runs the five stages back to back in one shape, timing each; its compute_ns is
// the sum of the stages' compute times (each stage starts its own workers).
func runChain(prm cowichanParams, sh cowichanShape, _ *cowichanInput) outcome {
	var stageNs [5]int64
	var compute [5]int64
	start := time.Now()
	lap := start
	mark := func(s int) {
		now := time.Now()
		stageNs[s] = now.Sub(lap).Nanoseconds()
		lap = now
	}
	m, c := sh.randmat(prm.n, prm.seed, prm.workers)
	compute[0] = c
	mark(0)
	mask, _, c := sh.thresh(m, prm.n, prm.p, prm.workers)
	compute[1] = c
	mark(1)
	pts, _, c, err := sh.winnow(m, mask, prm.n, prm.nelts, prm.workers)
	if err != nil {
		fatal("chain: %v", err)
	}
	compute[2] = c
	m, mask = nil, nil // no longer needed: the collector may take them during outer
	mark(2)
	d, v, c := sh.outer(pts, prm.workers)
	compute[3] = c
	mark(3)
	r, c := sh.product(d, v, prm.workers)
	compute[4] = c
	mark(4)
	ns := time.Since(start).Nanoseconds()

	var total int64
	for _, c := range compute {
		total += c
	}
	metrics := cowichanMetrics(sh, total)
	for s, name := range []string{"randmat", "thresh", "winnow", "outer", "product"} {
		metrics = append(metrics, intMetric("stage_"+name+"_ns", stageNs[s]))
	}
	return outcome{ns, fmt.Sprintf("checksum=%d", floatChecksum(r)), metrics}
}
