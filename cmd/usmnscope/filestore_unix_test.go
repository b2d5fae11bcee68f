//go:build unix

package main

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestFileStoreNamedPipe: a capture named by a FIFO (as bash's <(…) gives)
// is read once, by the capture reader only, and gives the same tables as
// the regular file; attaching a store must not open the pipe a second time.
func TestFileStoreNamedPipe(t *testing.T) {
	src := filepath.Join(capturesDir, "usmn-basic.pcapng")
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(t.TempDir(), "cap.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		w.Write(data)
		w.Close()
	}()
	type result struct {
		code     int
		out, err string
	}
	done := make(chan result, 1)
	go func() {
		code, out, errs := run(t, nil, "tables", "--json", fifo)
		done <- result{code, out, errs}
	}()
	var got result
	select {
	case got = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("tables --json on a FIFO did not finish in 20 s")
	}
	code, want, _ := run(t, nil, "tables", "--json", src)
	if got.code != code || got.out != want {
		t.Errorf("tables --json FIFO = exit %d, %q (stderr %q); want exit %d, the regular file's output %q", got.code, got.out, got.err, code, want)
	}
}
