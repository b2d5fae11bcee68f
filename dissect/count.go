package dissect

import "strconv"

// AppendCount appends n and its unit, plural unless n is 1 or -1:
// "1 byte", "0 bytes", "3 members" (issue 30: "1 bytes", "1 members").
// unit is the singular; the plural adds "s", which holds for every unit
// the outputs count (byte, bit, member, file, message, packet, frame).
func AppendCount(b []byte, n int64, unit string) []byte {
	b = strconv.AppendInt(b, n, 10)
	b = append(b, ' ')
	b = append(b, unit...)
	if n != 1 && n != -1 {
		b = append(b, 's')
	}
	return b
}

// Count is AppendCount as a string.
func Count[N ~int | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32](n N, unit string) string {
	return string(AppendCount(nil, int64(n), unit))
}
