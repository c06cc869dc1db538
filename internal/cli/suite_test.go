package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// --resume refuses the flags marked as shaping the plan, naming the flag,
// before it reads anything; precision and budget may change.
func TestResumeRefusesFlagsThatShapeThePlan(t *testing.T) {
	for _, flag := range []string{"--threads=8", "--time=3", "--engines=mariadb", "--seed=7"} {
		var out, errOut bytes.Buffer
		code := Execute(context.Background(), []string{"suite", "run", "quick", "--out", t.TempDir(), "--resume", flag}, &out, &errOut)
		name := strings.SplitN(strings.TrimPrefix(flag, "--"), "=", 2)[0]
		if code != 2 || !strings.Contains(errOut.String(), "--"+name+" cannot change it") {
			t.Errorf("%s: exit %d, %q", flag, code, errOut.String())
		}
	}
	var out, errOut bytes.Buffer
	code := Execute(context.Background(), []string{"suite", "run", "quick", "--out", t.TempDir(), "--resume", "--precision=2"}, &out, &errOut)
	if code != 2 || strings.Contains(errOut.String(), "cannot change it") || !strings.Contains(errOut.String(), "nothing to resume") {
		t.Errorf("--precision on resume: exit %d, %q", code, errOut.String())
	}
}
