package capture

import (
	"fmt"
	"io"
	"os"
	"sync"
)

// Block cache of FileStore: messages are read back in runs (the TUI's index
// walks them in order, a table replay walks one connection's messages of a
// stretch of the file), so whole blocks are read and a few are kept.
const (
	StoreBlock  = 64 << 10
	storeBlocks = 32 // 2 MiB
)

// FileStore reads the bytes of a capture file back by offset (a session
// Store: the decoders record a message lying whole in the file by where
// it is instead of copying it). The bytes stay in the file and are read
// with pread (ReadAt) when a message is shown, never memory-mapped, since
// mapped pages would count in the resident set that issue 7 bounds. A
// small LRU of blocks serves runs of nearby messages with one read. It is
// safe for concurrent use.
type FileStore struct {
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

// NewFileStore reads f back through the block cache; sync, when not nil,
// flushes the file's writer before a read that came back short is tried
// again.
func NewFileStore(f *os.File, sync func() error) *FileStore {
	s := &FileStore{f: f, sync: sync}
	for i := range s.blocks {
		s.blocks[i].idx = -1
	}
	return s
}

// OpenStore opens path again as a FileStore, or returns nil: only a
// regular file can be read again by offset (opening a named pipe, bash's
// <(…) or /dev/stdin, a second time would block or steal the capture's own
// bytes), and a file that cannot be opened is not fatal (without a store
// every message keeps its bytes). The caller closes it (Close).
func OpenStore(path string, sync func() error) *FileStore {
	if st, err := os.Stat(path); err != nil || !st.Mode().IsRegular() {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	return NewFileStore(f, sync)
}

// Close closes the file.
func (s *FileStore) Close() error { return s.f.Close() }

// File is the file the store reads.
func (s *FileStore) File() *os.File { return s.f }

// ReadAt fills p from the file at off through the block cache. A read
// that comes back short on a growing file (sync set) syncs its writer and
// reads again.
func (s *FileStore) ReadAt(p []byte, off int64) (int, error) {
	n, err := s.readAt(p, off)
	if n < len(p) && s.sync != nil {
		if serr := s.sync(); serr != nil {
			return n, fmt.Errorf("%w (flushing the file: %v)", err, serr)
		}
		n, err = s.readAt(p, off)
	}
	return n, err
}

func (s *FileStore) readAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, os.ErrInvalid
	}
	if len(p) > StoreBlock {
		return s.f.ReadAt(p, off)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for n < len(p) {
		o := int((off + int64(n)) % StoreBlock)
		b, err := s.block((off+int64(n))/StoreBlock, o+len(p)-n)
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
func (s *FileStore) block(idx int64, end int) (*storeEntry, error) {
	s.tick++
	lru := &s.blocks[0]
	for i := range s.blocks {
		e := &s.blocks[i]
		if e.idx == idx {
			e.used = s.tick
			if e.n < end && e.n < StoreBlock {
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
		lru.data = make([]byte, StoreBlock)
	}
	n, err := s.f.ReadAt(lru.data, idx*StoreBlock)
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
