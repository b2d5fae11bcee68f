package buildinfo

import "runtime/debug"

// Version is `usmnscope --version`'s text: release (set at link time),
// else the module version and the VCS revision the binary was built from
// ("devel" when neither is known, as for a test binary).
func Version(release string) string {
	if release != "" {
		return release
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
