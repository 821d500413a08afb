package main

// chameneos (chameneos.md): creatures pair up at one meeting place until M meetings have
// happened; each pair takes the complement of its two colours.
//
// Shape rendezvous (the SCOOP study's Go program, written anew): one goroutine per creature;
// the place is a struct behind a sync.Mutex holding the meeting count and the waiting
// creature; each creature has an unbuffered channel on which, while it waits, the partner
// hands it its id and colour.
//
// Shape message (the CSP counterpart of the thesis's message form): the place is a goroutine
// reading one request channel; it replies on per-creature channels (meet or stop) and
// collects the reports. Every send is fire-and-forget: the request channel holds C messages
// and each reply channel one, the most that can ever be pending (a creature has at most one
// message outstanding to the place and the place at most one reply outstanding to it).
//
// Start gate (variant encore only): rendezvous creatures wait on a latch until all C have
// started; the message place holds the first C requests until it has them all.

import (
	"fmt"
	"math"
	"sync"
	"time"
)

type colour uint8

const (
	blue colour = iota
	red
	yellow
)

// complement is the only way a colour changes: the same colour stays, two different ones
// give the third.
func complement(a, b colour) colour {
	if a == b {
		return a
	}
	return 3 - a - b
}

// tenColours is the standard ten-creature list; creature i starts with tenColours[i mod 10].
var tenColours = [10]colour{blue, red, yellow, red, yellow, blue, red, yellow, red, blue}

// creatureReport is what a refused creature reports: its own counts and final colour.
type creatureReport struct {
	id       int
	meetings int64
	self     int64
	colour   colour
}

// game is one finished game: the meetings counted by the place, the creatures' reports
// (indexed by creature id).
type game struct {
	meetings int64
	reports  []creatureReport
}

// playFunc plays one game of c creatures and m meetings.
type playFunc func(c int, m int64, gate bool) game

const (
	// chameneosMaxMeetings bounds M (and redux's n): 2M, the creatures' meetings summed,
	// stays within int64.
	chameneosMaxMeetings = math.MaxInt64 / 2
	// chameneosMaxCreatures bounds variant=encore's C: about 3 GB of goroutines and channels.
	chameneosMaxCreatures = 1 << 20
)

// encoreCreatures is the domain of --param with variant=encore, narrower than the table's
// param domain (the union with redux's n): a combination the table cannot express.
var encoreCreatures = intDomain(2, chameneosMaxCreatures)

// prepareChameneos reads the variant and its sizes, already inside their domains (main.go's
// table), and rejects the combinations the table cannot express.
func prepareChameneos(r *request) (iterationFunc, error) {
	var play playFunc
	switch r.shape {
	case "rendezvous":
		play = playRendezvous
	case "message":
		play = playMessage
	default:
		return nil, usagef("unknown shape %q for chameneos", r.shape)
	}
	switch variant := r.option("variant"); variant {
	case "encore":
		if err := encoreCreatures.check(r.param); err != nil {
			return nil, usagef("--param %q (C, the number of creatures, with variant=encore): %v", r.param, err)
		}
		c, m := int(r.paramInt()), r.intOption("meetings")
		return func() outcome { return runEncore(play, c, m) }, nil
	case "redux":
		if r.given("meetings") {
			return nil, usagef("--option meetings belongs to variant=encore; with variant=redux the meetings per game are --param")
		}
		n := r.paramInt()
		return func() outcome { return runRedux(play, n) }, nil
	default:
		return nil, usagef("--option variant=%s: not handled", variant)
	}
}

func runEncore(play playFunc, c int, m int64) outcome {
	start := time.Now()
	g := play(c, m, true)
	ns := time.Since(start).Nanoseconds()
	s := g.summary()
	ms := []metric{
		floatMetric("fairness_std", s.std),
		floatMetric("cv", s.cv),
		intMetric("min_meetings", s.min),
		intMetric("max_meetings", s.max),
		intMetric("self_meetings", s.self),
		intMetric("colour_sum_mod3", s.colourSumMod3),
		floatMetric("throughput", float64(g.meetings)/(float64(ns)/1e9)),
	}
	return outcome{ns, fmt.Sprintf("meetings=%d creature_meetings=%d", g.meetings, s.total), ms}
}

func runRedux(play playFunc, n int64) outcome {
	start := time.Now()
	a := play(3, n, false)
	b := play(10, n, false)
	ns := time.Since(start).Nanoseconds()
	sa, sb := a.summary(), b.summary()
	ms := []metric{intMetric("self_meetings", sa.self+sb.self)}
	for _, x := range []struct {
		suffix string
		s      gameSummary
	}{{"_3", sa}, {"_10", sb}} {
		ms = append(ms,
			floatMetric("fairness_std"+x.suffix, x.s.std),
			floatMetric("cv"+x.suffix, x.s.cv),
			intMetric("min_meetings"+x.suffix, x.s.min),
			intMetric("max_meetings"+x.suffix, x.s.max),
			intMetric("colour_sum_mod3"+x.suffix, x.s.colourSumMod3))
	}
	ms = append(ms, floatMetric("throughput", float64(a.meetings+b.meetings)/(float64(ns)/1e9)))
	return outcome{ns, fmt.Sprintf("meetings3=%d creature_meetings3=%d meetings10=%d creature_meetings10=%d",
		a.meetings, sa.total, b.meetings, sb.total), ms}
}

// gameSummary holds the figures of one game (chameneos.md, Extra metrics).
type gameSummary struct {
	total, min, max, self, colourSumMod3 int64
	std, cv                              float64
}

