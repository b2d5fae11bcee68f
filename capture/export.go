package capture

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
)

// Export reads the capture file at capture again and copies the frames
// asked for (numbered from 1 in file order, as Event.Frame counts them)
// into a new pcapng at path, and returns how many it wrote: the TUI's w,
// which the views call inside a command, never in Update or View. Each
// message's frame is the one that completed it: a message spread over
// several TCP segments is exported as its last segment.
func Export(capture string, frames []int, path string) (int, error) {
	want := make(map[int]bool, len(frames))
	for _, f := range frames {
		want[f] = true
	}
	in, err := os.Open(capture)
	if err != nil {
		return 0, fmt.Errorf("export: %w", err)
	}
	defer in.Close()
	br := bufio.NewReader(in)
	magic, err := br.Peek(4)
	if err != nil {
		return 0, fmt.Errorf("export: %s: %w", capture, err)
	}
	var (
		read func() ([]byte, gopacket.CaptureInfo, error)
		link layers.LinkType
	)
	if bytes.Equal(magic, []byte{0x0a, 0x0d, 0x0d, 0x0a}) {
		r, err := pcapgo.NewNgReader(br, pcapgo.DefaultNgReaderOptions)
		if err != nil {
			return 0, fmt.Errorf("export: %s: %w", capture, err)
		}
		read, link = r.ReadPacketData, r.LinkType()
	} else {
		r, err := pcapgo.NewReader(br)
		if err != nil {
			return 0, fmt.Errorf("export: %s: %w", capture, err)
		}
		read, link = r.ReadPacketData, r.LinkType()
	}
	out, err := os.Create(path)
	if err != nil {
		return 0, fmt.Errorf("export: %w", err)
	}
	bw := bufio.NewWriter(out)
	w, err := pcapgo.NewNgWriter(bw, link)
	if err != nil {
		out.Close()
		return 0, fmt.Errorf("export: %w", err)
	}
	n := 0
	for frame := 1; len(want) > 0; frame++ {
		data, ci, err := read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			out.Close()
			return n, fmt.Errorf("export: %s frame %d: %w", capture, frame, err)
		}
		if !want[frame] {
			continue
		}
		delete(want, frame)
		ci.InterfaceIndex = 0
		if err := w.WritePacket(ci, data); err != nil {
			out.Close()
			return n, fmt.Errorf("export: %w", err)
		}
		n++
	}
	if err := w.Flush(); err != nil {
		out.Close()
		return n, fmt.Errorf("export: %w", err)
	}
	if err := bw.Flush(); err != nil {
		out.Close()
		return n, fmt.Errorf("export: %w", err)
	}
	return n, out.Close()
}

// ExportPath is the name the TUI's w offers: beside the capture, named
// for it (the views ask, and never replace a file without a yes).
func ExportPath(capture string) string {
	dir, base := filepath.Split(capture)
	for _, ext := range []string{".pcapng", ".pcap"} {
		if len(base) > len(ext) && strings.HasSuffix(base, ext) {
			base = strings.TrimSuffix(base, ext)
		}
	}
	return filepath.Join(dir, base+"-filtered.pcapng")
}
