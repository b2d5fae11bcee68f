package infer

import "github.com/usmnscope/usmnscope/dissect"

// Sample bounds: the search reads at most this many messages, at most
// perConn of each connection, from the start of the capture (where the
// handshakes and the first definitions are). The search decodes each
// message once per candidate profile, so the bound is what keeps a search
// of a million-message capture as cheap as one of a fixture.
const (
	maxSample = 512
	perConn   = 32
)

// smsg is one message of the sample: its bytes as framed (the framing,
// wire.md 2, does not depend on the profile).
type smsg struct {
	dir  dissect.Dir
	data []byte
	// det: a detection message (wire.md 4.1), which is read at its vanilla
	// width whatever the profile: a C→S message whose low 4 bits are 0
	// (GetWorkshopFiles), an S→C one whose low 5 bits are 7
	// (DownloadWorkshopFiles). The vanilla widths do not depend on the
	// game (wire.md 3: 9 and 18 or 19 values).
	det bool
}

// sconn is one connection's sampled messages, in order.
type sconn struct {
	msgs []smsg
	// start: the connection's start was captured (its first message is a
	// GetWorkshopFiles), so markers say whether it is widened; otherwise
	// widening is inferred per direction (wire.md 4.6).
	start bool
	// marker: the client's GetWorkshopFiles carries a trailer of a
	// marker's length (wire.md 6).
	marker bool
}

type sample struct {
	conns []*sconn
	n     int // messages
	det   [2]int
	mid   int // connections whose start was not captured
}

func isDetection(d dissect.Dir, b []byte) bool {
	if len(b) == 0 {
		return false
	}
	if d == dissect.C2S {
		return b[0]&0x0f == 0
	}
	return b[0]&0x1f == 7
}

// sampleOf takes the sample from a decoded index: Unturned messages only
// (ULinkRPC records say nothing of the profile), their bytes copied so
// that the index can go.
func sampleOf(ix Decoded) *sample {
	s := &sample{}
	if ix == nil {
		return s
	}
	byConn := map[dissect.Conn]*sconn{}
	for n := 1; n <= ix.Len() && s.n < maxSample; n++ {
		h, ok := ix.Head(n)
		if !ok || h.Other {
			continue
		}
		c := byConn[h.Conn]
		if c == nil {
			c = &sconn{}
			byConn[h.Conn] = c
			s.conns = append(s.conns, c)
		}
		if len(c.msgs) >= perConn {
			continue
		}
		m, ok := ix.Message(n)
		if !ok || m.Other {
			continue
		}
		data := append([]byte(nil), m.Data...)
		det := isDetection(m.Dir, data)
		if len(c.msgs) == 0 {
			c.start = m.Dir == dissect.C2S && det
			if !c.start {
				s.mid++
			}
			c.marker = c.start && len(data) == gwfLen+8
		}
		c.msgs = append(c.msgs, smsg{dir: m.Dir, data: data, det: det})
		if det {
			s.det[m.Dir]++
		}
		s.n++
	}
	return s
}
