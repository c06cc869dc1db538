package report

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/encbench/encbench/internal/errs"
	"github.com/encbench/encbench/internal/locale"
	"github.com/encbench/encbench/internal/result"
	"github.com/encbench/encbench/internal/stats"
	"github.com/encbench/encbench/internal/whatif"
)

// WhatIf is another setting to project each loss to: client and server
// cores (0: as measured) or cores they share, the round-trip time added to every round trip,
// the cores' speed against this machine's, and thread counts (none: as
// measured).
type WhatIf struct {
	ClientCPUs, ServerCPUs int
	// SharedCPUs puts client and server on the same CPUs, this many.
	SharedCPUs int
	RTT        time.Duration
	Speed      float64
	Threads    []int
	// Spec is the setting as the user wrote it.
	Spec string
}

// ParseWhatIf reads "client_cpus=8,server_cpus=64,rtt=0.2ms,threads=8,16,32":
// comma-separated key=value pairs, where a bare number after threads= is
// one more thread count.
func ParseWhatIf(spec string) (*WhatIf, error) {
	w := &WhatIf{Speed: 1, Spec: spec}
	key := ""
	for _, part := range strings.Split(spec, ",") {
		part = strings.TrimSpace(part)
		k, v, ok := strings.Cut(part, "=")
		if !ok {
			if key != "threads" {
				return nil, errs.Usage("--what-if: %q is not key=value (keys: client_cpus, server_cpus, shared_cpus, rtt, speed, threads)", part)
			}
			k, v = key, part
		}
		key = k
		if err := w.set(k, v); err != nil {
			return nil, errs.Usage("--what-if %s=%s: %v", k, v, err)
		}
	}
	if w.SharedCPUs > 0 && (w.ClientCPUs > 0 || w.ServerCPUs > 0) {
		return nil, errs.Usage("--what-if: shared_cpus puts client and server on the same CPUs; give it or client_cpus and server_cpus, not both")
	}
	return w, nil
}

func (w *WhatIf) set(k, v string) error {
	positive := func() (int, error) {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return 0, errors.New("give a whole number of 1 or more")
		}
		return n, nil
	}
	var err error
	switch k {
	case "client_cpus":
		w.ClientCPUs, err = positive()
	case "server_cpus":
		w.ServerCPUs, err = positive()
	case "shared_cpus":
		w.SharedCPUs, err = positive()
	case "threads":
		var n int
		if n, err = positive(); err == nil {
			w.Threads = append(w.Threads, n)
		}
	case "rtt":
		if w.RTT, err = time.ParseDuration(v); err != nil || w.RTT < 0 {
			err = errors.New("give a duration such as 0.2ms or 2ms")
		}
	case "speed":
		if w.Speed, err = strconv.ParseFloat(v, 64); err != nil || w.Speed <= 0 {
			err = errors.New("give the cores' speed against this machine's, such as 1.5")
		}
	default:
		err = errors.New("unknown key (keys: client_cpus, server_cpus, shared_cpus, rtt, speed, threads)")
	}
	return err
}

// Projection is a variant's loss at the what-if setting at one thread
// count: the baseline's and the variant's predicted throughput and the
// loss, each over the blocks (a model calibrated per block, so the
// interval carries the blocks' spread of measured costs). Reason says why
// it is not projected.
type Projection struct {
	Target   string         `json:"target"`
	Workload string         `json:"workload"`
	Variant  string         `json:"variant"`
	Measured int            `json:"measured_threads"`
	Threads  int            `json:"threads"`
	BaseTPS  *stats.Summary `json:"baseline_tps,omitempty"`
	TPS      *stats.Summary `json:"tps,omitempty"`
	LossPct  *stats.Summary `json:"loss_pct,omitempty"`
	// AddedMs is the time the variant adds to one transaction there, by
	// Little's law (threads / TPS), in milliseconds.
	AddedMs *stats.Summary `json:"added_ms,omitempty"`
	Reason  string         `json:"not_projected,omitempty"`
	// Extrapolation says how the setting lies outside the range the
	// model was checked on ("": inside it).
	Extrapolation string `json:"extrapolation,omitempty"`
}

