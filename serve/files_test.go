package serve

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pprof-tui/pprof-tui/format"
)

// servedDir makes a served directory with one good profile and every
// kind of name that must be refused, and a secret beside it.
func servedDir(t *testing.T) (dir string, files *rootFiles) {
	tmp := t.TempDir()
	dir = filepath.Join(tmp, "served")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Mkdir(dir, 0o755))
	must(os.WriteFile(filepath.Join(tmp, "secret.pb.gz"), testProfile(t), 0o644))
	must(os.WriteFile(filepath.Join(dir, "cpu.pb.gz"), testProfile(t), 0o644))
	must(os.WriteFile(filepath.Join(dir, "big.pb.gz"), make([]byte, 2<<20), 0o644))
	must(os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	must(os.WriteFile(filepath.Join(dir, "sub", "heap.pb.gz"), testProfile(t), 0o644))
	must(os.Symlink("../secret.pb.gz", filepath.Join(dir, "out.pb.gz")))
	must(os.Symlink(filepath.Join(tmp, "secret.pb.gz"), filepath.Join(dir, "abs.pb.gz")))
	must(os.Symlink("cpu.pb.gz", filepath.Join(dir, "in.pb.gz")))
	must(syscall.Mkfifo(filepath.Join(dir, "fifo.pb.gz"), 0o644))
	root, err := os.OpenRoot(dir)
	must(err)
	t.Cleanup(func() { root.Close() })
	return dir, &rootFiles{root: root, maxBytes: 1 << 20, loads: make(chan struct{}, 2)}
}

func TestFilesRefused(t *testing.T) {
	t.Parallel()
	dir, files := servedDir(t)
	device := ""
	if err := syscall.Mknod(filepath.Join(dir, "null.pb.gz"), syscall.S_IFCHR|0o644, 1<<8|3); err == nil {
		device = "null.pb.gz" // /dev/null's numbers: a device file inside DIR
	} else {
		t.Logf("no device file test: mknod: %v", err)
	}
	cases := []struct{ name, why string }{
		{"../secret.pb.gz", "not a name in the served directory"},
		{filepath.Join(filepath.Dir(dir), "secret.pb.gz"), "not a name in the served directory"},
		{"sub/../../secret.pb.gz", "not a name in the served directory"},
		{"out.pb.gz", "not a file in the served directory"}, // a symlink out, relative
		{"abs.pb.gz", "not a file in the served directory"}, // a symlink out, absolute
		{"fifo.pb.gz", "not a regular file"},
		{"sub", "not a regular file"},
		{"big.pb.gz", "too large to serve (2MB; the limit is 1MB)"},
		{"missing.pb.gz", "no such file"},
	}
	if device != "" {
		cases = append(cases, struct{ name, why string }{device, "not a regular file"})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			done := make(chan error, 1)
			go func() {
				_, err := files.Load(context.Background(), c.name, format.Options{})
				done <- err
			}()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), c.why) {
					t.Errorf("Load(%q) = %v, want %q", c.name, err, c.why)
				}
				if err != nil && strings.Contains(err.Error(), filepath.Dir(dir)) && !filepath.IsAbs(c.name) {
					t.Errorf("the error shows the server's path: %v", err)
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("Load(%q) hangs", c.name)
			}
		})
	}
	for _, name := range []string{"cpu.pb.gz", "in.pb.gz", "sub/heap.pb.gz"} {
		if _, err := files.Load(context.Background(), name, format.Options{}); err != nil {
			t.Errorf("Load(%q): %v", name, err)
		}
	}
}

// TestPickerListsOnlyRegularFiles: the picker's listing goes through
// the root and shows neither symlinks nor FIFOs.
func TestPickerListsOnlyRegularFiles(t *testing.T) {
	t.Parallel()
	_, files := servedDir(t)
	des, err := files.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	var regular []string
	for _, de := range des {
		if de.Type().IsRegular() {
			regular = append(regular, de.Name())
		}
	}
	if got := strings.Join(regular, " "); got != "big.pb.gz cpu.pb.gz" {
		t.Errorf("regular files listed: %s", got)
	}
}

// slowReader hands out a few bytes at a time, slowly, and counts its
// reads.
type slowReader struct {
	r     io.Reader
	reads chan struct{}
}

func (s *slowReader) Read(b []byte) (int, error) {
	time.Sleep(20 * time.Millisecond)
	select {
	case s.reads <- struct{}{}:
	default:
	}
	return s.r.Read(b[:min(len(b), 64)])
}

