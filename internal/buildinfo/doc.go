// Package buildinfo says which build a binary is: the release it was
// linked as, else what the Go toolchain recorded of the build (module
// version, VCS revision, a dirty tree, the Go version).
package buildinfo
