package report

import (
	"fmt"
	"html/template"
	"math"
	"slices"
	"strconv"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/encbench/encbench/internal/locale"
	"github.com/encbench/encbench/internal/stats"
)

// Chart is one rendered chart: its element and the script that draws it.
type Chart struct {
	Element template.HTML
	Script  template.HTML
}

// palette colours a target and variant the same in every chart of a
// report (ECharts' default colours, in its order).
var palette = []string{"#5470c6", "#91cc75", "#fac858", "#ee6666", "#73c0de", "#3ba272", "#fc8452", "#9a60b4", "#ea7ccc"}

// sectionCharts draws a section: TPS and latency by threads (one line per
// target and variant, with 95% whiskers), CPU per transaction as server
// and client stacks, the parts of events, and the paired losses and CPU
// added with their intervals.
// partsChart is a connection anatomy's mean time per part, by variant.
func partsChart(l *locale.Lang, id, workload string, pt PartsTable) (Chart, error) {
	ch := newBar(id, workload+": "+pt.Title, l.T("chart.unit.ms"), pt.Parts)
	ch.SetGlobalOptions(charts.WithXAxisOpts(opts.XAxis{Name: l.T("parts.part"), Type: "category", NameLocation: "middle", NameGap: 25}))
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
	return snippet(ch)
}

