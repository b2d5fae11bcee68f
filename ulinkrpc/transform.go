package ulinkrpc

import (
	"bytes"
	"compress/gzip"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/internal/enum"
)

// Transform-layer constants (ulinkrpc.md 3; TransportFrameCodec and
// TransportSecurityConfig in the real code).
const (
	FlagGzip = 1 // flags bit 0: the body is gzip
	// MaxInflate is the real receiver's cap on a decompressed frame:
	// MaxPayloadSize + 1024. More is an error and the connection drops.
	MaxInflate = MaxFrameLen + 1024
	// CompressThreshold is the default size from which the sender tries
	// gzip.
	CompressThreshold = 1024
	ivLen             = 16
	macLen            = 32
	// minEncrypted is IV, one AES block and the HMAC.
	minEncrypted = ivLen + aes.BlockSize + macLen
)

// Derivation says how the encryption and MAC keys come from the master key.
type Derivation uint8

const (
	// HKDF: HKDF-SHA256(master, salt = 32 zero bytes, info = "enc"/"mac"),
	// 32 bytes each (the current releases).
	HKDF Derivation = iota
	// SHA256: SHA256(master ‖ "enc") and SHA256(master ‖ "mac") (before
	// 2026-04-12).
	SHA256
)

var derivationNames = [...]string{HKDF: "hkdf", SHA256: "sha256"}

func (d Derivation) String() string { return enum.Name(derivationNames[:], uint64(d)) }

// Keys are the two derived keys of ulinkrpc.md 3.
type Keys struct {
	Enc [32]byte // AES-256-CBC key
	Mac [32]byte // HMAC-SHA256 key
}

// DeriveKeys derives the keys from a pre-shared master key of any length.
func DeriveKeys(master []byte, d Derivation) Keys {
	var k Keys
	derive := func(dst *[32]byte, info string) {
		if d == SHA256 {
			*dst = sha256.Sum256(append(append([]byte(nil), master...), info...))
			return
		}
		// A nil salt is HashLen zero bytes (RFC 5869 2.2), as the real code's.
		out, err := hkdf.Key(sha256.New, master, nil, info, 32)
		if err == nil {
			copy(dst[:], out)
		}
	}
	derive(&k.Enc, "enc")
	derive(&k.Mac, "mac")
	return k
}

// Class is what a frame looks like when the transform settings are unknown
// (ulinkrpc.md 3, "Classifying a frame").
type Class uint8

const (
	ClassUnknown   Class = iota // none of the shapes: decoded as plain, and it fails
	ClassPlain                  // type byte 1–5 and an exact envelope
	ClassFlags                  // 00 and an exact envelope: transform on, not compressed
	ClassGzip                   // 01 1f 8b 08: transform on, gzip
	ClassEncrypted              // ≥ 64 bytes, (length − 48) a multiple of 16
)

var classNames = [...]string{ClassUnknown: "unknown", ClassPlain: "plain", ClassFlags: "transform on, not compressed", ClassGzip: "gzip", ClassEncrypted: "encrypted"}

func (c Class) String() string { return enum.Name(classNames[:], uint64(c)) }

// Classify applies the spec's order: plain, flags 00, gzip, encrypted.
func Classify(frame []byte) Class {
	switch {
	case ParsesExactly(frame):
		return ClassPlain
	case len(frame) > 1 && frame[0] == 0 && ParsesExactly(frame[1:]):
		return ClassFlags
	case len(frame) >= 4 && frame[0] == FlagGzip && frame[1] == 0x1f && frame[2] == 0x8b && frame[3] == 0x08:
		return ClassGzip
	case encryptedShape(frame):
		return ClassEncrypted
	}
	return ClassUnknown
}

// ClassNote is the note Untransform gives, as its first finding, a frame it
// classifies with the transform settings unknown (ulinkrpc.md 3: "never
// guess silently").
func ClassNote(c Class) dissect.Finding {
	return dissect.Finding{Severity: dissect.Note, Group: dissect.Inference, Text: classNotes[min(int(c), len(classNotes)-1)], Bit: 0}
}

