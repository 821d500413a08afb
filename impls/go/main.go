// concbench-go: the Go implementation of concbench (model "goroutines").
//
//	concbench-go describe
//	concbench-go <benchmark> --model <model> --param <value> --iterations <k>
//	             [--workers <w>] [--option key=value]...
//
// stdout carries protocol lines only (one JSON object per line, each written with one
// write call). Any argument error: one line on stderr, exit status 2, nothing on stdout.
//
// The table below (models, benchmarks) is the one declaration of what this binary serves:
// `describe` prints it, and every argument check reads it (the generic domain checks of
// check, then each benchmark's prepare for the combinations a domain cannot express).
package main

import (
	"fmt"
	"math"
	"os"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
)

// ---- the table

// models is every model this binary serves, with its one-line description.
var models = map[string]string{
	"goroutines": "goroutines and channels: a goroutine per actor, creature or chunk; GOMAXPROCS = cores",
}

// benchmarks is every benchmark this binary serves: the domain of --param, and per model the
// shapes (the faithful port first) and the options besides shape, each with its domain.
var benchmarks = map[string]*benchmarkDef{
	"big": {
		Param: intDomain(1, bigMaxWorkers),
		Models: map[string]modelDef{
			"goroutines": {
				Shapes: []string{"csp"},
				Options: map[string]domain{
					"pings": intDomain(0, bigMaxPings).withDefault("16000").
						because("the message count 2·N·P is a uint64, N at most 65536"),
					"hood": intAtLeast(1).withDefault("1000"),
				},
			},
		},
		prepare: prepareBig,
	},
	"chameneos": {
		// The union of variant=encore's C (2..chameneosMaxCreatures, checked in
		// prepareChameneos) and variant=redux's n, the meetings per game.
		Param: intDomain(1, chameneosMaxMeetings),
		Models: map[string]modelDef{
			"goroutines": {
				Shapes: []string{"rendezvous", "message"},
				Options: map[string]domain{
					"variant": valuesDomain("encore", "redux").withDefault("encore"),
					"meetings": intDomain(1, chameneosMaxMeetings).withDefault("8000000").
						because("the creatures' meetings, 2·M, are summed in an int64"),
				},
			},
		},
		prepare: prepareChameneos,
	},
	"fannkuch": {
		Param: intDomain(1, fannkuchMaxN),
		Models: map[string]modelDef{
			"goroutines": {
				Shapes: []string{"per-chunk", "pull"},
				Options: map[string]domain{
					"chunks": intDomain(1, fannkuchMaxChunks).withDefault("150").
						because("shape per-chunk starts one goroutine per chunk, each with at least 2 KiB of stack"),
				},
			},
		},
		prepare: prepareFannkuch,
	},
	// The Cowichan family (chain.md): one parameter n, options p, nelts and seed, shapes
	// channel (the paper's Go scheme) and blocks; cowichan.go.
	"randmat": cowichanBenchmark(prepareRandmat),
	"thresh":  cowichanBenchmark(prepareThresh),
	"winnow":  cowichanBenchmark(prepareWinnow),
	"outer":   cowichanBenchmark(prepareOuter),
	"product": cowichanBenchmark(prepareProduct),
	"chain":   cowichanBenchmark(prepareChain),
	// The coordination benchmarks (mutex.md, prodcons.md, condition.md): --param m, option n
	// (workers, or workers per side); coordination.go.
	"mutex":     coordinationBenchmark([]string{"lock", "channel"}, prepareMutex),
	"prodcons":  coordinationBenchmark([]string{"cond", "channel"}, prepareProdcons),
	"condition": coordinationBenchmark([]string{"paper", "broadcast"}, prepareCondition),
	"threadring": {
		Param: intDomain(0, threadringMaxN),
		Models: map[string]modelDef{
			"goroutines": {
				Shapes: []string{"paper", "mutex", "channel"},
				Options: map[string]domain{
					"ring": intDomain(2, threadringMaxRing).withDefault("503").
						because("one goroutine per member, each with at least 2 KiB of stack: 2 GiB at 2^20"),
				},
			},
		},
		prepare: prepareThreadring,
	},
	// Ours, after the SCOOP/Qs paper (docs/benchmarks/philosophers.md): --param m, the meals per
	// philosopher; option n, the philosophers and forks (at least 2); philosophers.go.
	"philosophers": {
		Param: intDomain(0, coordMaxM),
		Models: map[string]modelDef{
			"goroutines": {
				Shapes: []string{"ordered"},
				Options: map[string]domain{
					"n": intDomain(philosophersMinN, coordMaxWorkers).withDefault("5").
						because("one goroutine per philosopher, each with at least 2 KiB of stack: 2 GiB at 2^20"),
				},
			},
		},
		prepare: preparePhilosophers,
	},
}

// benchmarkDef is one benchmark of the table. The exported fields are what describe prints.
type benchmarkDef struct {
	Param   domain              `json:"param"`
	Models  map[string]modelDef `json:"models"`
	prepare func(r *request) (iterationFunc, error)
}

