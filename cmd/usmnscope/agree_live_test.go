package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
	"github.com/usmnscope/usmnscope/internal/pipeline"
	"github.com/usmnscope/usmnscope/unturned"
)

// The live path of the agreement check (issue 24): `live --write F`
// replayed. A live capture reads an AF_PACKET ring; pcapRing stands in for
// the ring (capture.LiveOptions.Ring), handing the capture's packets as
// the cooked socket would, from their IP header on, so that they go
// through everything else live does: openLive's pipeline.Open, saving
// each packet to F before it is decoded, the file offsets of its bytes,
// and the index reading those bytes back from F: a message lying whole in
// one packet is recorded by its offset in F, not copied (session.Store).
// The arena keeps everything (Live.Arena 0): with a bound, a message cut
// across packets has no offset in F and loses its bytes once the arena
// passes the bound (live --max-arena, even with --write).

// pcapRing reads a pcap or pcapng capture as a live ring: each packet from
// its IPv4 or IPv6 header on. Packets that are no IP (or that pcapgo
// cannot read) are what a cooked socket's filter would not hand on: they
// are skipped and all is cleared.
type pcapRing struct {
	next func() ([]byte, gopacket.CaptureInfo, error)
	link func(ci gopacket.CaptureInfo) layers.LinkType
	all  bool // every packet was handed on whole, with its own lengths
	// stopped says pcapgo met an error before the end of the capture.
	stopped bool
	// read counts the packets read; frames[k] is the capture's number
	// of the packet handed on k-th (F's frame k+1).
	read   int
	frames []int
}

func newPCAPRing(data []byte) (*pcapRing, error) {
	r := &pcapRing{all: true}
	if len(data) >= 4 && bytes.Equal(data[:4], []byte{0x0a, 0x0d, 0x0d, 0x0a}) {
		ng, err := pcapgo.NewNgReader(bytes.NewReader(data), pcapgo.DefaultNgReaderOptions)
		if err != nil {
			return nil, err
		}
		r.next = ng.ReadPacketData
		r.link = func(ci gopacket.CaptureInfo) layers.LinkType {
			ifc, err := ng.Interface(ci.InterfaceIndex)
			if err != nil {
				return layers.LinkTypeNull
			}
			return ifc.LinkType
		}
		return r, nil
	}
	pr, err := pcapgo.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	r.next = pr.ReadPacketData
	r.link = func(gopacket.CaptureInfo) layers.LinkType { return pr.LinkType() }
	return r, nil
}

func (r *pcapRing) ReadPacket() ([]byte, gopacket.CaptureInfo, error) {
	for {
		data, ci, err := r.next()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				r.all, r.stopped = false, true // the capture's reader may read on
			}
			return nil, ci, io.EOF
		}
		r.read++
		off, ok := networkStart(data, r.link(ci))
		if !ok || ci.Length < len(data) {
			r.all = false
			if !ok {
				continue
			}
		}
		ip := data[off:]
		ci.CaptureLength = len(ip)
		ci.Length = max(ci.Length-off, len(ip))
		ci.InterfaceIndex = 0
		r.frames = append(r.frames, r.read)
		return ip, ci, nil
	}
}

// networkStart is where the IP header of a frame of the link type starts.
func networkStart(data []byte, link layers.LinkType) (int, bool) {
	switch link {
	case layers.LinkTypeRaw, 12, 14, layers.LinkTypeIPv4, layers.LinkTypeIPv6:
		return 0, len(data) > 0 && (data[0]>>4 == 4 || data[0]>>4 == 6)
	}
	p := gopacket.NewPacket(data, link, gopacket.DecodeOptions{NoCopy: true})
	for _, l := range p.Layers() {
		if t := l.LayerType(); t == layers.LayerTypeIPv4 || t == layers.LayerTypeIPv6 {
			c := l.LayerContents()
			if len(c) == 0 {
				return 0, false
			}
			return cap(data) - cap(c), true
		}
	}
	return 0, false
}