func encryptedShape(frame []byte) bool {
	return len(frame) >= minEncrypted && (len(frame)-ivLen-macLen)%aes.BlockSize == 0
}

// classNotes are Untransform's note in Auto mode for each class, written
// once: every frame of a connection whose settings are unknown carries one
// (ClassNote).
var classNotes = func() []string {
	out := make([]string, len(classNames))
	for c := range out {
		out[c] = "transform: settings unknown, classified as " + Class(c).String()
	}
	return out
}()

// classNoteLists are ClassNote of each class as a list of one, shared by
// the frames of that class (Untransformed.Findings; issue 28: making the
// list was an allocation a frame). Its capacity is its length, so that
// appending to one copies it; no reader writes it.
var classNoteLists = func() [][]dissect.Finding {
	out := make([][]dissect.Finding, len(classNotes))
	for c := range out {
		out[c] = []dissect.Finding{ClassNote(Class(c))}[:1:1]
	}
	return out
}()

// Plausible reports whether a frame has one of the classified shapes: the
// default validity test of resynchronisation.
func Plausible(frame []byte) bool { return Classify(frame) != ClassUnknown }

// Mode says what is known of the transform settings.
type Mode uint8

const (
	Auto      Mode = iota // unknown: classify each frame, state it in a finding
	Off                   // the transform layer is off: frames are envelopes
	On                    // on, not encrypted: [flags][body]
	Encrypted             // on and encrypted: needs Keys
)

// TransformConfig says how to undo the transform layer.
type TransformConfig struct {
	Mode       Mode
	Keys       *Keys // nil: no key; encrypted frames are shown as such
	MaxInflate int   // cap on a gunzipped frame; 0 means MaxInflate
	// KeepInflated caps the inflated bytes a frame's record keeps (its
	// envelope, decoded for display); 0 means MaxInflate. A frame that
	// inflates past it keeps its compressed body, with an error finding,
	// and is not decoded: inflated envelopes of 64 MiB grew memory by
	// about 0.9 GiB per 65 KB frame (issue 29).
	KeepInflated int
}

// Untransformed is a frame with its transform layer removed.
type Untransformed struct {
	Class     Class
	On        bool // the transform layer is on for this frame
	Flags     int  // the flags byte, -1 when not seen (off, or encrypted without a key)
	Gzip      bool
	Encrypted bool
	Decrypted bool
	Envelope  []byte // the envelope bytes, nil when they could not be recovered
	// Capped is the display cap a gzip body inflated past (0: none):
	// the body is kept compressed, and InflatePrefix reads its start again
	// on demand.
	Capped int
	// Owned says Envelope is a buffer of its own (inflated), not a part
	// of the frame: a caller may keep it without a copy.
	Owned bool

	// Fields of the transform layer with byte spans in the transformed
	// frame: flags, body; or iv, ciphertext, hmac (and flags, body inside
	// the decrypted plaintext, named plain.flags, plain.body).
	Fields   []dissect.Field
	Findings []dissect.Finding
}

// Untransform removes the transform layer of one frame (ulinkrpc.md 3).
// The error, also the last finding, says why the envelope could not be
// recovered: ErrNoKey, ErrAuth, ErrFormat (bad padding or flags, a gzip
// stream that fails to inflate) or ErrTooLarge (the inflate cap).
func Untransform(frame []byte, cfg TransformConfig) (u Untransformed, err error) {
	if cfg.Mode == Auto && (cfg.Keys == nil || !encryptedShape(frame)) {
		// The common case, a plain frame of Auto (or one of no shape),
		// set in the result itself: a whole Untransformed copied to it
		// stalled on the stores just made (issue 28).
		if c := Classify(frame); c == ClassPlain || c == ClassUnknown {
			u.Class, u.Flags, u.Envelope = c, -1, frame
			u.Findings = classNoteLists[min(int(c), len(classNoteLists)-1)]
			return u, nil
		}
	}
	return untransform(frame, cfg)
}

