package spec_test

import (
	"strings"
	"testing"

	"github.com/encbench/encbench/internal/errs"
	"github.com/encbench/encbench/internal/spec"
)

// TestVariantNamesARunsLayers: --variant stands for the flags its layers
// set, and the reproduced command line says each; a flag it sets given
// too, or a layer a run cannot take from a name, is one usage error.
func TestVariantNamesARunsLayers(t *testing.T) {
	s, err := spec.Parse(spec.Run, []string{"tpcc", "--sandbox", "/tmp/x", "--variant", "tls1.2:cipher=ECDHE-RSA-AES128-GCM-SHA256+tde+colenc50"}, reg)
	if err != nil {
		t.Fatal(err)
	}
	tls := s.Server.TLS
	if tls.Mode != "on" || tls.Version != "1.2" || tls.Cipher != "ECDHE-RSA-AES128-GCM-SHA256" || !s.TDE || s.Changed()["encrypt-columns"] != "50" {
		t.Errorf("--variant tls1.2:cipher=...+tde+colenc50: TLS %+v, TDE %v, changed %v", tls, s.TDE, s.Changed())
	}
	if args := strings.Join(s.Args(), " "); strings.Contains(args, "--variant") || !strings.Contains(args, "--tls-version=1.2") {
		t.Errorf("reproduced as %s: want the flags the variant stands for", args)
	}
	p, err := spec.Parse(spec.Run, []string{"oltp_read_only", "--dsn", "postgres://u@127.0.0.1/db?sslmode=require", "--variant=plain"}, reg)
	if err != nil || p.Server.TLS.Mode != "disable" {
		t.Errorf("--variant=plain: %+v %v, want TLS disabled over the DSN's sslmode", p.Server.TLS, err)
	}
	c, err := spec.Parse(spec.Cleanup, []string{"oltp_read_only", "--sandbox", "/tmp/x", "--variant", "tls+tde"}, reg)
	if err != nil || c.Server.TLS.Mode != "on" {
		t.Errorf("cleanup --variant tls+tde: %+v %v", c.Server.TLS, err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"oltp_read_only", "--variant", "tls1.3", "--tls-version", "1.2"}, "sets --tls-version already"},
		{[]string{"oltp_read_only", "--variant", "tls", "--variant", "tde"}, "given twice"},
		{[]string{"oltp_read_only", "--variant", "tlsx"}, `unknown layer "tlsx"`},
		{[]string{"oltp_read_only", "--variant", "colenc50"}, "does not take"},
		{[]string{"oltp_read_only", "--variant", "enc-rest"}, "suite's column set"},
		{[]string{"oltp_read_only", "--variant", "aa"}, "A/A check"},
		{[]string{"oltp_read_only", "--variant", "tde:cipher=aes-cbc"}, "sandbox up --tde-cipher"},
		{[]string{"oltp_read_only", "--variant"}, "needs an argument: --variant"},
	} {
		_, err := spec.Parse(spec.Run, tc.args, reg)
		if err == nil || !strings.Contains(err.Error(), tc.want) || errs.ExitCode(err) != 2 {
			t.Errorf("%v: %v (exit %d), want a usage error with %q", tc.args, err, errs.ExitCode(err), tc.want)
		}
	}
}
