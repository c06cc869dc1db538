package integration

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/encbench/encbench/internal/result"
	"github.com/encbench/encbench/internal/schematest"
)

// TestEmulatedNetwork runs the connect workload with TLS verify-full
// through the Toxiproxy link (--net-delay 2ms) on both engines: the
// server still proves TLS on every connection, verify-full checks the
// server's own name through the proxy, the result records the path (and
// validates against the schema), and a connection, which takes several
// round trips, takes at least two added round trips longer than the RTT
// alone could explain. Only lower bounds: an emulated delay guarantees
// them; upper bounds depend on the machine.
func TestEmulatedNetwork(t *testing.T) {
	servers(t)
	resultSchema := schematest.Compile(t, "result.schema.json")
	for _, engine := range []string{"postgres", "mariadb"} {
		t.Run(engine, func(t *testing.T) {
			dir := variantSandbox(t, engine, "tls")
			mustRun(t, "prepare", "connect", "--sandbox", dir, "--connect-rows", "20", "--force")
			path := filepath.Join(t.TempDir(), "r.json")
			mustRun(t, "run", "--json", path, "connect", "--sandbox", dir, "--connect-rows", "20", "--connections", "20", "--tls", "verify-full", "--net-delay", "2ms")
			schematest.File(t, resultSchema, path)
			r, err := result.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if r.Network == nil || r.Network.RTTMs != 2 || r.Network.Via == "" {
				t.Fatalf("network not recorded: %+v", r.Network)
			}
			if !r.Variant.Verified.OK || r.Variant.Verified.TLS.TLSConnections == 0 {
				t.Errorf("TLS through the proxy not proven: %+v", r.Variant.Verified)
			}
			if c := r.Parts["connect"]; c.N != 20 || c.Mean < 2*2 {
				t.Errorf("connect through +2ms RTT: %+v (a TLS connection needs at least two round trips)", c)
			}
			if q := r.Parts["reused_query"]; q.Mean < 2 {
				t.Errorf("a query on a reused connection through +2ms RTT took %.3f ms", q.Mean)
			}
		})
	}
	code, _, errOut := encbench(t.Context(), "run", "connect", "--dsn", "postgres://u@/db?host=/tmp", "--net-delay", "2ms")
	if code != 2 || !strings.Contains(errOut, "host:port") {
		t.Errorf("--net-delay on a socket DSN: exit %d, %s", code, errOut)
	}
}
