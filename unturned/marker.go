package unturned

import (
	"fmt"

	"github.com/usmnscope/usmnscope/dissect"
)

// markerBits is the length of a marker in direction dir (wire.md 6, marker
// layout): [magic:32][usmn_version:32], and S→C only
// [Serverside_ID_Bit_Count: id_bit_count_bit_count].
func (p *Profile) markerBits(dir dissect.Dir) int {
	if dir == dissect.S2C {
		return 64 + p.IDBitCountBitCount
	}
	return 64
}

// trailer reads what follows the vanilla body of a detection message
// (GetWorkshopFiles, DownloadWorkshopFiles): the USMN marker, appended
// directly with no alignment (wire.md 4.1, 6), or another module's trailer.
// The marker is recognised by its magic; once the magic matched, a short
// marker is a read past the end like any other field. Bits that are neither
// the marker nor the writer's zero padding are an unknown trailer: a note,
// never an error (outputs.md).
func (m *decoder) trailer() {
	d, p := m.d, m.p
	d.TrailerBit = m.r.Pos()
	if m.r.Remaining() >= 32 {
		peek := m.r // a copy: reading it does not move m.r
		if peek.Bits(32) == p.MarkerMagic {
			m.part = "marker"
			d.Marker.Magic = m.bits("marker.magic", 32)
			d.Marker.Version = m.bits("marker.usmn_version", 32)
			if m.dir == dissect.S2C {
				d.Marker.IDBits = int(m.bits("marker.Serverside_ID_Bit_Count", p.IDBitCountBitCount))
				d.Marker.HasIDBits = true
			}
			if m.failed {
				return
			}
			d.HasMarker = true
		}
	}
	n := m.r.Remaining()
	if n == 0 {
		return
	}
	from := m.r.Pos()
	if n < 8 {
		// The writer zero-fills the last byte (wire.md 1.1).
		if v := m.r.Bits(n); v == 0 {
			if m.spans != nil {
				m.spans.AddUint("padding", from, &m.r, 0)
			}
			return
		}
		m.r.Seek(from)
	}
	d.TrailerBits = n
	if m.spans != nil {
		aligned := from&7 == 0
		m.r.Skip(n)
		if aligned {
			m.spans.AddBytes("trailer", from, &m.r, m.r.Buffer()[from>>3:])
		} else {
			m.spans.Add("trailer", from, &m.r, nil)
		}
	}
	what := "after the vanilla body, not the USMN marker"
	if d.HasMarker {
		what = "after the USMN marker"
	}
	m.finding(dissect.Note, dissect.Protocol, from, fmt.Sprintf("%s: unknown trailer: %d bits %s (another module's?)", d.Kind, n, what))
}
