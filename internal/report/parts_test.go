package report

import (
	"strings"
	"testing"

	"github.com/encbench/encbench/internal/locale"
	"github.com/encbench/encbench/internal/stats"
)

// The conclusions once quoted the ratio of the parts' means (9.24x) under
// a table of ratios paired by block (8.83x): the sentence must give the
// table's figure, judge noise by the table's interval, and say what the
// TLS handshakes' notes say.
func TestPartsConclusionsQuoteTheTablesRatios(t *testing.T) {
	l, err := locale.Get("en")
	if err != nil {
		t.Fatal(err)
	}
	mean := func(ms float64) stats.Summary { return stats.Summary{N: 6, Mean: ms} }
	pt := PartsTable{Target: "mongodb", Threads: 1, Variants: []string{"plain", "tls1.3"},
		Parts: []string{"connect", "tls_handshake", "reused_query"},
		Roles: map[string]string{"connect": "connect", "handshake": "tls_handshake", "steady": "reused_query"},
		Means: map[string]map[string]stats.Summary{
			"plain":  {"connect": mean(1.0), "reused_query": mean(0.100)},
			"tls1.3": {"connect": mean(9.24), "tls_handshake": mean(2.0), "reused_query": mean(0.104)},
		},
		Ratios: map[string]map[string]Ratio{"tls1.3": {
			"connect":      {Ratio: 8.83, Low: 8.1, High: 9.6},
			"reused_query": {Ratio: 1.02, Low: 0.99, High: 1.05},
		}},
		Notes: map[string]map[string]int64{"tls1.3": {"tls_handshakes": 40}},
	}
	got := strings.Join(partsConclusions(l, []PartsTable{pt}, "plain", []*Row{{Key: Key{Target: "mongodb", Workload: "connect"}}}), "\n")
	for _, want := range []string{"8.83x as long", "reused connection 1.02x", "cannot tell from noise", "resumed 0 of 40"} {
		if !strings.Contains(got, want) {
			t.Errorf("conclusion %q lacks %q", got, want)
		}
	}
	if strings.Contains(got, "9.24x") {
		t.Errorf("conclusion %q quotes the ratio of means, not the table's", got)
	}
}
