package decode

import "github.com/usmnscope/usmnscope/netpak"

// decoder is the working state of one DecodeMessage call.
type decoder struct {
	p      *Profile
	dir    Dir
	st     State
	r      netpak.Reader
	spans  *netpak.Spans
	d      *Decoded
	part   string // message part named in error texts ("usmn invoke header")
	failed bool   // an error finding was recorded for the reader's error
}

// check reports whether the reader has no error. On the first error it
// records an error finding naming the message part and field, at the bit
// where the failed read started (outputs.md: error for a read past the end,
// invalid UTF-8, non-zero padding).
func (m *decoder) check(name string, from int) bool {
	err := m.r.Err()
	if err == nil {
		return true
	}
	if !m.failed {
		m.failed = true
		bit := from
		switch e := err.(type) {
		case *netpak.ShortError:
			bit = e.Bit
		case *netpak.BitError:
			bit = e.Bit
		}
		m.d.Findings = append(m.d.Findings, Finding{Severity: Error, Group: Malformed, Text: m.part + ": " + name + ": " + err.Error(), Bit: bit})
	}
	return false
}

// defaultProfile serves callers that pass a nil profile.
var defaultProfile = Default()
