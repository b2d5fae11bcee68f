package decode

import "testing"

func TestSummary(t *testing.T) {
	e := Encoder{P: Default()}
	w := State{Widened: true, IDBits: 2, IDKnown: true}
	tests := []struct {
		dir  Dir
		st   State
		data []byte
		want string
	}{
		// 6+1+5+2 header bits, 27-byte name, version: the header ends at bit 280; 11 payload bytes.
		{S2C, w, e.InvokeS2C(true, Invoke{HasDefinition: true, IDBits: 2, ServerID: 2, Type: "Sample.ChatListener, Sample", Version: 1}, make([]byte, 11)),
			"srv#2 Sample.ChatListener, Sample v1 +def 88 payload bits"},
		{S2C, w, e.InvokeS2C(true, Invoke{IDBits: 2, ServerID: 1}, []byte{1}), "srv#1 15 payload bits"},
		{C2S, w, e.InvokeC2S(true, Invoke{HasClientID: true, ClientID: 4001}, nil), "cli#4001 1 payload bits"},
		{S2C, w, e.Negotiate(S2C, true, Negotiate{Mode: TellClientListenerID, ClientID: 4001, ServerID: 0, IDBits: 2, Version: 1, Type: "A"}),
			"TellClientListenerId cli#4001 → srv#0 A v1"},
		{C2S, w, e.Negotiate(C2S, true, Negotiate{Mode: TellServerMissingListener, ServerID: 3, IDBits: 2}), "TellServerMissingListener srv#3"},
		{S2C, State{}, e.Kicked(false, "bye"), `Kicked "bye"`},
		{S2C, State{}, e.Kicked(false, "\x1b[2Jevil"), `Kicked "\x1b[2Jevil"`},
		{S2C, State{}, e.Rejected(false, RejectWrongVersion, "3.26.3.4"), `Rejected WRONG_VERSION "3.26.3.4"`},
		{S2C, State{}, e.Rejected(false, 60, ""), `Rejected Unknown(60) ""`},
		{S2C, State{}, e.Banned(false, "x", 60), `Banned "x" 60 s`},
		{S2C, State{}, e.Accepted(false, 0x01020304, 27015, nil), "Accepted 1.2.3.4 query 27015"},
		{C2S, State{}, e.GetWorkshopFiles(true, nil), "GetWorkshopFiles +USMN v1"},
		{S2C, State{}, e.DownloadWorkshopFiles(WorkshopInfo{ServerName: "S"}, &Marker{Version: 1, IDBits: 3}, nil), `DownloadWorkshopFiles "S" 0 files +USMN v1 ids 3 bits`},
		{C2S, State{}, e.GetWorkshopFiles(false, []byte{1, 2}), "GetWorkshopFiles +trailer 16 bits"},
		{S2C, State{}, e.InvokeMethod(S2C, false, 12, 0, nil), "InvokeMethod #12"},
		{S2C, State{}, e.Raw(S2C, false, 30, nil), "Unknown message 30 (5 bits)"},
		{C2S, State{}, e.Ping(C2S, false, false), "PingRequest"},
	}
	for _, tt := range tests {
		var d Decoded
		DecodeMessage(Default(), tt.dir, tt.st, tt.data, nil, &d)
		if got := d.Summary(); got != tt.want {
			t.Errorf("Summary(% x) = %q; want %q", tt.data, got, tt.want)
		}
	}
}
