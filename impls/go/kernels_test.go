package main

import (
	"strings"
	"testing"
)

// The reference values of fannkuch.md, for both shapes and several chunk counts.
func TestFannkuchReferences(t *testing.T) {
	want := map[int]fannkuchPartial{
		1: {0, 0}, 3: {2, 2}, 4: {4, 4}, 5: {7, 11}, 6: {10, 49}, 7: {16, 228}, 8: {22, 1616}, 9: {30, 8629},
	}
	for n, w := range want {
		for _, k := range []int64{1, 7, 150, 1000, 1 << 20} {
			plan := newFannkuchPlan(n, k)
			for name, run := range map[string]func(fannkuchPlan) fannkuchPartial{"per-chunk": fannkuchPerChunk, "pull": fannkuchPull} {
				if got := run(plan); got != w {
					t.Errorf("n=%d K=%d %s: got %+v, want %+v", n, k, name, got, w)
				}
			}
		}
	}
}

// The chunk table of fannkuch.md.
func TestFannkuchChunks(t *testing.T) {
	table := map[int][2]int64{7: {34, 149}, 8: {269, 150}, 9: {2420, 150}, 10: {24192, 150}, 11: {266112, 150}, 12: {3193344, 150}}
	for n, w := range table {
		p := newFannkuchPlan(n, 150)
		if p.chunk != w[0] || p.tasks != w[1] {
			t.Errorf("n=%d: chunk %d tasks %d, want %v", n, p.chunk, p.tasks, w)
		}
	}
}

// The n = 4 listing of fannkuch.md: index decoding and Mazurov's step agree with it.
func TestFannkuchOrder(t *testing.T) {
	listing := []string{"1234", "2134", "2314", "3214", "3124", "1324", "2341", "3241", "3421", "4321", "4231", "2431", "3412"}
	var p, count [fannkuchMaxN]int
	for i := 0; i < 4; i++ {
		p[i] = i
	}
	for i, want := range listing {
		var b strings.Builder
		for _, v := range p[:4] {
			b.WriteByte(byte('1' + v))
		}
		if b.String() != want {
			t.Fatalf("index %d: %s, want %s", i, b.String(), want)
		}
		nextPerm(&p, &count)
	}
	var q [fannkuchMaxN]int
	five := [fannkuchMaxN]int{3, 1, 0, 4, 2} // 1-based {4,2,1,5,3}
	if f := flips(&five, &q, 5); f != 5 {
		t.Errorf("flips {4,2,1,5,3} = %d, want 5", f)
	}
}

func TestBigReferences(t *testing.T) {
	cases := []struct {
		n, p, h  int
		want     string
		min, max string
	}{
		{20, 200, 1000, "messages=8000 checksum=42660", "172", "225"},
		{50, 100, 20, "messages=10000 checksum=128266", "81", "128"},
		{7, 0, 3, "messages=0 checksum=0", "0", "0"},
	}
	for _, c := range cases {
		got := runBigCSP(c.n, c.p, c.h)
		if got.result != c.want {
			t.Errorf("big %d/%d/%d: %s, want %s", c.n, c.p, c.h, got.result, c.want)
		}
		m := metricMap(got.metrics)
		if m["min_recv"] != c.min || m["max_recv"] != c.max {
			t.Errorf("big %d/%d/%d: min/max recv %s/%s, want %s/%s", c.n, c.p, c.h, m["min_recv"], m["max_recv"], c.min, c.max)
		}
	}
}

func metricMap(ms []metric) map[string]string {
	m := map[string]string{}
	for _, x := range ms {
		m[x.name] = x.value
	}
	return m
}

func TestComplementTable(t *testing.T) {
	want := map[[2]colour]colour{
		{blue, blue}: blue, {blue, red}: yellow, {blue, yellow}: red,
		{red, blue}: yellow, {red, red}: red, {red, yellow}: blue,
		{yellow, blue}: red, {yellow, red}: blue, {yellow, yellow}: yellow,
	}
	for in, out := range want {
		if got := complement(in[0], in[1]); got != out {
			t.Errorf("complement(%d, %d) = %d, want %d", in[0], in[1], got, out)
		}
	}
}

