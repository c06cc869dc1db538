package errs

import "testing"

func TestDidYouMean(t *testing.T) {
	names := []string{"oltp_point_select", "oltp_read_only", "threads", "time", "tls"}
	for typed, want := range map[string]string{
		"oltp_point_selct": " (did you mean oltp_point_select?)",
		"thread":           " (did you mean threads?)",
		"tim":              " (did you mean time?)",
		"oltp_read":        " (did you mean oltp_read_only?)",
		"banana":           "",
		"threads":          "",
	} {
		if got := DidYouMean(typed, names); got != want {
			t.Errorf("DidYouMean(%q) = %q, want %q", typed, got, want)
		}
	}
}
