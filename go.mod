module github.com/pprof-tui/pprof-tui

go 1.26

require (
	github.com/ianlancetaylor/demangle v0.0.0-20250417193237-f615e6bd150b
	github.com/klauspost/compress v1.20.3 // indirect
	google.golang.org/protobuf v1.36.12 // indirect
)