// modelDef is what one model of a benchmark accepts: its shapes, faithful first, and its
// options (shape not among them).
type modelDef struct {
	Shapes  []string          `json:"shapes"`
	Options map[string]domain `json:"options"`
}

// ---- domains (docs/describe.md): exactly one of Int, Values, Pattern

type domain struct {
	Int     *intBounds `json:"int,omitempty"`
	Values  []string   `json:"values,omitempty"`
	Pattern string     `json:"pattern,omitempty"`
	Default string     `json:"default,omitempty"` // documentation; used when the option is absent
	// Reason says why an integer bound is narrower than the benchmark's file declares
	// (benchmarks/<id>.toml [options]); printed only when set.
	Reason string `json:"reason,omitempty"`
}

// intBounds are inclusive; a nil bound is left out.
type intBounds struct {
	Min *int64 `json:"min,omitempty"`
	Max *int64 `json:"max,omitempty"`
}

func intDomain(lo, hi int64) domain { return domain{Int: &intBounds{Min: &lo, Max: &hi}} }

// intAtLeast is an int domain with no upper bound but the int64 the value is parsed into.
func intAtLeast(lo int64) domain { return domain{Int: &intBounds{Min: &lo}} }

func valuesDomain(values ...string) domain { return domain{Values: values} }

func (d domain) withDefault(s string) domain {
	d.Default = s
	return d
}

func (d domain) because(reason string) domain {
	d.Reason = reason
	return d
}

// decimalInt is the syntax of an int domain's values: an optional '-', then digits only
// (strconv alone would also take a leading '+').
var decimalInt = regexp.MustCompile(`^-?[0-9]+$`)

// check tells whether s is inside the domain; the error says why not.
func (d domain) check(s string) error {
	switch {
	case d.Int != nil:
		if !decimalInt.MatchString(s) {
			return fmt.Errorf("not a decimal integer")
		}
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return fmt.Errorf("out of range%s: beyond an int64", d.Int.describe())
		}
		if (d.Int.Min != nil && v < *d.Int.Min) || (d.Int.Max != nil && v > *d.Int.Max) {
			return fmt.Errorf("out of range%s", d.Int.describe())
		}
		return nil
	case d.Values != nil:
		for _, v := range d.Values {
			if s == v {
				return nil
			}
		}
		return fmt.Errorf("expected one of %s", strings.Join(d.Values, ", "))
	case d.Pattern != "":
		if !regexp.MustCompile("^(?:" + d.Pattern + ")$").MatchString(s) {
			return fmt.Errorf("does not match %s", d.Pattern)
		}
		return nil
	}
	return fmt.Errorf("empty domain")
}

func (b *intBounds) describe() string {
	switch {
	case b.Min != nil && b.Max != nil:
		return fmt.Sprintf(" %d..%d", *b.Min, *b.Max)
	case b.Min != nil:
		return fmt.Sprintf(" (at least %d)", *b.Min)
	case b.Max != nil:
		return fmt.Sprintf(" (at most %d)", *b.Max)
	}
	return ""
}

// ---- the command line

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
	out := newWriter(os.Stdout)
	if len(os.Args) == 2 && os.Args[1] == "describe" {
		out.describe()
		return
	}
	cli, err := parseArgs(os.Args[1:])
	var r *request
	var job iterationFunc
	if err == nil {
		r, job, err = resolve(cli)
	}
	if err != nil {
		msg := strings.NewReplacer("\n", " ", "\r", " ").Replace(err.Error())
		fmt.Fprintf(os.Stderr, "concbench-go: %s\n", msg)
		os.Exit(2)
	}
	out.hello(r.model)
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

// cliArgs is the parsed command line of the protocol, values not checked against the table.
type cliArgs struct {
	benchmark  string
	model      string
	param      string
	iterations int
	workers    int // 0 when not given
	options    map[string]string
}

// The protocol's own flags: --iterations and --workers are positive integers.
var (
	iterationsDomain = intDomain(1, math.MaxInt32)
	workersDomain    = intDomain(1, 1<<20)
)

