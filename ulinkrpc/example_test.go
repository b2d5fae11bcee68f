package ulinkrpc_test

import (
	"fmt"

	"github.com/usmnscope/usmnscope/ulinkrpc"
)

func ExampleDecodeEnvelope() {
	frame := ulinkrpc.EncodeRequest(7, 1, 2, []byte(`{"Account":"ann"}`))
	env, err := ulinkrpc.DecodeEnvelope(frame)
	if err != nil {
		panic(err)
	}
	for _, f := range env.Fields[:5] {
		fmt.Printf("%s at byte %d (%d bytes) = %v\n", f.Name, f.Bit/8, f.Bits/8, f.Value)
	}
	p := ulinkrpc.DecodePayload(env.Payload, env.PayloadOff, ulinkrpc.PayloadConfig{})
	fmt.Println(p.Encoding, p.Fields[1].Name, p.Fields[1].Value)
	// Output:
	// type at byte 0 (1 bytes) = 1
	// request_id at byte 1 (4 bytes) = 7
	// service_id at byte 5 (4 bytes) = 1
	// method_id at byte 9 (4 bytes) = 2
	// length at byte 13 (4 bytes) = 17
	// json payload.Account ann
}

func ExampleDecodeEnvelope_malformed() {
	_, err := ulinkrpc.DecodeEnvelope([]byte{1, 0, 0})
	fmt.Println(err)
	// Output: ulinkrpc envelope: request_id: need 4 bytes at byte 1, have 2
}

func ExampleStream() {
	var wire []byte
	wire = ulinkrpc.AppendFrame(wire, ulinkrpc.EncodeKeepAlive(ulinkrpc.KeepAlivePing, 42))
	wire = ulinkrpc.AppendFrame(wire, ulinkrpc.EncodeResponse(1, ulinkrpc.StatusOk, nil, ""))
	s := ulinkrpc.NewStream(ulinkrpc.StreamConfig{})
	show := func(frame []byte, info ulinkrpc.FrameInfo) {
		env, _ := ulinkrpc.DecodeEnvelope(frame)
		fmt.Println(info.Offset, env.Type)
	}
	s.Feed(wire[:6], show) // frames may straddle chunks
	s.Feed(wire[6:], show)
	fmt.Println(len(s.End(show)), "findings")
	// Output:
	// 0 KeepAlivePing
	// 13 Response
	// 0 findings
}

func ExampleUntransform() {
	keys := ulinkrpc.DeriveKeys([]byte("master key"), ulinkrpc.HKDF)
	wire := ulinkrpc.ApplyTransform(ulinkrpc.EncodeKeepAlive(ulinkrpc.KeepAlivePong, 1), ulinkrpc.TransformOptions{Keys: &keys})
	u, err := ulinkrpc.Untransform(wire, ulinkrpc.TransformConfig{Keys: &keys})
	fmt.Println(u.Class, u.Decrypted, err, u.Findings[0].Text)
	_, err = ulinkrpc.Untransform(wire, ulinkrpc.TransformConfig{})
	fmt.Println(err)
	// Output:
	// encrypted true <nil> transform: settings unknown, classified as encrypted
	// ulinkrpc: encrypted, no key
}

func ExampleCutMemoryPack() {
	b := ulinkrpc.MPEncodeObject(true, ulinkrpc.MPString("ann"), ulinkrpc.MPInt32(5))
	o, _ := ulinkrpc.CutMemoryPack(b)
	for _, m := range o.Members {
		fmt.Printf("member %d at byte %d, %d bytes: %s\n", m.Index, m.Off, m.Len, m.Guess)
	}
	// Output:
	// member 0 at byte 3, 11 bytes: string "ann"
	// member 1 at byte 14, 4 bytes: i32 5 / f32 7e-45
}

func ExampleSchemaTOML() {
	src := `[RpcService(1)] public interface IPlayerService {
    [RpcMethod(1)] ValueTask<LoginReply> LoginAsync(LoginRequest req); }`
	c, _ := ulinkrpc.ParseContracts([]ulinkrpc.SourceFile{{Name: "IPlayerService.cs", Text: []byte(src)}})
	fmt.Print(ulinkrpc.SchemaTOML(c))
	// Output:
	// [[ulinkrpc.service]]
	// id = 1
	// name = "IPlayerService"
	// [[ulinkrpc.service.method]]
	// id = 1
	// name = "LoginAsync"
	// request = "LoginRequest"
	// reply = "LoginReply"
}
