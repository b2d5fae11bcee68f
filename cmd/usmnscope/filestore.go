package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"

	"github.com/usmnscope/usmnscope/session"
)

// Block cache of fileStore: messages are read back in runs (the TUI's index
// walks them in order, a table replay walks one connection's messages of a
// stretch of the file), so whole blocks are read and a few are kept.
const (
	storeBlock  = 64 << 10
	storeBlocks = 32 // 2 MiB
)

// fileStore is the session.Store of a capture read from a file: the message
// bytes stay in the file and are read back with pread (ReadAt) when a
// message is shown, never memory-mapped, since mapped pages would count in
// the resident set that issue 7 bounds. A small LRU of blocks serves runs of
// nearby messages with one read. It is safe for concurrent use.
type fileStore struct {
	f *os.File
	// sync, when set, writes out what the file's writer still buffers
	// (live --write): a read that comes back short syncs and tries again.
	sync func() error

	mu     sync.Mutex
	blocks [storeBlocks]storeEntry
	tick   uint64
}

type storeEntry struct {
	idx  int64 // block index, -1 when empty
	used uint64
	n    int // valid bytes (short at the end of the file)
	data []byte
}

// attachStore opens path again as the store of dc, so that messages lying
// whole in the file are recorded by offset instead of copied. "-" (stdin)
// and anything but a regular file (a pipe) have no file to read again:
// their messages stay in memory. The file closes when dc is garbage.
func attachStore(dc *session.Index, path string) {
	if path == "-" {
		return
	}
	attach(dc, path, nil)
}

// attach opens path again as the store of dc (attachStore, attachLive).
func attach(dc *session.Index, path string, sync func() error) {
	// Only a regular file can be read again by offset: opening a named pipe
	// (bash's <(…), /dev/stdin) a second time would block or steal the
	// capture's own bytes.
	if st, err := os.Stat(path); err != nil || !st.Mode().IsRegular() {
		return
	}
	f, err := os.Open(path)
	if err != nil {
		// Not fatal: without a store every message keeps its bytes.
		return
	}
	s := &fileStore{f: f, sync: sync}
	for i := range s.blocks {
		s.blocks[i].idx = -1
	}
	dc.SetStore(s)
	runtime.AddCleanup(dc, func(f *os.File) { f.Close() }, f)
}

// attachLive makes the --write file of a live capture the store of dc, so
// that messages whose bytes are in it need no memory (session.Index's Storage;
// capture's live Next gives their offsets). src flushes the file before a
// read that needs what it still buffers.
func attachLive(dc *session.Index, path string, src any) {
	if s, ok := src.(interface{ Sync() error }); ok && path != "" {
		attach(dc, path, s.Sync)
	}
}

// ReadAt fills p from the file at off through the block cache. A read
// that comes back short on a growing file (sync set) syncs its writer and
// reads again.
func (s *fileStore) ReadAt(p []byte, off int64) (int, error) {
	n, err := s.readAt(p, off)
	if n < len(p) && s.sync != nil {
		if serr := s.sync(); serr != nil {
			return n, fmt.Errorf("%w (flushing the file: %v)", err, serr)
		}
		n, err = s.readAt(p, off)
	}
	return n, err
}

func (s *fileStore) readAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, os.ErrInvalid
	}
	if len(p) > storeBlock {
		return s.f.ReadAt(p, off)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for n < len(p) {
		o := int((off + int64(n)) % storeBlock)
		b, err := s.block((off+int64(n))/storeBlock, o+len(p)-n)
		if o >= b.n {
			if err == nil {
				err = io.EOF
			}
			return n, err
		}
		n += copy(p[n:], b.data[o:b.n])
	}
	return n, nil
}

// block returns cached block idx, reading it into the least recently used
// slot when missing. A cached block cut short by the end of the file, but
// not holding end bytes, is read again: the file may have grown (live
// --write).
func (s *fileStore) block(idx int64, end int) (*storeEntry, error) {
	s.tick++
	lru := &s.blocks[0]
	for i := range s.blocks {
		e := &s.blocks[i]
		if e.idx == idx {
			e.used = s.tick
			if e.n < end && e.n < storeBlock {
				lru = e
				break
			}
			return e, nil
		}
		if e.used < lru.used {
			lru = e
		}
	}
	if lru.data == nil {
		lru.data = make([]byte, storeBlock)
	}
	n, err := s.f.ReadAt(lru.data, idx*storeBlock)
	if err == io.EOF && n > 0 {
		err = nil
	}
	lru.idx, lru.used, lru.n = idx, s.tick, n
	if err != nil {
		// Do not keep a block that failed to read.
		lru.idx = -1
	}
	return lru, err
}
