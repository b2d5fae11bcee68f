package websocket

import (
	"bytes"
	"fmt"
	"testing"
)

// FuzzDecoder: any chunking gives the same data and events (the committed
// corpus, testdata/fuzz/FuzzDecoder, holds a client's stream and a
// server's frame).
func FuzzDecoder(f *testing.F) {
	stream, _ := client(messages(4))
	f.Add(stream, uint16(17))
	f.Add(EncodeFrame(nil, OpBinary, true, nil, bytes.Join(messages(3), nil)), uint16(3))
	f.Fuzz(func(t *testing.T, b []byte, split uint16) {
		ParseFrame(b)
		ParseUpgrade(b)
		run := func(cut int) run {
			w := New(Config{Upgrade: len(b) > 0 && b[0] == 'G'})
			var r run
			w.Feed(b[:cut], r.ev)
			w.Feed(b[cut:], r.ev)
			w.End(r.ev)
			return r
		}
		whole, parts := run(len(b)), run(int(split)%(len(b)+1))
		if !bytes.Equal(whole.data, parts.data) || fmt.Sprint(whole.events) != fmt.Sprint(parts.events) {
			t.Fatalf("split %d: data %x events %v; whole %x %v", split, parts.data, parts.events, whole.data, whole.events)
		}
	})
}

// FuzzDecoderMid: a decoder joined mid-stream (MidStream, no upgrade,
// with the toy judge and without) resynchronises on frame headers after a
// gap and when abandoned, and Search reads only what it is given: no
// panic, and what the decoder holds stays within its bound.
func FuzzDecoderMid(f *testing.F) {
	c, _, _ := frames(messages(4), true)
	f.Add(c[3:], uint16(40))
	f.Fuzz(func(t *testing.T, b []byte, split uint16) {
		for _, masked := range []bool{false, true} {
			for _, j := range []Judge{nil, judge} {
				for _, final := range []bool{false, true} {
					Search(b, masked, final, j)
				}
				m := masked
				w := New(Config{MidStream: true, Masked: &m, Judge: j})
				cut := int(split) % (len(b) + 1)
				w.Feed(b[:cut], nop)
				if w.Held() > w.Bound() {
					t.Fatalf("holds %d bytes; bound %d", w.Held(), w.Bound())
				}
				if split&1 != 0 {
					w.Gap(int(split>>1)%4096+1, nop)
				}
				w.Feed(b[cut:], nop)
				if split&2 != 0 {
					w.Abandon("in the fuzz test", nop)
				}
				w.End(nop)
			}
		}
	})
}
