package main

// The SCOOP/Qs paper's coordination benchmarks (mutex.md, prodcons.md, condition.md) and
// threadring (threadring.md), each in the shapes the specs name for Go.
//
// mutex:      lock (sync.Mutex per increment, completion on a done channel; the paper's Go),
//             channel (a counter goroutine owns c; increments and the final read on one channel)
// prodcons:   cond (a slice behind sync.Mutex and one sync.Cond, Signal after every put and take),
//             channel (one channel of capacity N = n·m, unbounded in effect)
// condition:  paper (sync.Mutex and one sync.Cond, Signal before Wait and after the increment),
//             broadcast (Wait while the parity is wrong, Broadcast after each increment)
// threadring: paper (the paper's program, the Benchmarks Game's: a locked sync.Mutex per goroutine
//             used as a binary semaphore, and runtime.Gosched() after every hand-off), mutex (the
//             same without the Gosched), channel (one unbuffered channel per goroutine)
//
// Waiting is always blocking in the runtime (mutex, Cond, channel), never polling.

import (
	"fmt"
	"math"
	"runtime"
	"sync"
	"time"
)

const (
	// coordMaxWorkers bounds n (workers, or workers per side): goroutines of 2n at most.
	coordMaxWorkers = 1 << 20
	// coordMaxM bounds m; with n ≤ 2^20 every count (2·n·m) stays far inside int64.
	coordMaxM = math.MaxInt32
	// prodconsMaxChannel bounds N = n·m for prodcons' channel shape, whose buffer holds all N
	// items (8 bytes each: 2 GiB): a combination of n and m the table cannot express.
	prodconsMaxChannel = 1 << 28
	// threadringMaxN bounds the token; threadringMaxRing bounds R (one goroutine each).
	threadringMaxN    = 1_000_000_000_000_000_000
	threadringMaxRing = 1 << 20
)

// coordinationBenchmark is the table entry of mutex, prodcons and condition: --param m (0
// allowed: no work, the closed forms still hold) and option n.
func coordinationBenchmark(shapes []string, prepare func(*request) (iterationFunc, error)) *benchmarkDef {
	return &benchmarkDef{
		Param: intDomain(0, coordMaxM),
		Models: map[string]modelDef{
			"goroutines": {
				Shapes: shapes,
				Options: map[string]domain{
					"n": intDomain(1, coordMaxWorkers).withDefault("32").
						because("one goroutine per worker (2n in prodcons and condition), each with at least 2 KiB of stack"),
				},
			},
		},
		prepare: prepare,
	}
}

// ---- mutex

func prepareMutex(r *request) (iterationFunc, error) {
	n, m := int(r.intOption("n")), r.paramInt()
	var run func(n int, m int64) int64
	switch r.shape {
	case "lock":
		run = mutexLock
	case "channel":
		run = mutexChannel
	default:
		return nil, usagef("unknown shape %q for mutex", r.shape)
	}
	return func() outcome {
		start := time.Now()
		c := run(n, m)
		ns := time.Since(start).Nanoseconds()
		return outcome{ns: ns, result: fmt.Sprintf("count=%d", c)}
	}, nil
}

// mutexLock: n goroutines, one Lock/Unlock per increment; each signals done when finished.
func mutexLock(n int, m int64) int64 {
	var mu sync.Mutex
	var c int64
	done := make(chan struct{})
	for w := 0; w < n; w++ {
		go func() {
			for i := int64(0); i < m; i++ {
				mu.Lock()
				c++
				mu.Unlock()
			}
			done <- struct{}{}
		}()
	}
	for w := 0; w < n; w++ {
		<-done
	}
	mu.Lock() // the final read under the same exclusion
	v := c
	mu.Unlock()
	return v
}

// mutexChannel: a counter goroutine owns c and reads one unbuffered channel. A nil message is
// an increment; a non-nil one is the final read, answered on it. One channel keeps the read
// behind every increment (a select over two channels could take the read first).
func mutexChannel(n int, m int64) int64 {
	ops := make(chan chan int64)
	go func() {
		var c int64
		for op := range ops {
			if op == nil {
				c++
				continue
			}
			op <- c
			return
		}
	}()
	done := make(chan struct{})
	for w := 0; w < n; w++ {
		go func() {
			for i := int64(0); i < m; i++ {
				ops <- nil
			}
			done <- struct{}{}
		}()
	}
	for w := 0; w < n; w++ {
		<-done
	}
	reply := make(chan int64)
	ops <- reply
	return <-reply
}

