package rpc

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/ulinkrpc"
)

// lazySteps is a conversation whose payloads exercise every JSON value
// kind, escapes, space, big and fractional numbers, MemoryPack with and
// without a contract type, and frames without a payload.
func lazySteps() []step {
	steps := append(conversation()[:0:0], conversation()...)
	payloads := []string{
		`{"Account":"ann","Level":2,"Pos":[502,779]}`,
		`{"A":"tab\there \"q\" \u00e9 \u2028","B":-0,"C":1.5e300,"D":123456789012345678901234,"E":-9223372036854775808,"F":9223372036854775808}`,
		`[true,false,null,{"x":[[],{}]},"",0.1]`,
		` { "spaced" : [ 1 , 2 ] , "k\u0041y" : "v" } `,
		`"just a string"`,
		`12345678901234567890`,
		"{\"ctl\":\"\\u001b[31m\\u009b\",\"bidi\":\"\u202e\"}",
		`{"deep":[[[[[[[[1]]]]]]]]}`,
	}
	for i, p := range payloads {
		id := uint32(20 + i)
		steps = append(steps,
			step{dissect.C2S, 2000 + 10*i, ulinkrpc.EncodeRequest(id, 1, 1, []byte(p))},
			step{dissect.S2C, 2005 + 10*i, ulinkrpc.EncodeResponse(id, ulinkrpc.StatusOk, []byte(p), "")})
	}
	return append(steps,
		step{dissect.C2S, 3000, ulinkrpc.EncodeRequest(4, 1, 1, loginMP("bob", 3))},
		step{dissect.S2C, 3180, ulinkrpc.EncodeResponse(4, ulinkrpc.StatusOk, ulinkrpc.MPEncodeObject(true, ulinkrpc.MPInt32(0), ulinkrpc.MPString("t")), "")},
		step{dissect.S2C, 3350, ulinkrpc.EncodeResponse(99, ulinkrpc.StatusOk, []byte(`{"x":1}`), "no such")}, // unpaired
		step{dissect.S2C, 3360, ulinkrpc.EncodePush(5, 5, []byte{0xff, 0x00, 0x12})},                          // raw
		step{dissect.C2S, 3500, []byte{9, 1, 2}},                                                              // unknown type
		step{dissect.C2S, 3600, []byte{1, 0, 0}},                                                              // cut short
		// Read at their fixed offsets (ulinkrpc.EnvelopeExact): negative
		// ids, big request ids and ticks, an unknown status, an error
		// text that is not UTF-8, a has_error byte other than 1, an
		// error with no text, trailing bytes.
		step{dissect.C2S, 3700, ulinkrpc.EncodeRequest(0xfffffffe, -3, -2147483648, []byte(`{"n":-1}`))},
		step{dissect.S2C, 3710, ulinkrpc.EncodeResponse(0xfffffffe, ulinkrpc.Status(200), []byte(`[1]`), "bad \xff\x1b[31m text")},
		step{dissect.S2C, 3720, ulinkrpc.EncodePush(-1, 2147483647, nil)},
		step{dissect.C2S, 3730, ulinkrpc.EncodeKeepAlive(ulinkrpc.KeepAlivePing, -5)},
		step{dissect.S2C, 3740, ulinkrpc.EncodeKeepAlive(ulinkrpc.KeepAlivePong, 1<<62)},
		step{dissect.S2C, 3750, withHasError(ulinkrpc.EncodeResponse(77, ulinkrpc.StatusOk, []byte(`{}`), "x"), 7)},
		step{dissect.S2C, 3760, withHasError(ulinkrpc.EncodeResponse(78, ulinkrpc.StatusOk, nil, ""), 1)},
		step{dissect.C2S, 3770, append(ulinkrpc.EncodeRequest(5, 1, 1, []byte(`{}`)), 0)},
		step{dissect.S2C, 3780, append(ulinkrpc.EncodeKeepAlive(ulinkrpc.KeepAlivePong, 1), 0)},
	)
}

// withHasError is Response frame b with its has_error byte set to v (b
// without an error text gets an empty one).
func withHasError(b []byte, v byte) []byte {
	b = bytes.Clone(b)
	at := 10 + int(binary.BigEndian.Uint32(b[6:]))
	if b[at] == 0 {
		b = append(b, 0, 0, 0, 0)
	}
	b[at] = v
	return b
}

