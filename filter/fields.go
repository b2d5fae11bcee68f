package filter

import (
	"slices"
	"strings"

	"github.com/usmnscope/usmnscope/decode"
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/session"
)

func one(s string) []string { return []string{s} }

func ids(m *session.Message, server, client bool) []int64 {
	l := m.Listener
	if l == nil {
		return nil
	}
	var out []int64
	if server && l.ServerID != nil {
		out = append(out, int64(*l.ServerID))
	}
	if client && l.ClientID != nil {
		out = append(out, int64(*l.ClientID))
	}
	return out
}

// severityChoices ranks severities for `severity>=warn`; "none" is a
// message without findings.
var severityChoices = []string{"none", dissect.Note.String(), dissect.Warn.String(), dissect.Error.String()}

// fieldTable is the field table of the language (the outputs.md key names),
// in the order the unknown-field error lists them; filterFields and
// filterFieldList are made from it, so the list cannot drift from the
// fields.
var fieldTable = []struct {
	name string
	filterField
}{
	{"dir", filterField{kind: fieldChoice, example: "dir==c2s", choices: []string{"c2s", "s2c"},
		headStr: func(h *session.Head) []string { return one(h.Dir.String()) }}},
	{"msg", filterField{kind: fieldString, example: "msg==InvokeMessageListener", known: isMessageName,
		headStr: func(h *session.Head) []string { return one(headName(h)) }}},
	{"proto", filterField{kind: fieldChoice, example: "proto==ulinkrpc", choices: []string{"unturned", "ulinkrpc"},
		headStr: func(h *session.Head) []string {
			if h.Record() != nil {
				return one(h.Record().Meta().Proto)
			}
			return one("unturned")
		}}},
	{"listener", filterField{kind: fieldString, example: "listener~Chat",
		str: func(m *session.Message) []string {
			if m.Listener == nil || m.Listener.Type == nil {
				return nil
			}
			return one(*m.Listener.Type)
		}}},
	{"id", filterField{kind: fieldNumber, example: "id==3", num: func(m *session.Message) []int64 { return ids(m, true, true) }}},
	{"listener.id", filterField{kind: fieldNumber, example: "listener.id==3", num: func(m *session.Message) []int64 { return ids(m, true, true) }}},
	{"server_id", filterField{kind: fieldNumber, example: "server_id==0", num: func(m *session.Message) []int64 { return ids(m, true, false) }}},
	{"client_id", filterField{kind: fieldNumber, example: "client_id==4001", num: func(m *session.Message) []int64 { return ids(m, false, true) }}},
	{"severity", filterField{kind: fieldOrdered, example: "severity>=warn", choices: severityChoices,
		headNum: func(h *session.Head) []int64 {
			if !h.HasFinding {
				return []int64{0}
			}
			return []int64{int64(h.Worst) + 1}
		}}},
	{"conn", filterField{kind: fieldString, example: "conn~50412",
		headStr: func(h *session.Head) []string { return one(h.Conn.String()) }}},
	{"n", filterField{kind: fieldNumber, example: "n>=10", headNum: func(h *session.Head) []int64 { return []int64{int64(h.N)} }}},
	{"len", filterField{kind: fieldNumber, example: "len>100", num: func(m *session.Message) []int64 {
		if m.Record() != nil {
			return []int64{int64(m.Record().Meta().Len)} // a ULinkRPC frame as on the wire (outputs.md)
		}
		return []int64{int64(len(m.Data))}
	}}},
	{"widened", filterField{kind: fieldBool, example: "widened==true",
		str: func(m *session.Message) []string {
			if m.Enum.Widened {
				return one("true")
			}
			return nil
		}}},
	{"mode", filterField{kind: fieldString, example: "mode==TellClientListenerId",
		str: func(m *session.Message) []string {
			if mode := m.ModeName(); mode != "" {
				return one(mode)
			}
			return nil
		}}},
	{"group", filterField{kind: fieldChoice, example: "group==malformed", choices: dissect.GroupNames(),
		str: func(m *session.Message) []string {
			out := make([]string, len(m.Findings))
			for i, f := range m.Findings {
				out[i] = f.Group.String()
			}
			return out
		}}},
	// outputs.md "Pairing": on the answering message of a pair, either
	// protocol.
	{"latency", filterField{kind: fieldDuration, example: "latency>1ms",
		num: func(m *session.Message) []int64 {
			if !m.HasLatency {
				return nil
			}
			return []int64{int64(m.Latency)}
		}}},
	// ULinkRPC (outputs.md "ULinkRPC records", the `rpc` object): read from
	// the record the index keeps whole, which the Head carries, so they
	// need no decoding; an Unturned message has none of them.
	{"service", filterField{kind: fieldString, example: "service~Player", headStr: recStr("service")}},
	{"method", filterField{kind: fieldString, example: "method==LoginAsync", headStr: recStr("method")}},
	{"service_id", filterField{kind: fieldNumber, example: "service_id==1", headNum: recNum("service_id")}},
	{"method_id", filterField{kind: fieldNumber, example: "method_id==2", headNum: recNum("method_id")}},
	{"request_id", filterField{kind: fieldNumber, example: "request_id==7", headNum: recNum("request_id")}},
	// status matches the name (status==NotFound) or the code (status==1).
	{"status", filterField{kind: fieldString, example: "status==NotFound", headStr: recStr("status")}},
}