func TestChameneosGames(t *testing.T) {
	// Σ initial colours mod 3 (chameneos.md): the invariant the final colours must keep.
	wantColour := map[int]int64{2: 1, 3: 0, 7: 1, 10: 1, 70: 1, 800: 2}
	for name, play := range map[string]playFunc{"rendezvous": playRendezvous, "message": playMessage} {
		for c, colourSum := range wantColour {
			for _, gate := range []bool{true, false} {
				for _, m := range []int64{1, 2, 1000} {
					g := play(c, m, gate)
					s := g.summary()
					if g.meetings != m || s.total != 2*m || s.self != 0 || s.colourSumMod3 != colourSum {
						t.Errorf("%s C=%d M=%d gate=%v: meetings %d, creature meetings %d, self %d, colours %d",
							name, c, m, gate, g.meetings, s.total, s.self, s.colourSumMod3)
					}
					for id, r := range g.reports {
						if r.id != id {
							t.Errorf("%s C=%d: creature %d did not report", name, c, id)
						}
					}
				}
			}
		}
	}
}

func TestChameneosResultStrings(t *testing.T) {
	for _, play := range []playFunc{playRendezvous, playMessage} {
		if got := runEncore(play, 7, 5000).result; got != "meetings=5000 creature_meetings=10000" {
			t.Errorf("encore: %s", got)
		}
		if got := runRedux(play, 5000).result; got != "meetings3=5000 creature_meetings3=10000 meetings10=5000 creature_meetings10=10000" {
			t.Errorf("redux: %s", got)
		}
	}
}

func TestUsageErrors(t *testing.T) {
	bad := [][]string{
		{},
		{"--model", "goroutines"},
		{"fib", "--model", "goroutines", "--param", "1", "--iterations", "1"},
		{"big", "--model", "threads", "--param", "20", "--iterations", "1"},
		{"big", "--model", "goroutines", "--param", "20", "--iterations", "1", "--option", "shape=pool"},
		{"big", "--model", "goroutines", "--param", "20", "--iterations", "1", "--option", "meetings=3"},
		{"big", "--model", "goroutines", "--param", "x", "--iterations", "1"},
		{"big", "--model", "goroutines", "--param", "20", "--iterations", "0"},
		{"big", "--model", "goroutines", "--param", "20"},
		{"big", "--model", "goroutines", "--param", "20", "--iterations", "1", "--option", "hood=0"},
		{"chameneos", "--model", "goroutines", "--param", "1", "--iterations", "1"},
		{"chameneos", "--model", "goroutines", "--param", "10", "--iterations", "1", "--option", "variant=other"},
		{"chameneos", "--model", "goroutines", "--param", "10", "--iterations", "1", "--option", "variant=redux", "--option", "meetings=5"},
		{"fannkuch", "--model", "goroutines", "--param", "21", "--iterations", "1"},
		{"fannkuch", "--model", "goroutines", "--param", "7", "--iterations", "1", "--option", "chunks=0"},
		{"fannkuch", "--model", "goroutines", "--param", "7", "--iterations", "1", "--workers", "0"},
		{"fannkuch", "--model", "goroutines", "--param", "7", "--iterations", "1", "--verbose"},
	}
	for _, argv := range bad {
		c, err := parseArgs(argv)
		if err == nil {
			_, err = prepare(c)
		}
		if _, ok := err.(usageError); !ok {
			t.Errorf("%v: want a usage error, got %v", argv, err)
		}
	}
	good := [][]string{
		{"big", "--model", "goroutines", "--param", "20", "--iterations", "1", "--workers", "2", "--option", "pings=2", "--option", "hood=5", "--option", "shape=csp"},
		{"chameneos", "--model=goroutines", "--param=10", "--iterations=1", "--option", "variant=redux", "--option", "shape=message"},
		{"fannkuch", "--model", "goroutines", "--param", "7", "--iterations", "1", "--option", "chunks=7", "--option", "shape=pull"},
	}
	for _, argv := range good {
		c, err := parseArgs(argv)
		if err == nil {
			_, err = prepare(c)
		}
		if err != nil {
			t.Errorf("%v: %v", argv, err)
		}
	}
}
