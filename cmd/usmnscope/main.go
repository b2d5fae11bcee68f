// Command usmnscope inspects Unturned SystemSockets traffic and USMN module
// messages. See README.md.
package main

import "os"

func main() {
	os.Exit(Execute(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
