package main

import (
	"os"
	"runtime/pprof"
)

// startProfile writes a CPU profile to $ENCBENCH_CPUPROFILE, for developers
// tuning the hot path; it returns the function that stops it.
func startProfile() func() {
	path := os.Getenv("ENCBENCH_CPUPROFILE")
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err != nil {
		return func() {}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return func() {}
	}
	return func() { pprof.StopCPUProfile(); f.Close() }
}
