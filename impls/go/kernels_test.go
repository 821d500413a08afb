package main

// Unit tests of the kernels and of the table's generic domain checks. Every expected value
// is computed here, independently of the code under test: fannkuch by brute force over all
// permutations, big by drawing each worker's targets directly (big.md), chameneos by its
// closed forms (meetings M, creature meetings 2M, no self-meeting, the colour sum mod 3 kept).
// The protocol itself is not tested here: `concbench check` drives the binary.

import (
	"fmt"
	"math"
	"runtime"
	"testing"
)

// withProcs runs f under GOMAXPROCS 1 and 2, the scheduling the shapes must not depend on.
func withProcs(t *testing.T, f func(t *testing.T, procs int)) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, procs := range []int{1, 2} {
		runtime.GOMAXPROCS(procs)
		f(t, procs)
	}
}

// ---- fannkuch

// bruteFannkuch is fannkuch.md's definition, written plainly: perm(i) decoded from its index
// for every i in [0, n!), flips by reversing prefixes of a slice, parity of the global index.
func bruteFannkuch(n int) (maxFlips int, checksum int64) {
	total := 1
	for i := 2; i <= n; i++ {
		total *= i
	}
	for i := 0; i < total; i++ {
		p := bruteDecode(n, i)
		f := 0
		for p[0] != 0 {
			for a, b := 0, p[0]; a < b; a, b = a+1, b-1 {
				p[a], p[b] = p[b], p[a]
			}
			f++
		}
		if f > maxFlips {
			maxFlips = f
		}
		if i%2 == 0 {
			checksum += int64(f)
		} else {
			checksum -= int64(f)
		}
	}
	return maxFlips, checksum
}

// bruteDecode is perm(i) of fannkuch.md: for k = n-1 down to 1, d = i div k!, i = i mod k!,
// rotate p[0..k] left by d.
func bruteDecode(n, i int) []int {
	p := make([]int, n)
	for j := range p {
		p[j] = j
	}
	for k := n - 1; k >= 1; k-- {
		f := 1
		for j := 2; j <= k; j++ {
			f *= j
		}
		d := i / f
		i %= f
		rotated := append(append([]int{}, p[d:k+1]...), p[:d]...)
		copy(p, rotated)
	}
	return p
}

var fannkuchShapes = map[string]func(fannkuchPlan) fannkuchPartial{"per-chunk": fannkuchPerChunk, "pull": fannkuchPull}

// Every shape, at several chunk counts (one chunk, ragged chunks, the default 150, one index
// per chunk and more chunks than indexes), against the brute force.
func TestFannkuchShapesAgainstBruteForce(t *testing.T) {
	withProcs(t, func(t *testing.T, procs int) {
		for n := 1; n <= 8; n++ {
			wantMax, wantSum := bruteFannkuch(n)
			want := fannkuchPartial{wantMax, wantSum}
			total := newFannkuchPlan(n, 1).total
			for _, k := range []int64{1, 2, 7, 150, total, total + 5, fannkuchMaxChunks} {
				plan := newFannkuchPlan(n, k)
				for name, run := range fannkuchShapes {
					if got := run(plan); got != want {
						t.Errorf("GOMAXPROCS=%d n=%d K=%d %s: got %+v, brute force %+v", procs, n, k, name, got, want)
					}
				}
			}
		}
	})
}

// Mazurov's step, from the decoding of a chunk's first index, visits the same permutations as
// decoding every index afresh.
func TestFannkuchStepMatchesDecoding(t *testing.T) {
	for n := 1; n <= 7; n++ {
		plan := newFannkuchPlan(n, 1)
		for _, lo := range []int64{0, 1, 5, plan.total / 2, plan.total - 1} {
			if lo < 0 || lo >= plan.total {
				continue
			}
			var p, count [fannkuchMaxN]int
			fannkuchDecode(&plan, lo, &p, &count)
			for i := lo; i < plan.total; i++ {
				want := bruteDecode(n, int(i))
				if fmt.Sprint(p[:n]) != fmt.Sprint(want) {
					t.Fatalf("n=%d from %d: index %d is %v, want %v", n, lo, i, p[:n], want)
				}
				if i+1 < plan.total {
					nextPerm(&p, &count)
				}
			}
		}
	}
}

