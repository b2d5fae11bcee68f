package rpc

import (
	"cmp"
	"slices"
	"strconv"
	"time"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/internal/termsafe"
	"github.com/usmnscope/usmnscope/ulinkrpc"
)

// Tables is the `rpc` object of `tables --json` (outputs.md) for one
// connection: what its records add up to.
type Tables struct {
	Methods   []MethodStats
	Pushes    []PushStats
	KeepAlive KeepAliveStats
	Pending   []PendingRequest
	Status    []StatusCount // by status code
}

// Latency is the neutral core's latency object: the methods' latencies
// and the keep-alive round trips are written as every protocol's are.
type Latency = dissect.Latency

// MethodStats counts one (service_id, method_id)'s Requests and their
// answers. Errors are Responses with a non-Ok status or has_error.
type MethodStats struct {
	ServiceID, MethodID                  int32
	Service, Method                      *string
	Requests, Responses, Errors, Pending int
	Latency                              Latency
	lat                                  dissect.Durations
}

// PushStats counts one (service_id, method_id)'s Pushes.
type PushStats struct {
	ServiceID, MethodID int32
	Service, Method     *string
	Count               int
}

// KeepAliveStats counts KeepAlivePings and the Pongs paired with them.
type KeepAliveStats struct {
	Pings, Pongs int
	RTT          Latency
}

// PendingRequest is a Request unanswered at the end.
type PendingRequest struct {
	N                   int
	RequestID           uint32
	ServiceID, MethodID int32
}

// StatusCount counts paired Responses of one status.
type StatusCount struct {
	Code  int
	Name  string
	Count int
}

// idKey is a (service_id, method_id) pair as one map key.
type idKey uint64

func ids(sid, mid int32) idKey { return idKey(uint32(sid))<<32 | idKey(uint32(mid)) }

// Tally adds up records into a Tables as they are numbered, in number
// order: a Request is pending until its Response is added, so the tally
// after the records up to n is the table as of n (`tables --at N`). Its
// memory follows the methods, statuses, latencies and pending Requests,
// not the records. The zero value is empty.
type Tally struct {
	methods map[idKey]*MethodStats
	pushes  map[idKey]*PushStats
	status  [ulinkrpc.StatusProtocolError + 1]StatusCount // the known statuses, by code; Count 0 is none
	other   map[ulinkrpc.Status]*StatusCount              // the unknown ones
	rtt     dissect.Durations
	pings   int
	pongs   int
	pending pendingList // Requests without a Response
	records int         // records added
}

// openRequest is a Request waiting for its Response, with its method's
// entry (the Response counts there, and a light session names the
// pending note from it).
type openRequest struct {
	PendingRequest
	m *MethodStats // nil once answered (pendingList)
}

// pendingList is a Tally's Requests without a Response, in number order
// (a Tally adds them in it). A Response finds its Request by binary search
// and marks it answered; answered entries leave once they are half the
// list, so that its length follows the Requests open, not all the
// Requests. (A map by n cost a hash insert, lookup and delete per call:
// a twentieth of `tables` on a million frames.)
type pendingList struct {
	open []openRequest
	dead int // answered entries still in open
}

func (l *pendingList) add(p openRequest) {
	if k := len(l.open); k == 0 || l.open[k-1].N < p.N {
		l.open = append(l.open, p)
		return
	}
	i, _ := slices.BinarySearchFunc(l.open, p.N, byN)
	l.open = slices.Insert(l.open, i, p)
}

func byN(p openRequest, n int) int { return cmp.Compare(p.N, n) }

// find is the open Request n.
func (l *pendingList) find(n int) (*openRequest, bool) {
	// slices.BinarySearchFunc, without its call of byN a step.
	i, j := 0, len(l.open)
	for i < j {
		h := int(uint(i+j) >> 1)
		if l.open[h].N < n {
			i = h + 1
		} else {
			j = h
		}
	}
	if i == len(l.open) || l.open[i].N != n || l.open[i].m == nil {
		return nil, false
	}
	return &l.open[i], true
}

