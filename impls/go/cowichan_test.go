package main

// Unit tests of the Cowichan kernels (cowichan.go). The sequential kernels below are written
// straight from the specs' pseudo-code, in a different form from the shapes (a 2-D matrix, a
// 64-bit masked generator, (value, i, j) triples sorted with their own comparison), and every
// shape is compared with them at several W and n. No reference value of the specs is used;
// the only spec values here are the LCG check values of benchmarks/README and chain.md's
// partition examples.

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"testing"
)

// ---- sequential kernels, from the specs

func seqRandmat(n int, seed uint32) [][]int {
	m := make([][]int, n)
	for i := range m {
		m[i] = make([]int, n)
		s := (uint64(seed) + uint64(i)) & 0xFFFFFFFF
		for j := range m[i] {
			s = (1664525*s + 1013904223) & 0xFFFFFFFF
			m[i][j] = int(s % 100)
		}
	}
	return m
}

func seqThresh(m [][]int, p int) (mask [][]int, t int) {
	n := len(m)
	hist := make([]int64, 100)
	nmax := -1
	for _, row := range m {
		for _, c := range row {
			hist[c]++
			if c > nmax {
				nmax = c
			}
		}
	}
	count := int64(n*n*p) / 100
	var prefix int64
	t = nmax
	for v := nmax; v >= 0 && prefix <= count; v-- {
		prefix += hist[v]
		t = v
	}
	mask = make([][]int, n)
	for i, row := range m {
		mask[i] = make([]int, n)
		for j, c := range row {
			if c >= t {
				mask[i][j] = 1
			}
		}
	}
	return mask, t
}

type triple struct{ v, i, j int }

// seqWinnow returns the points, the candidate count, and whether there were enough.
func seqWinnow(m, mask [][]int, nelts int) (xs, ys []int, k int, ok bool) {
	var l []triple
	for i, row := range m {
		for j, c := range row {
			if mask[i][j] == 1 {
				l = append(l, triple{c, i, j})
			}
		}
	}
	sort.Slice(l, func(a, b int) bool {
		x, y := l[a], l[b]
		if x.v != y.v {
			return x.v < y.v
		}
		if x.i != y.i {
			return x.i < y.i
		}
		return x.j < y.j
	})
	if len(l) < nelts {
		return nil, nil, len(l), false
	}
	chunk := len(l) / nelts
	for k := 0; k < nelts; k++ {
		xs = append(xs, l[k*chunk].i)
		ys = append(ys, l[k*chunk].j)
	}
	return xs, ys, len(l), true
}

func seqOuter(xs, ys []int) (d [][]float64, v []float64) {
	n := len(xs)
	d = make([][]float64, n)
	v = make([]float64, n)
	for i := range xs {
		d[i] = make([]float64, n)
		m := -1.0
		for j := range xs {
			if j == i {
				continue
			}
			dx, dy := float64(xs[i]-xs[j]), float64(ys[i]-ys[j])
			d[i][j] = math.Sqrt(float64(dx*dx) + float64(dy*dy))
			m = math.Max(m, d[i][j])
		}
		d[i][i] = float64(n) * m
		v[i] = math.Sqrt(float64(float64(xs[i])*float64(xs[i])) + float64(float64(ys[i])*float64(ys[i])))
	}
	return d, v
}

func seqProduct(d [][]float64, v []float64) []float64 {
	r := make([]float64, len(v))
	for i := range d {
		acc := 0.0
		for j := range v {
			t := float64(d[i][j] * v[j])
			acc = acc + t
		}
		r[i] = acc
	}
	return r
}

func flatInts(m [][]int) []byte {
	var out []byte
	for _, row := range m {
		for _, c := range row {
			out = append(out, byte(c))
		}
	}
	return out
}

func flatFloats(m [][]float64) []float64 {
	var out []float64
	for _, row := range m {
		out = append(out, row...)
	}
	return out
}

// sameFloats compares bit patterns: the float stages are exact, not approximately right.
func sameFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if math.Float64bits(a[k]) != math.Float64bits(b[k]) {
			return false
		}
	}
	return true
}

