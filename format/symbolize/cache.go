package symbolize

import (
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Cache keeps opened binaries, and everything parsed from them, by path,
// size and modification time: loading a profile again (another base, a
// refreshed URL) does not read a binary twice, and a rebuilt binary is
// read afresh. Safe for concurrent use.
type Cache struct {
	mu    sync.Mutex
	files map[cacheKey]*cacheEntry
}

type cacheKey struct {
	path  string
	size  int64
	mtime time.Time
}

type cacheEntry struct {
	bin *Binary
	err error
}

// NewCache returns an empty cache.
func NewCache() *Cache { return &Cache{files: map[cacheKey]*cacheEntry{}} }

// Open returns the binary at path, opening it the first time. Failures
// are cached too, so a missing or unreadable file is reported once.
func (c *Cache) Open(path string) (*Binary, error) {
	key := cacheKey{path: path}
	if abs, err := filepath.Abs(path); err == nil {
		key.path = abs
	}
	if st, err := os.Stat(path); err == nil {
		key.size, key.mtime = st.Size(), st.ModTime()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.files[key]; ok {
		return e.bin, e.err
	}
	b, err := Open(path)
	c.files[key] = &cacheEntry{b, err}
	return b, err
}

// Close closes every binary in the cache and empties it.
func (c *Cache) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, e := range c.files {
		if e.bin != nil {
			e.bin.Close()
		}
		delete(c.files, k)
	}
	return nil
}
