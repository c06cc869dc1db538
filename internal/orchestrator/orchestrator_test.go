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
	"github.com/encbench/encbench/internal/result"
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

// TestPinnedTLSIsProved: a run that pinned a version or a cipher suite
// fails when the server reports connections of another, whichever
// spelling (OpenSSL's or IANA's) the server uses.
func TestPinnedTLSIsProved(t *testing.T) {
	pinned := engine.Target{TLS: engine.TLSOptions{Mode: engine.TLSVerifyFull, Version: "1.2", Cipher: "ECDHE-ECDSA-AES128-GCM-SHA256"}}
	ok := result.TLSProof{Connections: 2, TLSConnections: 2, Versions: map[string]int{"TLSv1.2": 2},
		Ciphers: map[string]int{"TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256": 1, "ECDHE-ECDSA-AES128-GCM-SHA256": 1}}
	if err := checkTLS(pinned, ok); err != nil {
		t.Errorf("the pinned version and cipher: %v", err)
	}
	other := ok
	other.Versions = map[string]int{"TLSv1.3": 2}
	if err := checkTLS(pinned, other); err == nil || !strings.Contains(err.Error(), "TLS 1.2 was pinned") {
		t.Errorf("1.3 where 1.2 was pinned: %v", err)
	}
	other = ok
	other.Ciphers = map[string]int{"ECDHE-ECDSA-AES256-GCM-SHA384": 2}
	if err := checkTLS(pinned, other); err == nil || !strings.Contains(err.Error(), "was pinned") {
		t.Errorf("another cipher: %v", err)
	}
	keyed := pinned
	keyed.TLS.ServerKey = "rsa-4096"
	other = ok
	other.ServerKey = "rsa-4096"
	if err := checkTLS(keyed, other); err != nil {
		t.Errorf("the certificate key asked for: %v", err)
	}
	other.ServerKey = "ecdsa-p256"
	if err := checkTLS(keyed, other); err == nil || !strings.Contains(err.Error(), "presented one with ecdsa-p256") {
		t.Errorf("another certificate key: %v", err)
	}
	mutual := pinned
	mutual.TLS.ClientAuth = true
	other = ok
	other.ClientCerts = 1
	if err := checkTLS(mutual, other); err == nil || !strings.Contains(err.Error(), "on 1 of 2 connections") {
		t.Errorf("a client certificate on one connection of two: %v", err)
	}
	other.ClientCerts = 2
	if err := checkTLS(mutual, other); err != nil {
		t.Errorf("a client certificate on every connection: %v", err)
	}
}