// ---- the generator and the partition

func TestLCGCheckValues(t *testing.T) {
	if s := lcgNext(0); s != 1013904223 || s%100 != 23 {
		t.Errorf("seed 0: first state %d, draw mod 100 = %d", s, s%100)
	}
	if s := lcgNext(12345); s != 87628868 || s%1000 != 868 {
		t.Errorf("seed 12345: first state %d, draw mod 1000 = %d", s, s%1000)
	}
	row := make([]byte, 1)
	randmatRow(row, 0)
	if row[0] != 23 {
		t.Errorf("randmat row 0 with seed 0 starts %d", row[0])
	}
	// Wrapping: a seed near 2^32 plus the row index wraps like the masked 64-bit generator.
	got := make([]byte, 6)
	seed := uint32(math.MaxUint32 - 2)
	randmatRow(got, seed+5)
	want := seqRandmat(6, math.MaxUint32-2)[5]
	for j := range got {
		if int(got[j]) != want[j] {
			t.Fatalf("wrapped seed: cell %d is %d, want %d", j, got[j], want[j])
		}
	}
}

func blockSizes(rows, w int) []int {
	s := blockStarts(rows, w)
	h := make([]int, w)
	for k := range h {
		h[k] = s[k+1] - s[k]
	}
	return h
}

func TestRowPartition(t *testing.T) {
	if got := fmt.Sprint(blockSizes(10, 4)); got != "[2 2 3 3]" {
		t.Errorf("n=10 W=4: %s", got)
	}
	h := blockSizes(10000, 32)
	for k, x := range h {
		if want := map[bool]int{true: 312, false: 313}[k < 16]; x != want {
			t.Errorf("n=10000 W=32: block %d has %d rows, want %d", k, x, want)
		}
	}
	// In general: contiguous, covering, sizes differ by at most one, smaller blocks first.
	for rows := 0; rows <= 40; rows++ {
		for w := 1; w <= 12; w++ {
			s := blockStarts(rows, w)
			h := blockSizes(rows, w)
			if s[0] != 0 || s[w] != rows {
				t.Fatalf("rows=%d W=%d: starts %v", rows, w, s)
			}
			for k := 1; k < w; k++ {
				if h[k] < h[k-1] || h[k]-h[0] > 1 {
					t.Fatalf("rows=%d W=%d: sizes %v", rows, w, h)
				}
			}
		}
	}
	// forBlocks visits each row once, and starts no goroutine for an empty block.
	for _, c := range [][2]int{{1, 1}, {2, 3}, {7, 3}, {5, 7}, {100, 7}} {
		rows, w := c[0], c[1]
		seen := make([]int, rows)
		calls := make([]int, w)
		forBlocks(rows, w, func(k, lo, hi int) {
			calls[k]++
			for i := lo; i < hi; i++ {
				seen[i]++
			}
		})
		h := blockSizes(rows, w)
		for k := range calls {
			if (h[k] == 0) != (calls[k] == 0) || calls[k] > 1 {
				t.Errorf("rows=%d W=%d: block %d of %d rows called %d times", rows, w, k, h[k], calls[k])
			}
		}
		for i, x := range seen {
			if x != 1 {
				t.Errorf("rows=%d W=%d: row %d visited %d times", rows, w, i, x)
			}
		}
	}
	// channelRows hands every row to exactly one worker.
	for _, c := range [][2]int{{1, 1}, {2, 3}, {50, 7}} {
		rows, w := c[0], c[1]
		seen := make([]int32, rows)
		busy := channelRows(rows, w, func(i int) { seen[i]++ })
		if len(busy) != channelWorkers(rows, w) {
			t.Errorf("rows=%d W=%d: %d workers", rows, w, len(busy))
		}
		for i, x := range seen {
			if x != 1 {
				t.Errorf("channel rows=%d W=%d: row %d handled %d times", rows, w, i, x)
			}
		}
	}
}

// ---- hand-made inputs

