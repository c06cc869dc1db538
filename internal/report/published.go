package report

import (
	"math"
)

// Published numbers (issue 66): each number a report publishes is judged
// once, against the engine its suite names as the report's stand-in. The
// comparison comes first and says only where the number lies; a cause is
// named only by a test that could have failed.

// Comparison is where a published number lies against encbench's
// measurement on the stand-in: inside its 95% interval (agrees), or
// encbench higher or lower; for a bound, within it or above it.
type Comparison string

const (
	CompAgrees      Comparison = "agrees"
	CompHigher      Comparison = "higher"
	CompLower       Comparison = "lower"
	CompWithinBound Comparison = "within_bound"
	CompAboveBound  Comparison = "above_bound"
	CompNotMeasured Comparison = "not_measured"
)

// Label is the cause a disagreement is given, by labelOf's tests.
type Label string

const (
	// LabelSetting: projected to the report's setting, encbench agrees,
	// the projection moved toward the figure by more than the measured
	// interval's half-width, and the projected baseline is the report's
	// system to within baseTimeFactor.
	LabelSetting Label = "setting"
	// LabelLayer: the projected baseline is the report's system to within
	// baseTimeFactor, but the report's layer adds more (or less) than
	// baseTimeFactor times encbench's time per transaction.
	LabelLayer Label = "layer"
	// LabelUnaccounted: neither test held.
	LabelUnaccounted Label = "not_accounted_for"
	// LabelDifferent: encbench does not time the same work as the report.
	LabelDifferent Label = "different_measurement"
)

// baseTimeFactor is how far apart two times per transaction may lie and
// still describe the same system (or the same layer's cost).
const baseTimeFactor = 1.5

// Span is a figure with its 95% interval.
type Span struct {
	Value float64 `json:"value"`
	Low   float64 `json:"ci95_low"`
	High  float64 `json:"ci95_high"`
}

func (s Span) holds(x float64) bool { return x >= s.Low && x <= s.High }

// halfWidth is the wider side of the interval.
func (s Span) halfWidth() float64 { return max(s.Value-s.Low, s.High-s.Value) }

// Times are a time per transaction, in ms, three ways: the report's (by
// Little's law from its threads and TPS, or as it published it),
// encbench's as measured, and encbench's at the report's setting
// (projected by the what-if model, or measured through an emulated
// network at the report's round trip). nil: not known.
type Times struct {
	Report    *float64 `json:"report"`
	Measured  *Span    `json:"measured"`
	Projected *Span    `json:"projected"`
}

// Evidence is what a disagreement is judged on: the published figure,
// encbench's measurement and its value at the report's setting, in the
// figure's unit, and the base and added times per transaction.
type Evidence struct {
	Published float64
	Measured  Span
	// Projected is encbench's figure at the report's setting (nil: none).
	Projected *Span
	Base      Times
	Added     Times
	// Different is why encbench does not time the same work ("": it does).
	Different string
	// NoCause is why no cause can be tested ("": it can be), and
	// NotProjected why the model gave no value at the report's setting.
	NoCause, NotProjected string
}

// compare places the published figure against encbench's interval.
func compare(published float64, measured Span) Comparison {
	switch {
	case measured.holds(published):
		return CompAgrees
	case measured.High < published:
		return CompLower
	}
	return CompHigher
}

// compareBound judges a bound ("at most"): within it unless encbench's
// whole interval lies above it.
func compareBound(atMost float64, measured Span) Comparison {
	if measured.Low > atMost {
		return CompAboveBound
	}
	return CompWithinBound
}

// BaseTimeRatio is the projected baseline's time per transaction over the
// report's (nil: either is unknown).
func (e Evidence) BaseTimeRatio() *float64 {
	if e.Base.Report == nil || e.Base.Projected == nil || *e.Base.Report <= 0 {
		return nil
	}
	r := e.Base.Projected.Value / *e.Base.Report
	return &r
}

// sameSystem says the projected baseline is the report's system: its time
// per transaction within baseTimeFactor of the report's.
func (e Evidence) sameSystem() bool {
	r := e.BaseTimeRatio()
	return r != nil && *r <= baseTimeFactor && *r >= 1/baseTimeFactor
}

// movedToward says the projection came closer to the published figure
// than the measurement by more than the measured interval's half-width.
func (e Evidence) movedToward() bool {
	if e.Projected == nil {
		return false
	}
	gain := math.Abs(e.Published-e.Measured.Value) - math.Abs(e.Published-e.Projected.Value)
	return gain > e.Measured.halfWidth()
}

// layerDiffers says the report's added time lies more than
// baseTimeFactor beyond encbench's whole projected interval, either way.
func (e Evidence) layerDiffers() bool {
	if e.Added.Report == nil || e.Added.Projected == nil {
		return false
	}
	rep, p := *e.Added.Report, e.Added.Projected
	return rep > baseTimeFactor*max(p.High, 0) || rep < max(p.Low, 0)/baseTimeFactor
}

// labelOf names the cause of a disagreement, or not accounted for; the
// reason is the evidence that decided, for the reader.
func labelOf(e Evidence) (label Label, reasonKey string) {
	switch {
	case e.Different != "":
		return LabelDifferent, "published.reason.different"
	case e.NoCause != "":
		return LabelUnaccounted, "published.reason.no_cause"
	case e.Projected == nil || e.Base.Projected == nil:
		return LabelUnaccounted, "published.reason.not_projected"
	case e.Base.Report == nil:
		return LabelUnaccounted, "published.reason.no_base"
	case !e.sameSystem():
		return LabelUnaccounted, "published.reason.base_apart"
	case e.Projected.holds(e.Published) && e.movedToward():
		return LabelSetting, "published.reason.setting"
	case e.layerDiffers():
		return LabelLayer, "published.reason.layer"
	case e.Projected.holds(e.Published):
		return LabelUnaccounted, "published.reason.not_moved"
	}
	return LabelUnaccounted, "published.reason.same_layer"
}
