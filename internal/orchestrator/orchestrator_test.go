package orchestrator

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/encbench/encbench/internal/engine"
	_ "github.com/encbench/encbench/internal/engine/mysql"
	"github.com/encbench/encbench/internal/engine/postgres"
	"github.com/encbench/encbench/internal/errs"
	"github.com/encbench/encbench/internal/spec"
	"github.com/encbench/encbench/internal/workload"
	_ "github.com/encbench/encbench/internal/workload/connect"
	_ "github.com/encbench/encbench/internal/workload/oltp"
	_ "github.com/encbench/encbench/internal/workload/tpcc"
)

var reg = workload.Default()

func TestRunnerSettingsAreChecked(t *testing.T) {
	fam, _ := reg.Lookup("oltp_point_select")
	for _, c := range []struct {
		mutate func(*spec.Spec)
		want   string
	}{
		{func(s *spec.Spec) { s.Runner.Time, s.Runner.Events = 0, 0 }, "--events"},
		{func(s *spec.Spec) { s.Runner.Rate = -1 }, "negative"},
		{func(s *spec.Spec) { s.Runner.Percentile = 0 }, "--percentile"},
		{func(s *spec.Spec) { s.Runner.ClientCPUs = "7-1" }, "--client-cpus"},
		{func(s *spec.Spec) { s.Runner.MaxTries = -1 }, "--max-tries"},
		{func(s *spec.Spec) { s.Runner.IgnoreErrors = "40P01;1" }, "--ignore-errors"},
	} {
		want := c.want
		s := spec.New(spec.Run, "oltp_point_select", fam)
		c.mutate(&s)
		_, err := runnerConfig(s, engine.Target{Engine: postgres.Engine{}}, io.Discard)
		if err == nil || !strings.Contains(err.Error(), want) || errs.ExitCode(err) != 2 {
			t.Errorf("want %q: %v", want, err)
		}
	}
}

func TestResolveAndCheckRefuseBadSpecsBeforeConnecting(t *testing.T) {
	fam, _ := reg.Lookup("oltp_point_select")
	s := spec.New(spec.Run, "oltp_point_select", fam)
	s.Server.DSN, s.Server.Sandbox = "postgres://u@127.0.0.1:1/db", "/tmp/x"
	if _, err := Resolve(s, reg, io.Discard); err == nil || !strings.Contains(err.Error(), "not both") {
		t.Errorf("dsn and sandbox: %v", err)
	}
	s.Server.Sandbox = ""
	_, err := Check(context.Background(), spec.Spec{Command: spec.Check, Workload: "oltp_point_select", Server: s.Server, Threads: 1}, reg, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "no consistency conditions") || errs.ExitCode(err) != 2 {
		t.Errorf("check of oltp: %v", err)
	}
	if _, err := Resolve(spec.Spec{Workload: "nope"}, reg, io.Discard); err == nil || errs.ExitCode(err) != 2 {
		t.Errorf("unknown workload: %v", err)
	}
}
