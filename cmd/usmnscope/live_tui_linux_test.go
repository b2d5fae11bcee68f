//go:build linux

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/usmnscope/usmnscope/capture"
	"github.com/usmnscope/usmnscope/session"
)

// TestLiveTUIRPC: `live -i lo --write F --decode-as PORT=ulinkrpc` in its
// terminal UI (on a pseudo-terminal, quit with q) decodes the ULinkRPC
// that simulate plays over TCP, WebSocket and KCP: the records its index
// holds when the UI quits are those of dump --json F, key for key.
func TestLiveTUIRPC(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("live capture needs CAP_NET_RAW: skipping the live TUI ULinkRPC test (not root)")
	}
	for _, name := range []string{"tcp-json", "websocket-json", "kcp-json"} {
		t.Run(name, func(t *testing.T) { liveTUIRPC(t, name) })
	}
}

func liveTUIRPC(t *testing.T, name string) {
	path := filepath.Join(rpcFixturesDir, name+".toml")
	port := freeRPCPort(t, strings.HasPrefix(name, "kcp"))
	out := filepath.Join(t.TempDir(), name+".pcapng")
	flags := append(rpcArgs(name), "--decode-as", strconv.Itoa(int(port))+"=ulinkrpc")
	tty := openPTY(t)
	keys, press := io.Pipe()
	defer press.Close()
	var errw bytes.Buffer
	s := &streams{in: keys, out: tty, err: &errw}

	var live *session.Index
	done := make(chan error, 1)
	go func() {
		done <- runLiveOn(context.Background(), s, func(dc *session.Index) { live = dc },
			append([]string{"live", "-i", "lo", "--write", out}, flags...)...)
	}()
	// The capture is on once the --write file has its header.
	for ready := false; !ready; {
		select {
		case err := <-done:
			if errors.Is(err, capture.ErrPermission) {
				t.Skipf("no CAP_NET_RAW: %v", err)
			}
			t.Fatalf("live stopped before simulate ran: %v\n%s", err, errw.String())
		case <-time.After(10 * time.Millisecond):
			st, err := os.Stat(out)
			ready = err == nil && st.Size() > 0
		}
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(int(port)))
	code, stdout, stderr := runArgs("simulate", "--scenario", path, "--addr", addr, "--full-speed")
	if code != 0 || !strings.Contains(stdout, "all received") {
		t.Fatalf("simulate exit %d: %s%s", code, stdout, stderr)
	}
	// The ring hands a block over at most 100 ms after its first packet.
	time.Sleep(400 * time.Millisecond)
	if _, err := press.Write([]byte("q")); err != nil {
		t.Fatalf("pressing q: %v", err)
	}
	select {
	case err := <-done:
		if err != nil || live == nil {
			t.Fatalf("live: %v (decoded index handed out: %v)\n%s", err, live != nil, errw.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("live's UI did not quit on q")
	}
	code, dump, stderr := run(t, nil, append(append([]string{"dump", "--json"}, flags...), out)...)
	if code != exitOK {
		t.Fatalf("dump --json %s: exit %d: %s", out, code, stderr)
	}
	// The live index names no host or capture (it reads no file).
	dump = withoutOrigin(dump)
	got := rpcLinesOn(t, string(live.AppendJSONRange(nil, 1, live.Len(), nil)), port)
	want := rpcLinesOn(t, dump, port)
	if len(got) == 0 || !slices.Equal(got, want) {
		t.Fatalf("the live UI decoded %d ULinkRPC records on port %d, dump --json of its --write file %d; want the same records:\n%s\nin the file:\n%s",
			len(got), port, len(want), strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	t.Logf("%d ULinkRPC records in the live UI and in the file", len(got))
}

// openPTY returns the terminal side of a new pseudo-terminal of 40×120
// whose output is read and dropped until the test ends.
func openPTY(t *testing.T) *os.File {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	fd := int(m.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		m.Close()
		t.Fatalf("unlocking the pseudo-terminal: %v", err)
	}
	n, err := unix.IoctlGetUint32(fd, unix.TIOCGPTN)
	if err != nil {
		m.Close()
		t.Fatalf("pseudo-terminal number: %v", err)
	}
	if err := unix.IoctlSetWinsize(fd, unix.TIOCSWINSZ, &unix.Winsize{Row: 40, Col: 120}); err != nil {
		m.Close()
		t.Fatalf("pseudo-terminal size: %v", err)
	}
	tty, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		m.Close()
		t.Fatalf("pseudo-terminal %d: %v", n, err)
	}
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		io.Copy(io.Discard, m) // ends with EIO once the terminal side is closed
	}()
	t.Cleanup(func() {
		tty.Close()
		<-drained
		m.Close()
	})
	return tty
}
