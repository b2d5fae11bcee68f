package scenario

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/gopacket/gopacket/pcapgo"
)

// fakeSender keeps copies of the frames it is given, and the size of each
// batch.
type fakeSender struct {
	frames  [][]byte
	batches []int
	fail    error
}

func (f *fakeSender) send(frames [][]byte) error {
	if f.fail != nil {
		return f.fail
	}
	for _, b := range frames {
		f.frames = append(f.frames, bytes.Clone(b))
	}
	f.batches = append(f.batches, len(frames))
	return nil
}

func (f *fakeSender) close() error { return nil }

// pcapFrames reads the frames of a classic pcap file.
func pcapFrames(t *testing.T, b []byte) [][]byte {
	t.Helper()
	r, err := pcapgo.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for {
		d, _, err := r.ReadPacketData()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, d)
	}
}

// TestInjectFrames checks that the frames sent are exactly those of the
// capture gen writes for the same scenario and load, in the same order,
// in batches of at most maxBatch.
func TestInjectFrames(t *testing.T) {
	s := readFixture(t, "usmn-basic")
	var want [][]byte
	var buf bytes.Buffer
	c := *s
	c.Link = "ethernet"
	sst, err := c.Generate(&buf, PCAP)
	if err != nil {
		t.Fatal(err)
	}
	want = append(want, pcapFrames(t, buf.Bytes())...)
	buf.Reset()
	lst, err := Scale{Messages: 3000, Conns: 3, Seed: 5, Link: "ethernet", P: s.P}.Generate(&buf, PCAP)
	if err != nil {
		t.Fatal(err)
	}
	want = append(want, pcapFrames(t, buf.Bytes())...)

	var fs fakeSender
	in := &Inject{Count: 3000, Conns: 3, Seed: 5}
	res, err := in.run(context.Background(), &fs, s)
	if err != nil {
		t.Fatal(err)
	}
	if res.Packets != len(want) || res.Messages != sst.Messages+lst.Messages {
		t.Errorf("run = %d packets, %d messages; want %d, %d", res.Packets, res.Messages, len(want), sst.Messages+lst.Messages)
	}
	if len(fs.frames) != len(want) {
		t.Fatalf("sent %d frames; want %d", len(fs.frames), len(want))
	}
	var n int64
	for i := range want {
		if !bytes.Equal(fs.frames[i], want[i]) {
			t.Fatalf("frame %d = % x; want % x", i, fs.frames[i], want[i])
		}
		n += int64(len(want[i]))
	}
	if res.Bytes != n {
		t.Errorf("run = %d bytes; want %d", res.Bytes, n)
	}
	for i, b := range fs.batches {
		if b < 1 || b > maxBatch {
			t.Errorf("batch %d has %d frames; want 1 to %d", i, b, maxBatch)
		}
	}
}

// TestInjectPacing checks that a rate holds the sender back: n packets
// at r per second cannot leave in less than (n - one batch) / r, the
// first batch going at once. Only the lower bound is checked; a loaded
// machine makes the run slower, never faster.
func TestInjectPacing(t *testing.T) {
	var fs fakeSender
	const rate = 20000
	in := &Inject{Count: 2000, Conns: 2, Rate: rate}
	start := time.Now()
	res, err := in.run(context.Background(), &fs, nil)
	if err != nil {
		t.Fatal(err)
	}
	el := time.Since(start)
	batch := rate / 1000
	if min := time.Duration(float64(res.Packets-batch) / rate * float64(time.Second)); el < min {
		t.Errorf("%d packets at %d/s took %v; want at least %v", res.Packets, rate, el, min)
	}
	// A batch is a millisecond of frames at the rate, or less where the
	// generator's buffer ends (queued frames point into it).
	full := 0
	for i, b := range fs.batches {
		if b > batch {
			t.Errorf("batch %d has %d frames; want at most %d (a millisecond at %d/s)", i, b, batch, rate)
		}
		if b == batch {
			full++
		}
	}
	if full < len(fs.batches)*3/4 {
		t.Errorf("%d of %d batches are full; want most", full, len(fs.batches))
	}
}

// TestInjectStops checks that a send error and a cancelled context end
// the run with an error that says so.
func TestInjectStops(t *testing.T) {
	boom := errors.New("boom")
	_, err := (&Inject{Count: 100}).run(context.Background(), &fakeSender{fail: boom}, nil)
	if !errors.Is(err, boom) {
		t.Errorf("run with a failing sender = %v; want it to wrap %v", err, boom)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var fs fakeSender
	_, err = (&Inject{Count: 100000}).run(ctx, &fs, nil)
	if !errors.Is(err, context.Canceled) || len(fs.frames) != 0 {
		t.Errorf("run after cancel = %v, %d frames; want context.Canceled and none", err, len(fs.frames))
	}
}

// TestFrameWriterCuts feeds a pcap stream one byte at a time and in one
// piece: the frames are the same, and a stream cut inside a record is an
// error at flush.
func TestFrameWriterCuts(t *testing.T) {
	var buf bytes.Buffer
	if _, err := (Scale{Messages: 200, Conns: 2, Seed: 3}).Generate(&buf, PCAP); err != nil {
		t.Fatal(err)
	}
	want := pcapFrames(t, buf.Bytes())
	for _, step := range []int{1, 7, buf.Len()} {
		var fs fakeSender
		fw := newFrameWriter(context.Background(), &fs, 0)
		b := buf.Bytes()
		for len(b) > 0 {
			n := min(step, len(b))
			if _, err := fw.Write(b[:n]); err != nil {
				t.Fatal(err)
			}
			b = b[n:]
		}
		if err := fw.flush(); err != nil {
			t.Fatalf("step %d: flush: %v", step, err)
		}
		if len(fs.frames) != len(want) {
			t.Fatalf("step %d: %d frames; want %d", step, len(fs.frames), len(want))
		}
		for i := range want {
			if !bytes.Equal(fs.frames[i], want[i]) {
				t.Fatalf("step %d: frame %d differs", step, i)
			}
		}
	}
	var fs fakeSender
	fw := newFrameWriter(context.Background(), &fs, 0)
	if _, err := fw.Write(buf.Bytes()[:buf.Len()-3]); err != nil {
		t.Fatal(err)
	}
	if err := fw.flush(); err == nil {
		t.Errorf("flush of a cut stream = nil; want an error")
	}
	fw = newFrameWriter(context.Background(), &fs, 0)
	if _, err := fw.Write(make([]byte, 30)); err == nil {
		t.Errorf("Write of a stream without a pcap header = nil error; want one")
	}
}

// BenchmarkInjectFrames is the sender's cost per frame without the
// kernel: generating the load and cutting it into frames.
func BenchmarkInjectFrames(b *testing.B) {
	b.ReportAllocs()
	var fs discardSender
	res, err := (&Inject{Count: b.N, Conns: 4, Seed: 1}).run(context.Background(), &fs, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(res.Packets)/float64(b.N), "frames/msg")
}

type discardSender struct{}

func (discardSender) send([][]byte) error { return nil }
func (discardSender) close() error        { return nil }