// take answers the open Request n and returns it.
func (l *pendingList) take(n int) (openRequest, bool) {
	p, ok := l.find(n)
	if !ok {
		return openRequest{}, false
	}
	out := *p
	p.m = nil
	l.dead++
	if l.dead >= 16 && 2*l.dead >= len(l.open) {
		// In place: the array is reused, so a steady traffic of calls
		// and answers allocates nothing.
		l.open = slices.DeleteFunc(l.open, func(p openRequest) bool { return p.m == nil })
		l.dead = 0
	}
	return out, true
}

// Add counts r, numbered and paired. Answers with nothing to pair count in
// no statistics (outputs.md "Pairing"). A light record (Config.Light) is
// counted by its session as it is numbered, not here.
func (t *Tally) Add(r *Record) {
	t.records++
	switch r.Type {
	case ulinkrpc.Request:
		if r.RPC.ServiceID != nil {
			m := t.method(*r.RPC.ServiceID, *r.RPC.MethodID, r.RPC.Service, r.RPC.Method)
			t.request(r.N, *r.RPC.RequestID, m)
		}
	case ulinkrpc.Response:
		if r.Pair != 0 && r.RPC.ServiceID != nil {
			sid, mid := *r.RPC.ServiceID, *r.RPC.MethodID
			p, ok := t.pending.take(r.Pair)
			m := p.m
			if !ok || m.ServiceID != sid || m.MethodID != mid {
				m = t.method(sid, mid, r.RPC.Service, r.RPC.Method)
			}
			// Its Request's entry, which the pending Request names
			// (no second lookup): answered above.
			t.answered(m, r.Latency, ulinkrpc.Status(*r.RPC.StatusCode), r.RPC.Error != nil)
		}
	case ulinkrpc.Push:
		if r.RPC.ServiceID != nil {
			t.push(*r.RPC.ServiceID, *r.RPC.MethodID, r.RPC.Service, r.RPC.Method)
		}
	case ulinkrpc.KeepAlivePing:
		t.pings++
	case ulinkrpc.KeepAlivePong:
		if r.Pair != 0 {
			t.pong(r.Latency)
		}
	}
}

// method is the entry of (sid, mid), made with the names svc and m when
// it is new.
func (t *Tally) method(sid, mid int32, svc, m *string) *MethodStats {
	if ms := t.methods[ids(sid, mid)]; ms != nil {
		return ms
	}
	return t.newMethod(sid, mid, svc, m)
}

func (t *Tally) newMethod(sid, mid int32, svc, m *string) *MethodStats {
	if t.methods == nil {
		t.methods = map[idKey]*MethodStats{}
	}
	ms := &MethodStats{ServiceID: sid, MethodID: mid, Service: svc, Method: m}
	t.methods[ids(sid, mid)] = ms
	return ms
}

// request counts Request n of method m, pending until answered.
func (t *Tally) request(n int, id uint32, m *MethodStats) {
	m.Requests++
	t.pending.add(openRequest{PendingRequest{N: n, RequestID: id, ServiceID: m.ServiceID, MethodID: m.MethodID}, m})
}

// response counts a Response paired with Request ask of method m (nil:
// the Request's entry).
func (t *Tally) response(ask int, m *MethodStats, lat time.Duration, st ulinkrpc.Status, hasError bool) {
	if p, ok := t.pending.take(ask); ok {
		if m == nil {
			m = p.m
		}
	}
	t.responded(m, lat, st, hasError)
}

// responded counts a paired Response of method m (nil: none).
func (t *Tally) responded(m *MethodStats, lat time.Duration, st ulinkrpc.Status, hasError bool) {
	if m == nil {
		return
	}
	t.answered(m, lat, st, hasError)
}

// answered counts a Response of method m, its Request no more pending.
func (t *Tally) answered(m *MethodStats, lat time.Duration, st ulinkrpc.Status, hasError bool) {
	m.Responses++
	m.lat.Add(lat)
	if st != ulinkrpc.StatusOk || hasError {
		m.Errors++
	}
	var sc *StatusCount
	if st.Known() {
		sc = &t.status[st]
	} else {
		if t.other == nil {
			t.other = map[ulinkrpc.Status]*StatusCount{}
		}
		if sc = t.other[st]; sc == nil {
			sc = &StatusCount{}
			t.other[st] = sc
		}
	}
	if sc.Count == 0 {
		sc.Code, sc.Name = int(st), st.String()
	}
	sc.Count++
}