// untransform is Untransform of every frame.
func untransform(frame []byte, cfg TransformConfig) (Untransformed, error) {
	u := Untransformed{Flags: -1}
	max := cfg.MaxInflate
	if max <= 0 {
		max = MaxInflate
	}
	keep := max
	if cfg.KeepInflated > 0 && cfg.KeepInflated < max {
		keep = cfg.KeepInflated
	}
	mode := cfg.Mode
	switch mode {
	case Off:
		u.Class, u.Envelope = ClassPlain, frame
		return u, nil
	case Auto:
		u.Class = Classify(frame)
		// A key makes HMAC the stronger test: a frame of encrypted shape
		// that verifies is encrypted whatever else it resembles.
		if cfg.Keys != nil && encryptedShape(frame) && hmacOK(frame, cfg.Keys) {
			u.Class = ClassEncrypted
		}
		u.Findings = classNoteLists[min(int(u.Class), len(classNoteLists)-1)]
		switch u.Class {
		case ClassPlain, ClassUnknown:
			u.Envelope = frame
			return u, nil
		case ClassEncrypted:
			mode = Encrypted
		default:
			mode = On
		}
	}
	if mode == On {
		return u, u.flagsBody(frame, 0, "", max, keep)
	}
	u.On, u.Encrypted = true, true
	if len(frame) < ivLen+macLen || (len(frame)-ivLen-macLen)%aes.BlockSize != 0 || len(frame) < minEncrypted {
		return u, u.fail(&Error{Layer: "transform", Offset: 0, Err: ErrFormat,
			Detail: fmt.Sprintf("encrypted frame of %d bytes: need IV 16, a multiple of 16 and HMAC 32", len(frame))})
	}
	ct := frame[ivLen : len(frame)-macLen]
	u.Fields = append(u.Fields,
		byteField("iv", 0, frame[:ivLen]),
		byteField("ciphertext", ivLen, ct),
		byteField("hmac", len(frame)-macLen, frame[len(frame)-macLen:]))
	if cfg.Keys == nil {
		u.Findings = append(u.Findings, note(dissect.Undecoded, 0,
			"transform: encrypted frame, no key: pass the master key with --ulinkrpc-key BASE64 or the profile's [ulinkrpc] key"))
		return u, ErrNoKey
	}
	if !hmacOK(frame, cfg.Keys) {
		return u, u.fail(&Error{Layer: "transform", Field: "hmac", Offset: len(frame) - macLen, Err: ErrAuth,
			Detail: "HMAC-SHA256 mismatch: the key (or key_derivation) is probably wrong"})
	}
	block, _ := aes.NewCipher(cfg.Keys.Enc[:])
	plain := make([]byte, len(ct))
	cipher.NewCBCDecrypter(block, frame[:ivLen]).CryptBlocks(plain, ct)
	pad := int(plain[len(plain)-1])
	if pad < 1 || pad > aes.BlockSize || !bytes.Equal(plain[len(plain)-pad:], bytes.Repeat([]byte{byte(pad)}, pad)) {
		return u, u.fail(&Error{Layer: "transform", Field: "ciphertext", Offset: ivLen, Err: ErrFormat, Detail: "bad PKCS#7 padding after a valid HMAC"})
	}
	u.Decrypted = true
	// The plaintext's spans are offsets within the plaintext, not the frame.
	return u, u.flagsBody(plain[:len(plain)-pad], 0, "plain.", max, keep)
}

// untransformEnvelope is Untransform's Envelope, Class and error without
// its fields and findings, for DecodeBrief: the plain and flags-00 frames
// of Mode Off and Auto, the common case, cost a classification and nothing
// else; every other frame goes through Untransform, so the result is the
// same.
func untransformEnvelope(frame []byte, cfg TransformConfig) ([]byte, Class, error) {
	switch cfg.Mode {
	case Off:
		return frame, ClassPlain, nil
	case Auto:
		if cfg.Keys != nil && encryptedShape(frame) {
			break // the HMAC test may overrule the shape (Untransform)
		}
		switch c := Classify(frame); c {
		case ClassPlain, ClassUnknown:
			return frame, c, nil
		case ClassFlags:
			return frame[1:], c, nil // flags 0: the body is the envelope
		}
	}
	u, err := Untransform(frame, cfg)
	return u.Envelope, u.Class, err
}

