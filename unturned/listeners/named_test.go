package listeners

import (
	"testing"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/unturned"
)

// TestName: what the tables say of the listener each kind of Op names.
func TestName(t *testing.T) {
	lim := unturned.DefaultLimits()
	st := New()
	for _, o := range []Op{
		{Kind: OpServerDef, N: 1, SID: 3, Type: "A", Version: 1},
		{Kind: OpClientDef, N: 2, CID: 100, Type: "B", Version: 2},
		{Kind: OpTellID, N: 3, CID: 100, SID: 4, Type: "B", Version: 2},
	} {
		var res Result
		st.Apply(&o, &lim, &res)
	}
	garbled := unturned.Decoded{Kind: unturned.KindInvokeMessageListener, Invoke: unturned.Invoke{IsClientID: true, ClientID: 7, ServerID: 9}}
	for _, tt := range []struct {
		name string
		o    Op
		d    unturned.Decoded
		want Named
	}{
		{"server invoke", Op{Kind: OpServerInvoke, SID: 3}, unturned.Decoded{}, Named{SID: 3, HasSID: true, Type: "A", Version: 1, HasType: true}},
		{"server invoke of a mapped ID", Op{Kind: OpServerInvoke, SID: 4}, unturned.Decoded{}, Named{SID: 4, HasSID: true, CID: 100, HasCID: true, Type: "B", Version: 2, HasType: true}},
		{"client invoke, mapped", Op{Kind: OpClientInvoke, CID: 100}, unturned.Decoded{}, Named{CID: 100, HasCID: true, SID: 4, HasSID: true, Type: "B", Version: 2, HasType: true}},
		{"unknown client ID", Op{Kind: OpClientInvoke, CID: 5}, unturned.Decoded{}, Named{CID: 5, HasCID: true}},
		{"invoke by server ID, not mapped", Op{Kind: OpServerIDInvoke, SID: 3}, unturned.Decoded{}, Named{SID: 3, HasSID: true, Type: "A", Version: 1, HasType: true}},
		{"request", Op{Kind: OpRequestID, CID: 100, Type: "B", Version: 2}, unturned.Decoded{}, Named{CID: 100, HasCID: true, SID: 4, HasSID: true, Type: "B", Version: 2, HasType: true}},
		{"missing, known", Op{Kind: OpMissingServer, SID: 3}, unturned.Decoded{}, Named{SID: 3, HasSID: true, Type: "A", Version: 1, HasType: true, Resolved: Resolved}},
		{"missing, unknown", Op{Kind: OpMissingClient, CID: 8}, unturned.Decoded{}, Named{CID: 8, HasCID: true, Resolved: Unresolved}},
		{"not applied", Op{Dir: dissect.C2S}, garbled, Named{CID: 7, HasCID: true, Resolved: Unresolved}},
	} {
		var got Named
		st.Name(&tt.o, &tt.d, &got)
		if got != tt.want {
			t.Errorf("%s: %+v; want %+v", tt.name, got, tt.want)
		}
	}
	if s := Unresolved.String(); s != "unresolved" {
		t.Errorf("Unresolved.String() = %q", s)
	}
}