func (g game) summary() gameSummary {
	c := len(g.reports)
	s := gameSummary{min: math.MaxInt64, max: math.MinInt64}
	for _, r := range g.reports {
		s.total += r.meetings
		s.self += r.self
		s.colourSumMod3 += int64(r.colour)
		if r.meetings < s.min {
			s.min = r.meetings
		}
		if r.meetings > s.max {
			s.max = r.meetings
		}
	}
	s.colourSumMod3 %= 3
	// Population standard deviation around the ideal mean 2M/C (M as counted by the place).
	mean := 2 * float64(g.meetings) / float64(c)
	var sq float64
	for _, r := range g.reports {
		d := float64(r.meetings) - mean
		sq += d * d
	}
	s.std = math.Sqrt(sq / float64(c))
	s.cv = s.std / mean // NaN (left out) only if no meeting happened
	return s
}

// ---- shape rendezvous

// rvPartner is what the second arrival hands the waiting creature.
type rvPartner struct {
	id     int
	colour colour
}

// rvPlace is the meeting place: one mutex, the meeting count and the waiting creature.
type rvPlace struct {
	mu          sync.Mutex
	meetings    int64
	limit       int64
	waiting     bool
	waitID      int
	waitColour  colour
	waitChannel chan rvPartner
}

func playRendezvous(c int, m int64, gate bool) game {
	place := &rvPlace{limit: m}
	reports := make(chan creatureReport, c)
	var arrived sync.WaitGroup
	var open chan struct{}
	if gate {
		arrived.Add(c)
		open = make(chan struct{})
	}
	for id := 0; id < c; id++ {
		go rvCreature(place, id, tenColours[id%10], open, &arrived, reports)
	}
	if gate {
		arrived.Wait()
		close(open)
	}
	g := game{reports: make([]creatureReport, c)}
	for i := 0; i < c; i++ {
		r := <-reports
		g.reports[r.id] = r
	}
	g.meetings = place.meetings // every creature has reported: nobody touches the place now
	return g
}

// rvCreature loops on meet() until it is refused, then reports. With a gate it first
// waits until every creature has started.
func rvCreature(place *rvPlace, id int, col colour, gate chan struct{}, arrived *sync.WaitGroup,
	reports chan<- creatureReport) {
	if gate != nil {
		arrived.Done()
		<-gate
	}
	inbox := make(chan rvPartner) // unbuffered: the partner's hand-over is a rendezvous
	var count, self int64
	for {
		place.mu.Lock()
		if place.meetings == place.limit {
			place.mu.Unlock()
			break
		}
		var partner rvPartner
		if !place.waiting {
			place.waiting, place.waitID, place.waitColour, place.waitChannel = true, id, col, inbox
			place.mu.Unlock()
			partner = <-inbox
		} else {
			partner = rvPartner{place.waitID, place.waitColour}
			wake := place.waitChannel
			place.waiting, place.waitChannel = false, nil
			place.meetings++
			place.mu.Unlock()
			wake <- rvPartner{id, col}
		}
		col = complement(col, partner.colour)
		count++
		if partner.id == id {
			self++
		}
	}
	reports <- creatureReport{id, count, self, col}
}

// ---- shape message

const (
	msgRequest = iota
	msgReport
)

// placeMsg is a message to the place: a request (id, colour) or a report (id and counts).
type placeMsg struct {
	kind     uint8
	colour   colour
	id       int32
	meetings int64
	self     int64
}

// placeReply is the place's answer to a request: meet (partner id, new colour) or stop.
type placeReply struct {
	stop    bool
	colour  colour
	partner int32
}

func playMessage(c int, m int64, gate bool) game {
	requests := make(chan placeMsg, c)
	replies := make([]chan placeReply, c)
	for id := range replies {
		replies[id] = make(chan placeReply, 1)
	}
	done := make(chan game)
	go messagePlace(requests, replies, m, gate, done)
	for id := 0; id < c; id++ {
		go messageCreature(int32(id), tenColours[id%10], requests, replies[id])
	}
	return <-done
}

// messagePlace pairs requests in arrival order, refuses them after m meetings and ends
// (sending the game on done) when every creature has reported.
func messagePlace(inbox <-chan placeMsg, replies []chan placeReply, m int64, gate bool, done chan<- game) {
	c := len(replies)
	g := game{reports: make([]creatureReport, c)}
	waiting := false
	var waitID int32
	var waitColour colour
	reported := 0
	handle := func(msg placeMsg) {
		if msg.kind == msgReport {
			g.reports[msg.id] = creatureReport{int(msg.id), msg.meetings, msg.self, msg.colour}
			reported++
			return
		}
		switch {
		case g.meetings == m:
			replies[msg.id] <- placeReply{stop: true}
		case !waiting:
			waiting, waitID, waitColour = true, msg.id, msg.colour
		default:
			waiting = false
			g.meetings++
			nc := complement(msg.colour, waitColour)
			replies[msg.id] <- placeReply{colour: nc, partner: waitID}
			replies[waitID] <- placeReply{colour: nc, partner: msg.id}
		}
	}
	if gate {
		// No creature can send a second message before it has a reply, so the first C
		// messages are the C first requests.
		first := make([]placeMsg, c)
		for i := range first {
			first[i] = <-inbox
		}
		for _, msg := range first {
			handle(msg)
		}
	}
	for reported < c {
		handle(<-inbox)
	}
	done <- g
}

// messageCreature requests meetings until it is refused, then reports.
func messageCreature(id int32, col colour, place chan<- placeMsg, inbox <-chan placeReply) {
	var count, self int64
	place <- placeMsg{kind: msgRequest, id: id, colour: col}
	for {
		r := <-inbox
		if r.stop {
			place <- placeMsg{kind: msgReport, id: id, colour: col, meetings: count, self: self}
			return
		}
		count++
		if r.partner == id {
			self++
		}
		col = r.colour
		place <- placeMsg{kind: msgRequest, id: id, colour: col}
	}
}
