package session

import (
	"fmt"
	"net/netip"
	"testing"
	"time"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/stats"
	"github.com/usmnscope/usmnscope/unturned"
	"github.com/usmnscope/usmnscope/unturned/pair"
)

// pairConnB is a second connection for the pairing tests.
var pairConnB = dissect.Conn{
	Client: netip.MustParseAddrPort("10.0.0.3:50413"),
	Server: netip.MustParseAddrPort("10.0.0.1:27016"),
}

// pairStep is one message of a pairing script: on connection B or A, in
// direction dir.
type pairStep struct {
	b   bool
	dir dissect.Dir
	msg []byte
}

var (
	pingReqC2S  = pairStep{dir: dissect.C2S, msg: cvEnc.Ping(dissect.C2S, true, false)}
	pingRespC2S = pairStep{dir: dissect.C2S, msg: cvEnc.Ping(dissect.C2S, true, true)}
	pingReqS2C  = pairStep{dir: dissect.S2C, msg: cvEnc.Ping(dissect.S2C, true, false)}
	pingRespS2C = pairStep{dir: dissect.S2C, msg: cvEnc.Ping(dissect.S2C, true, true)}
)

func onB(s pairStep) pairStep { s.b = true; return s }

func request(cid uint32) pairStep {
	return pairStep{dir: dissect.C2S, msg: cvNegotiate(dissect.C2S, unturned.RequestServerListenerID, cid, 0, 3, cvChat, 1)}
}

func tellID(cid, sid uint32) pairStep {
	return pairStep{dir: dissect.S2C, msg: cvNegotiate(dissect.S2C, unturned.TellClientListenerID, cid, sid, 3, cvChat, 1)}
}

func tellMissing(cid uint32) pairStep {
	return pairStep{dir: dissect.S2C, msg: cvNegotiate(dissect.S2C, unturned.TellClientMissingListener, cid, 0, 3, "", 0)}
}

// pairScript feeds both connections' handshakes (messages 1 to 4), then
// the steps one packet each, 1 ms apart, to c; step k is message k+5.
func pairScript(c *Index, steps []pairStep) {
	f := &cvFeeder{c: c, conn: cvConn}
	f.handshake(true, true, 3)
	f.conn = pairConnB
	f.handshake(true, true, 3)
	for _, s := range steps {
		f.conn = cvConn
		if s.b {
			f.conn = pairConnB
		}
		f.send(s.dir, s.msg)
	}
	c.Finish()
}

// pairOf is what a message says of its pair.
type pairOf struct {
	pair    int
	latency time.Duration
	has     bool
}

// pairsFull and pairsStream give every message's pair from a full Index
// and from a Stream's Settled.
func pairsFull(steps []pairStep) (*Index, []pairOf) {
	c := NewIndex(nil)
	pairScript(c, steps)
	out := make([]pairOf, c.Len())
	for n := 1; n <= c.Len(); n++ {
		m := c.Detail(n)
		out[n-1] = pairOf{m.Pair, m.Latency, m.HasLatency}
	}
	return c, out
}

// pairsStream also gives the summaries, which show that an asker held
// back kept its bytes.
func pairsStream(t *testing.T, steps []pairStep) ([]pairOf, []string) {
	c := NewIndex(nil)
	var out []pairOf
	var sums []string
	c.SetStream(Stream{Spans: true, Settled: func(n int) error {
		if n != len(out)+1 {
			t.Fatalf("Settled(%d) after %d", n, len(out))
		}
		m := c.Detail(n)
		out = append(out, pairOf{m.Pair, m.Latency, m.HasLatency})
		sums = append(sums, m.Summary)
		return nil
	}})
	pairScript(c, steps)
	return out, sums
}