func parseArgs(argv []string) (*cliArgs, error) {
	if len(argv) == 0 {
		return nil, usagef("usage: concbench-go describe | <benchmark> --model M --param P --iterations K [--workers W] [--option key=value]...")
	}
	a := &cliArgs{benchmark: argv[0], options: map[string]string{}}
	if a.benchmark == "describe" {
		return nil, usagef("describe takes no other argument")
	}
	if strings.HasPrefix(a.benchmark, "-") {
		return nil, usagef("the first argument must be the benchmark, got %q", a.benchmark)
	}
	var haveModel, haveParam, haveIterations bool
	for i := 1; i < len(argv); i++ {
		flag := argv[i]
		if !strings.HasPrefix(flag, "--") {
			return nil, usagef("unexpected argument %q", flag)
		}
		if name, _, joined := strings.Cut(flag, "="); joined {
			return nil, usagef("%q: give %s's value as the next word (docs/describe.md)", flag, name)
		}
		switch flag {
		case "--model", "--param", "--iterations", "--workers", "--option":
		default:
			return nil, usagef("unknown flag %q (known: --model --param --iterations --workers --option)", flag)
		}
		if i+1 >= len(argv) {
			return nil, usagef("%s needs a value", flag)
		}
		i++
		value := argv[i]
		switch flag {
		case "--model":
			a.model, haveModel = value, true
		case "--param":
			a.param, haveParam = value, true
		case "--iterations":
			if err := iterationsDomain.check(value); err != nil {
				return nil, usagef("--iterations %q: %v", value, err)
			}
			a.iterations, haveIterations = int(mustParseInt(value)), true
		case "--workers":
			if err := workersDomain.check(value); err != nil {
				return nil, usagef("--workers %q: %v", value, err)
			}
			a.workers = int(mustParseInt(value))
		case "--option":
			key, v, ok := strings.Cut(value, "=")
			if !ok || key == "" {
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

// mustParseInt reads a value an int domain has already accepted.
func mustParseInt(s string) int64 {
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		panic(fmt.Sprintf("mustParseInt(%q) after the domain check: %v", s, err))
	}
	return v
}

// request is a command line checked against the table: what a benchmark's prepare reads.
type request struct {
	benchmark string
	model     string
	shape     string // "" when the model has no shapes
	param     string
	options   map[string]string // every key is in def.Options and its value inside its domain
	workers   int               // --workers, 0 when not given
	def       modelDef
}

// paramInt is --param of a benchmark whose param domain is an int domain.
func (r *request) paramInt() int64 { return mustParseInt(r.param) }

// option is the value given for key, or the table's default when it is absent ("{param}"
// in a default is the parameter).
func (r *request) option(key string) string {
	if v, ok := r.options[key]; ok {
		return v
	}
	d, ok := r.def.Options[key]
	if !ok {
		panic(fmt.Sprintf("option %q is not in the table for %s --model %s", key, r.benchmark, r.model))
	}
	return strings.ReplaceAll(d.Default, "{param}", r.param)
}

func (r *request) intOption(key string) int64 { return mustParseInt(r.option(key)) }

func (r *request) given(key string) bool {
	_, ok := r.options[key]
	return ok
}

// resolve checks the command line against the table (benchmark, model, --param, shape,
// option keys and values), then lets the benchmark check the combinations its domains cannot
// express and prepare the run; nothing runs yet.
func resolve(c *cliArgs) (*request, iterationFunc, error) {
	def, ok := benchmarks[c.benchmark]
	if !ok {
		return nil, nil, usagef("unknown benchmark %q (known: %s)", c.benchmark, sortedKeys(benchmarks))
	}
	m, ok := def.Models[c.model]
	if !ok {
		return nil, nil, usagef("unknown model %q for %s (known: %s)", c.model, c.benchmark, sortedKeys(def.Models))
	}
	if err := def.Param.check(c.param); err != nil {
		return nil, nil, usagef("--param %q for %s: %v", c.param, c.benchmark, err)
	}
	r := &request{benchmark: c.benchmark, model: c.model, param: c.param, options: map[string]string{}, workers: c.workers, def: m}
	if len(m.Shapes) > 0 {
		r.shape = m.Shapes[0]
	}
	keys := make([]string, 0, len(c.options))
	for k := range c.options {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, key := range keys {
		value := c.options[key]
		if key == "shape" && len(m.Shapes) > 0 {
			if err := valuesDomain(m.Shapes...).check(value); err != nil {
				return nil, nil, usagef("unknown shape %q for %s --model %s (%v)", value, c.benchmark, c.model, err)
			}
			r.shape = value
			continue
		}
		d, ok := m.Options[key]
		if !ok {
			return nil, nil, usagef("unknown option %q for %s --model %s (known: %s)", key, c.benchmark, c.model, knownOptions(m))
		}
		if err := d.check(value); err != nil {
			return nil, nil, usagef("--option %s=%s: %v", key, value, err)
		}
		r.options[key] = value
	}
	job, err := def.prepare(r)
	if err != nil {
		return nil, nil, err
	}
	return r, job, nil
}

func knownOptions(m modelDef) string {
	keys := []string{}
	if len(m.Shapes) > 0 {
		keys = append(keys, "shape")
	}
	for k := range m.Options {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return strings.Join(keys, ", ")
}

func sortedKeys[V any](m map[string]V) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return strings.Join(keys, ", ")
}

// ---- what an iteration gives

// outcome is one timed iteration: its time, its result string and its extra metrics.
type outcome struct {
	ns      int64
	result  string
	metrics []metric
}

// metric is one named figure: an int64, or a float64 (NaN and infinities are left out of
// the metrics line: JSON has no such numbers).
type metric struct {
	name  string
	value any
}

func intMetric(name string, v int64) metric { return metric{name, v} }

func floatMetric(name string, v float64) metric { return metric{name, v} }

// iterationFunc runs one timed iteration.
type iterationFunc func() outcome
