// Package version names this build of encbench.
package version

import "runtime/debug"

// Base is the release this tree is working towards.
const Base = "0.1.0"

// String is the base version plus the VCS revision when the build knows it.
func String() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return Base
	}
	rev, dirty := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	switch {
	case rev == "":
		return Base
	case dirty:
		return Base + "+" + rev + "-dirty"
	}
	return Base + "+" + rev
}
