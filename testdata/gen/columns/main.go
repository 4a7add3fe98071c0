// Command columns writes testdata/synthetic/columns.pb.gz: a small CPU
// profile whose lines carry column numbers, for the showcolumns goldens.
// Run from the repository: go run ./testdata/gen/columns
package main

import (
	"log"
	"os"

	"github.com/pprof-tui/pprof-tui/format"
)

func main() {
	p := &format.Profile{
		SampleTypes: []format.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		PeriodType:  format.ValueType{Type: "cpu", Unit: "nanoseconds"},
		Period:      10000000,
		Mappings: []format.Mapping{{ID: 1, Start: 0x1000, Limit: 0x9000, File: "colprog",
			HasFunctions: true, HasFilenames: true, HasLineNumbers: true}},
		Functions: []format.Function{
			{ID: 1, Name: "main.main", Filename: "/src/main.go", StartLine: 3},
			{ID: 2, Name: "main.work", Filename: "/src/main.go", StartLine: 10},
		},
		Locations: []format.Location{
			{ID: 1, Mapping: 0, Address: 0x1010, Lines: format.LineSpan{Off: 0, N: 1}},
			{ID: 2, Mapping: 0, Address: 0x2010, Lines: format.LineSpan{Off: 1, N: 1}},
			{ID: 3, Mapping: 0, Address: 0x2020, Lines: format.LineSpan{Off: 2, N: 1}},
			{ID: 4, Mapping: 0, Address: 0x2030, Lines: format.LineSpan{Off: 3, N: 1}},
		},
		Lines: []format.Line{
			{Function: 0, Line: 5, Column: 3}, {Function: 1, Line: 12, Column: 9},
			{Function: 1, Line: 12, Column: 21}, {Function: 1, Line: 13, Column: 5},
		},
		Strings:   []string{""},
		Stacks:    format.Stacks{Off: []int32{0, 2, 4, 6}, Locs: []int32{1, 0, 2, 0, 3, 0}},
		LabelSets: format.LabelSets{Off: []int32{0, 0}},
		Samples: format.Samples{
			Stack:  []int32{0, 1, 2},
			Values: [][]int64{{1, 2, 3}, {10000000, 20000000, 30000000}},
			Labels: []int32{0, 0, 0},
		},
	}
	f, err := os.Create("testdata/synthetic/columns.pb.gz")
	if err != nil {
		log.Fatal(err)
	}
	if err := format.Write(f, p); err != nil {
		log.Fatal(err)
	}
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
}
