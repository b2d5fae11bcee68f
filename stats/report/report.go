package report

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
	"unsafe"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/stats"
)

// By is a grouping (outputs.md `--by`).
type By uint8

const (
	ByConn By = iota
	ByDir
	ByKind
	ByListener
	ByMessage
	ByMethod
	nBy
)

var byNames = [...]string{ByConn: "conn", ByDir: "dir", ByKind: "kind", ByListener: "listener", ByMessage: "message", ByMethod: "method"}

func (b By) String() string {
	if b < nBy {
		return byNames[b]
	}
	return "unknown"
}

// ParseBy returns the grouping named s.
func ParseBy(s string) (By, error) {
	for i, n := range byNames {
		if n == s {
			return By(i), nil
		}
	}
	return 0, fmt.Errorf("stats: --by %q: want one of %s", s, strings.Join(byNames[:], ", "))
}

// DefaultBy is outputs.md's default grouping: kind, listener, method.
var DefaultBy = []By{ByKind, ByListener, ByMethod}

// Options are what a Report counts by.
type Options struct {
	By       []By          // groupings, in output order (duplicates once)
	Interval time.Duration // the rate buckets (> 0)
}

// Outlier bounds (findings).
const (
	// outlierMin is the fewest latencies of a key before one is judged
	// against the others' p99.
	outlierMin = 20
	// outlierFactor: an outlier is more than this many times the others'
	// p99.
	outlierFactor = 2
	// outlierTop is how many of a key's largest latencies are kept to be
	// judged (and at most reported).
	outlierTop = 3
	// Overload is the unanswered ULinkRPC requests a connection may have
	// before the server's default limits refuse more: 64 running + 256
	// queued (ulinkrpc.md 4).
	Overload = 320
)

// Report adds up Records (package doc). The zero value is not ready: use
// New.
type Report struct {
	opts     Options
	messages int
	bytes    int64
	started  bool
	first    time.Time
	last     time.Time
	firstB   int64
	lastB    int64

	groups [nBy]map[string]*groupSet // per grouping and key
	// recent caches groups by a cheap slot of their key, protocol and
	// direction: a record's key is most often the same string as an
	// earlier record's (a kind's name, the host's one listener type
	// string), which compares in a few instructions where the map hashes
	// it.
	byConn   bool // a shape's connection matters
	shapes   [256]shapeEntry
	lats     [64]*Latency // by latSlot: the latency keys seen last
	lat      map[latKey]*Latency
	series   []Point
	listener map[string]*Split // per listener type: its messages' bits
	open     map[string]*pending
	findings []Finding
}

// groupSet is a key's groups by protocol and direction: a map keyed by
// the string alone is the fast one (a struct key hashed generically was
// a tenth of stats).
type groupSet [2][2]*Group

// Group is one (by, key, proto, dir) group.
type Group struct {
	By       By
	Key      string
	Proto    Proto
	Dir      dissect.Dir
	Messages int
	Bytes    int64
	Bits     Split
	rate     stats.Rate
}

type latKey struct {
	what     What
	conn     string
	dir      dissect.Dir
	sid, mid int32
}

// Latency is one latency key: a kind of pair on a connection, per
// direction of the asker, and for ULinkRPC requests per method.
type Latency struct {
	What                What
	Conn                string
	Dir                 dissect.Dir
	ServiceID, MethodID int32
	Service, Method     *string
	Summary             stats.Summary
	lat                 stats.Latencies
	top                 []topValue // the largest latencies, descending
}

type topValue struct {
	n int
	d time.Duration
}

// Point is one interval of the time series that has messages.
type Point struct {
	Bucket   int64
	Messages int
	Bytes    int64
}

// pending counts a connection's unanswered ULinkRPC requests.
type pending struct {
	open   int
	warned bool
}

// Finding is one finding of the statistics.
type Finding struct {
	Severity dissect.Severity
	Group    string // "performance" or "protocol"
	Conn     string // "" for none
	N        int    // the message it points at, 0 for none
	Text     string
}

// New returns an empty Report.
func New(o Options) *Report {
	if o.Interval <= 0 {
		o.Interval = time.Second
	}
	if len(o.By) == 0 {
		o.By = DefaultBy
	}
	var by []By
	for _, b := range o.By {
		if !slices.Contains(by, b) {
			by = append(by, b)
		}
	}
	o.By = by
	rp := &Report{opts: o, byConn: slices.Contains(by, ByConn), lat: map[latKey]*Latency{}, listener: map[string]*Split{}, open: map[string]*pending{}}
	for i := range rp.groups {
		rp.groups[i] = map[string]*groupSet{}
	}
	return rp
}