// liveWhole counts the captures whose every packet agreeLive's ring handed
// on, livePart those with packets it skipped (F's frames renumbered as the
// capture's before comparing), liveStopped those pcapgo could not read to
// the end (compared only with F's records).
var liveWhole, livePart, liveStopped atomic.Int64

// liveJSON runs the capture data through `live --write F` as openLive
// wires it (with --any-port: every TCP and UDP flow, as a file's decode
// reads them), with pcapRing for the ring, and returns the live index's
// records as JSON lines, F's path, and whether the ring handed on every
// packet of the capture (then F numbers its frames as the capture does).
func liveJSON(dir string, data []byte) (string, string, *pcapRing, error) {
	ring, err := newPCAPRing(data)
	if err != nil {
		return "", "", nil, err
	}
	p := unturned.Default()
	rp, err := newRPC(p.ULinkRPC, "")
	if err != nil {
		return "", "", nil, err
	}
	write := filepath.Join(dir, "live-write.pcapng")
	d, err := pipeline.Open(pipeline.Options{Config: pipeline.Config{Profile: p, RPC: rp}, Live: &pipeline.Live{
		Interface: "replay", Write: write, AnyPort: true, Ring: ring}})
	if err != nil {
		return "", "", nil, fmt.Errorf("live: %v", err)
	}
	ferr := d.Feed(nil)
	if err := d.Source.Close(); err != nil {
		return "", "", nil, fmt.Errorf("live --write: %v", err)
	}
	if ferr != nil && strings.HasPrefix(ferr.Error(), "internal error") {
		return "", "", nil, fmt.Errorf("live: %v", ferr)
	}
	ix := d.Index
	return string(ix.AppendJSONRange(nil, 1, ix.Len(), nil)), write, ring, nil
}

// agreeLive is agree's live path: live's own records (their bytes read
// back from F at the offsets live gave) and `dump --json F` must be the
// same lines, and the same as the TUI's index of the capture (ref), F's
// frames numbered as the capture's (F lacks the packets a cooked socket
// would not hand on).
func agreeLive(dir string, data []byte, ref string, exec func([]byte, ...string) (string, string)) string {
	got, write, ring, err := liveJSON(dir, data)
	if err != nil {
		if strings.Contains(err.Error(), "internal error") || strings.Contains(err.Error(), "--write") {
			return err.Error()
		}
		return "" // no capture pcapgo reads: every path refuses it
	}
	if strings.Contains(got, "usmnscope bug") {
		return fmt.Sprintf("live: a usmnscope bug: %.300s", got)
	}
	out, errOut := exec(nil, "dump", "--json", write)
	if strings.Contains(out, "usmnscope bug") || strings.Contains(errOut, "internal error") {
		return fmt.Sprintf("dump --json of live's --write file: a usmnscope bug: %.300s %.300s", errOut, out)
	}
	replay := withoutOrigin(out)
	if replay != got {
		return fmt.Sprintf("live and dump --json of its --write file differ:\n%s", firstDiff([]byte(got), []byte(replay)))
	}
	os.Remove(write)
	if ring.stopped {
		liveStopped.Add(1) // pcapgo read less of it than the capture's reader
		return ""
	}
	if ring.all {
		liveWhole.Add(1)
	} else {
		livePart.Add(1)
		replay = renumber(replay, ring.frames)
	}
	if replay != ref {
		return fmt.Sprintf("dump --json of live's --write file (frames numbered as the capture's) and the TUI's index differ:\n%s", firstDiff([]byte(replay), []byte(ref)))
	}
	return ""
}

// frameKey is the frame number of a record's JSON line.
var frameKey = regexp.MustCompile(`(?m)^(\{"n":\d+,"frame":)(\d+)`)

// renumber gives the records of F (JSON lines) the frame numbers of the
// capture F was written from: frames[k] is the capture's number of F's
// frame k+1.
func renumber(lines string, frames []int) string {
	return frameKey.ReplaceAllStringFunc(lines, func(m string) string {
		sub := frameKey.FindStringSubmatch(m)
		k, _ := strconv.Atoi(sub[2])
		if k < 1 || k > len(frames) {
			return m
		}
		return sub[1] + strconv.Itoa(frames[k-1])
	})
}
