module github.com/pprof-tui/pprof-tui

go 1.26

require (
	github.com/klauspost/compress v1.20.3 // indirect
	google.golang.org/protobuf v1.36.12 // indirect
)
