package report

import (
	"fmt"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/encbench/encbench/internal/stats"
)

// ciPoint is one estimate with its 95% interval.
type ciPoint struct {
	label       string
	est, lo, hi float64
	significant bool
}

// intervalChart draws a bar per estimate with a whisker over its 95%
// interval: ECharts' candlestick with open and close at the estimate and
// its wicks at the interval's ends. Hollow bars are not significant.
func intervalChart(id, title, unit string, pts []ciPoint) (Chart, error) {
	x := make([]string, len(pts))
	bars := make([]opts.BarData, len(pts))
	whiskers := make([]opts.KlineData, len(pts))
	for i, p := range pts {
		x[i] = p.label
		bars[i] = opts.BarData{Value: round3(p.est)}
		if !p.significant {
			bars[i].ItemStyle = &opts.ItemStyle{Opacity: opts.Float(0.3)}
		}
		whiskers[i] = opts.KlineData{Value: []float64{round3(p.est), round3(p.est), round3(p.lo), round3(p.hi)}}
	}
	bar := newBar(id, title, unit, x)
	bar.SetGlobalOptions(charts.WithXAxisOpts(opts.XAxis{Type: "category", AxisLabel: &opts.AxisLabel{Rotate: 30, Interval: "0"}}))
	bar.AddSeries("estimate", bars)
	k := charts.NewKLine()
	k.SetXAxis(x)
	ink := "#333333"
	k.AddSeries("95% interval", whiskers,
		charts.WithItemStyleOpts(opts.ItemStyle{Color: ink, Color0: ink, BorderColor: ink, BorderColor0: ink}),
		charts.WithKlineChartOpts(opts.KlineChart{BarWidth: "25%"}))
	bar.Overlap(k)
	return snippet(bar)
}

// intervalCharts are a section's loss and CPU-added charts, one bar per
// target, variant and thread count against the baseline.
func intervalCharts(idx int, s Section, m *Model) ([]Chart, error) {
	var loss, srv, cli []ciPoint
	for _, t := range m.Order.Targets {
		for _, v := range m.Order.Variants {
			for _, c := range s.Cells {
				if c.Target != t || c.Variant != v || c.Baseline {
					continue
				}
				label := fmt.Sprintf("%s %s %d thr", t, v, c.Threads)
				if l := c.Loss; l != nil {
					loss = append(loss, ciPoint{label, l.Pct, l.Low, l.High, l.Significant})
				}
				if d := c.ServerUsAdded; d != nil {
					srv = append(srv, diffPoint(label, d))
				}
				if d := c.ClientUsAdded; d != nil {
					cli = append(cli, diffPoint(label, d))
				}
			}
		}
	}
	var out []Chart
	for n, ch := range []struct {
		title, unit string
		pts         []ciPoint
	}{
		{"TPS loss against " + m.Baseline + " with 95% intervals (hollow: not significant)", "% of " + m.Baseline + " TPS", loss},
		{"server CPU added per transaction against " + m.Baseline + ", 95% intervals", "us per transaction", srv},
		{"encbench's CPU added per transaction against " + m.Baseline + ", 95% intervals", "us per transaction", cli},
	} {
		if len(ch.pts) == 0 {
			continue
		}
		c, err := intervalChart(fmt.Sprintf("chart_%d_ci%d", idx, n), s.Workload+": "+ch.title, ch.unit, ch.pts)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

func diffPoint(label string, d *stats.Diff) ciPoint {
	return ciPoint{label, d.Mean, d.Low, d.High, d.Significant}
}
