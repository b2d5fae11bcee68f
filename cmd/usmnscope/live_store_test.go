package main

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/usmnscope/usmnscope/capture"
	"github.com/usmnscope/usmnscope/internal/pipeline"
	"github.com/usmnscope/usmnscope/unturned"
)

// TestLiveWriteStore captures simulate's traffic live on lo with --write F,
// wired as the live command wires it (newLiveDecoder, attachLive): most
// messages are then recorded by their offset in F, not kept in memory,
// and every message's Detail equals the one decoded from F afterwards as
// dump reads it (openSource, newDecoder, attachStore, feed).
func TestLiveWriteStore(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("live capture needs CAP_NET_RAW: skipping the live --write store test (not root)")
	}
	// A free port for the simulated server, and the profile that says so.
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := uint16(ln.Addr().(*net.TCPAddr).Port)
	ln.Close()
	p := unturned.Default()
	p.TransportPort = port
	out := filepath.Join(t.TempDir(), "live.pcapng")

	opt := capture.DefaultLiveOptions("lo")
	opt.Options = captureOptions(p)
	opt.Write = out
	src, err := capture.OpenLive(opt)
	if errors.Is(err, capture.ErrPermission) {
		t.Skipf("no CAP_NET_RAW: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	// A tiny arena: a message the store did not take keeps its bytes,
	// but nothing else may need them.
	live := newLiveDecoder(p, 1<<20)
	attachLive(live, out, src)
	fed := make(chan error, 1)
	go func() { fed <- pipeline.Feed(src, live, nil) }()

	code, _, stderr := runArgs("simulate", "--scenario", "../../fixtures/scenarios/two-conns.toml",
		"--addr", net.JoinHostPort("127.0.0.1", itoa(int(port))), "--full-speed", "--count", "200")
	if code != 0 {
		t.Fatalf("simulate exit %d: %s", code, stderr)
	}
	// The ring hands a block over at most 100 ms after its first packet.
	time.Sleep(400 * time.Millisecond)
	if err := src.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	select {
	case err := <-fed:
		if err != nil {
			t.Fatalf("feed: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("feed did not end after Close")
	}

	fsrc, err := openSource(&streams{}, out, p)
	if err != nil {
		t.Fatal(err)
	}
	defer fsrc.Close()
	file := newDecoder(p)
	attachStore(file, out)
	if err := pipeline.Feed(fsrc, file, nil); err != nil {
		t.Fatal(err)
	}
	if live.Len() < 200 || live.Len() != file.Len() {
		t.Fatalf("live decoded %d messages, the --write file %d; want the same, at least 200", live.Len(), file.Len())
	}
	inFile, inMemory := live.Placement()
	t.Logf("%d messages: %d in the --write file, %d in memory", live.Len(), inFile, inMemory)
	if inFile < live.Len()/2 {
		t.Errorf("Placement() = %d in the file, %d in memory; want most in the --write file", inFile, inMemory)
	}
	for n := 1; n <= live.Len(); n++ {
		got, want := live.Detail(n), file.Detail(n)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("live Detail(%d) = %+v; decoded from the --write file %+v", n, got, want)
		}
		for _, f := range got.Findings {
			if strings.Contains(f.Text, "no longer in memory") || strings.Contains(f.Text, "capture file") {
				t.Fatalf("live Detail(%d) finding %q: its bytes should be read back", n, f.Text)
			}
		}
	}
}

// TestLiveArenaUsage: a negative or absurd --max-arena is a usage error,
// and live --help documents the bound and its default.
func TestLiveArenaUsage(t *testing.T) {
	for _, v := range []string{"-1", "9999999999999"} {
		code, out, errw := run(t, nil, "live", "-i", "lo", "--max-arena", v, "--stats")
		if code != exitUsage || out != "" || !strings.Contains(errw, "--max-arena "+v+": cannot be negative or above") {
			t.Errorf("live --max-arena %s: exit %d, stdout %q, stderr %q; want exit %d and the reason", v, code, out, errw, exitUsage)
		}
	}
	_, help, _ := run(t, nil, "live", "--help")
	for _, want := range []string{"--max-arena MiB", "(default 64)", "no longer in memory", "With --write the\nbytes are read back from the file"} {
		if !strings.Contains(help, want) {
			t.Errorf("live --help lacks %q:\n%s", want, help)
		}
	}
}

// TestFileStoreGrows: a store over a file that is still written (live
// --write) reads bytes appended after it cached the file's short last
// block, syncing the writer when a read comes back short.
func TestFileStoreGrows(t *testing.T) {
	path := filepath.Join(t.TempDir(), "grow")
	w, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	head := []byte("0123456789")
	w.Write(head)
	var pending []byte // what the "writer" buffers until synced
	syncs := 0
	s := storeOf(t, path, func() error {
		syncs++
		_, err := w.Write(pending)
		pending = nil
		return err
	})
	got := make([]byte, 4)
	if n, err := s.ReadAt(got, 2); n != 4 || err != nil || string(got) != "2345" {
		t.Fatalf("ReadAt(4 at 2) = %d %v %q; want 2345", n, err, got)
	}
	pending = []byte("abcdef")
	got = make([]byte, 6)
	if n, err := s.ReadAt(got, 8); n != 6 || err != nil || string(got) != "89abcd" || syncs != 1 {
		t.Fatalf("ReadAt(6 at 8) after the file grew = %d %v %q, %d syncs; want 89abcd after one sync", n, err, got, syncs)
	}
	if n, err := s.ReadAt(make([]byte, 4), 100); n != 0 || err == nil {
		t.Fatalf("ReadAt past the end = %d %v; want an error", n, err)
	}
}

// storeOf opens path as a fileStore with sync, as attach does.
func storeOf(t *testing.T, path string, sync func() error) *capture.FileStore {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return capture.NewFileStore(f, sync)
}
