//go:build !race

package rpc

// raceOn: see race_on_test.go.
const raceOn = false
