module jfr2pprof

go 1.26

require (
	github.com/grafana/jfr-parser v0.0.0-20260220015643-1d06ce37e983
	google.golang.org/protobuf v1.36.11
)

require (
	github.com/grafana/pyroscope/api v0.4.0 // indirect
	golang.org/x/text v0.22.0 // indirect
)