// key is r's key in grouping b.
func (r *Record) key(b By) string {
	var k string
	switch b {
	case ByConn:
		k = r.Conn
	case ByDir:
		k = r.Dir.String()
	case ByKind:
		k = r.Kind
	case ByListener:
		k = r.Listener
	case ByMessage:
		k = r.Message
	case ByMethod:
		k = r.Method
	}
	if k == "" {
		return None
	}
	return k
}

// Add counts r. Records come in number order (their times never run
// backwards; one that does counts in the latest interval).
func (rp *Report) Add(r *Record) {
	b := stats.Bucket(r.Time, rp.opts.Interval)
	if !rp.started {
		rp.started, rp.first, rp.firstB, rp.lastB = true, r.Time, b, b
	}
	if r.Time.After(rp.last) || rp.messages == 0 {
		rp.last = r.Time
	}
	if b < rp.lastB {
		b = rp.lastB
	}
	rp.lastB = b
	rp.messages++
	bytes := int64(r.Bytes)
	rp.bytes += bytes
	if k := len(rp.series); k > 0 && rp.series[k-1].Bucket == b {
		rp.series[k-1].Messages++
		rp.series[k-1].Bytes += bytes
	} else {
		rp.series = append(rp.series, Point{Bucket: b, Messages: 1, Bytes: bytes})
	}
	// The groups and the listener's split a record counts in are found
	// once per shape (protocol, direction and the keys), not per grouping
	// and record: a capture's messages come in few shapes.
	e := rp.shape(r)
	for _, g := range e.groups[:len(rp.opts.By)] {
		g.count(r, b, bytes)
	}
	if e.split != nil {
		e.split.Add(&r.Bits)
	}
	if r.Ask.What != NoPair {
		rp.addLatency(r)
	}
	if r.Proto == ULinkRPC {
		rp.countOpen(r)
	}
}

func (rp *Report) addLatency(r *Record) {
	k := latKey{what: r.Ask.What, conn: r.Conn, dir: r.Ask.Dir}
	if r.Ask.What == RPC {
		k.sid, k.mid, k.dir = r.ServiceID, r.MethodID, 0
	}
	h := mix(k.conn) + int(k.what)*5 + int(k.dir)*3 + int(k.sid)*7 + int(k.mid)*11
	slot := &rp.lats[(h^h>>6)&63]
	l := *slot
	if l == nil || l.What != k.what || l.Dir != k.dir || l.ServiceID != k.sid || l.MethodID != k.mid || l.Conn != k.conn {
		l = rp.lat[k]
		if l == nil {
			l = &Latency{What: k.what, Conn: k.conn, Dir: k.dir, ServiceID: k.sid, MethodID: k.mid}
			rp.lat[k] = l
		}
		*slot = l
	}
	if r.Service != nil {
		l.Service = r.Service
	}
	if r.MethodName != nil {
		l.Method = r.MethodName
	}
	l.lat.Add(r.Latency)
	// Keep the outlierTop largest, descending; the first of equals stays.
	i := len(l.top)
	for i > 0 && l.top[i-1].d < r.Latency {
		i--
	}
	if i < outlierTop {
		l.top = slices.Insert(l.top, i, topValue{n: r.N, d: r.Latency})
		if len(l.top) > outlierTop {
			l.top = l.top[:outlierTop]
		}
	}
}

// countOpen follows a connection's unanswered requests and warns once
// when they pass the server's overload limit (ulinkrpc.md 4).
func (rp *Report) countOpen(r *Record) {
	if !r.Request && r.Answered == 0 {
		return
	}
	p := rp.open[r.Conn]
	if p == nil {
		p = &pending{}
		rp.open[r.Conn] = p
	}
	if r.Request {
		p.open++
		if p.open > Overload && !p.warned {
			p.warned = true
			rp.findings = append(rp.findings, Finding{Severity: dissect.Warn, Group: "protocol", Conn: r.Conn, N: r.N,
				Text: fmt.Sprintf("%d requests unanswered at this request: past the server's overload limit of %d (64 running + 256 queued, ulinkrpc.md 4)", p.open, Overload)})
		}
	} else if p.open > 0 {
		p.open--
	}
}

