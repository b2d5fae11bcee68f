package main

import "github.com/usmnscope/usmnscope/internal/buildinfo"

// buildVersion is set at link time by a release build
// (-ldflags "-X main.buildVersion=v1.2.3"); without it, version() says
// what the Go toolchain recorded of the build (buildinfo.Version).
var buildVersion string

// version is `usmnscope --version`'s text.
func version() string { return buildinfo.Version(buildVersion) }
