package main

// Unit tests of philosophers (philosophers.go). The expected result is the spec's closed form
// computed here (meals n·m, fork uses 2·n·m, no overlap), and every philosopher's own count m
// (the metrics min_meals and max_meals). Each runs through the table (parseArgs, resolve) under
// GOMAXPROCS 1 and 2, every shape, with n = 2 and m = 0 among the sizes.

import (
	"fmt"
	"strings"
	"testing"
)

// metricValue is the int64 metric of that name in an outcome, or fails the test.
func metricValue(t *testing.T, o outcome, name string) int64 {
	t.Helper()
	for _, m := range o.metrics {
		if m.name == name {
			if v, ok := m.value.(int64); ok {
				return v
			}
			t.Fatalf("metric %s = %v is not an int64", name, m.value)
		}
	}
	t.Fatalf("metric %s missing from %v", name, o.metrics)
	return 0
}

func TestPhilosophers(t *testing.T) {
	// (m, n): no meals, the smallest table, the spec's test size, more philosophers than cores.
	cases := [][2]int64{{0, 2}, {1, 2}, {300, 2}, {7, 3}, {200, 5}, {1000, 8}, {20, 33}}
	withProcs(t, func(t *testing.T, procs int) {
		for _, shape := range benchmarks["philosophers"].Models["goroutines"].Shapes {
			for _, c := range cases {
				m, n := c[0], c[1]
				argv := []string{"philosophers", "--model", "goroutines", "--param", fmt.Sprint(m), "--iterations", "2",
					"--option", "shape=" + shape, "--option", fmt.Sprintf("n=%d", n)}
				want := fmt.Sprintf("meals=%d fork_uses=%d overlaps=%d", n*m, 2*n*m, 0)
				for _, got := range runVia(t, argv...) {
					if got.result != want || got.ns < 0 {
						t.Errorf("GOMAXPROCS=%d %s: %q in %d ns, want %q", procs, strings.Join(argv, " "), got.result, got.ns, want)
					}
					for _, name := range []string{"min_meals", "max_meals"} {
						if v := metricValue(t, got, name); v != m {
							t.Errorf("GOMAXPROCS=%d %s: %s = %d, want %d", procs, strings.Join(argv, " "), name, v, m)
						}
					}
				}
			}
		}
	})
}

// The overlap detector: a take that finds the fork held counts one; a put-down frees it.
func TestForkCountsOverlaps(t *testing.T) {
	f := fork{holder: noHolder}
	f.take(3)
	f.use()
	f.putDown()
	f.take(4)
	if f.overlaps != 0 || f.holder != 4 {
		t.Fatalf("take, put down, take: overlaps %d holder %d, want 0 and 4", f.overlaps, f.holder)
	}
	f.take(5) // what a broken exclusion would do: 5 takes the fork 4 is eating with
	if f.overlaps != 1 || f.holder != 5 || f.uses != 1 {
		t.Fatalf("take of a held fork: overlaps %d holder %d uses %d, want 1, 5 and 1", f.overlaps, f.holder, f.uses)
	}
}

// The spec's default n = 5, the faithful shape first, and n below 2 refused (exit 2).
func TestPhilosophersTable(t *testing.T) {
	m := benchmarks["philosophers"].Models["goroutines"]
	if m.Shapes[0] != "ordered" || m.Options["n"].Default != "5" || len(m.Options) != 1 {
		t.Errorf("philosophers: shapes %v options %v", m.Shapes, m.Options)
	}
	try := func(n string) error {
		cli, err := parseArgs([]string{"philosophers", "--model", "goroutines", "--param", "3", "--iterations", "1",
			"--option", "n=" + n})
		if err == nil {
			_, _, err = resolve(cli)
		}
		return err
	}
	for _, n := range []string{"1", "0", "-1"} {
		if _, ok := try(n).(usageError); !ok {
			t.Errorf("n=%s: want a usage error", n)
		}
	}
	if err := try("2"); err != nil {
		t.Errorf("n=2 rejected: %v", err)
	}
}
