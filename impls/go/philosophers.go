package main

// philosophers (docs/benchmarks/philosophers.md): n philosophers round a table of n forks;
// philosopher i eats m times with fork i (left) and fork (i+1) mod n (right), holding both.
//
// ordered: one sync.Mutex per fork, and every philosopher locks the lower-numbered of its two
// forks first (philosopher n-1 therefore starts with fork 0), so no cycle of waiters can form.
// A waiting philosopher blocks in Lock, never polls; there is no lock over the whole table.

import (
	"fmt"
	"sync"
	"time"
)

// philosophersMinN: one fork for both hands would lock one mutex twice.
const philosophersMinN = 2

// noHolder is a fork's holder while it lies on the table.
const noHolder = -1

// fork is one fork. mu guards the other fields, which only a philosopher holding mu reads or
// writes: holder is the philosopher eating with it, uses counts the meals eaten with it and
// overlaps the takes that found it already held (0 unless the exclusion is broken). The
// padding keeps neighbouring forks off one cache line.
type fork struct {
	mu       sync.Mutex
	holder   int
	uses     int64
	overlaps int64
	_        [32]byte
}

func (f *fork) take(who int) { // mu held
	if f.holder != noHolder {
		f.overlaps++
	}
	f.holder = who
}

func (f *fork) use() { f.uses++ } // mu held

func (f *fork) putDown() { f.holder = noHolder } // mu held

// seat is one philosopher's own meal counter, written by it alone.
type seat struct {
	meals int64
	_     [56]byte
}

// table is what a run leaves behind: the forks and the philosophers' counters.
type table struct {
	forks []fork
	seats []seat
}

func preparePhilosophers(r *request) (iterationFunc, error) {
	n, m := int(r.intOption("n")), r.paramInt()
	var run func(n int, m int64) *table
	switch r.shape {
	case "ordered":
		run = philosophersOrdered
	default:
		return nil, usagef("unknown shape %q for philosophers", r.shape)
	}
	return func() outcome {
		start := time.Now()
		t := run(n, m)
		ns := time.Since(start).Nanoseconds()
		s := t.tally()
		return outcome{
			ns:      ns,
			result:  fmt.Sprintf("meals=%d fork_uses=%d overlaps=%d", s.meals, s.forkUses, s.overlaps),
			metrics: []metric{intMetric("min_meals", s.minMeals), intMetric("max_meals", s.maxMeals)},
		}
	}, nil
}

// philosophersOrdered creates the n forks, starts the n philosophers and waits for all of them.
func philosophersOrdered(n int, m int64) *table {
	t := &table{forks: make([]fork, n), seats: make([]seat, n)}
	for k := range t.forks {
		t.forks[k].holder = noHolder
	}
	var wg sync.WaitGroup
	wg.Add(n)
	for i := 0; i < n; i++ {
		go func(i int) {
			defer wg.Done()
			left, right := &t.forks[i], &t.forks[(i+1)%n]
			first, second := left, right
			if (i+1)%n < i {
				first, second = right, left
			}
			own := &t.seats[i]
			for k := int64(0); k < m; k++ {
				first.mu.Lock()
				second.mu.Lock()
				left.take(i)
				right.take(i)
				own.meals++ // eat
				left.use()
				right.use()
				left.putDown()
				right.putDown()
				second.mu.Unlock()
				first.mu.Unlock()
			}
		}(i)
	}
	wg.Wait()
	return t
}

// tableTally is the result's three sums and the extremes of the philosophers' counts.
type tableTally struct {
	meals, forkUses, overlaps int64
	minMeals, maxMeals        int64
}

// tally reads the counters after the run (wg.Wait orders every write before these reads).
func (t *table) tally() tableTally {
	s := tableTally{minMeals: t.seats[0].meals, maxMeals: t.seats[0].meals}
	for i := range t.seats {
		k := t.seats[i].meals
		s.meals += k
		if k < s.minMeals {
			s.minMeals = k
		}
		if k > s.maxMeals {
			s.maxMeals = k
		}
		s.forkUses += t.forks[i].uses
		s.overlaps += t.forks[i].overlaps
	}
	return s
}
