package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/pprof-tui/pprof-tui/analysis"
	"github.com/pprof-tui/pprof-tui/analysis/report"
	"github.com/pprof-tui/pprof-tui/format"
	"github.com/pprof-tui/pprof-tui/format/symbolize"
)

// reportSpec is one report: a flag that prints pprof's output for the
// profile and exits. Every report is one row of reports; the flags, -h,
// the "choose one report" error and docs/reports.md come from the table.
type reportSpec struct {
	name string
	// param names the flag's value ("RE": a regexp of functions); ""
	// makes the flag a boolean.
	param string
	help  string
	// doc is the longer description docs/reports.md gives (help when
	// empty).
	doc string
	// needsOutput: the report is binary and goes to -output only.
	needsOutput bool
	// noInlines loads the profile one frame per address (pprof's
	// -disasm does).
	noInlines bool
	run       reportFunc
}

// reportFunc writes a report to w.
type reportFunc func(w io.Writer, e *analysis.Engine, opt analysis.Options, r reportRun) error

// reportRun is what a report's run gets beyond the engine and options:
// the flag's value and the report's modifiers.
type reportRun struct {
	arg  string         // the flag's value, for a report with a param
	re   *regexp.Regexp // arg compiled, for a report with a param
	json bool           // -json
	// counted: -nodecount was given (graph reports default to 80 nodes).
	counted bool
}

// reports lists the reports in -h's order.
var reports = []reportSpec{
	{name: "top", help: "pprof's top table, byte for byte", run: runTop,
		doc: "pprof's `-top` table, byte for byte; with `-json`, `{\"sample_type\",\"unit\",\"total\",\"rows\":[{\"name\",\"flat\",\"cum\",\"inline\"}]}`: raw values, `total` is the percentages' denominator"},
	{name: "text", help: "the same as -top (pprof's name for it)", run: runTop,
		doc: "pprof's `-text`, its name for `-top`: the same table"},
	{name: "tree", help: "every node with its callers and callees, as pprof's text call graph", run: runGraph("tree"),
		doc: "pprof's `-tree`: each node of the call graph (trimmed by `nodecount`, 80 by default, `nodefraction` and `edgefraction`) with its callers above and callees below"},
	{name: "dot", help: "the call graph in Graphviz's DOT language", run: runGraph("dot"),
		doc: "pprof's `-dot`: the call graph as `go tool pprof -web` draws it, in Graphviz's DOT language; `nodecount` (80 by default), `nodefraction`, `edgefraction` and `call_tree`-free pruning as pprof's"},
	{name: "svg", help: "the call graph as SVG (runs Graphviz's dot)", run: runImage("svg"),
		doc: "`-dot` drawn by Graphviz's `dot -Tsvg` (needs `dot` on the PATH); pprof also adds a pan-and-zoom script, this does not"},
	{name: "png", help: "the call graph as PNG (runs Graphviz's dot; needs -output)", needsOutput: true, run: runImage("png"),
		doc: "`-dot` drawn by Graphviz's `dot -Tpng`; needs `dot` on the PATH and `-output`"},
	{name: "pdf", help: "the call graph as PDF (runs Graphviz's dot; needs -output)", needsOutput: true, run: runImage("pdf"),
		doc: "`-dot` drawn by Graphviz's `dot -Tpdf`; needs `dot` on the PATH and `-output`"},
	{name: "callgrind", help: "the call graph in callgrind format, for KCachegrind", run: runGraph("callgrind"),
		doc: "pprof's `-callgrind`: every address with its calls, untrimmed, for KCachegrind or QCachegrind"},
	{name: "traces", help: "every sample's stack with its labels", run: runTraces,
		doc: "every sample's stack with its labels, as pprof prints them"},
	{name: "tags", help: "every label key with its values' totals", run: printed((*analysis.Engine).Tags, analysis.WriteTags),
		doc: "every label key with its values' totals and shares, as pprof"},
	{name: "peek", param: "RE", help: "callers and callees of the functions matching RE", run: runPeek,
		doc: "the callers and callees of the functions matching RE, as pprof"},
	{name: "list", param: "RE", help: "annotated source of the functions matching RE", run: runList,
		doc: "the source of the functions matching RE, with flat and cum per line, as pprof; files are found through `-source_path` and `-trim_path` (see [the Source view](explorer.md#6-source))"},
	{name: "disasm", param: "RE", help: "annotated instructions of the functions matching RE, from the binary", noInlines: true, run: runDisasm,
		doc: "the machine instructions of the functions matching RE, with flat and cum per instruction, as pprof; decoded in-process from the binary with `golang.org/x/arch`, in Go assembler syntax (`-intel_syntax` for Intel's, `-gnu_syntax` for objdump's AT&T)"},
	{name: "folded", help: "collapsed stacks, for flamegraph.pl, inferno or speedscope", run: printed((*analysis.Engine).Folded, report.Folded),
		doc: "collapsed stacks (`root;...;leaf value`) of the selected sample type after filters, for flamegraph.pl, inferno or speedscope"},
	{name: "raw", help: "the filtered profile as text", run: printed((*analysis.Engine).Filtered, report.Raw),
		doc: "pprof's `-raw`: the filtered profile's samples, locations and mappings as text"},
	{name: "comments", help: "the profile's comments", run: runComments,
		doc: "pprof's `-comments`: the profile's comments, one a line"},
	{name: "topproto", help: "the top nodes as gzipped profile.proto (needs -output)", needsOutput: true, run: runTopProto,
		doc: "pprof's `-topproto`: one sample per node of the top table, valued cum and flat, as gzipped profile.proto; needs `-output`"},
	{name: "proto", help: "the filtered profile as gzipped profile.proto (needs -output)", needsOutput: true, run: printed((*analysis.Engine).Filtered, format.Write),
		doc: "the filtered profile as gzipped profile.proto, as `go tool pprof -proto` writes it; needs `-output`"},
}