// TestLazySame: a Lazy session's records, whose payloads are decoded only
// when read, read exactly as a session's that decodes them at numbering:
// AppendJSON (which walks a JSON payload's fields from its bytes), Meta,
// Line, TreeText, Values and AllFields; and Brief is Meta without Fields.
func TestLazySame(t *testing.T) {
	keys := ulinkrpc.DeriveKeys([]byte("fixture master key"), ulinkrpc.HKDF)
	for _, tc := range []struct {
		name string
		cfg  Config
		opt  *ulinkrpc.TransformOptions
	}{
		{"names", Config{Contracts: contracts(t)}, nil},
		{"nonames", Config{}, nil},
		{"json", Config{Serializer: ulinkrpc.SerializerJSON}, nil},
		{"memorypack", Config{Serializer: ulinkrpc.SerializerMemoryPack, Contracts: contracts(t)}, nil},
		{"gzip", Config{Contracts: contracts(t)}, &ulinkrpc.TransformOptions{Compress: true, Threshold: 16}},
		{"encrypted", Config{Contracts: contracts(t), Transform: ulinkrpc.TransformConfig{Keys: &keys}}, &ulinkrpc.TransformOptions{Keys: &keys}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := lazySteps()
			if tc.opt != nil {
				for i := range st {
					st[i].env = ulinkrpc.ApplyTransform(st[i].env, *tc.opt)
				}
			}
			sameLazy(t, tc.cfg, st)
		})
	}
}

// sameLazy plays steps into a session of cfg and a Lazy one and compares
// every record's readings.
func sameLazy(t *testing.T, cfg Config, steps []step) {
	t.Helper()
	whole := New(testConn, cfg)
	cfg.Lazy = true
	lazy := New(testConn, cfg)
	play(whole, steps, 0)
	play(lazy, steps, 0)
	ws, ls := whole.Records(), lazy.Records()
	if len(ws) != len(ls) || len(ws) == 0 {
		t.Fatalf("%d records, %d lazy", len(ws), len(ls))
	}
	lazies := 0
	for i, w := range ws {
		l := ls[i]
		if l.lazy != nil {
			lazies++
			if l.Payload != nil || !l.bare {
				t.Errorf("record %d: lazy with its payload decoded, or not bare", w.N)
			}
		}
		if l.bare && l.Fields != nil {
			t.Errorf("record %d: bare with fields %v", w.N, l.Fields)
		}
		if a, b := AppendJSON(nil, w), AppendJSON(nil, l); !bytes.Equal(a, b) {
			t.Errorf("record %d --json:\nwhole %s\nlazy  %s", w.N, a, b)
		}
		if a, b := w.Line(), l.Line(); a != b {
			t.Errorf("record %d line: %q; lazy %q", w.N, a, b)
		}
		if a, b := w.TreeText(), l.TreeText(); a != b {
			t.Errorf("record %d tree:\n%s\nlazy:\n%s", w.N, a, b)
		}
		if a, b := w.Meta(), l.Meta(); !reflect.DeepEqual(a, b) {
			t.Errorf("record %d Meta = %+v; lazy %+v", w.N, a, b)
		}
		if a, b := w.AllFields(), l.AllFields(); !reflect.DeepEqual(a, b) {
			t.Errorf("record %d fields = %v; lazy %v", w.N, a, b)
		}
		br, m := l.Brief(), l.Meta()
		m.Fields = nil
		if l.lazy == nil && !reflect.DeepEqual(br, m) {
			t.Errorf("record %d Brief = %+v; want Meta without fields %+v", w.N, br, m)
		}
		for _, f := range w.AllFields() {
			if !strings.HasPrefix(f.Name, "payload.") {
				continue
			}
			a, _ := w.Values(f.Name)
			b, _ := l.Values(f.Name)
			if !reflect.DeepEqual(a, b) {
				t.Errorf("record %d %s: %v; lazy %v", w.N, f.Name, a, b)
			}
		}
	}
	if lazies == 0 {
		t.Error("no record was lazy")
	}
}

// TestLazyRandomJSON compares random JSON payloads, written straight from
// their walk, with the fields the whole record lists.
func TestLazyRandomJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(28, 1))
	var steps []step
	for i := range 300 {
		p := randJSON(rng, 4)
		if rng.IntN(4) == 0 {
			p = " " + p + "\n"
		}
		steps = append(steps, step{dissect.C2S, 10 * i, ulinkrpc.EncodeRequest(uint32(i+1), 1, 1, []byte(p))})
	}
	sameLazy(t, Config{}, steps)
}

// randJSON is a random JSON value nested at most depth deep.
func randJSON(rng *rand.Rand, depth int) string {
	strs := []string{`""`, `"a"`, `"\"\\\/\b\f\n\r\t"`, `"\u00e9\u0000\ud83d\ude00"`, `"é ü"`, `"\ud800"`, "\"\u0085\u200f\"", `"x y"`}
	nums := []string{"0", "-0", "1", "-1", "255", "256", "1e2", "1E-2", "0.5", "-12.25e+3", "123456789012345678", "1234567890123456789", "-9223372036854775809", "9999999999999999999", "-9999999999999999999", "1e400"}
	k := rng.IntN(8)
	if depth == 0 {
		k = 2 + rng.IntN(5)
	}
	switch k {
	case 0, 1:
		var b strings.Builder
		b.WriteByte('{')
		for i := range rng.IntN(4) {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "%s:%s", strs[rng.IntN(len(strs))], randJSON(rng, depth-1))
		}
		return b.String() + "}"
	case 2:
		var b strings.Builder
		b.WriteByte('[')
		for i := range rng.IntN(4) {
			if i > 0 {
				b.WriteString(" , ")
			}
			b.WriteString(randJSON(rng, max(depth-1, 0)))
		}
		return b.String() + "]"
	case 3:
		return strs[rng.IntN(len(strs))]
	case 4:
		return nums[rng.IntN(len(nums))]
	case 5:
		return []string{"true", "false", "null"}[rng.IntN(3)]
	}
	return nums[rng.IntN(len(nums))]
}