func TestLoadStopsWithItsContext(t *testing.T) {
	t.Parallel()
	_, files := servedDir(t)
	reads := make(chan struct{}, 1)
	files.wrap = func(r io.Reader) io.Reader { return &slowReader{r: r, reads: reads} }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := files.Load(ctx, "cpu.pb.gz", format.Options{})
		done <- err
	}()
	<-reads
	cancel()
	select {
	case err := <-done:
		if err != context.Canceled {
			t.Errorf("a cancelled load: %v", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("the load went on after its context ended")
	}
	if n := len(files.loads); n != 0 {
		t.Errorf("%d load slots still held", n)
	}
}

func TestSourceRoot(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile("../testdata/src/goprof/main.go")
	if err != nil {
		t.Fatal(err)
	}
	ts := startServer(t, func(c *Config) {
		os.MkdirAll(filepath.Join(c.Dir, "src", "goprof"), 0o755)
		os.WriteFile(filepath.Join(c.Dir, "src", "goprof", "main.go"), src, 0o644)
		c.SourceRoot = filepath.Join(c.Dir, "src")
	})
	tm := ts.open(termOpt{})
	tm.waitFor(0, "cpu.pb.gz")
	tm.press("jj\r", "main.fib") // the demo, src/, then cpu.pb.gz
	tm.press("6", "return fib(n-1) + fib(n-2)")

	// A source root must lie inside DIR, by the kernel's walk.
	outside := t.TempDir()
	os.Symlink(outside, filepath.Join(ts.dir, "link"))
	for _, root := range []string{outside, filepath.Join(ts.dir, ".."), filepath.Join(ts.dir, "link"), filepath.Join(ts.dir, "cpu.pb.gz")} {
		_, err := New(Config{Dir: ts.dir, SourceRoot: root, AuthorizedKeys: filepath.Join(ts.tmp, "authorized_keys"), HostKey: filepath.Join(ts.tmp, "hk")})
		if err == nil || !strings.Contains(err.Error(), "must be a directory inside") {
			t.Errorf("source root %s: %v", root, err)
		}
	}
}

// TestPickerOverSSH: a session walks into DIR's subdirectories and back,
// never above DIR, and P returns from a profile to the picker.
func TestPickerOverSSH(t *testing.T) {
	t.Parallel()
	ts := startServer(t, func(c *Config) {
		os.MkdirAll(filepath.Join(c.Dir, "sub"), 0o755)
	})
	data, err := os.ReadFile(filepath.Join(ts.dir, "cpu.pb.gz"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ts.dir, "sub", "inner.bin"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	tm := ts.open(termOpt{})
	tm.waitFor(0, "profiles: 1 profile, 1 directory")
	tm.press("j\r", "profiles/sub: 1 profile") // a profile by its content, whatever its name
	tm.press("\x7f", "profiles: 1 profile")    // backspace: up
	tm.send("\x7f")                            // not above DIR:
	tm.quiet()
	tm.press("\r", "profiles/sub: 1 profile") // still DIR's listing, on sub/
	tm.press("\x7f", "profiles: 1 profile")
	tm.press("jj\r", "main.fib")
	tm.press("P", "choose a profile")
}

// TestBaseAndConfigServed: a served session compares with a base read
// through the served directory (:base), and keeps :config's
// configurations in its own memory: the server's config directory is
// neither read nor written.
func TestBaseAndConfigServed(t *testing.T) {
	cfgDir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfgDir)
	ts := startServer(t, func(c *Config) {
		// The served profile again, under another name: a diff of
		// nothing, but read through the served root.
		if err := os.WriteFile(filepath.Join(c.Dir, "old.pb.gz"), testProfile(t), 0o644); err != nil {
			t.Fatal(err)
		}
	})
	tm := ts.open(termOpt{})
	tm.waitFor(0, "profiles: 2 profiles")
	tm.press("/cpu.pb\r", "main.fib")
	tm.press(":base old.pb.gz\r", "−diff_base old.pb.gz")
	tm.press(":config save x\r", "saved configuration x for this session")
	tm.press(":config\r", "Saved configurations  for this session")
	if entries, _ := os.ReadDir(cfgDir); len(entries) != 0 {
		t.Errorf("the server's config directory holds %d entries", len(entries))
	}
}

// TestServedDiffMemory: a served diff holds the memory budget for both
// profiles it keeps, not one; a budget for fewer refuses the base and
// leaves the profile open, and the session's end gives all of it back.
func TestServedDiffMemory(t *testing.T) {
	data := testProfile(t)
	need := reckon(decodedCap(bytes.NewReader(data), int64(len(data)), 512<<20))
	settle := func(ts *testServer, want func(int64) bool) int64 {
		t.Helper()
		var got int64
		for range 200 {
			runtime.GC()
			time.Sleep(5 * time.Millisecond)
			if got = ts.srv.Memory(); want(got) {
				break
			}
		}
		return got
	}
	addOld := func(c *Config) {
		if err := os.WriteFile(filepath.Join(c.Dir, "old.pb.gz"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	// Room for the open profile and the diff's two: the diff loads, and
	// then holds two profiles' share.
	ts := startServer(t, func(c *Config) {
		c.MaxMemory = 3*need + need/2
		c.MemoryWait = time.Second
		addOld(c)
	})
	tm := ts.open(termOpt{})
	tm.waitFor(0, "profiles: 2 profiles")
	tm.press("/cpu.pb\r", "main.fib")
	tm.press(":base old.pb.gz\r", "−diff_base old.pb.gz")
	if got := settle(ts, func(n int64) bool { return n == 2*need }); got != 2*need {
		t.Errorf("a diff open: %d bytes reserved, want two profiles' %d", got, 2*need)
	}
	tm.press(":base\r", "main.fib")
	if got := settle(ts, func(n int64) bool { return n == need }); got != need {
		t.Errorf("the base cleared: %d bytes reserved, want one profile's %d", got, need)
	}
	tm.send("q")
	tm.wait()
	if got := settle(ts, func(n int64) bool { return n == 0 }); got != 0 {
		t.Errorf("after the session: %d bytes reserved", got)
	}

	// Room for one profile and a half: the diff cannot be read.
	ts = startServer(t, func(c *Config) {
		c.MaxMemory = need + need/2
		c.MemoryWait = 200 * time.Millisecond
		addOld(c)
	})
	tm = ts.open(termOpt{})
	tm.waitFor(0, "profiles: 2 profiles")
	tm.press("/cpu.pb\r", "main.fib")
	tm.press(":base old.pb.gz\r", "this session's")
	if got := settle(ts, func(n int64) bool { return n == need }); got != need {
		t.Errorf("a refused base: %d bytes reserved, want the open profile's %d", got, need)
	}
	tm.press("j", "main.fib")
	tm.send("q")
	tm.wait()
}