// project projects every closed-loop variant row to w.
func project(l *locale.Lang, rows []*Row, baseline string, w *WhatIf) []Projection {
	var out []Projection
	probes := wakeProbes(rows, baseline)
	// A block's models do not depend on the setting: fitted once, they
	// predict every thread count.
	fits := map[[2]*result.Result]fit{}
	for _, c := range rows {
		if c.Baseline || c.Rate > 0 {
			continue
		}
		i := slices.IndexFunc(rows, func(b *Row) bool {
			return b.Variant == baseline && b.Target == c.Target && b.Workload == c.Workload && b.Threads == c.Threads && b.Rate == 0
		})
		if i < 0 {
			continue
		}
		b := rows[i]
		threads := w.Threads
		if len(threads) == 0 {
			threads = []int{c.Threads}
		}
		for _, n := range threads {
			p := Projection{Target: c.Target, Workload: c.Workload, Variant: c.Variant, Measured: c.Threads, Threads: n,
				Extrapolation: validatedRange().outside(l, w.ClientCPUs, w.ServerCPUs, w.SharedCPUs, w.RTT, []int{n})}
			p.project(l, b, c, w, probes, fits)
			out = append(out, p)
		}
	}
	return out
}

// project calibrates a model per block for the baseline and the variant
// and predicts both at the setting.
func (p *Projection) project(l *locale.Lang, b, c *Row, w *WhatIf, probes map[string]WakeProbe, fits map[[2]*result.Result]fit) {
	for _, r := range []*Row{b, c} {
		switch r.Limit {
		case LimitContention, LimitDisk:
			p.Reason = l.T("whatif.not."+r.Limit, r.Variant)
			return
		}
	}
	bs, cs := pairs(b, c)
	if bs == nil {
		p.Reason = l.T("whatif.not.pairs")
		return
	}
	var base, tps, loss, addedMs []float64
	for k := range bs {
		f, ok := fits[[2]*result.Result{bs[k], cs[k]}]
		if !ok {
			f.base, f.variant, f.err = calibrated(bs[k], cs[k], probes[b.Target].Wake)
			fits[[2]*result.Result{bs[k], cs[k]}] = f
		}
		pb, pc, err := f.predict(settingOf(cs[k], w, p.Threads))
		if err != nil {
			p.Reason = l.T("whatif.not.model", err.Error())
			return
		}
		base, tps = append(base, pb.Throughput), append(tps, pc.Throughput)
		loss = append(loss, 100*(1-pc.Throughput/pb.Throughput))
		addedMs = append(addedMs, 1000*float64(p.Threads)*(1/pc.Throughput-1/pb.Throughput))
	}
	sb, _ := stats.Summarize(base)
	st, _ := stats.Summarize(tps)
	sl, _ := stats.Summarize(loss)
	sa, _ := stats.Summarize(addedMs)
	p.BaseTPS, p.TPS, p.LossPct, p.AddedMs = &sb, &st, &sl, &sa
}

// fit is one block's baseline and variant models (err: why none).
type fit struct {
	base, variant whatif.Model
	err           error
}

// predict is the block's baseline and variant at s.
func (f fit) predict(s whatif.Setting) (pb, pv whatif.Point, err error) {
	if f.err != nil {
		return pb, pv, f.err
	}
	if pb, err = f.base.Predict(s); err != nil {
		return pb, pv, err
	}
	pv, err = f.variant.Predict(s)
	return pb, pv, err
}

// measuredCosts are one measured cell's costs per transaction and the
// setting it ran at: its cores and added delay.
func measuredCosts(r *result.Result) (whatif.Costs, whatif.Setting, error) {
	if r.CPU.ServerSPerTxn == nil {
		return whatif.Costs{}, whatif.Setting{}, errors.New("the server's CPU was not measured")
	}
	// The throughput over the same time as the CPU: the turns with their
	// drains (DurationS), not the gate-open time TPS divides by, which
	// would put a saturated server's CPU over its cores.
	tps := r.TPS
	if r.DurationS > 0 && r.Totals.Transactions > 0 {
		tps = float64(r.Totals.Transactions) / r.DurationS
	}
	costs := whatif.Costs{ClientCPU: r.CPU.ClientSPerTxn, ServerCPU: *r.CPU.ServerSPerTxn, Threads: r.Threads, TPS: tps}
	here := whatif.Setting{Speed: 1}
	client, server := cpusOf(r)
	here.ClientCores, here.ServerCores = len(client), len(server)
	if overlap(client, server) {
		here.SharedCores = len(union(client, server))
	}
	if r.Traffic != nil {
		costs.RoundTrips = r.Traffic.RoundTripsPerTxn
	}
	if r.Network != nil {
		if r.Traffic == nil {
			return whatif.Costs{}, whatif.Setting{}, errors.New("the round trips were not counted, and the run had an added delay")
		}
		here.RTT = r.Network.RTTMs / 1000
	}
	return costs, here, nil
}