// findReport returns the report named name.
func findReport(name string) (reportSpec, bool) {
	for _, r := range reports {
		if r.name == name {
			return r, true
		}
	}
	return reportSpec{}, false
}

// reportChoice is "-top, -traces, … or -proto", for errors.
func reportChoice() string {
	names := make([]string, len(reports))
	for i, r := range reports {
		names[i] = "-" + r.name
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// reportFlag is a report's flag: setting it records the report (and its
// value) on the command line, once per report named.
type reportFlag struct {
	c    *cmdline
	spec reportSpec
}

func (f *reportFlag) String() string { return "" }

func (f *reportFlag) IsBoolFlag() bool { return f.spec.param == "" }

func (f *reportFlag) Set(v string) error {
	if f.spec.param == "" {
		var on boolValue
		if err := on.Set(v); err != nil {
			return err
		}
		if !on {
			f.c.unchoose(f.spec.name)
			return nil
		}
		v = ""
	} else if v == "" {
		// An empty pattern asks for nothing, as an unset flag.
		f.c.unchoose(f.spec.name)
		return nil
	}
	f.c.choose(f.spec.name, v)
	return nil
}

// chosenReport is a report the command line asked for.
type chosenReport struct {
	name, arg string
}

func (c *cmdline) choose(name, arg string) {
	c.unchoose(name)
	c.reports = append(c.reports, chosenReport{name, arg})
}

func (c *cmdline) unchoose(name string) {
	for i, r := range c.reports {
		if r.name == name {
			c.reports = append(c.reports[:i], c.reports[i+1:]...)
			return
		}
	}
}

// report returns the one report asked for, if any.
func (c *cmdline) report() (reportSpec, string, bool) {
	if len(c.reports) == 0 {
		return reportSpec{}, "", false
	}
	r, _ := findReport(c.reports[0].name)
	return r, c.reports[0].arg, true
}

// writeReport prints the chosen report with pprof's defaults for it.
func writeReport(w io.Writer, c *cmdline, e *analysis.Engine) error {
	spec, arg, ok := c.report()
	if !ok {
		return usageError("no report chosen")
	}
	r := reportRun{arg: arg, json: c.jsonOut, counted: c.set["nodecount"]}
	if spec.param != "" {
		re, err := regexp.Compile(arg)
		if err != nil {
			return usageError("%s: invalid regexp %q: %v", spec.name, arg, err)
		}
		r.re = re
	}
	return spec.run(w, e, c.opt.Trimmed(), r)
}

func runTop(w io.Writer, e *analysis.Engine, opt analysis.Options, r reportRun) error {
	top, err := e.Top(opt)
	if err != nil {
		return err
	}
	if r.json {
		return writeTopJSON(w, top)
	}
	return report.Top(w, e.Profile(), top, opt)
}

// runGraph prints the call graph report named name.
func runGraph(name string) reportFunc {
	return func(w io.Writer, e *analysis.Engine, opt analysis.Options, r reportRun) error {
		g, opt, err := reportGraph(e, name, opt, r)
		if err != nil {
			return err
		}
		switch name {
		case "tree":
			return report.Tree(w, e.Profile(), g, opt)
		case "callgrind":
			return report.Callgrind(w, g, opt)
		}
		return report.Dot(w, e.Profile(), g, opt)
	}
}

// runImage draws the call graph with Graphviz's dot, as pprof does.
func runImage(format string) reportFunc {
	return func(w io.Writer, e *analysis.Engine, opt analysis.Options, r reportRun) error {
		var dot bytes.Buffer
		if err := runGraph(format)(&dot, e, opt, r); err != nil {
			return err
		}
		return report.RunDot(w, &dot, format)
	}
}

func runComments(w io.Writer, e *analysis.Engine, _ analysis.Options, _ reportRun) error {
	return report.Comments(w, e.Profile())
}

// reportGraph is the call graph of report name, with the options pprof
// applies to it.
func reportGraph(e *analysis.Engine, name string, opt analysis.Options, r reportRun) (*analysis.Graph, analysis.Options, error) {
	opt, kind := report.GraphOptions(name, opt, r.counted)
	g, err := e.Graph(opt, kind)
	return g, opt, err
}

func runTopProto(w io.Writer, e *analysis.Engine, opt analysis.Options, r reportRun) error {
	g, opt, err := reportGraph(e, "topproto", opt, r)
	if err != nil {
		return err
	}
	return format.Write(w, report.TopProto(e.Profile(), g, opt))
}

func runTraces(w io.Writer, e *analysis.Engine, opt analysis.Options, _ reportRun) error {
	opt.NodeFraction = 0
	tr, err := e.Traces(opt)
	if err != nil {
		return err
	}
	keyOK, err := analysis.LabelKeyFilter(opt)
	if err != nil {
		return err
	}
	return report.Traces(w, e.Profile(), tr, opt, keyOK)
}

func runPeek(w io.Writer, e *analysis.Engine, opt analysis.Options, r reportRun) error {
	// pprof does not trim the graph for -peek.
	opt.NodeFraction, opt.EdgeFraction, opt.NodeCount = 0, 0, 0
	pk, err := e.Peek(opt, r.re)
	if err != nil {
		return err
	}
	return report.Peek(w, e.Profile(), pk, opt)
}

func runList(w io.Writer, e *analysis.Engine, opt analysis.Options, r reportRun) error {
	lst, err := e.List(opt, r.re, analysis.NewSourceFiles())
	if err != nil {
		return err
	}
	return report.List(w, lst, r.arg, opt)
}

func runDisasm(w io.Writer, e *analysis.Engine, opt analysis.Options, r reportRun) error {
	bins := symbolize.NewCache()
	defer bins.Close()
	d, err := e.Disasm(opt, r.re, analysis.DisasmOptions{Syntax: analysis.DisasmSyntax(opt), Open: func(path string) (*symbolize.Disassembler, error) {
		b, err := bins.Open(path)
		if err != nil {
			return nil, err
		}
		return symbolize.NewDisassembler(b)
	}})
	if err != nil {
		if d != nil {
			// pprof prints the binaries it could not open as it looks,
			// and then finds nothing.
			for _, e := range d.Errors {
				fmt.Fprintln(w, e)
			}
		}
		return err
	}
	return report.Disasm(w, d, opt)
}

// printed is a report that computes one result for the options and
// prints it.
func printed[T any](compute func(*analysis.Engine, analysis.Options) (T, error), write func(io.Writer, T) error) reportFunc {
	return func(w io.Writer, e *analysis.Engine, opt analysis.Options, _ reportRun) error {
		v, err := compute(e, opt)
		if err != nil {
			return err
		}
		return write(w, v)
	}
}

// topJSON is the -top -json document.
type topJSON struct {
	SampleType string       `json:"sample_type"`
	Unit       string       `json:"unit"`
	Total      int64        `json:"total"`
	Rows       []topJSONRow `json:"rows"`
}

type topJSONRow struct {
	Name   string `json:"name"`
	Flat   int64  `json:"flat"`
	Cum    int64  `json:"cum"`
	Inline string `json:"inline"`
}

func writeTopJSON(w io.Writer, top *analysis.Top) error {
	doc := topJSON{SampleType: top.SampleType.Type, Unit: top.SampleType.Unit, Total: top.Total, Rows: []topJSONRow{}}
	for _, r := range top.Rows {
		doc.Rows = append(doc.Rows, topJSONRow{top.Nodes.Name(r.Node), r.Flat, r.Cum, r.Inline.String()})
	}
	return json.NewEncoder(w).Encode(doc)
}

// reportsMarkdown is docs/reports.md's table of reports, generated from
// reports and the flags that go with them (a test keeps the copy in
// step).
func reportsMarkdown() string {
	var b strings.Builder
	b.WriteString("| flag | output |\n| --- | --- |\n")
	row := func(name, param, text string) {
		spec := "-" + name
		if param != "" {
			spec += "=" + param
		}
		fmt.Fprintf(&b, "| `%s` | %s |\n", spec, strings.ReplaceAll(text, "|", `\|`))
	}
	for _, r := range reports {
		text := r.doc
		if text == "" {
			text = r.help
		}
		row(r.name, r.param, text)
	}
	for _, f := range commandFlags(new(cmdline)) {
		if _, isReport := f.value.(*reportFlag); f.group == groupReports && !isReport {
			row(f.name, f.placeholder, f.help)
		}
	}
	return b.String()
}