// TestAppendFloat: appendFloat spells a finite float as encoding/json
// does.
func TestAppendFloat(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 28))
	vs := []float64{0, math.Copysign(0, -1), 1, -1, 0.1, 1e-6, 1e-7, 9.99999e-7, 1e20, 1e21, 1e21 - 65536, 123456789e12, 5e-324, math.MaxFloat64, -math.MaxFloat64, 112.125, 1.5e300, 1e-10, 1e-100}
	for range 100000 {
		vs = append(vs, math.Float64frombits(rng.Uint64()), rng.NormFloat64()*math.Pow(10, float64(rng.IntN(60)-30)))
	}
	for _, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		want, _ := json.Marshal(v)
		if got := appendFloat([]byte("x"), v); string(got) != "x"+string(want) {
			t.Fatalf("appendFloat(%v) = %s; want x%s", v, got, want)
		}
	}
}

// TestLazyJSONAllocs: `dump --json` of a plain frame's lazy record, a
// JSON, a MemoryPack cut without a schema, a keep-alive, allocates
// nothing once its scratch is warm (issue 28: its envelope and payload
// decoded into reused storage; a value that escaped made two allocations
// a record).
func TestLazyJSONAllocs(t *testing.T) {
	if raceOn {
		t.Skip("the race detector's sync.Pool drops its scratch at random")
	}
	s := New(testConn, Config{Lazy: true})
	play(s, []step{
		{dissect.C2S, 0, ulinkrpc.EncodeRequest(1, 1, 1, []byte(`{"Account":"ann","Level":2,"Pos":[502,779],"V":1.5}`))},
		{dissect.C2S, 10, ulinkrpc.EncodeRequest(2, 1, 2, loginMP("bob", 3))},
		{dissect.S2C, 20, ulinkrpc.EncodeResponse(1, ulinkrpc.StatusOk, []byte(`{"Code":0}`), "")},
		{dissect.C2S, 30, ulinkrpc.EncodeKeepAlive(ulinkrpc.KeepAlivePing, 42)},
	}, 0)
	buf := make([]byte, 0, 1<<16)
	for _, r := range s.Records() {
		if !r.bare {
			t.Fatalf("record %d is not bare", r.N)
		}
		if n := testing.AllocsPerRun(100, func() { buf = AppendJSON(buf[:0], r) }); n != 0 {
			t.Errorf("record %d (%s): %v allocations a write", r.N, r.Msg, n)
		}
	}
}

// TestLazyResponseOwnsIDs checks that a Lazy session's records hold their
// rpc object's values themselves (Record.vals), as its host hands them
// back to be reused for a later frame once written (Release; issue 28):
// a Response holds its Request's ids, and a copy (Clone, made of an
// asker the session may still pair, and whole, a reader's) its own
// values, so that none reads another frame's values once the record it
// came from is reused.
func TestLazyResponseOwnsIDs(t *testing.T) {
	for _, tc := range []struct {
		name   string
		read   func(*Record) *Record // what is read after reuse
		reused func(*Record) bool    // the records reused meanwhile
	}{
		{"a Response, its Request reused", func(r *Record) *Record { return r },
			func(r *Record) bool { return r.Type != ulinkrpc.Response }},
		{"Clone", func(r *Record) *Record { return r.Clone().(*Record) }, func(*Record) bool { return true }},
		{"whole", (*Record).whole, func(*Record) bool { return true }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := New(testConn, Config{Contracts: contracts(t), Lazy: true})
			play(s, conversation(), 0)
			recs := s.Records()
			var want []string
			var read []*Record
			for _, r := range recs {
				if !r.pooled {
					t.Fatalf("record %d is not reused by its session", r.N)
				}
				if r.RPC.RequestID != nil && r.RPC.RequestID != &r.vals.requestID {
					t.Errorf("record %d: its request_id is not its own", r.N)
				}
				want = append(want, valuesText(r))
				read = append(read, tc.read(r))
			}
			answers := 0
			for _, r := range recs {
				if r.Type == ulinkrpc.Response && r.RPC.ServiceID != nil {
					answers++
				}
				if tc.reused(r) {
					// Reused for a later frame: its values overwritten.
					r.vals = rpcValues{requestID: 1 << 30, serviceID: -7, methodID: -7, statusCode: -7, ticks: -7}
				}
			}
			if answers == 0 {
				t.Fatal("no paired Response in the conversation")
			}
			for i, r := range recs {
				if !tc.reused(r) || read[i] != r {
					if got := valuesText(read[i]); got != want[i] {
						t.Errorf("%s of record %d = %q after reuse; want %q", tc.name, r.N, got, want[i])
					}
				}
			}
		})
	}
}