// push counts a Push of (sid, mid), named svc and m.
func (t *Tally) push(sid, mid int32, svc, m *string) {
	if t.pushes == nil {
		t.pushes = map[idKey]*PushStats{}
	}
	k := ids(sid, mid)
	p := t.pushes[k]
	if p == nil {
		p = &PushStats{ServiceID: sid, MethodID: mid, Service: svc, Method: m}
		t.pushes[k] = p
	}
	p.Count++
}

// pong counts a KeepAlivePong paired after rtt.
func (t *Tally) pong(rtt time.Duration) {
	t.pongs++
	t.rtt.Add(rtt)
}

// Tables is what the records added so far add up to; a Request counts as
// pending when no Response was added for it.
func (t *Tally) Tables() Tables {
	var out Tables
	out.KeepAlive = KeepAliveStats{Pings: t.pings, Pongs: t.pongs, RTT: dissect.LatencyOf(&t.rtt)}
	for _, m := range t.methods {
		cp := *m
		cp.lat = dissect.Durations{}
		cp.Latency = dissect.LatencyOf(&m.lat)
		out.Methods = append(out.Methods, cp)
	}
	for _, p := range t.pushes {
		out.Pushes = append(out.Pushes, *p)
	}
	for _, sc := range t.status {
		if sc.Count > 0 {
			out.Status = append(out.Status, sc)
		}
	}
	for _, sc := range t.other {
		out.Status = append(out.Status, *sc)
	}
	byIDs := func(as, am, bs, bm int32) int { return cmp.Or(cmp.Compare(as, bs), cmp.Compare(am, bm)) }
	slices.SortFunc(out.Methods, func(a, b MethodStats) int { return byIDs(a.ServiceID, a.MethodID, b.ServiceID, b.MethodID) })
	slices.SortFunc(out.Pushes, func(a, b PushStats) int { return byIDs(a.ServiceID, a.MethodID, b.ServiceID, b.MethodID) })
	slices.SortFunc(out.Status, func(a, b StatusCount) int { return cmp.Compare(a.Code, b.Code) })
	for _, p := range t.pending.open {
		if p.m == nil {
			continue
		}
		out.Pending = append(out.Pending, p.PendingRequest)
		// Every pending Request has its method's entry (request).
		if i, ok := slices.BinarySearchFunc(out.Methods, p.PendingRequest, func(m MethodStats, p PendingRequest) int {
			return byIDs(m.ServiceID, m.MethodID, p.ServiceID, p.MethodID)
		}); ok {
			out.Methods[i].Pending++
		}
	}
	slices.SortFunc(out.Pending, func(a, b PendingRequest) int { return cmp.Compare(a.N, b.N) })
	return out
}

// Tables adds up the session's records numbered so far (at End: the end
// of the capture).
func (s *Session) Tables() Tables { return s.tally.Tables() }

// Len is how many of the session's records were numbered so far.
func (s *Session) Len() int { return s.tally.records }

