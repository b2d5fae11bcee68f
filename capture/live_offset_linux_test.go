//go:build linux

package capture

import (
	"bytes"
	"io"
	"net"
	"os"
	"testing"
	"time"
)

// dataRun is one Data event: its bytes and its file offset.
type dataRun struct {
	data   []byte
	offset int64
}

// TestLiveWriteOffsets: with Write, live Data events carry the offset of
// their bytes in the Write file (after Sync the file holds them there,
// while the capture runs), and the offsets are those a file source gives
// when it reads the same file afterwards.
func TestLiveWriteOffsets(t *testing.T) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := uint16(ln.Addr().(*net.TCPAddr).Port)
	src, out := openWriting(t, "lo", ln)
	syncer, ok := src.(interface{ Sync() error })
	if !ok {
		t.Fatalf("live source %T has no Sync", src)
	}
	rf, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer rf.Close()

	const writes = 20
	msg := framed("a message of some length", "and another")
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		io.Copy(c, c) // echo: both directions carry data
	}()
	c, err := net.Dial("tcp4", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		defer c.Close()
		buf := make([]byte, len(msg))
		for range writes {
			if _, err := c.Write(msg); err != nil {
				return
			}
			if _, err := io.ReadFull(c, buf); err != nil {
				return
			}
		}
	}()

	var live []dataRun
	bad := 0
	done := make(chan struct{})
	go func() {
		defer close(done)
		total := 0
		for total < 2*writes*len(msg) {
			ev, err := src.Next()
			if err != nil {
				return
			}
			if ev.Kind != EventData {
				continue
			}
			total += len(ev.Data)
			live = append(live, dataRun{append([]byte(nil), ev.Data...), ev.Offset})
			if ev.Offset < 0 {
				continue
			}
			// Read back while capturing, as a decoder's store does.
			if err := syncer.Sync(); err != nil {
				t.Errorf("Sync: %v", err)
			}
			got := make([]byte, len(ev.Data))
			if _, err := rf.ReadAt(got, ev.Offset); err != nil || !bytes.Equal(got, ev.Data) {
				bad++
				t.Errorf("Data at offset %d: file holds % x (%v); want % x", ev.Offset, got, err, ev.Data)
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		src.Close()
		<-done
	}
	if err := src.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	withOffset := 0
	for _, r := range live {
		if r.offset >= 0 {
			withOffset++
		}
	}
	if withOffset == 0 || bad > 0 {
		t.Fatalf("%d of %d live Data events with a file offset, %d wrong; want offsets, all right", withOffset, len(live), bad)
	}
	saved, err := Open(out, Options{TransportPort: port})
	if err != nil {
		t.Fatal(err)
	}
	defer saved.Close()
	var file []dataRun
	for {
		ev, err := saved.Next()
		if err != nil {
			break
		}
		if ev.Kind == EventData {
			file = append(file, dataRun{append([]byte(nil), ev.Data...), ev.Offset})
		}
	}
	if len(file) < len(live) {
		t.Fatalf("file source gave %d Data events; live gave %d", len(file), len(live))
	}
	for i, r := range live {
		if !bytes.Equal(r.data, file[i].data) || r.offset != file[i].offset {
			t.Fatalf("live Data event %d = % x at %d; reading the file gives % x at %d", i+1, r.data, r.offset, file[i].data, file[i].offset)
		}
	}
}