// The chunk split covers [0, n!) exactly: chunk = ceil(n!/K), tasks = ceil(n!/chunk) <= K.
func TestFannkuchChunks(t *testing.T) {
	for n := 1; n <= 12; n++ {
		for _, k := range []int64{1, 2, 3, 7, 150, 1000, fannkuchMaxChunks} {
			p := newFannkuchPlan(n, k)
			fact := int64(1)
			for i := int64(2); i <= int64(n); i++ {
				fact *= i
			}
			if p.total != fact {
				t.Fatalf("n=%d: total %d, want %d", n, p.total, fact)
			}
			if p.chunk < 1 || p.chunk*k < fact || (p.chunk-1)*k >= fact {
				t.Errorf("n=%d K=%d: chunk %d is not ceil(n!/K)", n, k, p.chunk)
			}
			if p.tasks > k || p.tasks*p.chunk < fact || (p.tasks-1)*p.chunk >= fact {
				t.Errorf("n=%d K=%d: tasks %d with chunk %d do not cover %d exactly", n, k, p.tasks, p.chunk, fact)
			}
		}
	}
}

// The worked examples of fannkuch.md's kernel section.
func TestFannkuchSpecExamples(t *testing.T) {
	listing := []string{"1234", "2134", "2314", "3214", "3124", "1324", "2341", "3241", "3421", "4321", "4231", "2431", "3412"}
	var p, count [fannkuchMaxN]int
	plan := newFannkuchPlan(4, 1)
	fannkuchDecode(&plan, 0, &p, &count)
	oneBased := func() string {
		s := ""
		for _, v := range p[:4] {
			s += fmt.Sprint(v + 1)
		}
		return s
	}
	for i, want := range listing {
		if got := oneBased(); got != want {
			t.Fatalf("index %d: %s, want %s", i, got, want)
		}
		nextPerm(&p, &count)
	}
	fannkuchDecode(&plan, 23, &p, &count)
	if got := oneBased(); got != "4213" {
		t.Errorf("index 23: %s, want 4213", got)
	}
	var q [fannkuchMaxN]int
	five := [fannkuchMaxN]int{3, 1, 0, 4, 2} // 1-based {4,2,1,5,3}
	if f := flips(&five, &q, 5); f != 5 {
		t.Errorf("flips {4,2,1,5,3} = %d, want 5", f)
	}
}

// ---- big

// bigDirect draws every worker's P targets directly (big.md: LCG32 seeded with w, target
// rng mod S_g in w's neighbourhood) and counts the pings each worker receives.
func bigDirect(n, pings, hood int) (messages, checksum uint64, minRecv, maxRecv int64) {
	recv := make([]int64, n)
	for w := 0; w < n; w++ {
		lo := w / hood * hood
		size := uint32(minInt(n, lo+hood) - lo)
		rng := uint32(w)
		for s := 0; s < pings; s++ {
			rng = rng*1664525 + 1013904223
			recv[lo+int(rng%size)]++
		}
	}
	minRecv, maxRecv = recv[0], recv[0]
	for w, r := range recv {
		checksum += uint64(r) * uint64(w+1)
		if r < minRecv {
			minRecv = r
		}
		if r > maxRecv {
			maxRecv = r
		}
	}
	return 2 * uint64(n) * uint64(pings), checksum, minRecv, maxRecv
}

func TestBigAgainstDirectDraws(t *testing.T) {
	cases := [][3]int{ // N, P, H
		{1, 10, 1}, {7, 0, 3}, {5, 40, 1}, {20, 200, 1000}, {50, 100, 20}, {64, 50, 7}, {300, 30, 128},
	}
	withProcs(t, func(t *testing.T, procs int) {
		for _, c := range cases {
			n, p, h := c[0], c[1], c[2]
			msgs, sum, lo, hi := bigDirect(n, p, h)
			got := runBigCSP(n, p, h)
			want := fmt.Sprintf("messages=%d checksum=%d", msgs, sum)
			if got.result != want {
				t.Errorf("GOMAXPROCS=%d big N=%d P=%d H=%d: %s, want %s", procs, n, p, h, got.result, want)
			}
			m := metricMap(got.metrics)
			if m["min_recv"] != lo || m["max_recv"] != hi {
				t.Errorf("GOMAXPROCS=%d big N=%d P=%d H=%d: min/max recv %v/%v, want %d/%d",
					procs, n, p, h, m["min_recv"], m["max_recv"], lo, hi)
			}
		}
	})
}