// AppendTablesJSON appends t as outputs.md's `rpc` object.
func AppendTablesJSON(dst []byte, t *Tables) []byte {
	dst = append(dst, `{"methods":[`...)
	for i := range t.Methods {
		m := &t.Methods[i]
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendIDs(dst, m.ServiceID, m.MethodID, m.Service, m.Method)
		dst = append(dst, `,"requests":`...)
		dst = strconv.AppendInt(dst, int64(m.Requests), 10)
		dst = append(dst, `,"responses":`...)
		dst = strconv.AppendInt(dst, int64(m.Responses), 10)
		dst = append(dst, `,"errors":`...)
		dst = strconv.AppendInt(dst, int64(m.Errors), 10)
		dst = append(dst, `,"pending":`...)
		dst = strconv.AppendInt(dst, int64(m.Pending), 10)
		dst = append(dst, `,"latency_ns":`...)
		dst = m.Latency.AppendJSON(dst)
		dst = append(dst, '}')
	}
	dst = append(dst, `],"pushes":[`...)
	for i := range t.Pushes {
		p := &t.Pushes[i]
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendIDs(dst, p.ServiceID, p.MethodID, p.Service, p.Method)
		dst = append(dst, `,"count":`...)
		dst = strconv.AppendInt(dst, int64(p.Count), 10)
		dst = append(dst, '}')
	}
	dst = append(dst, `],"keepalive":{"pings":`...)
	dst = strconv.AppendInt(dst, int64(t.KeepAlive.Pings), 10)
	dst = append(dst, `,"pongs":`...)
	dst = strconv.AppendInt(dst, int64(t.KeepAlive.Pongs), 10)
	dst = append(dst, `,"rtt_ns":`...)
	dst = t.KeepAlive.RTT.AppendJSON(dst)
	dst = append(dst, `},"pending":[`...)
	for i, p := range t.Pending {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"n":`...)
		dst = strconv.AppendInt(dst, int64(p.N), 10)
		dst = append(dst, `,"request_id":`...)
		dst = strconv.AppendUint(dst, uint64(p.RequestID), 10)
		dst = append(dst, `,"service_id":`...)
		dst = strconv.AppendInt(dst, int64(p.ServiceID), 10)
		dst = append(dst, `,"method_id":`...)
		dst = strconv.AppendInt(dst, int64(p.MethodID), 10)
		dst = append(dst, '}')
	}
	dst = append(dst, `],"status":{`...)
	for i, sc := range t.Status {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = termsafe.AppendJSONString(dst, sc.Name)
		dst = append(dst, ':')
		dst = strconv.AppendInt(dst, int64(sc.Count), 10)
	}
	return append(dst, "}}"...)
}

func appendIDs(dst []byte, sid, mid int32, svc, m *string) []byte {
	dst = append(dst, `{"service_id":`...)
	dst = strconv.AppendInt(dst, int64(sid), 10)
	dst = append(dst, `,"method_id":`...)
	dst = strconv.AppendInt(dst, int64(mid), 10)
	dst = append(dst, `,"service":`...)
	dst = appendOptString(dst, svc)
	dst = append(dst, `,"method":`...)
	return appendOptString(dst, m)
}

// AppendConnJSON appends the session as one entry of `tables --json`'s
// "connections" (outputs.md): conn, client, server, proto, transport,
// messages, rpc and the connection findings (with "n" when one message is
// the cause).
func AppendConnJSON(dst []byte, s *Session) []byte {
	t := s.Tables()
	return AppendConnJSONOf(dst, s, &t, s.tally.records, -1)
}

// AppendConnJSONOf is AppendConnJSON with the table t of messages records
// and the session's first findings findings, all when negative (`tables
// --at N`: as of message N, the findings said before the connection's
// first message after N).
func AppendConnJSONOf(dst []byte, s *Session, t *Tables, messages, findings int) []byte {
	dst = append(dst, `{"conn":`...)
	dst = termsafe.AppendJSONString(dst, s.conn.String())
	dst = append(dst, `,"client":`...)
	dst = termsafe.AppendJSONString(dst, s.conn.Client.String())
	dst = append(dst, `,"server":`...)
	dst = termsafe.AppendJSONString(dst, s.conn.Server.String())
	dst = append(dst, `,"proto":"ulinkrpc","transport":`...)
	dst = termsafe.AppendJSONString(dst, s.cfg.Transport.String())
	dst = append(dst, `,"messages":`...)
	dst = strconv.AppendInt(dst, int64(messages), 10)
	dst = append(dst, `,"rpc":`...)
	dst = AppendTablesJSON(dst, t)
	dst = append(dst, `,"findings":[`...)
	fs := s.findings
	if findings >= 0 && findings < len(fs) {
		fs = fs[:findings]
	}
	for i := range fs {
		f := &fs[i]
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = f.Finding.AppendJSON(dst)
		if f.N != 0 {
			dst = dst[:len(dst)-1]
			dst = append(dst, `,"n":`...)
			dst = strconv.AppendInt(dst, int64(f.N), 10)
			dst = append(dst, '}')
		}
	}
	return append(dst, "]}"...)
}
