package session

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/usmnscope/usmnscope/decode"
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/internal/termsafe"
)

// Several captures (docs/json.md "Several captures"): one Index decodes
// the merged events of several captures (package merge). Each connection
// and record names the host and the capture it came from, a record of a
// connection both ends captured says where each saw it (Sight), and
// `tables --json` lists the captures' clocks.

// Origin names a capture of several: its host and its file's base name.
type Origin struct{ Host, Capture string }

// Seen is one capture's sight of a message: the frame that completed it
// there and that frame's time on the reference clock (ns since the epoch).
type Seen struct {
	Capture, Host string
	Frame         int
	TimeNS        int64
}

// Sight is where a message of a connection that several captures have
// was seen: Seen in capture order, OneWayNS (the receiving side's time
// minus the sending side's, when both saw it, HasOneWay) and MissingIn,
// the captures of the connection that lack it. From is the index in
// SetOrigins's list of the capture whose copy was decoded (the record's
// host and capture).
type Sight struct {
	Seen      []Seen
	OneWayNS  int64
	HasOneWay bool
	MissingIn []string
	From      int
}

// Clock is one capture's clock against the reference capture's
// (`tables --json` "clocks").
type Clock struct {
	Capture   string  `json:"capture"`
	Reference string  `json:"reference"`
	OffsetNS  int64   `json:"offset_ns"`
	DriftPPM  float64 `json:"drift_ppm"`
	ErrorNS   int64   `json:"error_ns"`
	Matched   int     `json:"matched"`
	Source    string  `json:"source"`
	// Via, for a capture that shares no connection with the reference,
	// names the captures its clock was chained through (merge.Clock).
	Via []string `json:"via,omitempty"`
}

// SightFunc says where the message ending at stream position end of
// direction dir of conn was seen, or nil (a connection one capture has).
// For a hosted protocol's record (whose decoder gives no stream position)
// end is HostedSight: the message completed by the event being fed.
type SightFunc func(conn dissect.Conn, dir dissect.Dir, end int64) *Sight

// HostedSight is SightFunc's end for a hosted protocol's record: the one
// the event being fed completed (of a stream, its direction's bytes so
// far; of datagrams, the last one's).
const HostedSight int64 = -1

// multi is the Index's state for several captures.
type multi struct {
	origins [][]byte // encoded "host" and "capture" keys, by capture
	names   []Origin
	input   int // the capture of the event being fed (SetInput)
	sight   SightFunc
	sights  map[int32]*Sight
	clocks  []Clock
}

// SetOrigins makes the Index one of several captures, named in order;
// SetInput then says which capture each event comes from. Call it before
// the feed.
func (c *Index) SetOrigins(os []Origin) {
	c.lock()
	defer c.unlock()
	m := &multi{names: os, sights: map[int32]*Sight{}}
	for _, o := range os {
		m.origins = append(m.origins, encodeOrigin(o.Host, o.Capture))
	}
	c.multi = m
}

// SetInput says which capture (SetOrigins) the next events come from: a
// connection first seen in them is that capture's.
func (c *Index) SetInput(i int) {
	if c.multi != nil && i >= 0 && i < len(c.multi.origins) {
		c.multi.input = i
	}
}

// SetSight installs the lookup of where a message of a merged connection
// was seen; SetClocks the clocks `tables --json` lists.
func (c *Index) SetSight(f SightFunc) {
	c.lock()
	defer c.unlock()
	if c.multi != nil {
		c.multi.sight = f
	}
}

// SetClocks sets the captures' clocks `tables --json` lists.
func (c *Index) SetClocks(cl []Clock) {
	c.lock()
	defer c.unlock()
	if c.multi != nil {
		c.multi.clocks = cl
	}
}

// Origins returns the captures of a several-capture Index, nil for one.
func (c *Index) Origins() []Origin {
	if c.multi == nil {
		return nil
	}
	return c.multi.names
}

func encodeOrigin(host, capture string) []byte {
	b := append([]byte(nil), `,"host":`...)
	b = termsafe.AppendJSONString(b, host)
	b = append(b, `,"capture":`...)
	return termsafe.AppendJSONString(b, capture)
}

