package report

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/encbench/encbench/internal/errs"
	"github.com/encbench/encbench/internal/result"
)

func TestParseWhatIf(t *testing.T) {
	w, err := ParseWhatIf("client_cpus=8,server_cpus=64,rtt=0.2ms,threads=8,16,32")
	if err != nil {
		t.Fatal(err)
	}
	if w.ClientCPUs != 8 || w.ServerCPUs != 64 || w.RTT != 200*time.Microsecond || !slices.Equal(w.Threads, []int{8, 16, 32}) || w.Speed != 1 {
		t.Errorf("parsed %+v", w)
	}
	for _, bad := range []string{"threads=0", "cores=8", "rtt=fast", "speed=-1", "8,16", "server_cpus=x", "shared_cpus=2,client_cpus=1"} {
		if _, err := ParseWhatIf(bad); errs.ExitCode(err) != 2 {
			t.Errorf("%q: %v, want a usage error", bad, err)
		}
	}
}

// TestProjectionAtTheMeasuredSettingGivesTheMeasuredLoss: a model
// calibrated on each block predicts, at the setting it was measured at,
// the baseline's throughput it was fitted to and about the measured loss;
// more server cores lift a server-bound loop, and a cell limited by
// contention is not projected.
func TestProjectionAtTheMeasuredSettingGivesTheMeasuredLoss(t *testing.T) {
	var rs []*result.Result
	for rep := 1; rep <= 4; rep++ {
		j := float64(rep)
		b, v := costly("plain", rep, 50, 900, 20, 40, 97), costly("tls", rep, 71, 906+j, 20, 45, 97)
		setTPS(b, 1000+j)
		setTPS(v, 990-j)
		rs = append(rs, b, v)
	}
	rows := Aggregate(rs, "plain", &Order{})
	l := english(t)
	same := project(l, rows, "plain", &WhatIf{Speed: 1})
	if len(same) != 1 || same[0].LossPct == nil {
		t.Fatalf("projections %+v", same)
	}
	var measured float64
	for _, c := range rows {
		if c.Variant == "tls" {
			measured = c.Loss.Pct
		}
	}
	// The baseline's throughput comes back; the variant keeps the
	// baseline's wait, so its loss is its added CPU's, near the measured.
	if got := same[0].BaseTPS.Mean; math.Abs(got-1002.5) > 0.01 {
		t.Errorf("baseline projected at %.3f TPS at the measured setting, measured 1002.5", got)
	}
	if got := same[0].LossPct.Mean; math.Abs(got-measured) > 1 {
		t.Errorf("projected %.3f%% at the measured setting, measured %.3f%%", got, measured)
	}
	wide := project(l, rows, "plain", &WhatIf{Speed: 1, ServerCPUs: 64, Threads: []int{8}})
	if wide[0].LossPct == nil || wide[0].BaseTPS.Mean <= 1.2*same[0].BaseTPS.Mean {
		t.Errorf("64 server cores at 8 threads: %+v %+v against %+v", wide[0].BaseTPS, wide[0].Reason, same[0].BaseTPS)
	}

	for _, r := range rs {
		r.Totals.Retries = r.Totals.Transactions / 5
	}
	busy := project(l, Aggregate(rs, "plain", &Order{}), "plain", &WhatIf{Speed: 1})
	if busy[0].Reason == "" || busy[0].LossPct != nil {
		t.Errorf("a contention-bound cell was projected: %+v", busy[0])
	}
	if tbl := whatIfTable(l, busy, rows); len(tbl.Rows) != 1 || tbl.Rows[0][5].S == "" {
		t.Errorf("table %+v", tbl)
	}
}

// TestProjectionsOutsideTheValidatedRangeAreMarked: a setting beyond the
// cores, round trips or threads the held-out check measured is an
// extrapolation, and one inside them is not; a model that did not beat
// the carried-over loss says so.
func TestProjectionsOutsideTheValidatedRangeAreMarked(t *testing.T) {
	l := english(t)
	v := Validated{ThreadsLow: 1, ThreadsHigh: 64, ClientCores: 1, ServerCores: 1, SharedCores: 2, RTTMaxMs: 2, FitThreads: 4,
		Date: "d", Commit: "c", Cells: 10, Model: 5, Carried: 6, Zero: -1}
	for _, tc := range []struct {
		name                   string
		client, server, shared int
		rtt                    time.Duration
		threads                []int
		outside                bool
	}{
		{"as measured", 1, 1, 0, 0, []int{8}, false},
		{"2 shared cores, 2 ms, 64 threads", 0, 0, 2, 2 * time.Millisecond, []int{1, 64}, false},
		{"R3's 64 server cores", 8, 64, 0, 200 * time.Microsecond, []int{8}, true},
		{"4 shared cores", 0, 0, 4, 0, nil, true},
		{"a 5 ms round trip", 0, 0, 0, 5 * time.Millisecond, nil, true},
		{"128 threads", 0, 0, 0, 0, []int{128}, true},
	} {
		if got := v.outside(l, tc.client, tc.server, tc.shared, tc.rtt, tc.threads); (got != "") != tc.outside {
			t.Errorf("%s: %q, want outside %v", tc.name, got, tc.outside)
		}
	}
	if s := v.scoresText(l); !strings.Contains(s, "does not beat") || !strings.Contains(s, "zero not scored") {
		t.Errorf("model 5 against carried 6: %q", s)
	}
	v.Model = 7
	if s := v.scoresText(l); strings.Contains(s, "does not beat") {
		t.Errorf("model 7 against carried 6: %q", s)
	}
}
