package result

import (
	"fmt"
	"math"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/encbench/encbench/internal/measure"
)

// LatencyOf summarises a latency histogram (microseconds) in milliseconds.
func LatencyOf(h *hdrhistogram.Histogram) Latency {
	if h.TotalCount() == 0 {
		return Latency{}
	}
	return Latency{
		Min: measure.Ms(h.Min()), Avg: round3(h.Mean() / 1000),
		P50: measure.Ms(h.ValueAtQuantile(50)), P95: measure.Ms(h.ValueAtQuantile(95)),
		P99: measure.Ms(h.ValueAtQuantile(99)), P999: measure.Ms(h.ValueAtQuantile(99.9)),
		Max: measure.Ms(h.Max()), Sum: math.Round(h.Mean()*float64(h.TotalCount())/10) / 100,
	}
}

func round3(v float64) float64 { return math.Round(v*1000) / 1000 }

// EncodeHistogram is latency_histogram_us: HdrHistogram's compressed V2
// form, which other HdrHistogram implementations read.
func EncodeHistogram(h *hdrhistogram.Histogram) (string, error) {
	enc, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		return "", fmt.Errorf("encoding the latency histogram: %w", err)
	}
	return string(enc), nil
}

// LatencyHistogram decodes the result's latency_histogram_us.
func (r *Result) LatencyHistogram() (*hdrhistogram.Histogram, error) {
	if r.Histogram == "" {
		return nil, fmt.Errorf("no latency_histogram_us (the result predates it)")
	}
	return hdrhistogram.Decode([]byte(r.Histogram))
}
