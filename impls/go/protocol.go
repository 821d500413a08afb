package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// writer prints the protocol's JSON lines. Each line goes out in a single Write on an
// unbuffered file, so it is on the pipe as soon as it is printed.
type writer struct{ w io.Writer }

func newWriter(w io.Writer) *writer { return &writer{w} }

func (p *writer) line(s string) {
	if _, err := io.WriteString(p.w, s+"\n"); err != nil {
		fmt.Fprintf(os.Stderr, "concbench-go: fatal: writing stdout: %v\n", err)
		os.Exit(1)
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s) // a string always marshals
	return string(b)
}

// runtimeName is the hello's runtime: the Go release, the compiler and GOMAXPROCS.
func runtimeName() string {
	return fmt.Sprintf("%s %s %s/%s GOMAXPROCS=%d", runtime.Version(), runtime.Compiler, runtime.GOOS, runtime.GOARCH, runtime.GOMAXPROCS(0))
}

func (p *writer) hello(model string) {
	p.line(fmt.Sprintf(`{"hello": {"protocol": 1, "language": "go", "runtime": %s, "model": %s}}`,
		jsonString(runtimeName()), jsonString(model)))
}

func (p *writer) iteration(i int, ns int64, result string) {
	p.line(fmt.Sprintf(`{"iteration": %d, "ns": %d, "result": %s}`, i, ns, jsonString(result)))
}

func (p *writer) metrics(ms []metric) {
	parts := make([]string, 0, len(ms))
	for _, m := range ms {
		if m.value != "" { // a figure that could not be computed is left out, never written as 0
			parts = append(parts, fmt.Sprintf("%s: %s", jsonString(m.name), m.value))
		}
	}
	p.line(`{"metrics": {` + strings.Join(parts, ", ") + `}}`)
}

// formatFloat writes a float as a JSON number; JSON has no NaN or infinity, so those give
// "" and the metric is left out.
func formatFloat(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return ""
	}
	s := strconv.FormatFloat(v, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eE") {
		s += ".0"
	}
	return s
}
