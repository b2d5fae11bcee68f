package schema_test

import (
	"fmt"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/netpak"
	"github.com/usmnscope/usmnscope/schema"
)

// Decode a ChatListener payload with a schema: every field gets its name,
// its value and its exact bits; a cut payload names the field it cut.
func Example() {
	file, err := schema.Parse("chat.toml", []byte(`
[[listener]]
type = "Sample.ChatListener, Sample"
[listener.server]
[[listener.server.message]]
value = 0
name = "Say"
fields = [ { name = "hello", type = "string" }, { name = "loud", type = "bool" } ]
[[listener.server.message]]
value = 1
name = "Leave"
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	set, _ := schema.NewSet(file)
	l, _ := set.Listener("Sample.ChatListener, Sample", 1)

	// The generator's side: values by name → bits.
	w := netpak.NewWriter()
	l.Encode(w, dissect.C2S, "Say", map[string]any{"hello": "hi", "loud": true})
	fmt.Printf("% x\n", w.Bytes())

	res := l.Decode(dissect.C2S, netpak.NewReader(w.Bytes()))
	fmt.Println(res.Message)
	for _, f := range res.Fields {
		fmt.Printf("%s bits %d..%d = %v\n", f.Name, f.Bit, f.End(), f.Value)
	}

	cut := l.Decode(dissect.C2S, netpak.NewReader(w.Bytes()[:3]))
	fmt.Println(cut.Findings[0].Severity, cut.Findings[0].Text)
	// Output:
	// 04 00 68 69 01
	// Say
	// payload.message bits 0..1 = 0
	// payload.hello bits 1..32 = hi
	// payload.loud bits 32..33 = true
	// error schema Chat.Say: hello: need 16 bits at bit 16, have 8
}

// A file's errors name the file, the line and the key.
func ExampleParse() {
	_, err := schema.Parse("chat.toml", []byte(`[[listener]]
type = "Sample.ChatListener, Sample"
[listener.client]
[[listener.client.message]]
value = 0
name = "Entry"
fields = [
  { name = "text", type = "string:99" },
]`))
	fmt.Println(err)
	// Output: chat.toml:8: listener[0].client.message[0].fields[0].type: type "string:99": width "99" not in 0…32
}
