package unturned

import (
	"strconv"
	"testing"

	"github.com/usmnscope/usmnscope/dissect"
)

func TestSummary(t *testing.T) {
	e := Encoder{P: Default()}
	w := State{Widened: true, IDBits: 2, IDKnown: true}
	tests := []struct {
		dir  dissect.Dir
		st   State
		data []byte
		want string
	}{
		// 6+1+5+2 header bits, 27-byte name, version: the header ends at bit 280; 11 payload bytes.
		{dissect.S2C, w, e.InvokeS2C(true, Invoke{HasDefinition: true, IDBits: 2, ServerID: 2, Type: "Sample.ChatListener, Sample", Version: 1}, make([]byte, 11)),
			"srv#2 Sample.ChatListener, Sample v1 +def 88 payload bits"},
		{dissect.S2C, w, e.InvokeS2C(true, Invoke{IDBits: 2, ServerID: 1}, []byte{1}), "srv#1 15 payload bits"},
		{dissect.C2S, w, e.InvokeC2S(true, Invoke{HasClientID: true, ClientID: 4001}, nil), "cli#4001 1 payload bit"},
		{dissect.S2C, w, e.Negotiate(dissect.S2C, true, Negotiate{Mode: TellClientListenerID, ClientID: 4001, ServerID: 0, IDBits: 2, Version: 1, Type: "A"}),
			"TellClientListenerId cli#4001 → srv#0 A v1"},
		{dissect.C2S, w, e.Negotiate(dissect.C2S, true, Negotiate{Mode: TellServerMissingListener, ServerID: 3, IDBits: 2}), "TellServerMissingListener srv#3"},
		{dissect.S2C, State{}, e.Kicked(false, "bye"), `Kicked "bye"`},
		{dissect.S2C, State{}, e.Kicked(false, "\x1b[2Jevil"), `Kicked "\x1b[2Jevil"`},
		{dissect.S2C, State{}, e.Rejected(false, RejectWrongVersion, "3.26.3.4"), `Rejected WRONG_VERSION "3.26.3.4"`},
		{dissect.S2C, State{}, e.Rejected(false, 60, ""), `Rejected Unknown(60) ""`},
		{dissect.S2C, State{}, e.Banned(false, "x", 60), `Banned "x" 60 s`},
		{dissect.S2C, State{}, e.Accepted(false, 0x01020304, 27015, nil), "Accepted 1.2.3.4 query 27015"},
		{dissect.C2S, State{}, e.GetWorkshopFiles(true, nil), "GetWorkshopFiles +USMN v1"},
		{dissect.S2C, State{}, e.DownloadWorkshopFiles(WorkshopInfo{ServerName: "S"}, &Marker{Version: 1, IDBits: 3}, nil), `DownloadWorkshopFiles "S" 0 files +USMN v1 ids 3 bits`},
		{dissect.C2S, State{}, e.GetWorkshopFiles(false, []byte{1, 2}), "GetWorkshopFiles +trailer 16 bits"},
		{dissect.S2C, State{}, e.InvokeMethod(dissect.S2C, false, 12, 0, nil), "InvokeMethod #12"},
		{dissect.S2C, State{}, e.Raw(dissect.S2C, false, 30, nil), "Unknown message 30 (5 bits)"},
		{dissect.C2S, State{}, e.Ping(dissect.C2S, false, false), "PingRequest"},
	}
	for _, tt := range tests {
		var d Decoded
		Decode(Default(), tt.dir, tt.st, tt.data, nil, &d)
		if got := d.Summary(); got != tt.want {
			t.Errorf("Summary(% x) = %q; want %q", tt.data, got, tt.want)
		}
	}
}

// TestAppendID holds appendID's one-digit path to strconv on both sides.
func TestAppendID(t *testing.T) {
	for _, v := range []uint32{0, 9, 10, 11, 1<<32 - 1} {
		if got, want := string(appendID([]byte("x"), "srv#", v)), "xsrv#"+strconv.FormatUint(uint64(v), 10); got != want {
			t.Errorf("appendID(x, srv#, %d) = %s; want %s", v, got, want)
		}
	}
}
