package analysis

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
)

// SourceFiles finds the source files a profile names and caches their
// lines. The profile's paths are where the program was built, often not
// where the reader is; the lookup follows pprof's list (source_path and
// trim_path, see Options), and can try more places than pprof does (see
// Find). It is safe for concurrent use.
type SourceFiles struct {
	mu    sync.Mutex
	files map[sourceKey]*sourceText
	// wd returns the current directory (os.Getwd; tests replace it).
	wd func() (string, error)
	// served: read only under root, or nothing when it is nil
	// (SourceFilesIn).
	served bool
	root   *os.Root
}

type sourceKey struct {
	path, searchPath, trimPath string
}

type sourceText struct {
	found string   // the file read
	lines []string // lines[0] is line 1
	err   error
}

// NewSourceFiles returns an empty cache.
func NewSourceFiles() *SourceFiles {
	return &SourceFiles{files: map[sourceKey]*sourceText{}, wd: os.Getwd}
}

// SourceFilesIn returns a cache that reads files only under root, and
// none when root is nil. A served explorer reads nothing outside the
// directory its operator chose, while a profile's file names point
// anywhere: a name is looked up under root as it is (without its
// leading /), then without its first directory, its second, and so on
// to its base name; source_path and trim_path play no part, so the :
// line cannot point elsewhere.
func SourceFilesIn(root *os.Root) *SourceFiles {
	return &SourceFiles{files: map[sourceKey]*sourceText{}, wd: os.Getwd, served: true, root: root}
}

// errNoSourceFiles is SourceFilesIn(nil)'s answer.
var errNoSourceFiles = errors.New("source files are not read here (the explorer is served without a source root)")

// readIn looks path up under s.root (see SourceFilesIn).
func (s *SourceFiles) readIn(path string) *sourceText {
	serr := &SourceError{File: path, Trimmed: path, SearchPath: "the source root"}
	if s.root == nil {
		serr.Err = errNoSourceFiles
		return &sourceText{err: serr}
	}
	parts := strings.Split(strings.Trim(filepath.ToSlash(path), "/"), "/")
	for i := range parts {
		name := strings.Join(parts[i:], "/")
		if !fs.ValidPath(name) {
			continue
		}
		serr.Tried = append(serr.Tried, name)
		f, err := s.root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
		if err != nil {
			continue
		}
		lines, err := readOpenLines(f, name)
		f.Close()
		if err == nil {
			return &sourceText{found: name, lines: lines}
		}
	}
	return &sourceText{err: serr}
}

// SourceError says that a source file was not found, and where the
// lookup looked. Its Error text is pprof's for the same failure.
type SourceError struct {
	// File is the path in the profile; Trimmed what trim_path and pprof's
	// prefix heuristics left of it, which is what was searched for.
	File, Trimmed string
	// SearchPath is the source path searched: source_path, or the current
	// directory.
	SearchPath string
	// Tried lists every path tried, in order.
	Tried []string
	// Err is the open error of an absolute path (pprof reports it as is).
	Err error
}

func (e *SourceError) Error() string {
	if e.Err != nil {
		return e.Err.Error()
	}
	return fmt.Sprintf("could not find file %s on path %s", e.Trimmed, e.SearchPath)
}

func (e *SourceError) Unwrap() error { return e.Err }

// Find returns the lines of the source file named path in a profile and
// the path it read them from. -list and the explorer look alike: first
// where pprof's -list looks, so that reports equal pprof's whenever it
// finds the file (the path trimmed by trim_path and pprof's heuristics,
// see TrimSourcePath, as is if absolute, else under each directory of
// source_path, the current directory when unset, and each of their
// parents); then, where pprof gives up, the path as the profile has it,
// the trimmed path under the current directory and its parents, and the
// path's last components (down to its base name) under each directory
// source_path names. The base name is never matched in the current
// directory by default: every Go program has a main.go. A file not found
// is a *SourceError, whose text is pprof's.
func (s *SourceFiles) Find(path string, opt Options) (lines []string, found string, err error) {
	k := sourceKey{path, opt.SourcePath, opt.TrimPath}
	s.mu.Lock()
	t := s.files[k]
	s.mu.Unlock()
	if t == nil {
		t = s.read(path, opt)
		s.mu.Lock()
		s.files[k] = t
		s.mu.Unlock()
	}
	return t.lines, t.found, t.err
}