// headName is outputs.md's "msg" of a Head: the ULinkRPC frame type's name
// or the Unturned message kind's.
func headName(h *session.Head) string {
	if h.Record() != nil {
		return h.Record().Meta().Name
	}
	return h.Kind.String()
}

// recStr reads a text key of a hosted protocol's record (decode.Record
// Values: ULinkRPC's `rpc` object); an Unturned message has none.
func recStr(name string) func(*session.Head) []string {
	return func(h *session.Head) []string {
		r := h.Record()
		if r == nil {
			return nil
		}
		vs, _ := r.Values(name)
		var out []string
		for _, v := range vs {
			if s, ok := v.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
}

// recNum reads a number key of a hosted protocol's record.
func recNum(name string) func(*session.Head) []int64 {
	return func(h *session.Head) []int64 {
		r := h.Record()
		if r == nil {
			return nil
		}
		vs, _ := r.Values(name)
		var out []int64
		for _, v := range vs {
			switch x := v.(type) {
			case int32:
				out = append(out, int64(x))
			case uint32:
				out = append(out, int64(x))
			case int64:
				out = append(out, x)
			case int:
				out = append(out, int64(x))
			}
		}
		return out
	}
}

// filterFields finds a field by name.
var filterFields = func() map[string]filterField {
	m := make(map[string]filterField, len(fieldTable))
	for _, f := range fieldTable {
		m[f.name] = f.filterField
	}
	return m
}()

// filterFieldList is the field list shown in unknown-field errors.
var filterFieldList = strings.Join(append(FieldNames(), "payload.<field>"), ", ")

// MessageNames lists the outputs.md "msg" names, for completion and for
// rejecting unknown names in msg==NAME: those of every registered protocol
// (decode.Protocol.Names) in the order they registered, each once
// (internal/pipeline registers Unturned's, then ULinkRPC's).
func MessageNames() []string {
	var out []string
	for _, p := range decode.Protocols() {
		for _, n := range p.Names {
			if !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	return out
}

// protoNames are the values of `proto`: the names of the registered
// protocols (decode.Register), in the order they registered.
func protoNames() []string {
	var out []string
	for _, p := range decode.Protocols() {
		if !slices.Contains(out, p.Name) {
			out = append(out, p.Name)
		}
	}
	return out
}

// FieldNames lists the filter language's field names.
func FieldNames() []string {
	names := make([]string, 0, len(fieldTable)+2)
	for _, f := range fieldTable {
		names = append(names, f.name)
	}
	return append(names, "payload_message", "payload_method")
}

// isMessageName reports whether s names a message kind, case folded as
// == compares; undecodable messages are named Unknown….
func isMessageName(s string) bool {
	if strings.HasPrefix(strings.ToLower(s), "unknown") {
		return true
	}
	for _, n := range MessageNames() {
		if strings.EqualFold(n, s) {
			return true
		}
	}
	return false
}