func metricMap(ms []metric) map[string]any {
	m := map[string]any{}
	for _, x := range ms {
		m[x.name] = x.value
	}
	return m
}

// ---- chameneos

func TestComplementTable(t *testing.T) {
	// chameneos.md's table, as the Benchmarks Game prints it.
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

// initialColourSum is Σ initial colours mod 3 for C creatures, creature i taking
// TEN[i mod 10] (chameneos.md; blue 0, red 1, yellow 2).
func initialColourSum(c int) int64 {
	ten := []int64{0, 1, 2, 1, 2, 0, 1, 2, 1, 0}
	var s int64
	for i := 0; i < c; i++ {
		s += ten[i%10]
	}
	return s % 3
}

// Both shapes, with and without the start gate: the place counts M meetings, the creatures
// 2M, nobody meets itself, every creature reports once, the colour sum mod 3 is kept.
func TestChameneosGames(t *testing.T) {
	withProcs(t, func(t *testing.T, procs int) {
		for name, play := range map[string]playFunc{"rendezvous": playRendezvous, "message": playMessage} {
			for _, c := range []int{2, 3, 7, 10, 70, 800} {
				for _, gate := range []bool{true, false} {
					for _, m := range []int64{1, 2, 1000} {
						g := play(c, m, gate)
						s := g.summary()
						if g.meetings != m || s.total != 2*m || s.self != 0 || s.colourSumMod3 != initialColourSum(c) {
							t.Errorf("GOMAXPROCS=%d %s C=%d M=%d gate=%v: meetings %d, creature meetings %d, self %d, colours %d (want %d)",
								procs, name, c, m, gate, g.meetings, s.total, s.self, s.colourSumMod3, initialColourSum(c))
						}
						if len(g.reports) != c {
							t.Fatalf("%s C=%d: %d reports", name, c, len(g.reports))
						}
						for id, r := range g.reports {
							if r.id != id {
								t.Errorf("%s C=%d: creature %d did not report", name, c, id)
							}
						}
						if s.min < 0 || s.max > 2*m || s.min > s.max {
							t.Errorf("%s C=%d M=%d: min/max meetings %d/%d", name, c, m, s.min, s.max)
						}
					}
				}
			}
		}
	})
}

// A game's figures from made-up reports (chameneos.md, Extra metrics).
func TestGameSummary(t *testing.T) {
	g := game{meetings: 3, reports: []creatureReport{
		{0, 2, 0, red}, {1, 4, 1, yellow}, {2, 0, 0, yellow},
	}}
	s := g.summary()
	if s.total != 6 || s.min != 0 || s.max != 4 || s.self != 1 || s.colourSumMod3 != (1+2+2)%3 {
		t.Errorf("summary %+v", s)
	}
	// Mean 2M/C = 2; deviations 0, 2, -2.
	if std := math.Sqrt(8.0 / 3); math.Abs(s.std-std) > 1e-12 || math.Abs(s.cv-std/2) > 1e-12 {
		t.Errorf("std %v cv %v, want %v %v", s.std, s.cv, std, std/2)
	}
}

// The two variants' results and the metrics the harness checks, by the closed forms.
func TestChameneosVariants(t *testing.T) {
	for name, play := range map[string]playFunc{"rendezvous": playRendezvous, "message": playMessage} {
		for _, c := range []int{3, 10, 70} {
			const m = 5000
			o := runEncore(play, c, m)
			if want := fmt.Sprintf("meetings=%d creature_meetings=%d", m, 2*m); o.result != want {
				t.Errorf("%s encore C=%d: %s, want %s", name, c, o.result, want)
			}
			mm := metricMap(o.metrics)
			if mm["self_meetings"] != int64(0) || mm["colour_sum_mod3"] != initialColourSum(c) {
				t.Errorf("%s encore C=%d: self_meetings %v, colour_sum_mod3 %v (want 0, %d)",
					name, c, mm["self_meetings"], mm["colour_sum_mod3"], initialColourSum(c))
			}
		}
		const n = 3000
		o := runRedux(play, n)
		want := fmt.Sprintf("meetings3=%d creature_meetings3=%d meetings10=%d creature_meetings10=%d", n, 2*n, n, 2*n)
		if o.result != want {
			t.Errorf("%s redux: %s, want %s", name, o.result, want)
		}
		mm := metricMap(o.metrics)
		if mm["self_meetings"] != int64(0) || mm["colour_sum_mod3_3"] != initialColourSum(3) || mm["colour_sum_mod3_10"] != initialColourSum(10) {
			t.Errorf("%s redux: self_meetings %v, colour_sum_mod3_3 %v, colour_sum_mod3_10 %v",
				name, mm["self_meetings"], mm["colour_sum_mod3_3"], mm["colour_sum_mod3_10"])
		}
	}
}

// ---- the table's generic domain checks

func TestDomainCheck(t *testing.T) {
	lo, hi := int64(-3), int64(12)
	cases := []struct {
		d        domain
		accepted []string
		rejected []string
	}{
		{intDomain(1, 12),
			[]string{"1", "12", "7", "007"},
			[]string{"0", "13", "-1", "", " 7", "7 ", "+7", "7.0", "1e1", "0x7", "1_0", "seven", "99999999999999999999"}},
		{domain{Int: &intBounds{Min: &lo}},
			[]string{"-3", "-0", "0", "9223372036854775807"},
			[]string{"-4", "--3", "-", "9223372036854775808"}},
		{domain{Int: &intBounds{Max: &hi}},
			[]string{"12", "-9223372036854775808"},
			[]string{"13", "-9223372036854775809"}},
		{domain{Int: &intBounds{}},
			[]string{"0", "-5", "123"},
			[]string{"", "a"}},
		{valuesDomain("encore", "redux"),
			[]string{"encore", "redux"},
			[]string{"", "Encore", "encore ", "enc", "encoreredux"}},
		{domain{Pattern: "[a-z]+(-[a-z]+)*|t[0-9]{1,2}"},
			[]string{"pull", "per-chunk", "t4", "t12"},
			[]string{"", "per-", "t123", "Pull", "pull t4", "t4a"}},
		{domain{Pattern: "a|b"},
			[]string{"a", "b"},
			[]string{"ab", "", "c"}},
	}
	for i, c := range cases {
		for _, s := range c.accepted {
			if err := c.d.check(s); err != nil {
				t.Errorf("domain %d: %q rejected: %v", i, s, err)
			}
		}
		for _, s := range c.rejected {
			if c.d.check(s) == nil {
				t.Errorf("domain %d: %q accepted", i, s)
			}
		}
	}
	if (domain{}).check("1") == nil {
		t.Errorf("an empty domain accepted a value")
	}
}

// Every domain of the table has exactly one kind, its default inside it, and every model of
// a benchmark is described; shape is never an option.
func TestTableIsConsistent(t *testing.T) {
	kinds := func(d domain) int {
		k := 0
		if d.Int != nil {
			k++
		}
		if d.Values != nil {
			k++
		}
		if d.Pattern != "" {
			k++
		}
		return k
	}
	for b, def := range benchmarks {
		if kinds(def.Param) != 1 {
			t.Errorf("%s: param domain has %d kinds", b, kinds(def.Param))
		}
		if def.prepare == nil {
			t.Errorf("%s: no prepare", b)
		}
		for model, m := range def.Models {
			if _, ok := models[model]; !ok {
				t.Errorf("%s: model %s has no description", b, model)
			}
			if _, ok := m.Options["shape"]; ok {
				t.Errorf("%s %s: shape listed among the options", b, model)
			}
			for key, d := range m.Options {
				if kinds(d) != 1 {
					t.Errorf("%s %s %s: %d kinds", b, model, key, kinds(d))
				}
				if d.Default == "{param}" {
					continue // the parameter (the Cowichan family's nelts): checked as --param
				}
				if d.Reason != "" && (d.Int == nil || d.Int.Max == nil) {
					t.Errorf("%s %s %s: a reason, but no integer bound it could explain", b, model, key)
				}
				if err := d.check(d.Default); err != nil {
					t.Errorf("%s %s %s: default %q outside the domain: %v", b, model, key, d.Default, err)
				}
			}
		}
	}
}

// resolve reads the table: values at its bounds are accepted (nothing runs), the first value
// past each bound is rejected, and so are the combinations checked by prepare.
func TestResolveUsesTheDomains(t *testing.T) {
	argv := func(b, param string, opts ...string) []string {
		a := []string{b, "--model", "goroutines", "--param", param, "--iterations", "1"}
		for _, o := range opts {
			a = append(a, "--option", o)
		}
		return a
	}
	try := func(a []string) error {
		c, err := parseArgs(a)
		if err == nil {
			_, _, err = resolve(c)
		}
		return err
	}
	for b, def := range benchmarks {
		for model, m := range def.Models {
			// a --param inside the benchmark's domain that every variant takes
			param := map[string]string{"big": "20", "chameneos": "10", "fannkuch": "7",
				"randmat": "10", "thresh": "10", "winnow": "10", "outer": "10", "product": "10", "chain": "10",
				"mutex": "10", "prodcons": "10", "condition": "10", "threadring": "10", "philosophers": "10"}[b]
			for key, d := range m.Options {
				if d.Int == nil {
					continue
				}
				for _, bound := range []*int64{d.Int.Min, d.Int.Max} {
					if bound == nil {
						continue
					}
					if err := try(argv(b, param, fmt.Sprintf("%s=%d", key, *bound))); err != nil {
						t.Errorf("%s %s %s=%d (a bound) rejected: %v", b, model, key, *bound, err)
					}
				}
				for _, bound := range []*int64{d.Int.Min, d.Int.Max} {
					if bound == nil {
						continue
					}
					past := *bound - 1
					if bound == d.Int.Max {
						past = *bound + 1
					}
					if _, ok := try(argv(b, param, fmt.Sprintf("%s=%d", key, past))).(usageError); !ok {
						t.Errorf("%s %s %s=%d (past a bound) accepted", b, model, key, past)
					}
				}
			}
			for _, shape := range m.Shapes {
				if err := try(argv(b, param, "shape="+shape)); err != nil {
					t.Errorf("%s %s shape=%s rejected: %v", b, model, shape, err)
				}
			}
		}
		for _, past := range []int64{*def.Param.Int.Min - 1, *def.Param.Int.Max + 1} {
			if _, ok := try(argv(b, fmt.Sprint(past))).(usageError); !ok {
				t.Errorf("%s --param %d (past a bound) accepted", b, past)
			}
		}
	}
	bad := [][]string{
		argv("big", "20", "shape=message"),
		argv("big", "20", "meetings=3"),
		argv("chameneos", "1"),                                    // encore needs C >= 2
		argv("chameneos", "1048577"),                              // and C <= 2^20
		argv("big", "65536", "hood=65536"),                        // 2^32 channel slots
		argv("chameneos", "10000", "variant=redux", "meetings=5"), // meetings is encore's
		argv("chameneos", "10", "variant=scoop"),
		argv("fannkuch", "7", "chunks=1", "hood=2"),
		argv("chain", "10", "shape=columns"),
		argv("winnow", "10", "p=101"),
		argv("outer", "10", "nelts=0"),
		argv("randmat", "10", "seed=4294967296"),
		argv("randmat", "10", "seed=-1"),
		argv("product", "10", "chunks=3"),
		{"fib", "--model", "goroutines", "--param", "1", "--iterations", "1"},
		{"big", "--model", "threads", "--param", "20", "--iterations", "1"},
		{"big", "--model", "goroutines", "--param", "20", "--iterations", "0"},
		{"big", "--model", "goroutines", "--param", "20", "--iterations", "1", "--workers", "0"},
	}
	for _, a := range bad {
		if _, ok := try(a).(usageError); !ok {
			t.Errorf("%v: want a usage error", a)
		}
	}
	if err := try(argv("chameneos", "1", "variant=redux")); err != nil {
		t.Errorf("chameneos redux n=1 rejected: %v", err)
	}
}
