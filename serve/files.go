package serve

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
	"syscall"

	"github.com/pprof-tui/pprof-tui/analysis"
	"github.com/pprof-tui/pprof-tui/format"
)

// rootFiles is the served directory, as a tui.Files: every name is
// opened through one os.Root (so "../", absolute names and symlinks
// that lead out are refused by the kernel's view of the tree, not by
// string checks), without blocking (a FIFO opened for reading waits for
// a writer), and must then be a regular file under the size cap.
type rootFiles struct {
	root     *os.Root
	maxBytes int64
	// loads holds a token per profile being parsed, across sessions.
	loads chan struct{}
	// wrap, for tests, wraps each profile's reader (to slow it down).
	wrap func(io.Reader) io.Reader
	// live are the operator's endpoints, listed at the top as live:NAME:KIND.
	live *endpoints
	// mem is the memory budget the sessions' profiles share.
	mem *budget
}

func (f *rootFiles) ReadDir(name string) ([]fs.DirEntry, error) {
	des, err := fs.ReadDir(f.root.FS(), name)
	if name != "." || f.live == nil {
		return des, err
	}
	// A file named like an endpoint's profile would be hidden by it.
	des = slices.DeleteFunc(des, func(de fs.DirEntry) bool { return strings.HasPrefix(de.Name(), livePrefix) })
	return append(f.live.entries(), des...), err
}

func (f *rootFiles) Open(name string) (fs.File, error) {
	file, err := f.open(name)
	if err != nil {
		return nil, err // a nil *os.File is not a nil fs.File
	}
	return file, nil
}

// errNotServed hides the server's own paths and error details from the
// client: the name it gave and why, in its terms.
func notServed(name, why string) error {
	return &fs.PathError{Op: "open", Path: name, Err: errors.New(why)}
}

func (f *rootFiles) open(name string) (*os.File, error) {
	if strings.HasPrefix(name, livePrefix) {
		return nil, notServed(name, "a live profile, fetched when opened")
	}
	if !fs.ValidPath(name) {
		return nil, notServed(name, "not a name in the served directory")
	}
	file, err := f.root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, notServed(name, "no such file")
	case err != nil && (errors.Is(err, fs.ErrPermission)):
		return nil, notServed(name, "permission denied")
	case err != nil:
		// os.Root's "path escapes from parent", symlink loops and the rest.
		return nil, notServed(name, "not a file in the served directory")
	}
	st, err := file.Stat()
	switch {
	case err != nil:
		file.Close()
		return nil, notServed(name, "cannot be read")
	case !st.Mode().IsRegular():
		file.Close()
		return nil, notServed(name, "not a regular file")
	case st.Size() > f.maxBytes:
		file.Close()
		return nil, notServed(name, fmt.Sprintf("too large to serve (%s; the limit is %s)",
			analysis.ScaledLabel(st.Size(), "bytes", "auto"), analysis.ScaledLabel(f.maxBytes, "bytes", "auto")))
	}
	return file, nil
}

// load parses the named profile into a session's hold on the memory
// budget, once a load slot is free. The parse reads through a reader
// that fails once ctx ends, so a session that goes away stops its load
// within one read.
func (f *rootFiles) load(ctx context.Context, name string, opt format.Options, h *memHold) (*format.Profile, error) {
	if strings.HasPrefix(name, livePrefix) {
		return f.loadLive(ctx, name, opt, h)
	}
	file, err := f.open(name)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	st, err := file.Stat()
	if err != nil {
		return nil, notServed(name, "cannot be read")
	}
	return f.parse(ctx, name, &ctxReader{ctx: ctx, f: file, size: st.Size()}, opt, h)
}

// loadLive fetches an endpoint's profile (not holding a load slot while
// the endpoint samples), then parses it.
func (f *rootFiles) loadLive(ctx context.Context, name string, opt format.Options, h *memHold) (*format.Profile, error) {
	e, path, ok := f.live.lookup(name)
	if !ok {
		return nil, notServed(name, "not an endpoint this server names")
	}
	data, err := f.live.fetch(ctx, e, path, opt.Status)
	if err != nil {
		return nil, err
	}
	r := bytes.NewReader(data)
	return f.parse(ctx, name, &ctxReader{ctx: ctx, f: r, size: r.Size()}, opt, h)
}

// parse parses a profile once its memory is reserved and a load slot
// is free. The decoded size the reservation is for caps the parse.
func (f *rootFiles) parse(ctx context.Context, name string, cr *ctxReader, opt format.Options, h *memHold) (*format.Profile, error) {
	decoded := decodedCap(cr.f, cr.size, f.maxBytes)
	need := reckon(decoded)
	t, err := h.reserve(ctx, need, opt.Status)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	p, err := f.parseIn(ctx, name, cr, opt, decoded, need)
	if err != nil {
		t.release()
		return nil, err
	}
	hold(p, t)
	return p, nil
}

func (f *rootFiles) parseIn(ctx context.Context, name string, cr *ctxReader, opt format.Options, decoded, reserved int64) (*format.Profile, error) {
	select {
	case f.loads <- struct{}{}:
	default:
		if opt.Status != nil {
			opt.Status("queued behind other sessions' loads")
		}
		select {
		case f.loads <- struct{}{}:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	defer func() { <-f.loads }()
	opt.MaxBytes = decoded
	// The decode may take what was reserved for it: a small profile's
	// maps and slices take several times its few kilobytes.
	opt.Budget = format.NewBudget(reserved)
	opt.Symbolize = "none" // no binaries are read
	opt.Binaries, opt.BinaryPath = nil, ""
	opt.NoPrograms = true // perf.data would run perf
	var r io.Reader = cr
	if f.wrap != nil {
		r = f.wrap(r)
	}
	p, err := format.Parse(r, opt)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return p, nil
}

// ctxReader reads a file until ctx ends. It is an io.ReaderAt with a
// Size, as format.Parse wants to size its buffers.
type ctxReader struct {
	ctx context.Context
	f   interface {
		io.Reader
		io.ReaderAt
	}
	size int64
}

func (r *ctxReader) Read(b []byte) (int, error) {
	if err := r.ctx.Err(); err != nil {
		return 0, err
	}
	return r.f.Read(b)
}

func (r *ctxReader) ReadAt(b []byte, off int64) (int, error) {
	if err := r.ctx.Err(); err != nil {
		return 0, err
	}
	return r.f.ReadAt(b, off)
}

func (r *ctxReader) Size() int64 { return r.size }