// ---- prodcons

func prepareProdcons(r *request) (iterationFunc, error) {
	n, m := int(r.intOption("n")), r.paramInt()
	var run func(n int, m int64) (consumed, sum uint64)
	switch r.shape {
	case "cond":
		run = prodconsCond
	case "channel":
		if total := int64(n) * m; total > prodconsMaxChannel {
			return nil, usagef("--param %d with --option n=%d: shape channel buffers n·m = %d items, more than %d (2 GiB)",
				m, n, total, int64(prodconsMaxChannel))
		}
		run = prodconsChannel
	default:
		return nil, usagef("unknown shape %q for prodcons", r.shape)
	}
	return func() outcome {
		start := time.Now()
		consumed, sum := run(n, m)
		ns := time.Since(start).Nanoseconds()
		return outcome{ns: ns, result: fmt.Sprintf("consumed=%d sum=%d", consumed, sum)}
	}, nil
}

// consumerTotals is one consumer's count and sum (mod 2^64), written once when it is done.
type consumerTotals struct{ cnt, sum uint64 }

// prodconsJoin starts n consumers, then n producers, waits for all 2n and adds the totals.
func prodconsJoin(n int, m int64, consume func(m int64) consumerTotals, produce func(p, m int64)) (uint64, uint64) {
	totals := make([]consumerTotals, n)
	var wg sync.WaitGroup
	wg.Add(2 * n)
	for c := 0; c < n; c++ {
		go func(c int) {
			totals[c] = consume(m)
			wg.Done()
		}(c)
	}
	for p := 0; p < n; p++ {
		go func(p int64) {
			produce(p, m)
			wg.Done()
		}(int64(p))
	}
	wg.Wait()
	var consumed, sum uint64
	for _, t := range totals {
		consumed += t.cnt
		sum += t.sum
	}
	return consumed, sum
}

// prodconsCond: a LIFO slice (order is irrelevant) behind one mutex and one Cond.
func prodconsCond(n int, m int64) (uint64, uint64) {
	var mu sync.Mutex
	nonEmpty := sync.NewCond(&mu)
	var q []uint64
	consume := func(m int64) consumerTotals {
		var t consumerTotals
		for i := int64(0); i < m; i++ {
			mu.Lock()
			for len(q) == 0 {
				nonEmpty.Wait()
			}
			v := q[len(q)-1]
			q = q[:len(q)-1]
			nonEmpty.Signal() // the paper's Go: a signal after every take as well
			mu.Unlock()
			t.sum += v
			t.cnt++
		}
		return t
	}
	produce := func(p, m int64) {
		for k := int64(0); k < m; k++ {
			mu.Lock()
			q = append(q, uint64(p*m+k+1))
			nonEmpty.Signal()
			mu.Unlock()
		}
	}
	return prodconsJoin(n, m, consume, produce)
}

// prodconsChannel: one channel with room for all N items, so producers never wait.
func prodconsChannel(n int, m int64) (uint64, uint64) {
	ch := make(chan uint64, int64(n)*m)
	consume := func(m int64) consumerTotals {
		var t consumerTotals
		for i := int64(0); i < m; i++ {
			v := <-ch
			t.sum += v
			t.cnt++
		}
		return t
	}
	produce := func(p, m int64) {
		for k := int64(0); k < m; k++ {
			ch <- uint64(p*m + k + 1)
		}
	}
	return prodconsJoin(n, m, consume, produce)
}

// ---- condition

func prepareCondition(r *request) (iterationFunc, error) {
	n, m := int(r.intOption("n")), r.paramInt()
	var broadcast bool
	switch r.shape {
	case "paper":
	case "broadcast":
		broadcast = true
	default:
		return nil, usagef("unknown shape %q for condition", r.shape)
	}
	return func() outcome {
		start := time.Now()
		v := conditionRun(n, m, broadcast)
		ns := time.Since(start).Nanoseconds()
		return outcome{ns: ns, result: fmt.Sprintf("value=%d", v)}
	}, nil
}

