package report

import (
	"time"

	"github.com/encbench/encbench/internal/locale"
	"github.com/encbench/encbench/internal/suite"
)

// Validated is the range of settings the what-if model was checked on
// against runs it was not fitted on (bench/whatif-holdout.sh), and how
// the model and two naive predictors scored there: a prediction holds
// within 3 points of the measured loss or inside its 95% interval. The
// naive predictors are the fit cell's loss carried over unchanged and a
// loss of zero; the moving cells are those whose measured loss moved by
// 5 points or more from the fit cell's.
type Validated struct {
	ThreadsLow, ThreadsHigh int
	// ClientCores and ServerCores are the most cores measured for each
	// side pinned apart; SharedCores the most they shared.
	ClientCores, ServerCores, SharedCores int
	RTTMaxMs                              float64
	FitThreads                            int
	Date, Commit                          string
	Cells, Model, Carried, Zero           int
	Moving, MovingModel, MovingCarried    int
	MovingZero                            int
	// A score below zero was not taken on that date.
}

// validatedRange is the held-out check recorded in bench/README.md ("The
// what-if model beside two naive predictors").
func validatedRange() Validated {
	return Validated{ThreadsLow: 1, ThreadsHigh: 64, ClientCores: 1, ServerCores: 1, SharedCores: 2, RTTMaxMs: 2, FitThreads: 4,
		Date: "2026-12-07", Commit: "abb5978", Cells: 61, Model: 49, Carried: 39, Zero: 7,
		Moving: 16, MovingModel: 11, MovingCarried: 0, MovingZero: 4}
}

// outside says how a setting lies outside the validated range ("": it
// does not).
func (v Validated) outside(l *locale.Lang, clientCores, serverCores, sharedCores int, rtt time.Duration, threads []int) string {
	switch {
	case clientCores > v.ClientCores || serverCores > v.ServerCores:
		return l.T("validated.outside.cores", clientCores, serverCores, v.ClientCores, v.ServerCores)
	case sharedCores > v.SharedCores:
		return l.T("validated.outside.shared", sharedCores, v.SharedCores)
	case rtt.Seconds()*1000 > v.RTTMaxMs:
		return l.T("validated.outside.rtt", l.F("%g", rtt.Seconds()*1000), l.F("%g", v.RTTMaxMs))
	}
	for _, n := range threads {
		if n < v.ThreadsLow || n > v.ThreadsHigh {
			return l.T("validated.outside.threads", n, v.ThreadsLow, v.ThreadsHigh)
		}
	}
	return ""
}

// scoresText says the validated range and the held-out scores, the
// model's beside the naive predictors'.
func (v Validated) scoresText(l *locale.Lang) string {
	n := func(x int) string {
		if x < 0 {
			return l.T("validated.not_scored")
		}
		return l.F("%d", x)
	}
	s := l.T("validated.range", v.ThreadsLow, v.ThreadsHigh, v.ClientCores, v.ServerCores, v.SharedCores, l.F("%g", v.RTTMaxMs), v.FitThreads) + " " +
		l.T("validated.scores", v.Date, v.Commit, v.Model, v.Cells, n(v.Carried), n(v.Zero))
	if v.Moving > 0 {
		s += " " + l.T("validated.moving", v.Moving, v.MovingModel, n(v.MovingCarried), n(v.MovingZero))
	}
	if v.Model <= v.Carried {
		s += " " + l.T("validated.not_better")
	}
	return s
}

// projectionText says how a seed section's figures reach the report's
// setting, what differs from the validated configuration, and whether
// the report's setting is an extrapolation.
func projectionText(l *locale.Lang, ref *suite.Reference, env *suite.ReferenceEnvironment) string {
	if len(ref.Parts) > 0 {
		return l.T("published.projection.network", l.F("%g", env.RTTMs))
	}
	v := validatedRange()
	s := l.T("published.projection.model", v.FitThreads) + " " + v.scoresText(l)
	rtt := time.Duration(env.RTTMs * float64(time.Millisecond))
	if out := v.outside(l, env.ClientCores, env.ServerCores, 0, rtt, nil); out != "" {
		s += " " + l.T("validated.extrapolation", out)
	}
	return s
}
