package infer

import (
	"testing"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/unturned"
)

// msgs is a Decoded of messages in memory.
type msgs []Message

func (d msgs) Len() int { return len(d) }
func (d msgs) Head(n int) (Head, bool) {
	if n < 1 || n > len(d) {
		return Head{}, false
	}
	return d[n-1].Head, true
}
func (d msgs) Message(n int) (Message, bool) {
	if n < 1 || n > len(d) {
		return Message{}, false
	}
	return d[n-1], true
}
func (msgs) Findings() []dissect.Finding { return nil }

// TestTallyAdd: a decode tallied in parts and added up (pipeline's
// ScoreHeads on several cores) scores as tallied in one pass, wherever the
// flagged messages, the other protocol's and the workshop trailer are.
func TestTallyAdd(t *testing.T) {
	trailer := []dissect.Finding{{Severity: dissect.Note, Text: "unknown trailer 0x01"}}
	d := msgs{
		{Head: Head{Kind: unturned.KindServerPingRequest}},
		{Head: Head{Kind: unturned.KindUnknown}},
		{Head: Head{Kind: unturned.KindUnknown, Other: true}},
		{Head: Head{Kind: unturned.KindServerPingRequest, Flagged: true}},
		{Head: Head{Kind: unturned.KindGetWorkshopFiles}},
		{Head: Head{Kind: unturned.KindDownloadWorkshopFiles}, Findings: trailer},
		{Head: Head{Kind: unturned.KindServerPingRequest}},
	}
	for i := range d {
		d[i].N = i + 1
	}
	tally := func(from, to int) *Tally {
		var t Tally
		for n := from; n < to; n++ {
			h, _ := d.Head(n)
			t.Head(d, &h)
		}
		return &t
	}
	want := tally(1, len(d)+1).Score(d)
	if want != (Hint{Messages: 6, Flagged: 2, Trailer: true}) {
		t.Fatalf("one pass = %+v; want 6 messages, 2 flagged, a trailer", want)
	}
	for cut := 1; cut <= len(d)+1; cut++ {
		a, b := tally(1, cut), tally(cut, len(d)+1)
		a.Add(b)
		if got := a.Score(d); got != want {
			t.Errorf("parts 1..%d and %d..%d added = %+v; want %+v", cut-1, cut, len(d), got, want)
		}
	}
}