// newConnOrigin stamps a new connection with the capture being fed.
func (c *Index) newConnOrigin(cn *connection) {
	if c.multi == nil {
		return
	}
	cn.input = int32(c.multi.input)
	o := c.multi.names[c.multi.input]
	cn.info.Host, cn.info.Capture = o.Host, o.Capture
}

// recordSight keeps where record i (a message of cn ending at stream
// position end of dir) was seen, when cn is a merged connection.
func (c *Index) recordSight(cn *connection, i int32, dir dissect.Dir, end int64) {
	if c.multi == nil || c.multi.sight == nil {
		return
	}
	if s := c.multi.sight(cn.info.Conn, dir, end); s != nil {
		c.multi.sights[i] = s
	}
}

// hostedSight is where hosted record r of cn was seen, asked as it
// arrives (HostedSight), or nil.
func (c *Index) hostedSight(cn *connection, r decode.Record) *Sight {
	if c.multi == nil || c.multi.sight == nil {
		return nil
	}
	return c.multi.sight(cn.info.Conn, decode.GlanceOf(r).Dir, HostedSight)
}

// originOfRec is the encoded origin of record i of connection cn: the
// capture whose copy was decoded, else the Index's (SetOrigin).
func (c *Index) originOfRec(cn *connection, i int32) []byte {
	if c.multi == nil {
		return c.origin
	}
	if s := c.multi.sights[i]; s != nil {
		return c.multi.origins[s.From]
	}
	return c.multi.origins[cn.input]
}

// originNameOfRec is originOfRec's host and capture, nil for one capture.
func (c *Index) originNameOfRec(cn *connection, i int32) *Origin {
	if c.multi == nil {
		return nil
	}
	k := int(cn.input)
	if s := c.multi.sights[i]; s != nil {
		k = s.From
	}
	return &c.multi.names[k]
}

// sightOf is record i's Sight, or nil.
func (c *Index) sightOf(i int32) *Sight {
	if c.multi == nil {
		return nil
	}
	return c.multi.sights[i]
}

// recOrigin is what a hosted record's AppendJSON puts after "time_ns":
// its origin and, for a record several captures saw, its "seen",
// "one_way_ns" and "missing_in" keys, where an Unturned record has them.
func (m *Message) recOrigin() []byte {
	if m.Sight == nil {
		return m.origin
	}
	return appendSight(append([]byte(nil), m.origin...), m.Sight)
}

// appendSight appends a record's "seen", "one_way_ns" and "missing_in"
// keys (each with its leading comma) when s is not nil.
func appendSight(dst []byte, s *Sight) []byte {
	if s == nil {
		return dst
	}
	dst = append(dst, `,"seen":[`...)
	for k, e := range s.Seen {
		if k > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"capture":`...)
		dst = termsafe.AppendJSONString(dst, e.Capture)
		dst = append(dst, `,"host":`...)
		dst = termsafe.AppendJSONString(dst, e.Host)
		dst = append(dst, `,"frame":`...)
		dst = strconv.AppendInt(dst, int64(e.Frame), 10)
		dst = append(dst, `,"time_ns":`...)
		dst = strconv.AppendInt(dst, e.TimeNS, 10)
		dst = append(dst, '}')
	}
	dst = append(dst, ']')
	if s.HasOneWay {
		dst = append(dst, `,"one_way_ns":`...)
		dst = strconv.AppendInt(dst, s.OneWayNS, 10)
	}
	dst = append(dst, `,"missing_in":[`...)
	for k, m := range s.MissingIn {
		if k > 0 {
			dst = append(dst, ',')
		}
		dst = termsafe.AppendJSONString(dst, m)
	}
	return append(dst, ']')
}

// connOriginJSON puts a several-capture connection's "host" and "capture"
// keys at the start of a ULinkRPC connection's `tables --json` entry.
func connOriginJSON(raw json.RawMessage, ci ConnInfo) json.RawMessage {
	if ci.Host == "" && ci.Capture == "" || len(raw) < 2 || raw[0] != '{' {
		return raw
	}
	o := encodeOrigin(ci.Host, ci.Capture)
	b := append([]byte{'{'}, o[1:]...)
	if !bytes.Equal(raw[1:2], []byte("}")) {
		b = append(b, ',')
	}
	return append(b, raw[1:]...)
}
