//go:build race

package main

// raceOn says the test binary was built with the race detector: runBinary's
// launcher is then the race-built test binary, and a child it starts with
// clone(CLONE_VM) counts the launcher's resident pages in its ru_maxrss
// until exec, so peak RSS says nothing of usmnscope's own memory.
const raceOn = true