func sectionCharts(l *locale.Lang, idx int, s Section, m *Model) ([]Chart, error) {
	var threads []int
	for _, c := range s.Cells {
		if !slices.Contains(threads, c.Threads) {
			threads = append(threads, c.Threads)
		}
	}
	slices.Sort(threads)
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
	find := func(t, v string, th int) *Row {
		for _, c := range s.Cells {
			if c.Target == t && c.Variant == v && c.Threads == th {
				return c
			}
		}
		return nil
	}
	id := func(n int) string { return fmt.Sprintf("chart_%d_%d", idx, n) }
	axis := newThreadAxis(l, threads)
	var out []Chart
	lines := []struct {
		title, unit string
		get         func(*Row) stats.Summary
	}{
		{l.T("chart.tps", s.Workload), l.T("chart.unit.tps"), func(c *Row) stats.Summary { return c.TPS }},
		{l.T("chart.avg", s.Workload), l.T("chart.unit.ms"), func(c *Row) stats.Summary { return c.AvgMs }},
		{l.T("chart.p95", s.Workload), l.T("chart.unit.ms"), func(c *Row) stats.Summary { return c.P95Ms }},
	}
	for n, ln := range lines {
		ch := newLine(id(n), ln.title, ln.unit, axis)
		whiskers := charts.NewCustom()
		for k, p := range pairs {
			var pts []threadPoint
			for _, th := range threads {
				if c := find(p[0], p[1], th); c != nil {
					pts = append(pts, threadPoint{th, ln.get(c)})
				}
			}
			addThreadSeries(ch, whiskers, axis, p[0]+" "+p[1], palette[k%len(palette)], k, len(pairs), pts)
		}
		ch.Overlap(whiskers)
		c, err := snippet(ch)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	cpu, err := cpuChart(l, id(3), s, pairs, threads, find)
	if err != nil {
		return nil, err
	}
	out = append(out, cpu)
	for n, pt := range s.Parts {
		c, err := partsChart(l, id(10+n), s.Workload, pt)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	whiskered, err := intervalCharts(l, idx, s, m)
	if err != nil {
		return nil, err
	}
	return append(out, whiskered...), nil
}

// cpuChart stacks server and client CPU per transaction for every target,
// variant and thread count: two colours, so the legend is one line.
func cpuChart(l *locale.Lang, id string, s Section, pairs [][2]string, threads []int, find func(t, v string, th int) *Row) (Chart, error) {
	var x []string
	var server, client []float64
	for _, th := range threads {
		for _, p := range pairs {
			c := find(p[0], p[1], th)
			if c == nil {
				continue
			}
			x = append(x, l.T("chart.cell", p[0], p[1], th))
			srv := math.NaN()
			if c.ServerMsPerTxn != nil {
				srv = 1000 * c.ServerMsPerTxn.Mean
			}
			server = append(server, srv)
			client = append(client, 1000*c.ClientMsPerTxn.Mean)
		}
	}
	ch := newBar(id, l.T("chart.cpu", s.Workload), l.T("chart.unit.us_txn"), x)
	slanted(ch)
	stack := charts.WithBarChartOpts(opts.BarChart{Stack: "cpu"})
	if slices.ContainsFunc(server, func(v float64) bool { return !math.IsNaN(v) }) {
		ch.AddSeries(l.T("chart.cpu.server"), barData(server), stack, charts.WithItemStyleOpts(opts.ItemStyle{Color: "#5470c6"}))
	}
	ch.AddSeries(l.T("chart.cpu.client"), barData(client), stack, charts.WithItemStyleOpts(opts.ItemStyle{Color: "#fac858"}))
	return snippet(ch)
}

// threadAxis is the x axis of by-threads charts: categories, or a log
// scale when the thread counts span more than 8x (1 to 256 would crowd
// the low counts together on a linear scale and space them unevenly as
// categories).
type threadAxis struct {
	log    bool
	labels []string
	name   string
	lo, hi int
}

func newThreadAxis(l *locale.Lang, threads []int) threadAxis {
	a := threadAxis{name: l.T("chart.threads")}
	if len(threads) > 0 {
		a.lo, a.hi = threads[0], threads[len(threads)-1]
		a.log = a.lo > 0 && a.hi > 8*a.lo
	}
	for _, t := range threads {
		a.labels = append(a.labels, strconv.Itoa(t))
	}
	return a
}

// x is where a thread count sits on the axis.
func (a threadAxis) x(threads int) any {
	if a.log {
		return threads
	}
	return slices.Index(a.labels, strconv.Itoa(threads))
}

type threadPoint struct {
	threads int
	s       stats.Summary
}

// whiskerJS draws a 95% interval as an I-beam, shifted a few pixels per
// series so that whiskers at the same thread count do not hide each other.
const whiskerJS = `function (params, api) {
  var x = api.value(0), dx = api.value(3);
  var lo = api.coord([x, api.value(1)]), hi = api.coord([x, api.value(2)]);
  var st = {stroke: api.visual('color'), lineWidth: 1.5};
  return {type: 'group', children: [
    {type: 'line', shape: {x1: lo[0] + dx, y1: lo[1], x2: hi[0] + dx, y2: hi[1]}, style: st},
    {type: 'line', shape: {x1: lo[0] + dx - 4, y1: lo[1], x2: lo[0] + dx + 4, y2: lo[1]}, style: st},
    {type: 'line', shape: {x1: hi[0] + dx - 4, y1: hi[1], x2: hi[0] + dx + 4, y2: hi[1]}, style: st}]};
}`

// addThreadSeries adds one target and variant: its line of means, and a
// whisker per point with an interval, under the same name and colour so
// the legend toggles both.
func addThreadSeries(line *charts.Line, whiskers *charts.Custom, axis threadAxis, name, colour string, k, n int, pts []threadPoint) {
	// Categories keep a slot per thread count ("-" is a gap); a value
	// axis takes the points there are.
	var data []opts.LineData
	if !axis.log {
		data = make([]opts.LineData, len(axis.labels))
		for i := range data {
			data[i] = opts.LineData{Value: "-"}
		}
	}
	var ws []opts.CustomData
	offset := 5 * (float64(k) - float64(n-1)/2)
	for _, p := range pts {
		if axis.log {
			data = append(data, opts.LineData{Value: []any{p.threads, round3(p.s.Mean)}})
		} else {
			data[slices.Index(axis.labels, strconv.Itoa(p.threads))] = opts.LineData{Value: round3(p.s.Mean)}
		}
		if p.s.N >= 2 {
			ws = append(ws, opts.CustomData{Value: []any{axis.x(p.threads), round3(p.s.Low), round3(p.s.High), offset}})
		}
	}
	line.AddSeries(name, data, charts.WithItemStyleOpts(opts.ItemStyle{Color: colour}), charts.WithLineStyleOpts(opts.LineStyle{Color: colour}))
	if len(ws) > 0 {
		whiskers.AddSeries(name, ws, charts.WithItemStyleOpts(opts.ItemStyle{Color: colour}),
			charts.WithCustomChartOpts(opts.CustomChart{RenderItem: opts.FuncOpts(whiskerJS)}),
			charts.WithEncodeOpts(opts.Encode{X: 0, Y: []int{1, 2}}))
	}
}

func globals(id, title, unit string) []charts.GlobalOpts {
	return []charts.GlobalOpts{
		// SVG stays sharp when the report is printed to PDF.
		charts.WithInitializationOpts(opts.Initialization{ChartID: id, Width: "100%", Height: "340px", Renderer: "svg"}),
		charts.WithTitleOpts(opts.Title{Title: title, TitleStyle: &opts.TextStyle{FontSize: 14}}),
		charts.WithAnimation(false),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Top: "bottom", Type: "scroll"}),
		charts.WithGridOpts(opts.Grid{Bottom: "80", Left: "80", Right: "30"}),
		// Along the axis: a long unit (in CJK, say) is not cut off.
		charts.WithYAxisOpts(opts.YAxis{Name: unit, NameLocation: "middle", NameGap: 55}),
	}
}

func newLine(id, title, unit string, axis threadAxis) *charts.Line {
	l := charts.NewLine()
	l.SetGlobalOptions(globals(id, title, unit)...)
	if axis.log {
		l.SetGlobalOptions(charts.WithXAxisOpts(opts.XAxis{Name: axis.name, Type: "log", NameLocation: "middle", NameGap: 25, Min: axis.lo, Max: axis.hi}))
		return l
	}
	l.SetGlobalOptions(charts.WithXAxisOpts(opts.XAxis{Name: axis.name, Type: "category", NameLocation: "middle", NameGap: 25}))
	l.SetXAxis(axis.labels)
	return l
}

// slanted sets a bar chart's category labels at an angle, with room for
// them below and the legend under the title, where the labels cannot
// run into it.
func slanted(b *charts.Bar) {
	b.SetGlobalOptions(charts.WithXAxisOpts(opts.XAxis{Type: "category", AxisLabel: &opts.AxisLabel{Rotate: 30, Interval: "0"}}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Top: "24", Right: "10"}),
		charts.WithGridOpts(opts.Grid{Top: "64", Bottom: "110", Left: "80", Right: "30"}))
	b.Initialization.Height = "380px"
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