// TestPairing holds the pairing rules of outputs.md "Pairing" to scripts:
// want lists, by step, the step each one pairs with (-1 for none); the
// later of two paired steps is the answer and carries the latency (1 ms a
// step). The full Index and a Stream give the same pairs.
func TestPairing(t *testing.T) {
	verify := func(n int) pairStep { return onB(pairStep{dir: dissect.S2C, msg: cvEnc.Verify(true)}) }
	filler := func(k int) []pairStep {
		out := make([]pairStep, k)
		for i := range out {
			out[i] = verify(i)
		}
		return out
	}
	cat := func(parts ...[]pairStep) []pairStep {
		var out []pairStep
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	none := func(k int) []int {
		out := make([]int, k)
		for i := range out {
			out[i] = -1
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		steps []pairStep
		want  []int
	}{
		{"fifo", []pairStep{pingReqC2S, pingReqC2S, pingRespS2C, pingRespS2C}, []int{2, 3, 0, 1}},
		{"opposite direction", []pairStep{pingReqC2S, pingRespC2S, pingRespS2C, pingReqS2C, pingRespC2S}, []int{2, -1, 0, 4, 3}},
		{"per connection", []pairStep{pingReqC2S, onB(pingRespS2C), onB(pingReqC2S), pingRespS2C, onB(pingRespS2C)}, []int{3, -1, 4, 0, 2}},
		{"unanswered", []pairStep{pingReqC2S, pingReqS2C, pingRespS2C, request(7)}, []int{2, -1, 0, -1}},
		{"answer without asker", []pairStep{pingRespS2C, pingRespC2S, tellID(7, 1), tellMissing(8)}, []int{-1, -1, -1, -1}},
		{"tell answering a definition", []pairStep{{dir: dissect.C2S, msg: cvByCID(true, 4001, cvChat, 1, 0xAA)}, tellID(4001, 0), request(4001), tellID(4001, 0)}, []int{-1, -1, 3, 2}},
		{"mixed client IDs", []pairStep{request(4001), request(4002), tellMissing(4002), tellID(4001, 0), request(4001), request(4001), tellID(4001, 0), tellMissing(4001), tellMissing(4001)},
			[]int{3, 2, 1, 0, 6, 7, 4, 5, -1}},
		{"requests and pings apart", []pairStep{request(1), pingReqC2S, tellID(1, 0), pingRespS2C}, []int{2, 3, 0, 1}},
		{"answer at the bound", cat([]pairStep{pingReqC2S}, filler(pair.Hold-1), []pairStep{pingRespS2C}),
			append(append([]int{pair.Hold}, none(pair.Hold-1)...), 0)},
		{"answer past the bound", cat([]pairStep{pingReqC2S}, filler(pair.Hold), []pairStep{pingRespS2C}), none(pair.Hold + 2)},
		{"past the bound, the next asker", cat([]pairStep{request(5)}, filler(2), []pairStep{request(5)}, filler(pair.Hold-2), []pairStep{tellID(5, 0), tellID(5, 0)}),
			append(append(append([]int{-1, -1, -1, pair.Hold + 2}, none(pair.Hold-2)...), 3), -1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const first = 5 // steps start after the two handshakes
			c, full := pairsFull(tc.steps)
			if len(full) != len(tc.steps)+first-1 {
				t.Fatalf("%d messages; want %d", len(full), len(tc.steps)+first-1)
			}
			for k, w := range tc.want {
				got := full[k+first-1]
				want := pairOf{}
				if w >= 0 {
					want.pair = w + first
					if w < k {
						want.latency, want.has = time.Duration(k-w)*time.Millisecond, true
					}
				}
				if got != want {
					t.Errorf("step %d (message %d %s): pair = %+v; want %+v", k, k+first, c.Message(k+first).Name(), got, want)
				}
			}
			stream, sums := pairsStream(t, tc.steps)
			if fmt.Sprint(stream) != fmt.Sprint(full) {
				t.Errorf("stream pairs differ from the Index's:\n%v\nwant\n%v", stream, full)
			}
			// A Stream that hands out nothing (tables) forgets what it
			// counted: an asker's record may be gone when it is answered.
			tables := NewIndex(nil)
			tables.SetStream(Stream{})
			pairScript(tables, tc.steps)
			if got, want := tables.Tables(cvConn, 0).Ping, c.Tables(cvConn, 0).Ping; got != want {
				t.Errorf("tables stream Ping = %+v; want %+v", got, want)
			}
			for n := 1; n <= min(len(sums), c.Len()); n++ {
				if want := c.Message(n).Summary; sums[n-1] != want {
					t.Errorf("message %d streamed as %q; the Index shows %q", n, sums[n-1], want)
				}
			}
		})
	}
}

// TestPingStats: per direction of the PingRequests, how many, how many
// answered, and the round trips' min, median (lower middle of an even
// count, outputs.md) and max; answers with nothing to pair count nowhere.
// Tables as of a message count what came up to it.
func TestPingStats(t *testing.T) {
	// c2s requests at steps 0, 1, 2, 6 answered at 3, 5, 7 (3, 4, 5 ms)
	// and never; an s2c request answered at step 9 (1 ms); stray answers.
	steps := []pairStep{pingReqC2S, pingReqC2S, pingReqC2S, pingRespS2C, pingRespC2S, pingRespS2C, pingReqC2S, pingRespS2C, pingReqS2C, pingRespC2S, pingRespC2S, onB(pingReqC2S)}
	c, _ := pairsFull(steps)
	ms := func(x int) time.Duration { return time.Duration(x) * time.Millisecond }
	for _, tc := range []struct {
		asOf     int
		c2s, s2c pair.PingStats
	}{
		{0, pings(4, 3, lat(ms(3), ms(4), ms(5))), pings(1, 1, lat(ms(1), ms(1), ms(1)))},
		{5 + 3, pings(3, 1, lat(ms(3), ms(3), ms(3))), pair.PingStats{}},
		{5 + 5, pings(3, 2, lat(ms(3), ms(3), ms(4))), pair.PingStats{}},
		{5 + 8, pings(4, 3, lat(ms(3), ms(4), ms(5))), pair.PingStats{Requests: 1}},
	} {
		tb := c.Tables(cvConn, tc.asOf)
		// The Summary (issue 26's keys) agrees with the three figures
		// and counts every answer; stats' tests check its arithmetic.
		for d := range tb.Ping {
			r := &tb.Ping[d].RTT
			if s := r.Summary; s.Count != tb.Ping[d].Answered || s.Count > 0 && (s.Min != r.Min || s.Median != r.Median || s.Max != r.Max) {
				t.Errorf("Tables(A, %d).Ping[%v].RTT.Summary = %+v; want count %d and %v/%v/%v", tc.asOf, dissect.Dir(d), s, tb.Ping[d].Answered, r.Min, r.Median, r.Max)
			}
			r.Summary = stats.Summary{}
		}
		if got := tb.Ping; got[dissect.C2S] != tc.c2s || got[dissect.S2C] != tc.s2c {
			t.Errorf("Tables(A, %d).Ping = %+v; want c2s %+v, s2c %+v", tc.asOf, got, tc.c2s, tc.s2c)
		}
	}
	if got := c.Tables(pairConnB, 0).Ping; got[dissect.C2S] != (pair.PingStats{Requests: 1}) || got[dissect.S2C] != (pair.PingStats{}) {
		t.Errorf("Tables(B).Ping = %+v; want one unanswered c2s request", got)
	}
	// A Stream keeps the same counts for the end of the capture.
	s := NewIndex(nil)
	s.SetStream(Stream{})
	pairScript(s, steps)
	if got, want := s.Tables(cvConn, 0).Ping, c.Tables(cvConn, 0).Ping; got != want {
		t.Errorf("stream Ping = %+v; want %+v", got, want)
	}
}

// pings is the statistics of one direction's PingRequests.
func pings(requests, answered int, rtt dissect.Latency) pair.PingStats {
	return pair.PingStats{Requests: requests, Answered: answered, RTT: rtt}
}

func lat(mn, md, mx time.Duration) dissect.Latency {
	return dissect.Latency{Min: mn, Median: md, Max: mx, OK: true}
}

// TestPairsBounded: a flood of PingRequests never answered, and of
// RequestServerListenerIds each of its own ID, keeps at most about
// pair.Hold askers per connection.
func TestPairsBounded(t *testing.T) {
	var steps []pairStep
	for k := range 3 * pair.Hold {
		steps = append(steps, pingReqC2S, request(uint32(k)))
	}
	c := NewIndex(nil)
	pairScript(c, steps)
	ps := unturnedOf(c.conns[0]).Pairs()
	if n := ps.Open(); n > pair.Hold+1 {
		t.Errorf("%d askers kept; want at most %d", n, pair.Hold+1)
	}
	if n := ps.PingStats(0, true)[dissect.C2S].Requests; n != 3*pair.Hold {
		t.Errorf("%d requests counted; want %d", n, 3*pair.Hold)
	}
}
