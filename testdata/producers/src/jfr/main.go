// jfr2pprof converts an OpenJDK Flight Recorder recording to pprof
// profiles, one per metric, with github.com/grafana/jfr-parser, as
// Grafana Pyroscope does:
//
//	go build -o jfr2pprof . && ./jfr2pprof rec.jfr DIR
//
// jfr-parser is not on the Go module proxy this project reaches: regen.sh
// builds this with a replace directive to a checkout ($JFR_PARSER_DIR).
package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/grafana/jfr-parser/pprof"
	"google.golang.org/protobuf/proto"
)

func main() {
	data, err := os.ReadFile(os.Args[1])
	if err != nil {
		fail(err)
	}
	st, err := os.Stat(os.Args[1])
	if err != nil {
		fail(err)
	}
	in := &pprof.ParseInput{StartTime: st.ModTime().Add(-time.Minute), EndTime: st.ModTime(), SampleRate: 100}
	ps, err := pprof.ParseJFR(data, in, new(pprof.LabelsSnapshot))
	if err != nil {
		fail(err)
	}
	for _, p := range ps.Profiles {
		b, err := proto.Marshal(p.Profile)
		if err != nil {
			fail(err)
		}
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		zw.Write(b)
		zw.Close()
		name := strings.NewReplacer(":", "_", "/", "_").Replace(p.Metric) + ".pb.gz"
		if err := os.WriteFile(filepath.Join(os.Args[2], name), buf.Bytes(), 0o644); err != nil {
			fail(err)
		}
		fmt.Println(name)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "jfr2pprof:", err)
	os.Exit(1)
}
