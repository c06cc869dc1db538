package report

import (
	"strings"
	"testing"

	"github.com/encbench/encbench/internal/locale"
)

// The scores stand beside the naive predictors', and the report says the
// model is no better than carrying the loss over when it is not: never
// when it is (the held-out run of 2026-12-07: 49 against 39).
func TestScoresSayWhenTheModelIsNoBetter(t *testing.T) {
	l, err := locale.Get("en")
	if err != nil {
		t.Fatal(err)
	}
	notBetter := l.T("validated.not_better")
	v := validatedRange()
	got := v.scoresText(l)
	if strings.Contains(got, notBetter) || !strings.Contains(got, "49 of 61") || !strings.Contains(got, "held 39") {
		t.Errorf("recorded scores: %s", got)
	}
	if !strings.Contains(got, "the model held 11, carrying over 0") {
		t.Errorf("moving cells: %s", got)
	}
	v.Carried = v.Model
	if !strings.Contains(v.scoresText(l), notBetter) {
		t.Error("a model that only ties the carried-over loss was not called no better")
	}
}
