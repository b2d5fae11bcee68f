package main

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/usmnscope/usmnscope/capture"
	"github.com/usmnscope/usmnscope/internal/pipeline"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/unturned"
)

// decodeFile decodes path through feed, with the file as the store when
// withStore is set.
func decodeFile(t *testing.T, path string, withStore bool) *session.Index {
	t.Helper()
	p := unturned.Default()
	src, err := capture.Open(path, captureOptions(p))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dc := session.NewIndex(p)
	if withStore {
		attachStore(dc, path)
	}
	if err := pipeline.Feed(src, dc, nil); err != nil {
		t.Fatalf("feed %s: %v", path, err)
	}
	return dc
}

// TestFileStoreSameDecoding: every fixture scenario, written as classic pcap
// (whose segments have file offsets), decodes to the same messages, details,
// tables as of every message, connections and findings whether message
// bytes are read back from the file or kept in memory; and with the store
// most messages are recorded by file offset.
func TestFileStoreSameDecoding(t *testing.T) {
	scenarios, err := filepath.Glob("../../fixtures/scenarios/*.toml")
	if err != nil || len(scenarios) == 0 {
		t.Fatalf("no scenarios: %v", err)
	}
	dir := t.TempDir()
	// Scenarios like transport-mess split or reorder every segment, so
	// only the sum is bound to show that the file is used.
	inFile, total := 0, 0
	defer func() {
		if inFile*2 < total {
			t.Errorf("with a store %d of %d messages are in the file; want most", inFile, total)
		}
	}()
	for _, sc := range scenarios {
		name := strings.TrimSuffix(filepath.Base(sc), ".toml")
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name+".pcap")
			var errw bytes.Buffer
			if code := Execute([]string{"gen", sc, "--pcap", "-o", path}, nil, &bytes.Buffer{}, &errw); code != exitOK {
				t.Fatalf("gen %s: exit %d: %s", sc, code, errw.String())
			}
			mem := decodeFile(t, path, false)
			file := decodeFile(t, path, true)
			if f, m := mem.Placement(); f != 0 || m != mem.Len() {
				t.Errorf("without a store Placement() = %d, %d; want 0, %d", f, m, mem.Len())
			}
			f, _ := file.Placement()
			inFile += f
			total += file.Len()
			compareCaptures(t, mem, file)
		})
	}
	// The fixture captures as they are (pcapng).
	captures, _ := filepath.Glob(filepath.Join(capturesDir, "*.pcap*"))
	for _, path := range captures {
		t.Run(filepath.Base(path), func(t *testing.T) {
			compareCaptures(t, decodeFile(t, path, false), decodeFile(t, path, true))
		})
	}
}

// compareCaptures fails on any difference between what a and b return.
func compareCaptures(t *testing.T, a, b *session.Index) {
	t.Helper()
	if a.Len() != b.Len() {
		t.Fatalf("Len() = %d in memory, %d from the file", a.Len(), b.Len())
	}
	for n := 1; n <= a.Len(); n++ {
		if got, want := b.Message(n), a.Message(n); !reflect.DeepEqual(got, want) {
			t.Fatalf("Message(%d) from the file = %+v; want (in memory) %+v", n, got, want)
		}
		if got, want := b.Detail(n), a.Detail(n); !reflect.DeepEqual(got, want) {
			t.Fatalf("Detail(%d) from the file = %+v; want (in memory) %+v", n, got, want)
		}
	}
	ca, cb := a.Connections(), b.Connections()
	if !reflect.DeepEqual(cb, ca) {
		t.Fatalf("Connections() from the file = %+v; want %+v", cb, ca)
	}
	for _, ci := range ca {
		for n := 0; n <= a.Len(); n++ {
			if got, want := b.Tables(ci.Conn, n), a.Tables(ci.Conn, n); !reflect.DeepEqual(got, want) {
				t.Fatalf("Tables(%s, %d) from the file = %+v; want %+v", ci.Conn, n, got, want)
			}
		}
	}
	if got, want := b.Findings(), a.Findings(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Findings() from the file = %+v; want %+v", got, want)
	}
}

// TestFileStoreReadAt: the block cache returns the file's bytes at any
// offset and length, across block boundaries and at the end of the file,
// where it reports a short read.
func TestFileStoreReadAt(t *testing.T) {
	data := make([]byte, 3*storeBlock+123)
	for i := range data {
		data[i] = byte(i*7 + i/251)
	}
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := capture.NewFileStore(f, nil)
	for _, tc := range []struct {
		off  int64
		n    int
		want int // bytes read
	}{
		{0, 10, 10},
		{storeBlock - 3, 10, 10},
		{2*storeBlock + 5, storeBlock, storeBlock},
		{int64(len(data)) - 4, 10, 4},
		{int64(len(data)), 1, 0},
		{5, 2*storeBlock + 1, 2*storeBlock + 1},
	} {
		p := make([]byte, tc.n)
		n, err := s.ReadAt(p, tc.off)
		if n != tc.want || (n < tc.n) != (err != nil) {
			t.Errorf("ReadAt(%d bytes, %d) = %d, %v; want %d and an error only when short", tc.n, tc.off, n, err, tc.want)
			continue
		}
		if !bytes.Equal(p[:n], data[tc.off:tc.off+int64(n)]) {
			t.Errorf("ReadAt(%d bytes, %d): bytes differ from the file", tc.n, tc.off)
		}
	}
}
