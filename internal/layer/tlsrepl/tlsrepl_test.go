package tlsrepl

import (
	"context"
	"strings"
	"testing"

	"github.com/encbench/encbench/internal/layer"
)

type rows [][]string

func (rows) Exec(context.Context, string) error                  { return nil }
func (r rows) Query(context.Context, string) ([][]string, error) { return r, nil }

// TestProofIsGivenOnlyOnWhatTheServerShowed: every replication
// connection must be TLS; a plaintext one, none at all, or rows whose
// transport the account may not see never make a proof.
func TestProofIsGivenOnlyOnWhatTheServerShowed(t *testing.T) {
	for _, kind := range []string{"postgres", "mysql"} {
		a, err := Layer{}.Open(layer.Spec{Layer: "tls-repl"}, kind)
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		on := rows{{"replica1", "true", "TLSv1.3", "TLS_AES_256_GCM_SHA384", "false"}, {"replica2", "true", "TLSv1.3", "TLS_AES_256_GCM_SHA384", "false"}}
		if p, err := a.Prove(ctx, layer.Env{Session: on}); err != nil || p.Proven != 2 || p.Checked != 2 {
			t.Errorf("%s: two TLS links: %+v %v", kind, p, err)
		}
		for name, r := range map[string]rows{
			"one plaintext link": {on[0], {"replica2", "false", "", "", "false"}},
			"no replica":         {},
			"hidden transport":   {{"replica1", "false", "", "", "true"}},
		} {
			if _, err := a.Prove(ctx, layer.Env{Session: r}); err == nil {
				t.Errorf("%s: %s was proved", kind, name)
			}
		}
		if err := a.Require(ctx, layer.Env{Session: rows{{"replica1", "false", "", "", "true"}}}); err == nil || !strings.Contains(err.Error(), "hides") {
			t.Errorf("%s: a hidden transport passed pre-flight: %v", kind, err)
		}
	}
	if _, err := (Layer{}).Open(layer.Spec{Layer: "tls-repl"}, "mongodb"); err == nil {
		t.Error("tls-repl opened on MongoDB, where encbench neither sets it up nor proves it")
	}
}
