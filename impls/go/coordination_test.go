package main

// Unit tests of the coordination kernels (coordination.go). Every expected result is the
// spec's closed form computed here: mutex n·m, prodcons N = n·m and N(N+1)/2, condition 2·n·m,
// threadring (N mod R) + 1. Each runs through the table (parseArgs, resolve) under GOMAXPROCS
// 1 and 2, every shape, with n = 1, m = 0 and a ring of 2 among the sizes.

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
)

// runVia resolves a command line like the harness's and runs its iterations.
func runVia(t *testing.T, argv ...string) []outcome {
	t.Helper()
	cli, err := parseArgs(argv)
	if err != nil {
		t.Fatalf("%v: %v", argv, err)
	}
	_, job, err := resolve(cli)
	if err != nil {
		t.Fatalf("%v: %v", argv, err)
	}
	var out []outcome
	for i := 0; i < cli.iterations; i++ {
		out = append(out, job())
	}
	return out
}

// expectAll runs benchmark b (every shape of the table) at each case and compares each
// iteration's result with want(case).
func expectAll(t *testing.T, b string, cases [][2]int64, option string, want func(p, o int64) string) {
	shapes := benchmarks[b].Models["goroutines"].Shapes
	if len(shapes) < 2 {
		t.Fatalf("%s: shapes %v (each coordination benchmark has two or more)", b, shapes)
	}
	withProcs(t, func(t *testing.T, procs int) {
		for _, shape := range shapes {
			for _, c := range cases {
				p, o := c[0], c[1]
				argv := []string{b, "--model", "goroutines", "--param", fmt.Sprint(p), "--iterations", "2",
					"--option", "shape=" + shape, "--option", fmt.Sprintf("%s=%d", option, o)}
				for _, got := range runVia(t, argv...) {
					if w := want(p, o); got.result != w || got.ns < 0 {
						t.Errorf("GOMAXPROCS=%d %s: %q in %d ns, want %q", procs, strings.Join(argv, " "), got.result, got.ns, w)
					}
				}
			}
		}
	})
}

// (m, n) pairs: no work, one worker, a few, and the spec's test size shape.
var coordCases = [][2]int64{{0, 1}, {0, 4}, {1, 1}, {50, 1}, {7, 3}, {1, 8}, {300, 8}}

func TestMutex(t *testing.T) {
	expectAll(t, "mutex", coordCases, "n", func(m, n int64) string {
		return fmt.Sprintf("count=%d", n*m)
	})
}

func TestProdcons(t *testing.T) {
	expectAll(t, "prodcons", coordCases, "n", func(m, n int64) string {
		total := uint64(n * m)
		return fmt.Sprintf("consumed=%d sum=%d", total, total*(total+1)/2)
	})
}

func TestCondition(t *testing.T) {
	expectAll(t, "condition", coordCases, "n", func(m, n int64) string {
		return fmt.Sprintf("value=%d", 2*n*m)
	})
}

func TestThreadring(t *testing.T) {
	// (N, R): the token 0 (entity 1 answers), rings of 2 and 3, whole laps, the spec's size.
	cases := [][2]int64{{0, 2}, {1, 2}, {2, 2}, {5, 2}, {7, 3}, {9, 3}, {502, 503}, {503, 503}, {1006, 503}, {1000, 503}, {1000, 2}}
	expectAll(t, "threadring", cases, "ring", func(n, r int64) string {
		return fmt.Sprintf("id=%d", n%r+1)
	})
}

// The teardown stops every ring member: no goroutine is left behind after an iteration.
func TestThreadringStopsItsRing(t *testing.T) {
	for _, shape := range []string{"paper", "mutex", "channel"} {
		before := runtime.NumGoroutine()
		runVia(t, "threadring", "--model", "goroutines", "--param", "1234", "--iterations", "3",
			"--option", "shape="+shape, "--option", "ring=100")
		// A goroutine counted out by its WaitGroup may still be on its way out: wait a little.
		left := 0
		for tries := 0; tries < 100; tries++ {
			if left = runtime.NumGoroutine() - before; left <= 0 {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		if left > 0 {
			t.Errorf("threadring %s: %d goroutines left", shape, left)
		}
	}
}

// prodcons' channel shape buffers all n·m items: beyond 2^28 it refuses (exit 2), cond does not.
func TestProdconsChannelBound(t *testing.T) {
	try := func(shape, m, n string) error {
		cli, err := parseArgs([]string{"prodcons", "--model", "goroutines", "--param", m, "--iterations", "1",
			"--option", "shape=" + shape, "--option", "n=" + n})
		if err == nil {
			_, _, err = resolve(cli)
		}
		return err
	}
	if _, ok := try("channel", fmt.Sprint(prodconsMaxChannel/4+1), "4").(usageError); !ok {
		t.Errorf("channel with n·m > 2^28: want a usage error")
	}
	if err := try("channel", fmt.Sprint(prodconsMaxChannel/4), "4"); err != nil {
		t.Errorf("channel with n·m = 2^28 rejected: %v", err)
	}
	if err := try("cond", fmt.Sprint(prodconsMaxChannel/4+1), "4"); err != nil {
		t.Errorf("cond with n·m > 2^28 rejected: %v", err)
	}
}

// The options' defaults are the specs' (n = 32, ring = 503) and the faithful shapes come first.
func TestCoordinationTable(t *testing.T) {
	for b, want := range map[string][3]string{
		"mutex": {"lock", "n", "32"}, "prodcons": {"cond", "n", "32"},
		"condition": {"paper", "n", "32"}, "threadring": {"paper", "ring", "503"},
	} {
		m := benchmarks[b].Models["goroutines"]
		if m.Shapes[0] != want[0] || m.Options[want[1]].Default != want[2] || len(m.Options) != 1 {
			t.Errorf("%s: shapes %v options %v", b, m.Shapes, m.Options)
		}
	}
}
