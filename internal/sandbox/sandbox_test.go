package sandbox

import "testing"

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"512MB": 512 << 20, "1G": 1 << 30, "256m": 256 << 20, "64K": 64 << 10, "1048576": 1 << 20} {
		got, err := ParseSize(in)
		if err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"lots", "-1G", "1T"} {
		if _, err := ParseSize(bad); err == nil {
			t.Errorf("ParseSize(%q) accepted", bad)
		}
	}
}

func TestAliveIgnoresMissingProcess(t *testing.T) {
	if alive(0) || alive(1<<22+12345) {
		t.Fatal("alive reported a process that cannot exist")
	}
}
