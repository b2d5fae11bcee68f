package jsontime

import (
	"strconv"
	"time"

	"github.com/usmnscope/usmnscope/internal/digits"
)

// Layout is RFC 3339 with all nine nanosecond digits (outputs.md "time").
const Layout = "2006-01-02T15:04:05.000000000Z07:00"

// Append appends t as t.UTC().Format(Layout) spells it, digit by digit for
// the years Format writes with four digits.
func Append(dst []byte, t time.Time) []byte {
	t = t.UTC()
	year, month, day := t.Date()
	if year < 0 || year > 9999 {
		return t.AppendFormat(dst, Layout)
	}
	hour, minute, sec := t.Clock()
	dst = digits.AppendPadded(dst, year, 4)
	dst = append(dst, '-')
	dst = digits.AppendPadded(dst, int(month), 2)
	dst = append(dst, '-')
	dst = digits.AppendPadded(dst, day, 2)
	dst = append(dst, 'T')
	dst = digits.AppendPadded(dst, hour, 2)
	dst = append(dst, ':')
	dst = digits.AppendPadded(dst, minute, 2)
	dst = append(dst, ':')
	dst = digits.AppendPadded(dst, sec, 2)
	dst = append(dst, '.')
	dst = digits.AppendPadded(dst, t.Nanosecond(), 9)
	return append(dst, 'Z')
}

// Cache spells times as Append does, keeping the text of the last second
// ("2026-01-01T12:00:00.") for the times that share it. Its zero value is
// ready; it is not safe for concurrent use.
type Cache struct {
	sec    int64
	prefix []byte
	// nsSec and nsPrefix are AppendBoth's: `,"time_ns":` and the
	// seconds of time_ns spelled, for a second after 1970 whose
	// nanoseconds fit an int64.
	nsSec    int64
	nsPrefix []byte
}

// AppendBoth appends t as Append does, the closing quote of its string,
// then `,"time_ns":N` as AppendNS does: a record's "time" and "time_ns"
// keys with the nine nanosecond digits spelled once.
func (c *Cache) AppendBoth(dst []byte, t time.Time) []byte {
	dst = c.Append(dst, t)
	s := t.Unix()
	if s <= 0 || s >= maxNSSec || len(dst) < 10 {
		return AppendNS(append(dst, '"'), t)
	}
	if c.nsPrefix == nil || s != c.nsSec {
		c.nsSec = s
		c.nsPrefix = strconv.AppendInt(append(c.nsPrefix[:0], `,"time_ns":`...), s, 10)
	}
	// The time ends with its nine nanosecond digits and 'Z'.
	ns := len(dst) - 10
	dst = append(dst, '"')
	dst = append(dst, c.nsPrefix...)
	return append(dst, dst[ns:ns+9]...)
}

// maxNSSec is the first second whose nanoseconds do not all fit an int64.
const maxNSSec = (1<<63 - 1) / 1_000_000_000

// Append appends t as Append does.
func (c *Cache) Append(dst []byte, t time.Time) []byte {
	t = t.UTC()
	if s := t.Unix(); c.prefix != nil && s == c.sec {
		dst = append(dst, c.prefix...)
	} else {
		start := len(dst)
		dst = Append(dst, t)
		buf := c.prefix[:0]
		c.prefix = nil
		// Only the four-digit years have the fixed layout cut here.
		if y := t.Year(); y >= 0 && y <= 9999 {
			c.sec, c.prefix = s, append(buf, dst[start:len(dst)-10]...)
		}
		return dst
	}
	dst = digits.AppendPadded(dst, t.Nanosecond(), 9)
	return append(dst, 'Z')
}

// AppendNS appends `,"time_ns":N`, t's Unix nanoseconds, when they give t
// exactly (outputs.md "time_ns"), else nothing: the key every record's
// JSON writes after its "time".
func AppendNS(dst []byte, t time.Time) []byte {
	ns := t.UnixNano()
	if !time.Unix(0, ns).Equal(t) {
		return dst
	}
	dst = append(dst, `,"time_ns":`...)
	return strconv.AppendInt(dst, ns, 10)
}