// The tie rule: bins are taken whole from the top; the scan stops right after the bin that
// lifts the total above count, and every cell equal to t is kept.
func TestThresholdTieRule(t *testing.T) {
	var h histogram
	// n = 10: 100 cells; p = 5 gives count = 5.
	h[99], h[98], h[97], h[50] = 3, 2, 4, 91
	if got := chooseThreshold(&h, 99, 10, 5); got != 97 {
		t.Errorf("3+2 = 5 is not above 5, so 97 must be taken: t = %d", got)
	}
	if got := chooseThreshold(&h, 99, 10, 4); got != 98 { // count 4: 3 <= 4, then 5 > 4
		t.Errorf("count 4: t = %d, want 98", got)
	}
	if got := chooseThreshold(&h, 99, 10, 2); got != 99 { // count 2: 3 > 2 at once
		t.Errorf("count 2: t = %d, want 99", got)
	}
	if got := chooseThreshold(&h, 99, 10, 100); got != 0 { // never above n², so down to 0
		t.Errorf("p = 100: t = %d, want 0", got)
	}
	if got := chooseThreshold(&h, 99, 10, 0); got != 99 {
		t.Errorf("p = 0: t = %d, want 99", got)
	}
	// Through the shapes: a 3×3 matrix whose top bin ties.
	m := []byte{
		5, 9, 1,
		9, 2, 9,
		7, 7, 0,
	}
	for name, sh := range cowichanShapes {
		for _, w := range []int{1, 2, 3, 7} {
			// count = floor(9·12/100) = 1; hist[9] = 3 > 1, so t = 9 and three cells are kept.
			mask, th, _ := sh.thresh(m, 3, 12, w)
			if th != 9 || fmt.Sprint(mask) != "[0 1 0 1 0 1 0 0 0]" {
				t.Errorf("%s W=%d p=12: t=%d mask %v", name, w, th, mask)
			}
			// count = floor(9·40/100) = 3: 3 ≤ 3, then the 7s lift it to 5, so t = 7.
			mask, th, _ = sh.thresh(m, 3, 40, w)
			if th != 7 || fmt.Sprint(mask) != "[0 1 0 1 0 1 1 1 0]" {
				t.Errorf("%s W=%d p=40: t=%d mask %v", name, w, th, mask)
			}
		}
	}
}

// The sort key orders by value, then row, then column; the pick takes every chunk-th.
func TestWinnowSortHandMade(t *testing.T) {
	m := []byte{
		4, 1, 4, 0,
		1, 4, 0, 1,
		0, 2, 1, 4,
		3, 3, 3, 3,
	}
	mask := []byte{
		1, 1, 1, 0,
		1, 1, 0, 1,
		0, 0, 1, 1,
		1, 0, 0, 1,
	}
	// Sorted candidates (value, i, j): (1,0,1) (1,1,0) (1,1,3) (1,2,2) (3,3,0) (3,3,3)
	// (4,0,0) (4,0,2) (4,1,1) (4,2,3): K = 10.
	order := [][2]int{{0, 1}, {1, 0}, {1, 3}, {2, 2}, {3, 0}, {3, 3}, {0, 0}, {0, 2}, {1, 1}, {2, 3}}
	for name, sh := range cowichanShapes {
		for _, w := range []int{1, 2, 3, 7} {
			for _, nelts := range []int{1, 3, 4, 10} {
				pts, k, _, err := sh.winnow(m, mask, 4, nelts, w)
				if err != nil || k != 10 {
					t.Fatalf("%s W=%d nelts=%d: K=%d err=%v", name, w, nelts, k, err)
				}
				chunk := 10 / nelts
				for i := 0; i < nelts; i++ {
					if want := order[i*chunk]; pts.x[i] != want[0] || pts.y[i] != want[1] {
						t.Errorf("%s W=%d nelts=%d: point %d is (%d,%d), want %v", name, w, nelts, i, pts.x[i], pts.y[i], want)
					}
				}
			}
			if _, k, _, err := sh.winnow(m, mask, 4, 11, w); err == nil || k != 10 {
				t.Errorf("%s W=%d: nelts 11 > K=%d accepted", name, w, k)
			}
		}
	}
	keys := keySlice{3<<keyShift | 5, 1<<keyShift | 9, 3<<keyShift | 2, 0<<keyShift | 100}
	sort.Sort(keys)
	if fmt.Sprint(mergeKeys(keys[:2], keys[2:])) != fmt.Sprint([]uint64{100, 1<<keyShift | 9, 3<<keyShift | 2, 3<<keyShift | 5}) {
		t.Errorf("sorted keys %v", keys)
	}
	if got := mergeKeys([]uint64{1, 4, 9}, []uint64{2, 3, 10, 11}); fmt.Sprint(got) != "[1 2 3 4 9 10 11]" {
		t.Errorf("merge %v", got)
	}
}