// calibrated models a block's baseline b and variant v. The baseline's
// wait (the time a transaction spent beyond its CPU and added delays:
// wake-ups, loopback, locks) is fitted to its throughput; the variant
// keeps the baseline's wait and CPU scale and adds its own CPU and round
// trips: a layer adds work, not the machine's latency, and two waits
// fitted apart near saturation, where the wait barely moves throughput,
// differ by noise that dominates a projection to one thread.
func calibrated(b, v *result.Result, wake whatif.Wake) (mb, mv whatif.Model, err error) {
	cb, here, err := measuredCosts(b)
	if err != nil {
		return mb, mv, err
	}
	cv, _, err := measuredCosts(v)
	if err != nil {
		return mb, mv, err
	}
	if mb, err = whatif.Calibrate(cb, here, wake); err != nil {
		return mb, mv, err
	}
	return mb, whatif.Variant(cv, mb, here), nil
}

// settingOf is the what-if setting for a cell measured as r: what w does
// not say stays as measured, except the added delay, which w replaces.
func settingOf(r *result.Result, w *WhatIf, threads int) whatif.Setting {
	client, server := cpusOf(r)
	s := whatif.Setting{Threads: threads, ClientCores: len(client), ServerCores: len(server), Speed: w.Speed, RTT: w.RTT.Seconds()}
	if overlap(client, server) {
		s.SharedCores = len(union(client, server))
	}
	if w.ClientCPUs > 0 || w.ServerCPUs > 0 {
		s.SharedCores = 0
	}
	if w.ClientCPUs > 0 {
		s.ClientCores = w.ClientCPUs
	}
	if w.ServerCPUs > 0 {
		s.ServerCores = w.ServerCPUs
	}
	if w.SharedCPUs > 0 {
		s.SharedCores = w.SharedCPUs
	}
	return s
}

// whatIfTable shows the projections beside the loss measured here.
func whatIfTable(l *locale.Lang, ps []Projection, rows []*Row) Table {
	t := Table{Head: []string{l.T("col.target"), l.T("col.workload"), l.T("col.variant"), l.T("whatif.measured"), l.T("col.threads"),
		l.T("whatif.base_tps"), l.T("whatif.tps"), l.T("whatif.loss")}}
	for _, p := range ps {
		here := l.T("na")
		if i := slices.IndexFunc(rows, func(c *Row) bool {
			return c.Target == p.Target && c.Workload == p.Workload && c.Variant == p.Variant && c.Threads == p.Measured && c.Rate == 0
		}); i >= 0 && rows[i].Loss != nil {
			x := rows[i].Loss
			here = l.T("whatif.here", p.Measured, l.T("ci.range", l.F("%.1f", x.Pct), l.F("%.1f", x.Low), l.F("%.1f", x.High)))
		}
		row := []Text{{S: p.Target}, {S: p.Workload}, {S: p.Variant}, {S: here}, {S: strconv.Itoa(p.Threads)}}
		if p.Reason != "" {
			row = append(row, Text{S: l.T("whatif.not", p.Reason)}, Text{S: ""}, Text{S: ""})
		} else {
			loss := ci(l, *p.LossPct, 1)
			if p.Extrapolation != "" {
				loss = l.T("whatif.extrapolated", loss)
			}
			row = append(row, Text{S: ci(l, *p.BaseTPS, 0)}, Text{S: ci(l, *p.TPS, 0)}, Text{S: loss, Strong: true})
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// whatIfIntro says the setting and the model, and the wake-up costs it
// charges per target (or that no probe measured them).
func whatIfIntro(l *locale.Lang, w *WhatIf, probes []WakeProbe) string {
	intro := l.T("whatif.intro", w.Spec, fmt.Sprintf("%g", w.Speed)) + " " + validatedRange().scoresText(l)
	if out := validatedRange().outside(l, w.ClientCPUs, w.ServerCPUs, w.SharedCPUs, w.RTT, w.Threads); out != "" {
		intro += " " + l.T("validated.extrapolation", out)
	}
	if len(probes) == 0 {
		return intro + " " + l.T("whatif.wake.none")
	}
	var each []string
	us := func(s float64) string { return l.F("%.1f", s*1e6) }
	for _, p := range probes {
		each = append(each, l.T("whatif.wake.target", p.Target, us(p.Wake.Client), us(p.Wake.Server), us(p.Wake.Latency), p.Busy))
	}
	return intro + " " + l.T("whatif.wake", strings.Join(each, "; "))
}

func union(a, b []int) []int {
	out := slices.Clone(a)
	for _, x := range b {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}