// Result is a Report added up: what the outputs print.
type Result struct {
	Messages  int
	Bytes     int64
	Duration  time.Duration
	Interval  time.Duration
	By        []By
	Groups    []GroupResult // by grouping in By's order, then bytes descending
	Latencies []*Latency
	Series    []Point
	Findings  []Finding
	span      int64 // intervals from the first message's to the last's
}

// GroupResult is a Group with its share and rates.
type GroupResult struct {
	*Group
	Share   float64
	MeanBPS int64
	PeakBPS int64
	PeakAt  time.Time
	HasPeak bool
}

// Result adds up what was counted.
func (rp *Report) Result() *Result {
	res := &Result{Messages: rp.messages, Bytes: rp.bytes, Interval: rp.opts.Interval, By: rp.opts.By, Series: rp.series}
	if rp.started {
		res.Duration = rp.last.Sub(rp.first)
		res.span = rp.lastB - rp.firstB + 1
	}
	for _, g := range rp.allGroups() {
		gr := GroupResult{Group: g, MeanBPS: stats.BitsPerSecond(g.Bytes, res.span, res.Interval)}
		if rp.bytes > 0 {
			gr.Share = float64(g.Bytes) / float64(rp.bytes)
		}
		if b, n, ok := g.rate.Peak(); ok {
			gr.PeakBPS = stats.BitsPerSecond(n, 1, res.Interval)
			gr.PeakAt, gr.HasPeak = stats.BucketStart(b, res.Interval), true
		}
		res.Groups = append(res.Groups, gr)
	}
	order := make(map[By]int, len(rp.opts.By))
	for i, b := range rp.opts.By {
		order[b] = i
	}
	slices.SortFunc(res.Groups, func(a, b GroupResult) int {
		return cmp.Or(cmp.Compare(order[a.By], order[b.By]), cmp.Compare(b.Bytes, a.Bytes), cmp.Compare(a.Key, b.Key),
			cmp.Compare(a.Proto, b.Proto), cmp.Compare(a.Dir, b.Dir))
	})
	for _, l := range rp.lat {
		l.Summary = l.lat.Summary()
		res.Latencies = append(res.Latencies, l)
	}
	slices.SortFunc(res.Latencies, func(a, b *Latency) int {
		return cmp.Or(cmp.Compare(a.What, b.What), cmp.Compare(a.Conn, b.Conn), cmp.Compare(a.Dir, b.Dir),
			cmp.Compare(a.ServiceID, b.ServiceID), cmp.Compare(a.MethodID, b.MethodID))
	})
	res.Findings = append(res.Findings, rp.findings...)
	for _, l := range res.Latencies {
		res.Findings = append(res.Findings, l.outliers()...)
	}
	res.Findings = append(res.Findings, rp.definitionFindings()...)
	slices.SortStableFunc(res.Findings, func(a, b Finding) int {
		return cmp.Or(cmp.Compare(b.Severity, a.Severity), cmp.Compare(a.N, b.N))
	})
	return res
}

// Name is the latency key's text: the pair's kind, for ULinkRPC requests
// with the method.
func (l *Latency) Name() string {
	if l.What == RPC {
		return "rpc " + methodKey(&l.ServiceID, &l.MethodID, l.Service, l.Method)
	}
	return l.What.String() + " " + l.Dir.String()
}

// outliers are the key's latencies more than outlierFactor times the p99
// of its other latencies, once it has outlierMin.
func (l *Latency) outliers() []Finding {
	if l.lat.Len() < outlierMin {
		return nil
	}
	var out []Finding
	for _, t := range l.top {
		p99, ok := l.lat.P99Without(t.d)
		if !ok || p99 <= 0 || t.d <= outlierFactor*p99 {
			break // the rest are smaller
		}
		out = append(out, Finding{Severity: dissect.Note, Group: "performance", Conn: l.Conn, N: t.n,
			Text: fmt.Sprintf("%s latency %s is more than %d× the p99 of the other %d (%s)", l.Name(), dissect.FormatLatency(t.d), outlierFactor, l.lat.Len()-1, dissect.FormatLatency(p99))})
	}
	return out
}

// definitionFindings are the listeners whose first-use definitions cost
// more bits than their payloads.
func (rp *Report) definitionFindings() []Finding {
	var out []Finding
	for _, typ := range slices.Sorted(maps.Keys(rp.listener)) {
		s := rp.listener[typ]
		if s[Definition] > s[Payload] {
			out = append(out, Finding{Severity: dissect.Note, Group: "performance",
				Text: fmt.Sprintf("listener %s: its first-use definitions cost %d bits, more than its payloads' %d", typ, s[Definition], s[Payload])})
		}
	}
	return out
}

