package report

import (
	"fmt"
	"html/template"
	"math"
	"slices"
	"strconv"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
)

// Chart is one rendered chart: its element and the script that draws it.
type Chart struct {
	Element template.HTML
	Script  template.HTML
}

// sectionCharts draws TPS, latency, CPU and loss by threads, one line or
// bar per target and variant.
func sectionCharts(idx int, s Section, m *Model) ([]Chart, error) {
	var threads []int
	for _, c := range s.Cells {
		if !slices.Contains(threads, c.Threads) {
			threads = append(threads, c.Threads)
		}
	}
	slices.Sort(threads)
	x := make([]string, len(threads))
	for i, t := range threads {
		x[i] = strconv.Itoa(t)
	}
	var pairs [][2]string
	for _, t := range m.Order.Targets {
		for _, v := range m.Order.Variants {
			for _, c := range s.Cells {
				if c.Target == t && c.Variant == v && !slices.Contains(pairs, [2]string{t, v}) {
					pairs = append(pairs, [2]string{t, v})
				}
			}
		}
	}
	find := func(t, v string, th int) *Cell {
		for _, c := range s.Cells {
			if c.Target == t && c.Variant == v && c.Threads == th {
				return c
			}
		}
		return nil
	}
	points := func(t, v string, get func(*Cell) (float64, bool)) []float64 {
		out := make([]float64, len(threads))
		for i, th := range threads {
			out[i] = math.NaN()
			if c := find(t, v, th); c != nil {
				if val, ok := get(c); ok {
					out[i] = val
				}
			}
		}
		return out
	}
	id := func(n int) string { return fmt.Sprintf("chart_%d_%d", idx, n) }
	var out []Chart
	lines := []struct {
		title, unit string
		get         func(*Cell) (float64, bool)
	}{
		{"TPS by threads", "transactions/s", func(c *Cell) (float64, bool) { return c.TPS.Mean, true }},
		{"Average latency by threads", "ms", func(c *Cell) (float64, bool) { return c.AvgMs.Mean, true }},
		{"95th percentile latency by threads", "ms", func(c *Cell) (float64, bool) { return c.P95Ms.Mean, true }},
	}
	for n, l := range lines {
		ch := newLine(id(n), s.Workload+": "+l.title, l.unit, x)
		for _, p := range pairs {
			ch.AddSeries(p[0]+" "+p[1], lineData(points(p[0], p[1], l.get)))
		}
		c, err := snippet(ch)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	cpu := newBar(id(3), s.Workload+": CPU per transaction (server + client)", "ms of CPU per transaction", x)
	for _, p := range pairs {
		stack := opts.BarChart{Stack: p[0] + p[1]}
		cpu.AddSeries(p[0]+" "+p[1]+" server", barData(points(p[0], p[1], func(c *Cell) (float64, bool) {
			if c.ServerMsPerTxn == nil {
				return 0, false
			}
			return c.ServerMsPerTxn.Mean, true
		})), charts.WithBarChartOpts(stack))
		cpu.AddSeries(p[0]+" "+p[1]+" client", barData(points(p[0], p[1], func(c *Cell) (float64, bool) { return c.ClientMsPerTxn.Mean, true })),
			charts.WithBarChartOpts(stack))
	}
	c, err := snippet(cpu)
	if err != nil {
		return nil, err
	}
	out = append(out, c)
	for n, pt := range s.Parts {
		ch := newBar(id(10+n), s.Workload+": "+pt.Title, "ms", pt.Parts)
		ch.SetGlobalOptions(charts.WithXAxisOpts(opts.XAxis{Name: "part", Type: "category", NameLocation: "middle", NameGap: 25}))
		for _, v := range pt.Variants {
			vals := make([]float64, len(pt.Parts))
			for i, part := range pt.Parts {
				vals[i] = math.NaN()
				if m, ok := pt.Means[v][part]; ok {
					vals[i] = m.Mean
				}
			}
			ch.AddSeries(v, barData(vals))
		}
		c, err := snippet(ch)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	whiskered, err := intervalCharts(idx, s, m)
	if err != nil {
		return nil, err
	}
	return append(out, whiskered...), nil
}

func globals(id, title, unit string) []charts.GlobalOpts {
	return []charts.GlobalOpts{
		charts.WithInitializationOpts(opts.Initialization{ChartID: id, Width: "100%", Height: "340px"}),
		charts.WithTitleOpts(opts.Title{Title: title, TitleStyle: &opts.TextStyle{FontSize: 14}}),
		charts.WithAnimation(false),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Top: "bottom", Type: "scroll"}),
		charts.WithGridOpts(opts.Grid{Bottom: "80", Left: "70", Right: "30"}),
		charts.WithXAxisOpts(opts.XAxis{Name: "threads", Type: "category", NameLocation: "middle", NameGap: 25}),
		charts.WithYAxisOpts(opts.YAxis{Name: unit}),
	}
}

func newLine(id, title, unit string, x []string) *charts.Line {
	l := charts.NewLine()
	l.SetGlobalOptions(globals(id, title, unit)...)
	l.SetXAxis(x)
	return l
}

func newBar(id, title, unit string, x []string) *charts.Bar {
	b := charts.NewBar()
	b.SetGlobalOptions(globals(id, title, unit)...)
	b.SetXAxis(x)
	return b
}

// values are a series' points: rounded, with "-" (ECharts' gap) for none.
func values(v []float64) []any {
	out := make([]any, len(v))
	for i, f := range v {
		out[i] = "-"
		if !math.IsNaN(f) {
			out[i] = round3(f)
		}
	}
	return out
}

func lineData(v []float64) []opts.LineData {
	out := make([]opts.LineData, len(v))
	for i, x := range values(v) {
		out[i] = opts.LineData{Value: x}
	}
	return out
}

func barData(v []float64) []opts.BarData {
	out := make([]opts.BarData, len(v))
	for i, x := range values(v) {
		out[i] = opts.BarData{Value: x}
	}
	return out
}

func round3(v float64) float64 { return math.Round(v*1000) / 1000 }

// snippet renders a chart's element and script; go-echarts panics on a
// template error, which here would be a bug, so it becomes an error.
func snippet(ch any) (c Chart, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("rendering chart: %v", r)
		}
	}()
	var s struct{ Element, Script string }
	switch v := ch.(type) {
	case *charts.Line:
		sn := v.RenderSnippet()
		s.Element, s.Script = sn.Element, sn.Script
	case *charts.Bar:
		sn := v.RenderSnippet()
		s.Element, s.Script = sn.Element, sn.Script
	default:
		return c, fmt.Errorf("unsupported chart type %T", ch)
	}
	// The strings are go-echarts' own template output from our numbers.
	return Chart{Element: template.HTML(s.Element), Script: template.HTML(s.Script)}, nil
}