func TestQuantiseAndChecksums(t *testing.T) {
	if q := quantise(-1); q != -1000000 {
		t.Errorf("q(-1) = %d", q)
	}
	if q := quantise(2.5); q != 2500000 {
		t.Errorf("q(2.5) = %d", q)
	}
	// Half away from zero, on values whose product with 1e6 is exactly k + 1/2 in binary64.
	for x, want := range map[float64]int64{2.5e-6: 3, -2.5e-6: -3, 0.5e-6: 1, -0.5e-6: -1, 1.25e-5: 13} {
		if x*1e6 != math.Floor(x*1e6)+0.5 {
			t.Fatalf("%v·1e6 is not a half", x)
		}
		if q := quantise(x); q != want {
			t.Errorf("q(%v) = %d, want %d", x, q, want)
		}
	}
	// A negative q enters as its two's complement: -1e6·1 + 2e6·2 = 3e6.
	if cs := floatChecksum([]float64{-1, 2}); cs != 3000000 {
		t.Errorf("checksum %d", cs)
	}
	if cs := floatChecksum([]float64{-1}); cs != math.MaxUint64-1000000+1 {
		t.Errorf("checksum of -1: %d", cs)
	}
	if cs := byteChecksum([]byte{3, 0, 1}); cs != 3+3 {
		t.Errorf("byte checksum %d", cs)
	}
	if cs := pointsChecksum(cowPoints{[]int{1, 2}, []int{3, 4}}); cs != 1*1+3*2+2*3+4*4 {
		t.Errorf("points checksum %d", cs)
	}
}

// ---- every shape against the sequential kernels

type cowCase struct {
	n, p, nelts int
	seed        uint32
}

func cowCases() []cowCase {
	cases := []cowCase{
		{1, 1, 1, 0}, {2, 50, 2, 7}, {3, 100, 9, 1}, {5, 30, 4, 12345}, {6, 0, 1, 99},
		{13, 10, 13, 0}, {17, 25, 20, 4294967295}, {40, 5, 40, 3}, {64, 1, 30, 2024},
	}
	return cases
}

func TestCowichanShapesAgainstSequential(t *testing.T) {
	withProcs(t, func(t *testing.T, procs int) {
		for _, c := range cowCases() {
			sm := seqRandmat(c.n, c.seed)
			smask, st := seqThresh(sm, c.p)
			xs, ys, sk, ok := seqWinnow(sm, smask, c.nelts)
			if !ok {
				t.Fatalf("case %+v: too few candidates (%d) for the test", c, sk)
			}
			sd, sv := seqOuter(xs, ys)
			sr := seqProduct(sd, sv)
			for name, sh := range cowichanShapes {
				for _, w := range []int{1, 2, 3, 7} {
					at := fmt.Sprintf("GOMAXPROCS=%d %s W=%d %+v", procs, name, w, c)
					m, _ := sh.randmat(c.n, c.seed, w)
					if string(m) != string(flatInts(sm)) {
						t.Errorf("%s: randmat differs", at)
					}
					mask, th, _ := sh.thresh(m, c.n, c.p, w)
					if th != st || string(mask) != string(flatInts(smask)) {
						t.Errorf("%s: thresh t=%d (want %d) or mask differs", at, th, st)
					}
					pts, k, _, err := sh.winnow(m, mask, c.n, c.nelts, w)
					if err != nil || k != sk || fmt.Sprint(pts.x, pts.y) != fmt.Sprint(xs, ys) {
						t.Errorf("%s: winnow K=%d (want %d) err=%v points %v %v, want %v %v", at, k, sk, err, pts.x, pts.y, xs, ys)
						continue
					}
					d, v, _ := sh.outer(pts, w)
					if !sameFloats(d, flatFloats(sd)) || !sameFloats(v, sv) {
						t.Errorf("%s: outer differs", at)
					}
					r, _ := sh.product(d, v, w)
					if !sameFloats(r, sr) {
						t.Errorf("%s: product differs", at)
					}
				}
			}
		}
	})
}