// count adds r, of bytes bytes in bucket b, to g.
func (g *Group) count(r *Record, b, bytes int64) {
	g.Messages++
	g.Bytes += bytes
	g.Bits.Add(&r.Bits)
	g.rate.Add(b, bytes)
}

// shapeKey is what decides the groups a record counts in: its protocol,
// direction and keys (the connection only when grouping by it).
type shapeKey struct {
	proto                                 Proto
	dir                                   dissect.Dir
	kind, listener, message, method, conn string
}

// shapeEntry caches a shape's groups, in the order of Options.By, and its
// listener's split (nil for none).
type shapeEntry struct {
	ok     bool
	key    shapeKey
	groups [nBy]*Group
	split  *Split
}

// mix is a cheap slot hash of a string: where its bytes are, and its
// length. The keys come from the host, which hands out one copy of each
// name (interned listener types, the kinds' constants, one text per
// connection), so equal keys share their bytes and a hit costs a few word
// compares; equal keys elsewhere only miss the cache. Hashing the bytes
// would not tell Load.Listener0 from Load.Listener7 cheaply: a hash of
// the length and two bytes sent all eight to one slot, and every record
// to the maps.
func mix(s string) int {
	if len(s) == 0 {
		return 0
	}
	p := int(uintptr(unsafe.Pointer(unsafe.StringData(s))) >> 3)
	return p ^ p>>7 + len(s)*7
}

// shape returns r's entry, resolving its groups on a miss.
func (rp *Report) shape(r *Record) *shapeEntry {
	k := shapeKey{proto: r.Proto, dir: r.Dir, kind: r.Kind, listener: r.Listener, message: r.Message, method: r.Method}
	if rp.byConn {
		k.conn = r.Conn
	}
	h := mix(k.kind) + mix(k.listener)*3 + mix(k.method)*5 + mix(k.message)*11 + mix(k.conn)*13 + int(k.proto)*3 + int(k.dir)
	e := &rp.shapes[(h^h>>8)&255]
	if e.ok && e.key == k {
		return e
	}
	e.ok, e.key, e.split = true, k, nil
	for i, by := range rp.opts.By {
		key := r.key(by)
		gs := rp.groups[by][key]
		if gs == nil {
			gs = &groupSet{}
			rp.groups[by][key] = gs
		}
		proto, dir := min(int(r.Proto), 1), min(int(r.Dir), 1)
		g := gs[proto][dir]
		if g == nil {
			g = &Group{By: by, Key: key, Proto: r.Proto, Dir: r.Dir}
			gs[proto][dir] = g
		}
		e.groups[i] = g
	}
	if r.Listener != "" {
		s := rp.listener[r.Listener]
		if s == nil {
			s = &Split{}
			rp.listener[r.Listener] = s
		}
		e.split = s
	}
	return e
}

// allGroups lists every group.
func (rp *Report) allGroups() []*Group {
	var out []*Group
	for _, m := range rp.groups {
		for _, gs := range m {
			for _, row := range gs {
				for _, g := range row {
					if g != nil {
						out = append(out, g)
					}
				}
			}
		}
	}
	return out
}

// Histogram is the key's latencies in n bins (stats.Latencies.Histogram).
func (l *Latency) Histogram(n int) (lo, width time.Duration, counts []int) {
	return l.lat.Histogram(n)
}

// LatenciesOf are the latency keys a group's messages take part in: a
// connection's, a method's, or those of the pairs a kind answers.
func (res *Result) LatenciesOf(g *Group) []*Latency {
	var out []*Latency
	for _, l := range res.Latencies {
		var ok bool
		switch g.By {
		case ByConn:
			ok = l.Conn == g.Key
		case ByMethod:
			ok = l.What == RPC && methodKey(&l.ServiceID, &l.MethodID, l.Service, l.Method) == g.Key
		case ByKind:
			ok = answers[g.Key] == l.What && l.Dir != g.Dir || l.What == RPC && g.Key == "Response"
		case ByDir:
			ok = l.What != RPC && l.Dir.String() == g.Key
		}
		if ok {
			out = append(out, l)
		}
	}
	return out
}

// answers are the kinds that answer a pair, by the pair's kind.
var answers = map[string]What{"PingResponse": Ping, "NegotiateListenerDetails": ListenerID, "KeepAlivePong": KeepAlive, "Response": RPC}
