package main

// big (big.md): N workers in neighbourhoods of H ping random neighbours P times each; a sink
// counts the workers that are done.
//
// Shape csp: one goroutine per worker reading one buffered channel of tagged messages. The
// channel of a worker in neighbourhood g holds S_g + 1 messages, the most that can ever be
// pending for it (S_g pings, one from each neighbour including itself, plus one pong), so a
// send never blocks (pitfall 1). The sink is a goroutine reading a channel of capacity N;
// it closes a channel when all N exits are in. Neighbour tables: one immutable table per
// neighbourhood, shared by its workers (a sub-slice of the slice of all inboxes).

import (
	"fmt"
	"math"
	"sync"
	"time"
)

const (
	bigPing = iota
	bigPong
)

// bigStart is the local id carried by the first pong: distinct from every local id.
const bigStart = -1

// bigMsg is a tagged message: a ping or a pong, and the sender's local id.
type bigMsg struct {
	kind uint8
	from int32
}

// bigCounts is what a worker received, written once by the worker when it stops.
type bigCounts struct {
	pings, pongs uint64
}

const (
	// bigMaxWorkers bounds N (the table's param domain); H has no bound of its own: a
	// neighbourhood holds min(N, H) workers.
	bigMaxWorkers = 1 << 16
	// bigMaxPings bounds P: the message count 2·N·P (a uint64) stays exact for every N.
	bigMaxPings = math.MaxUint64 / (2 * bigMaxWorkers)
	// bigMaxSlots bounds the channel slots of a run, N·(min(N, H) + 1) of 8 bytes each
	// (2 GiB): a combination of N and H the table's domains cannot express.
	bigMaxSlots = 1 << 28
)

// prepareBig reads N, P and H, already inside their domains (main.go's table).
func prepareBig(r *request) (iterationFunc, error) {
	n, pings, hood := int(r.paramInt()), int(r.intOption("pings")), int(r.intOption("hood"))
	if slots := int64(n) * int64(minInt(n, hood)+1); slots > bigMaxSlots {
		return nil, usagef("--param %d with --option hood=%d: N·(min(N, H)+1) = %d channel slots, more than %d (2 GiB)",
			n, hood, slots, bigMaxSlots)
	}
	switch r.shape {
	case "csp":
		return func() outcome { return runBigCSP(n, pings, hood) }, nil
	}
	return nil, usagef("unknown shape %q for big", r.shape)
}

func runBigCSP(n, pings, hood int) outcome {
	counts := make([]bigCounts, n)
	var stopped sync.WaitGroup

	start := time.Now()
	// 1. The sink, the inboxes (wired into one table per neighbourhood) and the workers.
	sink := make(chan struct{}, n)
	done := make(chan struct{})
	go func() {
		for exits := 0; exits < n; exits++ {
			<-sink
		}
		close(done)
	}()
	inboxes := make([]chan bigMsg, n)
	for g := 0; g*hood < n; g++ {
		lo, hi := g*hood, minInt(n, (g+1)*hood)
		for w := lo; w < hi; w++ {
			inboxes[w] = make(chan bigMsg, hi-lo+1)
		}
	}
	stopped.Add(n)
	for w := 0; w < n; w++ {
		lo := w / hood * hood
		table := inboxes[lo:minInt(n, lo+hood)]
		go bigWorker(w, int32(w-lo), table, inboxes[w], pings, sink, &counts[w], &stopped)
	}
	// 2. The first pong to every worker, in order.
	for w := 0; w < n; w++ {
		inboxes[w] <- bigMsg{bigPong, bigStart}
	}
	// 3. The sink has all N exits.
	<-done
	ns := time.Since(start).Nanoseconds()

	// Quiescent now: every ping was answered. Stop the workers and read their counters.
	for _, inbox := range inboxes {
		close(inbox)
	}
	stopped.Wait()
	var messages, checksum uint64
	minRecv, maxRecv := counts[0].pings, counts[0].pings
	for w, c := range counts {
		messages += c.pings + c.pongs
		checksum += c.pings * uint64(w+1)
		if c.pings < minRecv {
			minRecv = c.pings
		}
		if c.pings > maxRecv {
			maxRecv = c.pings
		}
	}
	return outcome{
		ns:     ns,
		result: fmt.Sprintf("messages=%d checksum=%d", messages, checksum),
		metrics: []metric{
			floatMetric("throughput", float64(messages)/(float64(ns)/1e9)),
			intMetric("min_recv", int64(minRecv)),
			intMetric("max_recv", int64(maxRecv)),
		},
	}
}

// bigWorker is one worker: w is its global number, j its local id, table its neighbourhood.
// It keeps one ping outstanding at a time and keeps answering pings after its exit, until
// its inbox is closed.
func bigWorker(w int, j int32, table []chan bigMsg, inbox <-chan bigMsg, pings int,
	sink chan<- struct{}, out *bigCounts, stopped *sync.WaitGroup) {
	rng := uint32(w) // LCG32 seeded with the worker number
	size := uint32(len(table))
	expected := int32(bigStart)
	sent := 0
	var c bigCounts
	for m := range inbox {
		if m.kind == bigPing {
			c.pings++
			table[m.from] <- bigMsg{bigPong, j}
			continue
		}
		if m.from != expected {
			fatal("big: WrongPinger: worker %d expected a pong from %d, got one from %d", w, expected, m.from)
		}
		if m.from != bigStart {
			c.pongs++
		}
		if sent == pings {
			sink <- struct{}{}
			continue
		}
		rng = 1664525*rng + 1013904223
		t := int32(rng % size)
		expected = t
		sent++
		table[t] <- bigMsg{bigPing, j}
	}
	*out = c
	stopped.Done()
}

func minInt(a, b int) int {
	if a < b {
		return a
	}
	return b
}