// The iterations as the binary runs them: result strings from the sequential kernels, the
// compute_ns metric in the channel shape only, chain's stage metrics in both.
func TestCowichanIterations(t *testing.T) {
	for _, c := range []cowCase{{12, 20, 12, 5}, {30, 3, 25, 0}} {
		sm := seqRandmat(c.n, c.seed)
		smask, st := seqThresh(sm, c.p)
		xs, ys, sk, _ := seqWinnow(sm, smask, c.nelts)
		sd, sv := seqOuter(xs, ys)
		sr := seqProduct(sd, sv)
		kept := 0
		for _, b := range flatInts(smask) {
			kept += int(b)
		}
		want := map[string]string{
			"randmat": fmt.Sprintf("checksum=%d", byteChecksum(flatInts(sm))),
			"thresh":  fmt.Sprintf("threshold=%d kept=%d checksum=%d", st, kept, byteChecksum(flatInts(smask))),
			"winnow":  fmt.Sprintf("candidates=%d checksum=%d", sk, pointsChecksum(cowPoints{xs, ys})),
			"outer":   fmt.Sprintf("matrix=%d vector=%d", floatChecksum(flatFloats(sd)), floatChecksum(sv)),
			"product": fmt.Sprintf("checksum=%d", floatChecksum(sr)),
			"chain":   fmt.Sprintf("checksum=%d", floatChecksum(sr)),
		}
		for b, result := range want {
			for _, shape := range []string{"row-channel", "blocks"} {
				for _, w := range []string{"1", "3"} {
					argv := []string{b, "--model", "goroutines", "--param", fmt.Sprint(c.n), "--iterations", "2",
						"--workers", w, "--option", "shape=" + shape, "--option", fmt.Sprintf("p=%d", c.p),
						"--option", fmt.Sprintf("nelts=%d", c.nelts), "--option", fmt.Sprintf("seed=%d", c.seed)}
					cli, err := parseArgs(argv)
					if err != nil {
						t.Fatal(err)
					}
					_, job, err := resolve(cli)
					if err != nil {
						t.Fatal(err)
					}
					for it := 0; it < 2; it++ {
						o := job()
						at := strings.Join(argv, " ")
						if o.result != result || o.ns <= 0 {
							t.Errorf("%s: %q in %d ns, want %q", at, o.result, o.ns, result)
						}
						mm := metricMap(o.metrics)
						if _, ok := mm["compute_ns"]; ok != (shape == "row-channel") {
							t.Errorf("%s: compute_ns present = %v", at, ok)
						}
						for _, s := range []string{"randmat", "thresh", "winnow", "outer", "product"} {
							if v, ok := mm["stage_"+s+"_ns"]; ok != (b == "chain") || (ok && v.(int64) <= 0) {
								t.Errorf("%s: stage_%s_ns = %v", at, s, v)
							}
						}
					}
				}
			}
		}
	}
	// nelts defaults to n.
	cli, _ := parseArgs([]string{"winnow", "--model", "goroutines", "--param", "9", "--iterations", "1", "--option", "p=30"})
	r, _, err := resolve(cli)
	if err != nil {
		t.Fatal(err)
	}
	if prm, _, _ := cowichanRequest(r); prm.nelts != 9 || prm.p != 30 || prm.seed != 0 || prm.workers < 1 {
		t.Errorf("defaults: %+v", prm)
	}
}
