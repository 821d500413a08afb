package main

// fannkuch (fannkuch.md): fannkuch-redux over all n! permutations, the index range cut into
// K chunks (K = 150 by default, whatever the core count).
//
// Shape per-chunk: one goroutine per chunk, each sending (max, partial checksum) on a channel
// with room for every chunk; the main goroutine combines them. GOMAXPROCS bounds how many run
// at once. Shape pull: W = GOMAXPROCS goroutines take chunk numbers from an atomic counter
// (the Scala program's scheme), keep a local max and checksum over their chunks and send
// them once at the end.

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"time"
)

// fannkuchMaxN keeps n! within int64.
const fannkuchMaxN = 20

// fannkuchMaxChunks bounds K, so that per-chunk starts at most a million goroutines (a few GB
// at most).
const fannkuchMaxChunks = 1000000

type fannkuchPartial struct {
	maxFlips int
	checksum int64
}

func (a *fannkuchPartial) add(b fannkuchPartial) {
	if b.maxFlips > a.maxFlips {
		a.maxFlips = b.maxFlips
	}
	a.checksum += b.checksum
}

// fannkuchPlan is the split of [0, n!) into tasks of chunk indexes each.
type fannkuchPlan struct {
	n            int
	total, chunk int64
	tasks        int64
	fact         [fannkuchMaxN + 1]int64
}

func newFannkuchPlan(n int, k int64) fannkuchPlan {
	p := fannkuchPlan{n: n}
	p.fact[0] = 1
	for i := 1; i <= fannkuchMaxN; i++ {
		p.fact[i] = p.fact[i-1] * int64(i)
	}
	p.total = p.fact[n]
	p.chunk = (p.total + k - 1) / k
	p.tasks = (p.total + p.chunk - 1) / p.chunk
	return p
}

// prepareFannkuch reads n and K, already inside their domains (main.go's table).
func prepareFannkuch(r *request) (iterationFunc, error) {
	plan := newFannkuchPlan(int(r.paramInt()), r.intOption("chunks"))
	var run func(fannkuchPlan) fannkuchPartial
	switch r.shape {
	case "per-chunk":
		run = fannkuchPerChunk
	case "pull":
		run = fannkuchPull
	default:
		return nil, usagef("unknown shape %q for fannkuch", r.shape)
	}
	return func() outcome {
		start := time.Now()
		res := run(plan)
		ns := time.Since(start).Nanoseconds()
		return outcome{ns: ns, result: fmt.Sprintf("maxflips=%d checksum=%d", res.maxFlips, res.checksum),
			metrics: []metric{intMetric("tasks", plan.tasks), intMetric("chunk", plan.chunk)}}
	}, nil
}

func fannkuchPerChunk(plan fannkuchPlan) fannkuchPartial {
	results := make(chan fannkuchPartial, plan.tasks)
	for t := int64(0); t < plan.tasks; t++ {
		go func(t int64) { results <- fannkuchTask(&plan, t) }(t)
	}
	var total fannkuchPartial
	for t := int64(0); t < plan.tasks; t++ {
		total.add(<-results)
	}
	return total
}

func fannkuchPull(plan fannkuchPlan) fannkuchPartial {
	workers := runtime.GOMAXPROCS(0)
	var next atomic.Int64
	results := make(chan fannkuchPartial, workers)
	for w := 0; w < workers; w++ {
		go func() {
			var local fannkuchPartial
			for t := next.Add(1) - 1; t < plan.tasks; t = next.Add(1) - 1 {
				local.add(fannkuchTask(&plan, t))
			}
			results <- local
		}()
	}
	var total fannkuchPartial
	for w := 0; w < workers; w++ {
		total.add(<-results)
	}
	return total
}

// fannkuchTask covers the indexes [t·chunk, min(n!, (t+1)·chunk)); parity is taken from the
// global index.
func fannkuchTask(plan *fannkuchPlan, t int64) fannkuchPartial {
	n := plan.n
	lo := t * plan.chunk
	hi := lo + plan.chunk
	if hi > plan.total {
		hi = plan.total
	}
	var p, q, count [fannkuchMaxN]int
	fannkuchDecode(plan, lo, &p, &count)
	var r fannkuchPartial
	for i := lo; ; i++ {
		if p[0] != 0 {
			f := flips(&p, &q, n)
			if f > r.maxFlips {
				r.maxFlips = f
			}
			if i&1 == 0 {
				r.checksum += int64(f)
			} else {
				r.checksum -= int64(f)
			}
		}
		if i+1 >= hi {
			break
		}
		nextPerm(&p, &count)
	}
	return r
}

// fannkuchDecode sets p to perm(idx), leaving the count array for nextPerm.
func fannkuchDecode(plan *fannkuchPlan, idx int64, p, count *[fannkuchMaxN]int) {
	var tmp [fannkuchMaxN]int
	n := plan.n
	for i := 0; i < n; i++ {
		p[i] = i
	}
	for k := n - 1; k >= 1; k-- {
		d := int(idx / plan.fact[k])
		idx %= plan.fact[k]
		count[k] = d
		if d > 0 { // rotate p[0..k] left by d
			copy(tmp[:k+1], p[:k+1])
			for j := 0; j <= k; j++ {
				p[j] = tmp[(j+d)%(k+1)]
			}
		}
	}
}

// flips counts the prefix reversals of a copy of p until its first element is 0.
func flips(p, q *[fannkuchMaxN]int, n int) int {
	copy(q[:n], p[:n])
	f := 0
	for first := q[0]; first != 0; first = q[0] {
		for a, b := 0, first; a < b; a, b = a+1, b-1 {
			q[a], q[b] = q[b], q[a]
		}
		f++
	}
	return f
}

// nextPerm steps p from index i to i+1 (Mazurov's step), using and updating count.
func nextPerm(p, count *[fannkuchMaxN]int) {
	first := p[1]
	p[1] = p[0]
	p[0] = first
	k := 1
	count[k]++
	for count[k] > k {
		count[k] = 0
		k++
		nxt := p[1]
		p[0] = nxt
		for j := 1; j < k; j++ {
			p[j] = p[j+1]
		}
		p[k] = first
		first = nxt
		count[k]++
	}
}