// conditionRun starts 2n workers (parity w mod 2) on one mutex and one Cond and joins them.
//
// paper: a worker of the wrong parity signals before it waits, passing the wake-up along, and
// every increment is followed by a signal. Go's Cond wakes its waiters in FIFO order, so the
// passed wake-up reaches a worker of the right parity within one round of the waiters.
// broadcast: wait while the parity is wrong, wake everyone after each increment.
func conditionRun(n int, m int64, broadcast bool) int64 {
	var mu sync.Mutex
	turn := sync.NewCond(&mu)
	var x int64
	var wg sync.WaitGroup
	wg.Add(2 * n)
	for w := 0; w < 2*n; w++ {
		go func(f int64) {
			defer wg.Done()
			for i := int64(0); i < m; i++ {
				mu.Lock()
				for x%2 != f {
					if !broadcast {
						turn.Signal()
					}
					turn.Wait()
				}
				x++
				if broadcast {
					turn.Broadcast()
				} else {
					turn.Signal()
				}
				mu.Unlock()
			}
		}(int64(w % 2))
	}
	wg.Wait()
	mu.Lock()
	v := x
	mu.Unlock()
	return v
}

// ---- threadring

func prepareThreadring(r *request) (iterationFunc, error) {
	n, ring := r.paramInt(), int(r.intOption("ring"))
	var run func(n int64, ring int) (id int, ns int64)
	switch r.shape {
	case "paper":
		run = func(n int64, ring int) (int, int64) { return threadringMutex(n, ring, true) }
	case "mutex":
		run = func(n int64, ring int) (int, int64) { return threadringMutex(n, ring, false) }
	case "channel":
		run = threadringChannel
	default:
		return nil, usagef("unknown shape %q for threadring", r.shape)
	}
	return func() outcome {
		id, ns := run(n, ring)
		return outcome{ns: ns, result: fmt.Sprintf("id=%d", id)}
	}, nil
}

// threadringMutex: entity k (index k-1) waits by locking its own mutex, which stays locked
// except while a token is being handed to it; a pass stores t-1 in the successor's slot and
// unlocks the successor's mutex (a Go mutex may be unlocked by another goroutine). Token -1
// stops an entity (teardown, untimed). With yield, an entity gives up its thread after every
// hand-off (runtime.Gosched), as the paper's program did.
func threadringMutex(n int64, ring int, yield bool) (int, int64) {
	locks := make([]sync.Mutex, ring)
	tokens := make([]int64, ring)
	report := make(chan int, 1)
	var stopped sync.WaitGroup

	start := time.Now()
	for k := range locks {
		locks[k].Lock()
	}
	stopped.Add(ring)
	for k := 0; k < ring; k++ {
		go func(k int) {
			defer stopped.Done()
			next := (k + 1) % ring
			for {
				locks[k].Lock()
				t := tokens[k]
				switch {
				case t < 0:
					return
				case t == 0:
					report <- k + 1
					return
				}
				tokens[next] = t - 1
				locks[next].Unlock()
				if yield {
					runtime.Gosched()
				}
			}
		}(k)
	}
	tokens[0] = n
	locks[0].Unlock()
	id := <-report
	ns := time.Since(start).Nanoseconds()

	// Every mutex is locked now and every other entity is at (or on its way to) its Lock.
	for k := 0; k < ring; k++ {
		if k != id-1 {
			tokens[k] = -1
			locks[k].Unlock()
		}
	}
	stopped.Wait()
	return id, ns
}

// threadringChannel: entity k receives on its own unbuffered channel and sends t-1 to its
// successor's. Closing every channel stops them (teardown, untimed).
func threadringChannel(n int64, ring int) (int, int64) {
	report := make(chan int, 1)
	var stopped sync.WaitGroup

	start := time.Now()
	inboxes := make([]chan int64, ring)
	for k := range inboxes {
		inboxes[k] = make(chan int64)
	}
	stopped.Add(ring)
	for k := 0; k < ring; k++ {
		go func(k int, in <-chan int64, next chan<- int64) {
			defer stopped.Done()
			for t := range in {
				if t == 0 {
					report <- k + 1
					continue
				}
				next <- t - 1
			}
		}(k, inboxes[k], inboxes[(k+1)%ring])
	}
	inboxes[0] <- n
	id := <-report
	ns := time.Since(start).Nanoseconds()

	// No send is pending: the last one was received by the reporter.
	for _, in := range inboxes {
		close(in)
	}
	stopped.Wait()
	return id, ns
}
