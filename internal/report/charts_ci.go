package report

import (
	"fmt"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/encbench/encbench/internal/locale"
	"github.com/encbench/encbench/internal/stats"
)

// ciPoint is one estimate with its 95% interval; floor is the A/A noise
// floor of its cell (0: none measured).
type ciPoint struct {
	label       string
	est, lo, hi float64
	significant bool
	floor       float64
}

// intervalChart draws a bar per estimate with a whisker over its 95%
// interval: ECharts' candlestick with open and close at the estimate and
// its wicks at the interval's ends. Hollow bars are not significant.
// Where points have an A/A floor, a grey band from -floor to +floor marks
// the losses the A/A run could also show.
func intervalChart(l *locale.Lang, id, title, unit string, pts []ciPoint) (Chart, error) {
	x := make([]string, len(pts))
	bars := make([]opts.BarData, len(pts))
	whiskers := make([]opts.KlineData, len(pts))
	var band []opts.KlineData
	for i, p := range pts {
		x[i] = p.label
		bars[i] = opts.BarData{Value: round3(p.est)}
		if !p.significant {
			bars[i].ItemStyle = &opts.ItemStyle{Opacity: opts.Float(0.3)}
		}
		whiskers[i] = opts.KlineData{Value: []float64{round3(p.est), round3(p.est), round3(p.lo), round3(p.hi)}}
		if p.floor > 0 {
			f := round3(p.floor)
			band = append(band, opts.KlineData{Value: []float64{-f, f, -f, f}})
		} else {
			band = append(band, opts.KlineData{Value: "-"})
		}
	}
	bar := newBar(id, title, unit, x)
	slanted(bar)
	bar.AddSeries(l.T("chart.estimate"), bars)
	k := charts.NewKLine()
	k.SetXAxis(x)
	ink := "#333333"
	k.AddSeries(l.T("chart.interval"), whiskers,
		charts.WithItemStyleOpts(opts.ItemStyle{Color: ink, Color0: ink, BorderColor: ink, BorderColor0: ink}),
		charts.WithKlineChartOpts(opts.KlineChart{BarWidth: "25%"}))
	for _, p := range pts {
		if p.floor > 0 {
			grey := "rgba(120,120,120,0.22)"
			k.AddSeries(l.T("chart.aa_floor"), band,
				charts.WithItemStyleOpts(opts.ItemStyle{Color: grey, Color0: grey, BorderColor: grey, BorderColor0: grey}),
				charts.WithKlineChartOpts(opts.KlineChart{BarWidth: "80%"}))
			break
		}
	}
	bar.Overlap(k)
	return snippet(bar)
}

// intervalCharts are a section's loss and CPU-added charts, one bar per
// target, variant and thread count against the baseline.
func intervalCharts(l *locale.Lang, idx int, s Section, m *Model) ([]Chart, error) {
	var loss, srv, cli []ciPoint
	floor := floorOf(s.Cells)
	for _, t := range m.Order.Targets {
		for _, v := range m.Order.Variants {
			for _, c := range s.Cells {
				if c.Target != t || c.Variant != v || c.Baseline {
					continue
				}
				label := l.T("chart.cell", t, v, c.Threads)
				if x := c.Loss; x != nil {
					p := ciPoint{label, x.Pct, x.Low, x.High, x.Significant, 0}
					if c.Rate == 0 {
						p.floor = floor(c)
					}
					loss = append(loss, p)
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
		{l.T("chart.loss", s.Workload, m.Baseline), l.T("chart.unit.loss", m.Baseline), loss},
		{l.T("chart.server_added", s.Workload, m.Baseline), l.T("chart.unit.us_txn"), srv},
		{l.T("chart.client_added", s.Workload, m.Baseline), l.T("chart.unit.us_txn"), cli},
	} {
		if len(ch.pts) == 0 {
			continue
		}
		c, err := intervalChart(l, fmt.Sprintf("chart_%d_ci%d", idx, n), ch.title, ch.unit, ch.pts)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

func diffPoint(label string, d *stats.Diff) ciPoint {
	return ciPoint{label, d.Mean, d.Low, d.High, d.Significant, 0}
}
