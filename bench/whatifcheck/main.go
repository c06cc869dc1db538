// Command whatifcheck sets the what-if model's predicted losses beside the
// losses measured at the same settings (issue 58, item 6). It reads
// analysis.json files written by `encbench report DIR --what-if SETTING`
// (the predictions, from the cells measured at -fit-threads) and by the
// report of the suite that measured that setting, and prints a Markdown
// table: a prediction holds when it lies within -points of the measured
// loss or inside the measured loss's 95% interval. Beside the model stand
// two naive predictors, held to the same rule: the fit cell's measured
// loss carried over unchanged, and a loss of zero. A cell whose measured
// loss moved by -moves points or more from the fit cell's is a moving
// cell: there a constant cannot hold, so only there can the model show
// it is better than one.
//
//	go run ./bench/whatifcheck -setting 'threads' -predicted A.json -measured A.json
//	go run ./bench/whatifcheck -setting 'rtt=0.5ms' -predicted A.json -measured B.json -workload oltp_read_write=oltp_read_write_rtt0.5ms
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"strings"

	"github.com/encbench/encbench/internal/report"
)

func main() {
	setting := flag.String("setting", "", "the held-out setting's name, for the table")
	predicted := flag.String("predicted", "", "analysis.json with the projections")
	measured := flag.String("measured", "", "analysis.json of the suite that measured the setting")
	fit := flag.Int("fit-threads", 4, "the thread count the model was fitted on")
	workloads := flag.String("workload", "", "FROM=TO,...: a projected workload's name in the measured suite (given: only these are compared)")
	points := flag.Float64("points", 3, "a prediction within this many points of the measured loss holds")
	moves := flag.Float64("moves", 5, "a cell whose measured loss moved this many points or more from the fit cell's is a moving cell")
	header := flag.Bool("header", false, "print the table's header first")
	flag.Parse()
	if err := run(*setting, *predicted, *measured, *fit, *workloads, *points, *moves, *header); err != nil {
		fmt.Fprintln(os.Stderr, "whatifcheck:", err)
		os.Exit(1)
	}
}

func read(path string) (report.Analysis, error) {
	var a report.Analysis
	data, err := os.ReadFile(path)
	if err != nil {
		return a, err
	}
	if err := json.Unmarshal(data, &a); err != nil {
		return a, fmt.Errorf("%s: %w", path, err)
	}
	return a, nil
}

func run(setting, predictedPath, measuredPath string, fit int, workloads string, points, moves float64, header bool) error {
	pred, err := read(predictedPath)
	if err != nil {
		return err
	}
	meas, err := read(measuredPath)
	if err != nil {
		return err
	}
	rename := map[string]string{}
	for _, pair := range strings.Split(workloads, ",") {
		if from, to, ok := strings.Cut(pair, "="); ok {
			rename[from] = to
		}
	}
	if header {
		fmt.Println("| setting | target | workload | variant | threads | predicted loss % | measured loss % (95%) | off by | holds | fit cell's loss % | carried over holds | zero holds | moving | measured limit |")
		fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
	}
	yes := func(ok bool) string {
		if ok {
			return "yes"
		}
		return "**no**"
	}
	for _, p := range pred.Projections {
		if p.Measured != fit || (p.Threads == fit && setting == "threads") {
			continue
		}
		w := p.Workload
		if to, ok := rename[w]; ok {
			w = to
		} else if len(rename) > 0 {
			// Only the renamed workloads are held out here: the others
			// would be compared with themselves.
			continue
		}
		var m *report.RowAnalysis
		for i, c := range meas.Rows {
			if c.Target == p.Target && c.Workload == w && c.Variant == p.Variant && c.Threads == p.Threads && c.OfferedTPS == 0 {
				m = &meas.Rows[i]
			}
		}
		if m == nil || m.Loss == nil {
			continue
		}
		var fitLoss *float64
		for _, c := range pred.Rows {
			if c.Target == p.Target && c.Workload == p.Workload && c.Variant == p.Variant && c.Threads == p.Measured && c.OfferedTPS == 0 && c.Loss != nil {
				fitLoss = &c.Loss.Pct
			}
		}
		if fitLoss == nil {
			continue
		}
		holds := func(x float64) bool {
			return math.Abs(x-m.Loss.Pct) <= points || (x >= m.Loss.Low && x <= m.Loss.High)
		}
		moving := "no"
		if math.Abs(m.Loss.Pct-*fitLoss) >= moves {
			moving = "yes"
		}
		naive := fmt.Sprintf("%.1f | %s | %s | %s", *fitLoss, yes(holds(*fitLoss)), yes(holds(0)), moving)
		row := fmt.Sprintf("| %s | %s | %s | %s | %d | ", setting, p.Target, w, p.Variant, p.Threads)
		measured := fmt.Sprintf("%.1f (%.1f to %.1f)", m.Loss.Pct, m.Loss.Low, m.Loss.High)
		if p.LossPct == nil {
			fmt.Printf("%snot projected: %s | %s | | **no** | %s | %s |\n", row, p.Reason, measured, naive, m.Limit)
			continue
		}
		off := p.LossPct.Mean - m.Loss.Pct
		fmt.Printf("%s%.1f (%.1f to %.1f) | %s | %+.1f | %s | %s | %s |\n", row, p.LossPct.Mean, p.LossPct.Low, p.LossPct.High, measured, off, yes(holds(p.LossPct.Mean)), naive, m.Limit)
	}
	return nil
}
