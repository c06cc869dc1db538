package result

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/encbench/encbench/internal/schematest"
)

func validate(t *testing.T, doc []byte) error {
	t.Helper()
	return schematest.Check(t, schematest.Compile(t, "result.schema.json"), doc)
}

func full() *Result {
	f := func(v float64) *float64 { return &v }
	return &Result{
		Schema: Schema, Tool: Tool{Name: "encbench", Version: "0.1.0"}, StartedAt: "2026-11-23T16:00:00Z",
		Target: "postgres://sbtest@127.0.0.1:5432/sbtest", Engine: Engine{Kind: "postgres", Version: "PostgreSQL 15", Settings: map[string]string{"ssl": "on"}},
		Variant: Variant{Name: "tls", TLS: "verify-full", Colenc: "none", Verified: Verification{OK: true,
			TLS:    TLSProof{Source: "pg_stat_ssl", Connections: 8, TLSConnections: 8, Versions: map[string]int{"TLSv1.3": 8}, Ciphers: map[string]int{"TLS_AES_256_GCM_SHA384": 8}},
			TDE:    &TDEProof{Source: "information_schema", Tables: 4, Marker: &MarkerProof{Files: map[string]int{"f": 0}}},
			Colenc: &ColencProof{Level: 50, Columns: []ColencColumn{{Table: "t", Column: "c", Scheme: "det"}}, BusinessColumns: 2, SharePct: 50, Source: "raw", Checked: 4, Ciphertext: 4},
			Msg:    []string{"none"}}},
		Workload: Workload{Name: "oltp_read_only", Label: "ro", Params: map[string]any{"tables": 4}, Schema: "4 tables", Parts: []Part{{Name: "connect", Label: "connect", Role: "connect"}}},
		Threads:  8, DurationS: 2, RateLimit: 100, Repetition: 3,
		Suite:   &SuiteRef{Name: "quick", Cell: "c", Setup: "s", Target: "postgres", Discarded: []string{"foreign CPU 12% of the machine (limit 10%)"}},
		Command: "encbench run oltp_read_only", Totals: Totals{Transactions: 10, Queries: Queries{Read: 1, Total: 1}},
		TPS: 5, QPS: 5, LatencyMs: Latency{Avg: 1, Max: 2},
		CPU: CPU{ClientS: 0.1, ServerS: f(0.2), ServerUtilPct: f(10), ServerSPerTxn: f(0.01), MachineCores: 2, MachineUtilPct: f(50),
			ForeignUtilPct: f(1), StealPct: f(0), ClientCPUs: []int{0}, ServerCPUs: "1", ServerPID: 42},
		Traffic: &Traffic{BytesIn: 100, BytesOut: 50, RoundTrips: 10, BytesInPerTxn: 10, BytesOutPerTxn: 5, RoundTripsPerTxn: 1},
		ServerIO: &ServerIO{StorageReadBytes: 8192, StorageWriteBytes: 16384, StorageReadBytesPerTxn: 819.2, StorageWriteBytesPerTxn: 1638.4,
			Disk: &DiskUse{Device: "vda", ReadBytes: 0, WriteBytes: 4096, WriteBytesPerTxn: 409.6, BusyPct: 3}},
		Intervals: []Interval{{TS: 1, TPS: 5}}, Parts: map[string]PartLatency{"connect": {N: 1}}, Notes: map[string]int64{"handshakes": 1},
		Rates: map[string]float64{"tpmC": 1}, Regime: &Regime{DataBytes: 1, BufferPoolBytes: 2, Ratio: 0.5},
		Environment: Environment{Host: "h", CPUModel: "cpu", Cores: 2, MemoryMB: 1, OS: "Debian", Kernel: "6", Disk: "vda", GoVersion: "go1.26"},
		Histogram:   "HISTFAAAA",
	}
}

func TestSchemaDescribesResults(t *testing.T) {
	for name, r := range map[string]*Result{
		"every field": full(),
		"a lone run without server CPU or proofs": {Schema: Schema, Threads: 1, Environment: Environment{Cores: 2}, CPU: CPU{MachineCores: 2}},
	} {
		doc, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if err := validate(t, doc); err != nil {
			t.Errorf("%s: the schema rejects a result encbench writes: %v", name, err)
		}
	}
	doc, _ := json.Marshal(full())
	for what, bad := range map[string]string{
		"an unknown field":      strings.Replace(string(doc), `"tps":5`, `"tps":5,"speed":1`, 1),
		"another schema":        strings.Replace(string(doc), `"encbench/result/v2"`, `"encbench/result/v0"`, 1),
		"a string for a number": strings.Replace(string(doc), `"tps":5`, `"tps":"5"`, 1),
	} {
		if err := validate(t, []byte(bad)); err == nil {
			t.Errorf("the schema accepts %s", what)
		}
	}
}
