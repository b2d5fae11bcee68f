//go:build race

package rpc

// raceOn says the test binary was built with the race detector, under
// which a sync.Pool drops what it is given at random: the allocation
// counts of what draws from one say nothing then.
const raceOn = true
