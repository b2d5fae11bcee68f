package main

import "runtime/debug"

// buildVersion is set at link time by a release build
// (-ldflags "-X main.buildVersion=v1.2.3"); without it, version() says
// what the Go toolchain recorded of the build.
var buildVersion string

// version is `usmnscope --version`'s text: the release, else the module
// version and the VCS revision the binary was built from ("devel" when
// neither is known, as for a test binary).
func version() string {
	if buildVersion != "" {
		return buildVersion
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	v := bi.Main.Version
	if v == "" || v == "(devel)" {
		v = "devel"
	}
	var rev, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = "+dirty"
			}
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if rev != "" {
		v += " (" + rev + modified + ")"
	}
	return v + ", " + bi.GoVersion
}
