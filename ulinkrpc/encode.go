package ulinkrpc

import (
	"bytes"
	"compress/gzip"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
)

// The encoders below build wire bytes for tests and fixtures: frames
// exactly as RpcEnvelopeCodec and LengthPrefix write them (ulinkrpc.md 2
// and 4). They do not check limits, so they can build malformed input too.

// AppendFrame appends frame behind its 4-byte big-endian length prefix.
func AppendFrame(dst, frame []byte) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(frame)))
	return append(dst, frame...)
}

// EncodeRequest builds a Request envelope.
func EncodeRequest(requestID uint32, serviceID, methodID int32, payload []byte) []byte {
	b := make([]byte, 0, 17+len(payload))
	b = append(b, byte(Request))
	b = binary.BigEndian.AppendUint32(b, requestID)
	b = binary.BigEndian.AppendUint32(b, uint32(serviceID))
	b = binary.BigEndian.AppendUint32(b, uint32(methodID))
	b = binary.BigEndian.AppendUint32(b, uint32(len(payload)))
	return append(b, payload...)
}

// EncodeResponse builds a Response envelope. As the real encoder, an empty
// errText writes has_error = 0.
func EncodeResponse(requestID uint32, status Status, payload []byte, errText string) []byte {
	b := make([]byte, 0, 15+len(payload)+len(errText))
	b = append(b, byte(Response))
	b = binary.BigEndian.AppendUint32(b, requestID)
	b = append(b, byte(status))
	b = binary.BigEndian.AppendUint32(b, uint32(len(payload)))
	b = append(b, payload...)
	if errText == "" {
		return append(b, 0)
	}
	b = append(b, 1)
	b = binary.BigEndian.AppendUint32(b, uint32(len(errText)))
	return append(b, errText...)
}

// EncodePush builds a Push envelope.
func EncodePush(serviceID, methodID int32, payload []byte) []byte {
	b := make([]byte, 0, 13+len(payload))
	b = append(b, byte(Push))
	b = binary.BigEndian.AppendUint32(b, uint32(serviceID))
	b = binary.BigEndian.AppendUint32(b, uint32(methodID))
	b = binary.BigEndian.AppendUint32(b, uint32(len(payload)))
	return append(b, payload...)
}

// EncodeKeepAlive builds a KeepAlivePing or KeepAlivePong envelope.
func EncodeKeepAlive(t FrameType, ticks int64) []byte {
	b := []byte{byte(t)}
	return binary.BigEndian.AppendUint64(b, uint64(ticks))
}

// TransformOptions say how ApplyTransform transforms a frame, as a server
// started with compression and/or encryption does (ulinkrpc.md 3).
type TransformOptions struct {
	Compress  bool
	Threshold int    // frames from this size are gzipped when that makes them smaller; 0 means CompressThreshold
	Keys      *Keys  // non-nil: encrypt
	IV        []byte // the 16-byte IV; nil means zeros (the real sender draws it at random)
}

// ApplyTransform returns envelope with the transform layer on.
func ApplyTransform(envelope []byte, opt TransformOptions) []byte {
	threshold := opt.Threshold
	if threshold <= 0 {
		threshold = CompressThreshold
	}
	inner := append([]byte{0}, envelope...)
	if opt.Compress && len(envelope) >= threshold {
		if z := Gzip(envelope); len(z) < len(envelope) {
			inner = append([]byte{FlagGzip}, z...)
		}
	}
	if opt.Keys == nil {
		return inner
	}
	return Encrypt(inner, opt.Keys, opt.IV)
}

// Gzip compresses b as one gzip member (RFC 1952).
func Gzip(b []byte) []byte {
	var out bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&out, gzip.BestSpeed)
	zw.Write(b)
	zw.Close()
	return out.Bytes()
}

// Encrypt builds [IV][AES-256-CBC(PKCS#7(plain))][HMAC-SHA256(IV ‖ ciphertext)].
func Encrypt(plain []byte, k *Keys, iv []byte) []byte {
	pad := aes.BlockSize - len(plain)%aes.BlockSize
	padded := append(bytes.Clone(plain), bytes.Repeat([]byte{byte(pad)}, pad)...)
	out := make([]byte, ivLen, ivLen+len(padded)+macLen)
	copy(out, iv)
	block, _ := aes.NewCipher(k.Enc[:])
	ct := make([]byte, len(padded))
	cipher.NewCBCEncrypter(block, out[:ivLen]).CryptBlocks(ct, padded)
	out = append(out, ct...)
	m := hmac.New(sha256.New, k.Mac[:])
	m.Write(out)
	return m.Sum(out)
}
