package report

import (
	"strings"
	"testing"

	"github.com/encbench/encbench/internal/result"
)

// TestOverviewNamesAGain: a variant significantly faster than its baseline
// in every cell is not summed up as merely "no loss".
func TestOverviewNamesAGain(t *testing.T) {
	var rs []*result.Result
	for rep := 1; rep <= 4; rep++ {
		j := float64(rep)
		rs = append(rs, fake("plain", 8, rep, 300+j), fake("colenc", 8, rep, 550+2*j))
	}
	rows := Aggregate(rs, "plain", &Order{})
	s := layerAnswer(english(t), "colenc", rows, func(*Row) float64 { return 0 })
	if !strings.Contains(s, "no significant throughput loss") || !strings.Contains(s, "significantly higher than the baseline's in 1 of them") {
		t.Errorf("answer %q does not name the gain", s)
	}
}