func (s *SourceFiles) read(path string, opt Options) *sourceText {
	if s.served {
		return s.readIn(path)
	}
	wd, _ := s.wd()
	searchPath := opt.SourcePath
	if searchPath == "" {
		searchPath = wd
	}
	var tried []string
	seen := map[string]bool{}
	try := func(name string) *sourceText {
		if name == "" || seen[name] {
			return nil
		}
		seen[name] = true
		tried = append(tried, name)
		lines, err := readLines(name)
		if err != nil {
			return nil
		}
		return &sourceText{found: name, lines: lines}
	}
	// underParents tries rel under dir and each parent of dir, as pprof.
	underParents := func(dir, rel string) *sourceText {
		for {
			if t := try(filepath.Join(dir, rel)); t != nil {
				return t
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				return nil
			}
			dir = parent
		}
	}
	trimmed := TrimSourcePath(path, opt.TrimPath, searchPath)
	serr := &SourceError{File: path, Trimmed: trimmed, SearchPath: searchPath}
	// pprof's places.
	if filepath.IsAbs(trimmed) {
		// pprof requires an absolute path to exist as it is.
		if t := try(trimmed); t != nil {
			return t
		}
		serr.Err = openError(trimmed)
	} else {
		for _, dir := range filepath.SplitList(searchPath) {
			if t := underParents(dir, trimmed); t != nil {
				return t
			}
		}
	}
	// Where pprof gives up.
	if filepath.IsAbs(path) {
		if t := try(path); t != nil {
			return t
		}
	}
	if !filepath.IsAbs(trimmed) && opt.SourcePath != "" && wd != "" {
		if t := underParents(wd, trimmed); t != nil {
			return t
		}
	}
	parts := strings.Split(filepath.ToSlash(strings.TrimLeft(trimmed, "/")), "/")
	for i := range parts {
		tail := filepath.Join(parts[i:]...)
		for _, dir := range filepath.SplitList(opt.SourcePath) {
			if t := try(filepath.Join(dir, tail)); t != nil {
				return t
			}
		}
	}
	serr.Tried = tried
	return &sourceText{err: serr}
}

// openError is the error opening name gives (pprof prints it).
func openError(name string) error {
	if err := checkSourceFile(name); err != nil {
		return err
	}
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	f.Close()
	return &fs.PathError{Op: "read", Path: name, Err: errors.New("not a readable text file")}
}

// maxSourceBytes is the largest file read as source code.
const maxSourceBytes = 256 << 20

// checkSourceFile refuses, before opening it, a file that cannot be a
// program's source: a profile names its files, and a device (endless, like
// /dev/urandom) or a FIFO (opening it waits for a writer) would hang the
// listing.
func checkSourceFile(name string) error {
	st, err := os.Stat(name)
	switch {
	case err != nil:
		return nil // opening it says why, as pprof reports it
	case st.IsDir():
		return fmt.Errorf("%s is a directory", name)
	case !st.Mode().IsRegular():
		return fmt.Errorf("%s is not a regular file", name)
	case st.Size() > maxSourceBytes:
		return fmt.Errorf("%s is too large for a source file (%d bytes)", name, st.Size())
	}
	return nil
}

// readLines reads a text file's lines, without their line ends.
func readLines(name string) ([]string, error) {
	if err := checkSourceFile(name); err != nil {
		return nil, err
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readOpenLines(f, name)
}

// readOpenLines reads an open file's lines once fstat says it is a
// regular file under maxSourceBytes.
func readOpenLines(f *os.File, name string) ([]string, error) {
	st, err := f.Stat()
	switch {
	case err != nil:
		return nil, err
	case !st.Mode().IsRegular():
		return nil, fmt.Errorf("%s is not a regular file", name)
	case st.Size() > maxSourceBytes:
		return nil, fmt.Errorf("%s is too large for a source file (%d bytes)", name, st.Size())
	}
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	return lines, nil
}

// TrimSourcePath is pprof's cleaning of a profile's file path: without
// trim, the part up to and including "/BASE/" goes, for the first
// directory of searchPath whose base name BASE occurs in the path (a
// checkout at another place); then the first prefix of trim (a list of
// paths) or of "/proc/self/cwd/./" and "/proc/self/cwd/" that the path
// starts with goes.
func TrimSourcePath(path, trim, searchPath string) string {
	slashed, searchPath := filepath.ToSlash(path), filepath.ToSlash(searchPath)
	if trim == "" {
		for _, dir := range filepath.SplitList(searchPath) {
			want := "/" + filepath.Base(dir) + "/"
			if i := strings.Index(slashed, want); i >= 0 {
				return path[i+len(want):]
			}
		}
	}
	prefixes := append(filepath.SplitList(filepath.ToSlash(trim)), "/proc/self/cwd/./", "/proc/self/cwd/")
	for _, p := range prefixes {
		if !strings.HasSuffix(p, "/") {
			p += "/"
		}
		if strings.HasPrefix(slashed, p) {
			return path[len(p):]
		}
	}
	return path
}
