package unturned

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/usmnscope/usmnscope/decode"
	"github.com/usmnscope/usmnscope/dissect"
)

// Export is Unturned's part in writing a selection back to a capture file
// (decode.Export, docs/cli.md "Writing a selection"): its connections are
// framed as SystemSockets (wire.md 2); one whose USMN detection messages
// (GetWorkshopFiles and DownloadWorkshopFiles, Mark) were not both
// captured is decoded by inference from all of its messages and written
// whole; otherwise what decoding the messages written needs is written
// with them (Context): the handshake messages that carry the USMN markers,
// every NegotiateListenerDetails and every InvokeMessageListener that
// carries a listener definition (wire.md 4).
var Export = &decode.Export{
	Framing: func(decode.Record) decode.Framing { return systemSockets },
	Mark:    func(name string) int { return exportMarks[name] },
	Marks:   exportMarks[KindGetWorkshopFiles.String()] | exportMarks[KindDownloadWorkshopFiles.String()],
	Context: exportContext,
}

// exportMarks are the detection marks of the USMN handshake messages.
var exportMarks = map[string]int{
	KindGetWorkshopFiles.String():      1,
	KindDownloadWorkshopFiles.String(): 2,
}

// exportContexts are the messages always written for the decoding of
// those after them; an InvokeMessageListener is when it carries a listener
// definition (hasDefinition).
var exportContexts = map[string]bool{
	KindGetWorkshopFiles.String():         true,
	KindDownloadWorkshopFiles.String():    true,
	KindNegotiateListenerDetails.String(): true,
}

func exportContext(name string, fields func() []dissect.Field) bool {
	if exportContexts[name] {
		return true
	}
	return name == KindInvokeMessageListener.String() && hasDefinition(fields())
}

// hasDefinition reports whether fs set Has_Listener_Definition (wire.md 4.3).
func hasDefinition(fs []dissect.Field) bool {
	for _, f := range fs {
		if f.Name == "Has_Listener_Definition" {
			if b, ok := f.Value.(bool); ok && b {
				return true
			}
		}
	}
	return false
}

// systemSockets is the framing of a SystemSockets connection (wire.md 2):
// a 2-byte length and the message bytes, placed from the messages' bytes.
var systemSockets = decode.Framing{Across: true, Place: placeFrames}

// placeFrames finds each message of one direction in its stream (a 2-byte
// length and the message bytes, at the cursor or the next place they are
// whole in the capture) and returns the ranges of the kept ones. A place
// holding a byte the capture lost is passed over (captured says which):
// the decoder dropped the frame there, so a message it decoded lies
// further on even when the lost byte was the zero the copy reads
// (transport-mess: a lost first length byte before a repeated message).
func placeFrames(s []byte, captured func(from, to int64) bool, ms []decode.Placed, kept map[int]bool, placed map[int]decode.Range) ([]decode.Range, error) {
	var rs []decode.Range
	cur := 0
	for _, m := range ms {
		want := binary.BigEndian.AppendUint16(nil, uint16(len(m.Data)))
		want = append(want, m.Data...)
		at := -1
		for p := cur; p+len(want) <= len(s); {
			i := bytes.Index(s[p:], want)
			if i < 0 {
				break
			}
			if captured == nil || captured(int64(p+i), int64(p+i+len(want))) {
				at = p + i
				break
			}
			p += i + 1
		}
		if at < 0 {
			if kept[m.N] {
				return nil, fmt.Errorf("message %d not found in the captured stream", m.N)
			}
			continue
		}
		cur = at + len(want)
		if placed != nil {
			placed[m.N] = decode.Range{From: int64(at), To: int64(cur)}
		}
		if kept[m.N] {
			rs = append(rs, decode.Range{From: int64(at), To: int64(cur)})
		}
	}
	return rs, nil
}