func hmacOK(frame []byte, k *Keys) bool {
	m := hmac.New(sha256.New, k.Mac[:])
	m.Write(frame[:len(frame)-macLen])
	return hmac.Equal(m.Sum(nil), frame[len(frame)-macLen:])
}

// flagsBody reads [flags][body] and inflates a gzip body: past keep bytes
// (the display cap, at most max, the receiver's) the body stays compressed.
func (u *Untransformed) flagsBody(b []byte, base int, prefix string, max, keep int) error {
	u.On = true
	if len(b) < 1 {
		return u.fail(&Error{Layer: "transform", Field: prefix + "flags", Offset: base, Need: 1, Have: 0, Err: ErrShort})
	}
	u.Flags = int(b[0])
	u.Fields = append(u.Fields, dissect.Field{Name: prefix + "flags", Bit: 8 * base, Bits: 8, Value: uint64(b[0])})
	body := b[1:]
	u.Fields = append(u.Fields, byteField(prefix+"body", base+1, body))
	if b[0]&^FlagGzip != 0 {
		u.Findings = append(u.Findings, warn(dissect.Protocol, 8*base, "transform: unknown flag bits 0x%02x", b[0]&^FlagGzip))
	}
	if b[0]&FlagGzip == 0 {
		u.Envelope = body
		return nil
	}
	u.Gzip = true
	env, err := inflate(body, keep)
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			e.Offset += base + 1
			e.Field = prefix + "body"
			if keep < max && errors.Is(e.Err, ErrTooLarge) {
				u.Capped = keep
				e.Detail = fmt.Sprintf("gzip: the frame inflates past the display cap of %d bytes (max_inflate): kept as its %d compressed bytes, not decoded", keep, len(body))
			}
		}
		return u.fail(err)
	}
	u.Envelope, u.Owned = env, true
	return nil
}

func (u *Untransformed) fail(err error) error {
	u.Findings = append(u.Findings, finding(err, 0))
	return err
}

func byteField(name string, off int, b []byte) dissect.Field {
	return dissect.Field{Name: name, Bit: 8 * off, Bits: 8 * len(b), Value: b}
}

// InflatePrefix gunzips the first max bytes of the gzip stream b (at most
// max bytes are ever inflated): what a record whose frame inflates past
// the display cap shows on demand (Untransformed.Capped). A stream that
// ends or breaks before max gives what it inflated and the error.
func InflatePrefix(b []byte, max int) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, &Error{Layer: "transform", Err: ErrFormat, Detail: "gzip: " + err.Error()}
	}
	var out bytes.Buffer
	if _, err := io.Copy(&out, io.LimitReader(zr, int64(max))); err != nil {
		return out.Bytes(), &Error{Layer: "transform", Err: ErrFormat, Detail: "gzip: " + err.Error()}
	}
	return out.Bytes(), nil
}

// inflate gunzips b, stopping once the output passes max bytes as the real
// receiver does (it reads in 8 KiB steps and throws past the cap): a gzip
// bomb costs at most max+1 bytes.
func inflate(b []byte, max int) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, &Error{Layer: "transform", Err: ErrFormat, Detail: "gzip: " + err.Error()}
	}
	var out bytes.Buffer
	// The gzip trailer's size (mod 2^32, the sender's word: at most max+1
	// is believed) sizes the buffer once, instead of doubling it up to
	// twice the envelope (issue 28/29: 2.3 MB allocated a 1 MiB frame).
	if len(b) >= 8 {
		size := int(binary.LittleEndian.Uint32(b[len(b)-4:]))
		out.Grow(min(size, max) + 1)
	}
	n, err := io.Copy(&out, io.LimitReader(zr, int64(max)+1))
	if n > int64(max) {
		return nil, &Error{Layer: "transform", Err: ErrTooLarge,
			Detail: fmt.Sprintf("gzip: decompressed frame exceeds the cap of %d bytes", max)}
	}
	if err != nil {
		return nil, &Error{Layer: "transform", Err: ErrFormat, Detail: "gzip: " + err.Error()}
	}
	return out.Bytes(), nil
}
