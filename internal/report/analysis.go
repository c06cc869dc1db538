package report

import (
	"github.com/encbench/encbench/internal/stats"
	"github.com/encbench/encbench/internal/suite"
)

// AnalysisFile is the report's figures for programs: every cell with its
// loss, CPU per transaction and what each variant adds, with intervals.
const AnalysisFile = "analysis.json"

// Analysis is analysis.json.
type Analysis struct {
	Schema   string `json:"schema"`
	Baseline string `json:"baseline"`
	// Precision is the target half-width of loss intervals (0: none).
	Precision   float64 `json:"precision,omitempty"`
	BudgetSpent bool    `json:"budget_spent,omitempty"`
	// MachineNoise is the machine's own steadiness before the first block.
	MachineNoise *suite.MachineNoise `json:"machine_noise,omitempty"`
	Rows         []RowAnalysis       `json:"cells"`
	// WhatIf is the setting --what-if gave and Projections the losses
	// projected to it.
	WhatIf      string       `json:"what_if,omitempty"`
	Projections []Projection `json:"projections,omitempty"`
	// WakeProbes are the wake-up costs per round trip the projections
	// charged, per target (none: no probe in the suite).
	WakeProbes []WakeProbe `json:"wake_probes,omitempty"`
	// Published are the numbers the suite's reference report published,
	// each judged on the stand-in engine.
	Published []Published `json:"published,omitempty"`
}

// RowAnalysis is one target, workload, thread count and variant over its
// blocks. CPU figures are microseconds per transaction.
type RowAnalysis struct {
	Target   string `json:"target"`
	Workload string `json:"workload"`
	Threads  int    `json:"threads"`
	Variant  string `json:"variant"`
	Blocks   int    `json:"blocks"`
	// OfferedTPS is the fixed rate of an equal-load cell (0: closed loop).
	OfferedTPS float64        `json:"offered_tps,omitempty"`
	Verified   bool           `json:"verified"`
	TPS        stats.Summary  `json:"tps"`
	ClientUs   stats.Summary  `json:"client_us_per_txn"`
	ServerUs   *stats.Summary `json:"server_us_per_txn"`
	// Against the baseline; absent for the baseline itself.
	Loss          *stats.Loss `json:"tps_loss_pct,omitempty"`
	HalfWidth     *float64    `json:"half_width,omitempty"`
	ReachedTarget *bool       `json:"reached_target,omitempty"`
	LossReason    string      `json:"loss_reason,omitempty"`
	ClientUsAdded *stats.Diff `json:"client_us_added,omitempty"`
	ServerUsAdded *stats.Diff `json:"server_us_added,omitempty"`
	P95MsAdded    *stats.Diff `json:"p95_ms_added,omitempty"`
	// Costs per committed transaction (per connection for connect), with
	// what the variant adds; Busy and Limit say what limited the cell.
	Costs []Cost `json:"costs"`
	Busy  Busy   `json:"busy"`
	Limit string `json:"limit"`
}

// AnalysisSchema names analysis.json's format.
const AnalysisSchema = "encbench/analysis/v1"

func analysisOf(m *Model) Analysis {
	a := Analysis{Schema: AnalysisSchema, Baseline: m.Baseline, Precision: m.Precision, BudgetSpent: m.BudgetSpent, MachineNoise: m.MachineNoise, Projections: m.Projections,
		Published: m.Published}
	if len(m.Projections) > 0 {
		a.WhatIf, a.WakeProbes = m.whatIfSpec, m.WakeProbes
	}
	for _, s := range m.Sections {
		for _, c := range s.Cells {
			ca := RowAnalysis{Target: c.Target, Workload: c.Workload, Threads: c.Threads, Variant: c.Variant,
				Blocks: len(c.Results), Verified: c.Verified, TPS: c.TPS, ClientUs: perTxnUs(c.ClientMsPerTxn),
				Loss: c.Loss, LossReason: c.LossReason, ClientUsAdded: c.ClientUsAdded, ServerUsAdded: c.ServerUsAdded,
				P95MsAdded: c.P95Added, OfferedTPS: c.Rate, Costs: c.Costs, Busy: c.Busy, Limit: c.Limit}
			if c.ServerMsPerTxn != nil {
				s := perTxnUs(*c.ServerMsPerTxn)
				ca.ServerUs = &s
			}
			if c.Loss != nil {
				hw := c.Loss.HalfWidth()
				ca.HalfWidth = &hw
				if m.Precision > 0 {
					ok := hw <= m.Precision
					ca.ReachedTarget = &ok
				}
			}
			a.Rows = append(a.Rows, ca)
		}
	}
	return a
}

func perTxnUs(ms stats.Summary) stats.Summary {
	return stats.Summary{N: ms.N, Mean: 1000 * ms.Mean, SD: 1000 * ms.SD, Low: 1000 * ms.Low, High: 1000 * ms.High}
}
