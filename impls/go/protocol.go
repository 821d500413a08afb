package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"runtime"
)

// protocolVersion is the version of the stdout protocol this binary speaks.
const protocolVersion = 1

// writer prints the protocol's JSON lines, each marshalled by encoding/json. Each line goes
// out in a single Write on an unbuffered file, so it is on the pipe as soon as it is printed.
type writer struct{ w io.Writer }

func newWriter(w io.Writer) *writer { return &writer{w} }

func (p *writer) line(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		fatal("encoding a protocol line: %v", err)
	}
	if _, err := p.w.Write(append(b, '\n')); err != nil {
		fatal("writing stdout: %v", err)
	}
}

// description is the describe line's object (docs/describe.md): the table of main.go.
type description struct {
	Protocol   int                      `json:"protocol"`
	Language   string                   `json:"language"`
	Models     map[string]string        `json:"models"`
	Benchmarks map[string]*benchmarkDef `json:"benchmarks"`
}

func (p *writer) describe() {
	p.line(struct {
		Describe description `json:"describe"`
	}{description{protocolVersion, "go", models, benchmarks}})
}

// runtimeName is the hello's runtime: the Go release, the compiler and GOMAXPROCS.
func runtimeName() string {
	return fmt.Sprintf("%s %s %s/%s GOMAXPROCS=%d", runtime.Version(), runtime.Compiler, runtime.GOOS, runtime.GOARCH, runtime.GOMAXPROCS(0))
}

type helloBody struct {
	Protocol int    `json:"protocol"`
	Language string `json:"language"`
	Runtime  string `json:"runtime"`
	Model    string `json:"model"`
}

func (p *writer) hello(model string) {
	p.line(struct {
		Hello helloBody `json:"hello"`
	}{helloBody{protocolVersion, "go", runtimeName(), model}})
}

func (p *writer) iteration(i int, ns int64, result string) {
	p.line(struct {
		Iteration int    `json:"iteration"`
		Ns        int64  `json:"ns"`
		Result    string `json:"result"`
	}{i, ns, result})
}

// metrics writes the figures as one object; a float that is NaN or infinite (a figure that
// could not be computed) is left out, never written as 0.
func (p *writer) metrics(ms []metric) {
	values := make(map[string]any, len(ms))
	for _, m := range ms {
		if f, ok := m.value.(float64); ok && (math.IsNaN(f) || math.IsInf(f, 0)) {
			continue
		}
		values[m.name] = m.value
	}
	p.line(struct {
		Metrics map[string]any `json:"metrics"`
	}{values})
}
