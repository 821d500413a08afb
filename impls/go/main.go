// concbench-go: the Go implementation of concbench (model "goroutines").
//
//	concbench-go <benchmark> --model <model> --param <value> --iterations <k>
//	             [--workers <w>] [--option key=value]...
//
// stdout carries protocol lines only (one JSON object per line, each written with one
// write call). Any argument error: one line on stderr, exit status 2, nothing on stdout.
package main

import (
	"fmt"
	"os"
	"runtime"
	"sort"
	"strings"
)

// usageError is a bad command line; main turns it into exit status 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// fatal reports a broken invariant of a run (never a usage error) and exits 1.
func fatal(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "concbench-go: fatal: "+format+"\n", args...)
	os.Exit(1)
}

func main() {
	cli, err := parseArgs(os.Args[1:])
	var job iterationFunc
	if err == nil {
		job, err = prepare(cli)
	}
	if err != nil {
		msg := strings.NewReplacer("\n", " ", "\r", " ").Replace(err.Error())
		fmt.Fprintf(os.Stderr, "concbench-go: %s\n", msg)
		os.Exit(2)
	}
	out := newWriter(os.Stdout)
	out.hello(cli.model)
	var last outcome
	for i := 0; i < cli.iterations; i++ {
		// Garbage from the previous iteration is collected here, outside the timed region,
		// so that one iteration does not pay for another's allocations.
		runtime.GC()
		last = job()
		out.iteration(i, last.ns, last.result)
	}
	if len(last.metrics) > 0 {
		out.metrics(last.metrics)
	}
}

// cliArgs is the parsed command line of the protocol.
type cliArgs struct {
	benchmark  string
	model      string
	param      string
	iterations int
	workers    int // 0 when not given
	options    map[string]string
}

func parseArgs(argv []string) (*cliArgs, error) {
	if len(argv) == 0 {
		return nil, usagef("usage: concbench-go <benchmark> --model M --param P --iterations K [--workers W] [--option key=value]...")
	}
	a := &cliArgs{benchmark: argv[0], options: map[string]string{}}
	if strings.HasPrefix(a.benchmark, "-") {
		return nil, usagef("the first argument must be the benchmark, got %q", a.benchmark)
	}
	var haveModel, haveParam, haveIterations bool
	for i := 1; i < len(argv); i++ {
		flag, value, inline := strings.Cut(argv[i], "=")
		if !strings.HasPrefix(flag, "--") {
			return nil, usagef("unexpected argument %q", argv[i])
		}
		switch flag {
		case "--model", "--param", "--iterations", "--workers", "--option":
		default:
			return nil, usagef("unknown flag %q (known: --model --param --iterations --workers --option)", flag)
		}
		if !inline {
			if i+1 >= len(argv) {
				return nil, usagef("%s needs a value", flag)
			}
			i++
			value = argv[i]
		}
		switch flag {
		case "--model":
			a.model, haveModel = value, true
		case "--param":
			a.param, haveParam = value, true
		case "--iterations":
			n, err := parseInt(value, 1, 1<<31-1)
			if err != nil {
				return nil, usagef("--iterations %q: %v", value, err)
			}
			a.iterations, haveIterations = int(n), true
		case "--workers":
			n, err := parseInt(value, 1, 1<<20)
			if err != nil {
				return nil, usagef("--workers %q: %v", value, err)
			}
			a.workers = int(n)
		case "--option":
			key, v, ok := strings.Cut(value, "=")
			if !ok || key == "" || v == "" {
				return nil, usagef("--option %q: expected key=value", value)
			}
			a.options[key] = v // the last one given wins
		}
	}
	switch {
	case !haveModel:
		return nil, usagef("missing --model")
	case !haveParam:
		return nil, usagef("missing --param")
	case !haveIterations:
		return nil, usagef("missing --iterations")
	}
	return a, nil
}

// parseInt reads a plain decimal integer in [lo, hi].
func parseInt(s string, lo, hi int64) (int64, error) {
	if s == "" {
		return 0, fmt.Errorf("empty")
	}
	var v int64
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("not a non-negative integer")
		}
		if v > (hi-int64(c-'0'))/10 {
			return 0, fmt.Errorf("larger than %d", hi)
		}
		v = v*10 + int64(c-'0')
	}
	if v < lo {
		return 0, fmt.Errorf("smaller than %d", lo)
	}
	return v, nil
}

// outcome is one timed iteration: its time, its result string and its extra metrics.
type outcome struct {
	ns      int64
	result  string
	metrics []metric
}

// metric is one named figure; value is already a JSON number.
type metric struct {
	name  string
	value string
}

func intMetric(name string, v int64) metric { return metric{name, fmt.Sprint(v)} }

func floatMetric(name string, v float64) metric {
	return metric{name, formatFloat(v)}
}

// iterationFunc runs one timed iteration.
type iterationFunc func() outcome

// benchmarkDef is one benchmark of this implementation: its models with their shapes (the
// default first), the option keys it accepts besides shape, and how a run is prepared.
type benchmarkDef struct {
	models  map[string][]string
	options []string
	prepare func(c *cliArgs, shape string) (iterationFunc, error)
}

var benchmarks = map[string]benchmarkDef{
	"big": {
		models:  map[string][]string{"goroutines": {"csp"}},
		options: []string{"pings", "hood"},
		prepare: prepareBig,
	},
	"chameneos": {
		models:  map[string][]string{"goroutines": {"rendezvous", "message"}},
		options: []string{"variant", "meetings"},
		prepare: prepareChameneos,
	},
	"fannkuch": {
		models:  map[string][]string{"goroutines": {"per-chunk", "pull"}},
		options: []string{"chunks"},
		prepare: prepareFannkuch,
	},
}

func sortedKeys[V any](m map[string]V) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return strings.Join(keys, ", ")
}

// prepare checks the benchmark, model, shape and option keys, then lets the benchmark
// check its parameter and option values; nothing runs yet.
func prepare(c *cliArgs) (iterationFunc, error) {
	def, ok := benchmarks[c.benchmark]
	if !ok {
		return nil, usagef("unknown benchmark %q (known: %s)", c.benchmark, sortedKeys(benchmarks))
	}
	shapes, ok := def.models[c.model]
	if !ok {
		return nil, usagef("unknown model %q for %s (known: %s)", c.model, c.benchmark, sortedKeys(def.models))
	}
	shape := shapes[0]
	if s, given := c.options["shape"]; given {
		found := false
		for _, known := range shapes {
			found = found || s == known
		}
		if !found {
			return nil, usagef("unknown shape %q for %s --model %s (known: %s)", s, c.benchmark, c.model, strings.Join(shapes, ", "))
		}
		shape = s
	}
	for key := range c.options {
		if key == "shape" {
			continue
		}
		known := false
		for _, k := range def.options {
			known = known || key == k
		}
		if !known {
			return nil, usagef("unknown option %q for %s (known: shape, %s)", key, c.benchmark, strings.Join(def.options, ", "))
		}
	}
	return def.prepare(c, shape)
}

// intOption reads an integer option in [lo, hi], or gives def when it is absent.
func intOption(c *cliArgs, key string, def, lo, hi int64) (int64, error) {
	s, ok := c.options[key]
	if !ok {
		return def, nil
	}
	v, err := parseInt(s, lo, hi)
	if err != nil {
		return 0, usagef("--option %s=%s: %v", key, s, err)
	}
	return v, nil
}
