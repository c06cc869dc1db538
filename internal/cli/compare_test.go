package cli

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/encbench/encbench/internal/result"
)

// writeSet writes three repetitions of one cell with the given TPS values.
func writeSet(t *testing.T, tps ...float64) string {
	dir := t.TempDir()
	for i, v := range tps {
		r := &result.Result{Schema: result.Schema, StartedAt: fmt.Sprintf("2026-01-01T00:00:0%dZ", i),
			Engine: result.Engine{Kind: "mysql"}, Variant: result.Variant{Name: "plain", Verified: result.Verification{OK: true}},
			Workload: result.Workload{Name: "oltp_point_select"}, Threads: 8, Repetition: i + 1, TPS: v, DurationS: 10}
		if err := result.WriteFile(filepath.Join(dir, fmt.Sprintf("r%d.json", i)), r); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestCompareFailOnRegression(t *testing.T) {
	a := writeSet(t, 1000, 1010, 990)
	slower := writeSet(t, 800, 810, 790) // 20% down, tight intervals
	run := func(args ...string) (int, string) {
		var out, errOut bytes.Buffer
		code := Execute(context.Background(), append([]string{"compare"}, args...), &out, &errOut)
		return code, out.String() + errOut.String()
	}
	if code, out := run(a, slower); code != 0 || !strings.Contains(out, "REGRESSION") {
		t.Fatalf("without the flag: exit %d\n%s", code, out)
	}
	if code, out := run(a, slower, "--fail-on-regression", "10"); code != 1 || !strings.Contains(out, "regressed significantly") {
		t.Fatalf("20%% drop, threshold 10: exit %d\n%s", code, out)
	}
	if code, out := run(a, slower, "--fail-on-regression", "25"); code != 0 {
		t.Fatalf("20%% drop, threshold 25: exit %d\n%s", code, out)
	}
	if code, _ := run(a, slower, "--fail-on-regression", "-1"); code != 2 {
		t.Fatalf("negative threshold: exit %d", code)
	}
}

// A partial result compared as a file is shown with a warning; a
// directory's partial results are left out and counted.
func TestCompareWarnsAboutPartialResults(t *testing.T) {
	a := writeSet(t, 1000, 1010, 990)
	partial := filepath.Join(t.TempDir(), "cut.json")
	r := &result.Result{Schema: result.Schema, StartedAt: "2026-01-01T00:00:09Z", Partial: true,
		Engine: result.Engine{Kind: "mysql"}, Variant: result.Variant{Name: "plain", Verified: result.Verification{OK: true}},
		Workload: result.Workload{Name: "oltp_point_select"}, Threads: 8, Repetition: 1, TPS: 900, DurationS: 3.5}
	if err := result.WriteFile(partial, r); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if code := Execute(context.Background(), []string{"compare", filepath.Join(a, "r0.json"), partial}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if want := "is a partial result (interrupted after 3.5 s)"; !strings.Contains(errOut.String(), want) {
		t.Errorf("no warning %q in:\n%s", want, errOut.String())
	}
	if err := result.WriteFile(filepath.Join(a, "cut.json"), r); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	errOut.Reset()
	Execute(context.Background(), []string{"compare", a, a}, &out, &errOut)
	if want := "1 partial result(s) (interrupted or failed cells) left out"; !strings.Contains(errOut.String(), want) {
		t.Errorf("no warning %q in:\n%s", want, errOut.String())
	}
}
