// Package result is the result document of design.md ("Contracts"):
// schema encbench/result/v2 (reads v1), one document per measured cell.
package result

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/encbench/encbench/internal/fsx"
	"github.com/encbench/encbench/internal/proof"
	"github.com/encbench/encbench/internal/stats"
)

// Schema names this document format. v2 renamed items to parts and
// suite.interleaved.slice_ms to turn_ms; Parse still reads v1.
const Schema = "encbench/result/v2"

// SchemaV1 is the format before those names changed.
const SchemaV1 = "encbench/result/v1"

type Result struct {
	Schema     string   `json:"schema"`
	Tool       Tool     `json:"tool"`
	StartedAt  string   `json:"started_at"`
	Partial    bool     `json:"partial"`
	Target     string   `json:"target"`
	Engine     Engine   `json:"engine"`
	Variant    Variant  `json:"variant"`
	Workload   Workload `json:"workload"`
	Threads    int      `json:"threads"`
	DurationS  float64  `json:"duration_s"`
	WarmupS    float64  `json:"warmup_s"`
	RateLimit  float64  `json:"rate_limit"`
	Repetition int      `json:"repetition"`
	// Suite places the result in a suite's matrix; nil for a lone run.
	Suite *SuiteRef `json:"suite,omitempty"`
	// Generator says this result is one of several load generators'
	// shares of a run; Generators lists the shares a merged result adds up.
	Generator  *Generator  `json:"generator,omitempty"`
	Generators []Generator `json:"generators,omitempty"`
	// Command is the encbench command line that reproduces this cell.
	Command string  `json:"command,omitempty"`
	Totals  Totals  `json:"totals"`
	TPS     float64 `json:"tps"`
	QPS     float64 `json:"qps"`
	// TurnsS is an interleaved cell's time in its turns, without the
	// drain after each: its TPS is the work done in them over TurnsS (an
	// event in flight at a turn's end counts for its share inside it).
	TurnsS    float64 `json:"turns_s,omitempty"`
	LatencyMs Latency `json:"latency_ms"`
	CPU       CPU     `json:"cpu"`
	// Traffic is what crossed the run's sockets and ServerIO the server's
	// storage I/O, over the measured window; nil: not measured (a server
	// of the user's has no process here to read).
	Traffic  *Traffic  `json:"traffic,omitempty"`
	ServerIO *ServerIO `json:"server_io,omitempty"`
	// LockWaits are the server's lock waits over the measured window,
	// where its engine counts them; nil: not counted.
	LockWaits *LockWaits `json:"lock_waits,omitempty"`
	// Replication is the primary's view of its replicas over the run,
	// sampled; nil: no replica (or a server that does not report them).
	Replication *Replication `json:"replication,omitempty"`
	Intervals   []Interval   `json:"intervals"`
	// Parts time the parts of an event (connect workload: connect, first
	// query, ...) in milliseconds.
	Parts map[string]PartLatency `json:"parts,omitempty"`
	// Notes are workload counts such as TLS handshakes and resumed sessions.
	Notes map[string]int64 `json:"notes,omitempty"`
	// Rates are workload rates such as TPC-C's tpmC.
	Rates    map[string]float64 `json:"rates,omitempty"`
	Fairness Fairness           `json:"fairness"`
	Regime   *Regime            `json:"regime,omitempty"`
	// Network is the emulated path the workers' connections took (nil:
	// straight to the server).
	Network     *Network    `json:"network,omitempty"`
	Environment Environment `json:"environment"`
	// Histogram is the HdrHistogram (microseconds) in its compressed V2
	// base64 form, so results from several hosts can be merged exactly.
	Histogram string `json:"latency_histogram_us"`
}

// Network is an emulated network between the workers and the server.
type Network struct {
	// RTTMs is the round-trip time added, half in each direction.
	RTTMs         float64 `json:"rtt_ms"`
	JitterMs      float64 `json:"jitter_ms,omitempty"`
	BandwidthKBps int64   `json:"bandwidth_kbps,omitempty"`
	// CutAfterMs: every connection was cut once it had been open this long.
	CutAfterMs float64 `json:"cut_after_ms,omitempty"`
	// Via names the proxy, for example "toxiproxy v2.5.0".
	Via string `json:"via"`
}

// Generator is one load generator's share of a run.
type Generator struct {
	Index   int    `json:"index"`
	Count   int    `json:"count"`
	Threads int    `json:"threads"`
	StartAt string `json:"start_at,omitempty"`
	// ClockOffsetMs is the server's clock minus this machine's.
	ClockOffsetMs *float64 `json:"clock_offset_ms,omitempty"`
	// In a merged result: this generator's own figures.
	Transactions int64   `json:"transactions,omitempty"`
	TPS          float64 `json:"tps,omitempty"`
	ClientS      float64 `json:"client_s,omitempty"`
	Host         string  `json:"host,omitempty"`
}

// SuiteRef names the suite cell a result belongs to.
type SuiteRef struct {
	Name   string `json:"name"`
	Cell   string `json:"cell"`
	Setup  string `json:"setup"`
	Target string `json:"target"`
	// Discarded lists earlier attempts at this cell (or its block) that
	// were disturbed beyond the suite's threshold, so it ran again; each
	// reason is written by Discard.
	Discarded []string `json:"discarded,omitempty"`
	// Interleaved says the cell's block ran its variants in turns.
	Interleaved *Interleaving `json:"interleaved,omitempty"`
}

// The causes of a discarded attempt, as a Discarded reason names them.
const (
	CauseForeign = "foreign CPU"
	CauseSteal   = "steal"
	CauseStall   = "stall"
)

// Discard is a Discarded reason: the variant whose run was disturbed, its
// cause and the figures, as "tls: stall: a turn at 4% of ...".
func Discard(variant, cause, detail string) string {
	return variant + ": " + cause + ": " + detail
}

// DiscardOf reads the variant and cause back from a Discarded reason;
// both are "" for a reason in another form (an older encbench's).
func DiscardOf(reason string) (variant, cause string) {
	v, rest, ok := strings.Cut(reason, ": ")
	if !ok {
		return "", ""
	}
	c, _, ok := strings.Cut(rest, ": ")
	if !ok {
		return "", ""
	}
	return v, c
}

// Stall says whether one of the run's intervals (an interleaved turn) ran
// under pct percent of their median TPS, and which: a standstill rather
// than a dip of load. Fewer than three intervals are too few to tell.
func (r *Result) Stall(pct float64) (string, bool) {
	if len(r.Intervals) < 3 {
		return "", false
	}
	tps := make([]float64, len(r.Intervals))
	low := 0
	for i, iv := range r.Intervals {
		tps[i] = iv.TPS
		if iv.TPS < tps[low] {
			low = i
		}
	}
	median := stats.Median(tps)
	if median <= 0 || tps[low] >= pct/100*median {
		return "", false
	}
	return fmt.Sprintf("interval %d ran at %.0f TPS, %.0f%% of the run's median %.0f (limit %.0f%%)", low+1, tps[low], 100*tps[low]/median, median, pct), true
}

// Interleaving is how a block's variants took turns: turns of TurnMs,
// Rounds rounds, each round in the block's order rotated by the round's
// number; this cell's place in that order is Position (from 0).
type Interleaving struct {
	TurnMs   float64  `json:"turn_ms"`
	Rounds   int      `json:"rounds"`
	Order    []string `json:"order"`
	Position int      `json:"position"`
	// WarmupRounds ran before measuring and are not counted.
	WarmupRounds int `json:"warmup_rounds"`
	// TurnAuto: the length was chosen from the warm-up, where the slowest
	// variant took WarmupTxnMs per transaction per worker.
	TurnAuto    bool    `json:"turn_auto,omitempty"`
	WarmupTxnMs float64 `json:"warmup_txn_ms,omitempty"`
	// ColdWarmupMs is this cell's warm-up turn after its server had been
	// restarted (a second per server, shared among its cells), not counted.
	ColdWarmupMs float64 `json:"cold_warmup_ms,omitempty"`
}

type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

type Engine struct {
	Kind     string            `json:"kind"`
	Version  string            `json:"version"`
	Settings map[string]string `json:"settings,omitempty"`
}

// Variant says which encryption layers were asked for and what the server
// showed. Verified is false when any proof was not made.
type Variant struct {
	Name     string       `json:"name"`
	TLS      string       `json:"tls"`
	TDE      bool         `json:"tde"`
	Colenc   string       `json:"colenc"`
	Verified Verification `json:"verified"`
}

type Verification struct {
	OK  bool      `json:"ok"`
	TLS TLSProof  `json:"tls"`
	TDE *TDEProof `json:"tde,omitempty"`
	// Colenc proves client-side column encryption from stored values.
	Colenc *ColencProof `json:"colenc,omitempty"`
	// Layers are the plugin layers' proofs (package layer's Plugin).
	Layers []LayerProof `json:"layers,omitempty"`
	Msg    []string     `json:"problems,omitempty"`
}

// TDEProof is the server's view of the benchmark tables at rest and, for
// sandboxes, how often prepare's marker appears in the raw files.
type TDEProof struct {
	Source    string            `json:"source"`
	Expected  bool              `json:"expected"`
	Tables    int               `json:"tables"`
	Encrypted int               `json:"encrypted"`
	Detail    map[string]string `json:"detail,omitempty"`
	// Scope "tables": only the tables' encryption is proven (a server of
	// the user's, read through its catalog); logs and temporary files
	// follow ServerSettings, the server's global at-rest settings.
	Scope          string            `json:"scope,omitempty"`
	ServerSettings map[string]string `json:"server_settings,omitempty"`
	Marker         *MarkerProof      `json:"marker,omitempty"`
}

// ColencProof, ColencColumn and TableStorage are what a workload proves
// and measures on the server; package proof defines them, the workload
// fills them in, and the result document carries them as they are.
type (
	ColencProof  = proof.ColencProof
	ColencColumn = proof.ColencColumn
	TableStorage = proof.TableStorage
	LayerProof   = proof.LayerProof
)

// MarkerProof counts the marker in raw server files: for a plaintext
// proof, the files read until the marker was seen; otherwise all of them.
type MarkerProof struct {
	Files       map[string]int `json:"files"`
	Occurrences int            `json:"occurrences"`
}

// Regime says whether the data set fits in the server's buffer cache:
// encryption at rest only costs when pages move to and from disk.
type Regime struct {
	DataBytes       int64   `json:"data_bytes"`
	BufferPoolBytes int64   `json:"buffer_pool_bytes"`
	Ratio           float64 `json:"data_to_buffer_pool"`
	IOBound         bool    `json:"io_bound"`
}

// TLSProof is the server's view of the run's own connections.
type TLSProof struct {
	Source         string         `json:"source"`
	Connections    int            `json:"connections"`
	TLSConnections int            `json:"tls_connections"`
	Versions       map[string]int `json:"versions,omitempty"`
	Ciphers        map[string]int `json:"ciphers,omitempty"`
	// ServerKey is the key of the certificate the server presented to the
	// run's admin connection (ecdsa-p256, rsa-2048, ...).
	ServerKey string `json:"server_key,omitempty"`
	// ClientCerts counts the connections the server verified a client
	// certificate for.
	ClientCerts int `json:"client_certs,omitempty"`
}

type Workload struct {
	Name string `json:"name"`
	// Label is the suite's name for this entry when it differs from Name.
	Label  string         `json:"label,omitempty"`
	Params map[string]any `json:"params"`
	Schema string         `json:"schema,omitempty"`
	// Parts are the event's timed parts (see Result.Parts), in the order the
	// workload declares them, with their labels.
	Parts []Part `json:"parts,omitempty"`
}

// Part is one timed part of a workload's events; Role (connect,
// handshake, connect_first_query, steady) says what it stands for.
type Part struct {
	Name  string `json:"name"`
	Label string `json:"label"`
	Role  string `json:"role,omitempty"`
}

type Totals struct {
	Transactions int64   `json:"transactions"`
	Queries      Queries `json:"queries"`
	// Errors counts every error a try met (sysbench's ignored errors).
	Errors     int64 `json:"errors"`
	Reconnects int64 `json:"reconnects"`
	// Failed counts transactions that ended without committing, by kind
	// (serialization, deadlock, lock_timeout, unique_violation, other,
	// connection); Retried those tried more than once, Retries the extra
	// tries (pgbench's counts); ErrorCodes every error by server code.
	Failed     map[string]int64 `json:"failed,omitempty"`
	Retried    int64            `json:"retried"`
	Retries    int64            `json:"retries"`
	ErrorCodes map[string]int64 `json:"error_codes,omitempty"`
}

// FailedTotal is the number of failed transactions of every kind.
func (t Totals) FailedTotal() int64 {
	var n int64
	for _, v := range t.Failed {
		n += v
	}
	return n
}

type Queries struct {
	Read  int64 `json:"read"`
	Write int64 `json:"write"`
	Other int64 `json:"other"`
	Total int64 `json:"total"`
}

type Latency struct {
	Min  float64 `json:"min"`
	Avg  float64 `json:"avg"`
	P50  float64 `json:"p50"`
	P95  float64 `json:"p95"`
	P99  float64 `json:"p99"`
	P999 float64 `json:"p999"`
	Max  float64 `json:"max"`
	Sum  float64 `json:"sum"`
}

// CPU seconds over the measured window; server fields are null when the
// server's processes are not visible from here.
type CPU struct {
	ClientS       float64  `json:"client_s"`
	ServerS       *float64 `json:"server_s"`
	ServerUtilPct *float64 `json:"server_util_pct"`
	ClientSPerTxn float64  `json:"client_s_per_txn"`
	ServerSPerTxn *float64 `json:"server_s_per_txn"`
	ClientUtilPct float64  `json:"client_util_pct"`
	ServerPID     int      `json:"server_pid,omitempty"`
	// MemberPIDs are a replicated server's replicas, counted in ServerS.
	MemberPIDs   []int `json:"member_pids,omitempty"`
	MachineCores int   `json:"machine_cores"`
	// MachineUtilPct is the whole machine's busy share over the window.
	MachineUtilPct *float64 `json:"machine_util_pct"`
	// ForeignUtilPct is the machine's busy share that was neither encbench
	// nor the server (other processes, interrupts); StealPct the share the
	// hypervisor gave to other guests. Both disturb a measurement.
	ForeignUtilPct *float64 `json:"foreign_util_pct,omitempty"`
	StealPct       *float64 `json:"steal_pct,omitempty"`
	ClientCPUs     []int    `json:"client_cpus,omitempty"`
	ServerCPUs     string   `json:"server_cpus,omitempty"`
}

// Traffic counts what crossed the sockets of the run's connections, where
// encbench's protocol code reads and writes (TLS records included): a
// round trip is a read that returns data after a write since the last
// read. Per-transaction figures divide by committed transactions (the
// connect workload: by connections, one per event).
type Traffic struct {
	BytesIn          int64   `json:"bytes_in"`
	BytesOut         int64   `json:"bytes_out"`
	RoundTrips       int64   `json:"round_trips"`
	BytesInPerTxn    float64 `json:"bytes_in_per_txn"`
	BytesOutPerTxn   float64 `json:"bytes_out_per_txn"`
	RoundTripsPerTxn float64 `json:"round_trips_per_txn"`
}

// LockWaits are the times a statement waited for a lock another
// transaction held, and how long, as the server counts them (Source): the
// whole server's counts, so on a server others use their waits are in
// them too. Per-transaction figures divide by committed transactions.
type LockWaits struct {
	Waits        int64   `json:"waits"`
	WaitMs       float64 `json:"wait_ms"`
	WaitsPerTxn  float64 `json:"waits_per_txn"`
	WaitMsPerTxn float64 `json:"wait_ms_per_txn"`
	Source       string  `json:"source"`
}

// Replication is what the primary reported of its replicas, sampled on a
// connection of its own while the run ran.
type Replication struct {
	Source string `json:"source"`
	// Samples were taken; Writing is how many of them saw the primary's
	// WAL advance since the one before (the means are over those).
	Samples int `json:"samples"`
	Writing int `json:"writing"`
	// GTID says positions are GTID sequence numbers (MySQL/MariaDB), not
	// WAL bytes: lag is counted in transactions.
	GTID     bool         `json:"gtid,omitempty"`
	Replicas []ReplicaLag `json:"replicas"`
}

// ReplicaLag is one replica's lag over a run: how far its replay fell
// behind (bytes of WAL) and how long the primary's WAL took to be flushed
// there (what a synchronous commit waits for) and applied.
type ReplicaLag struct {
	Name        string `json:"name"`
	Sync        string `json:"sync"`
	MaxLagBytes int64  `json:"max_lag_bytes"`
	// MaxLagTransactions: MySQL/MariaDB, from the GTID positions.
	MaxLagTransactions int64   `json:"max_lag_transactions,omitempty"`
	MeanFlushLagMs     float64 `json:"mean_flush_lag_ms"`
	MaxFlushLagMs      float64 `json:"max_flush_lag_ms"`
	MeanReplayLagMs    float64 `json:"mean_replay_lag_ms"`
	MaxReplayLagMs     float64 `json:"max_replay_lag_ms"`
}

// ServerIO is the server's I/O over the measured window: its processes'
// storage reads and writes as the kernel accounts them (/proc/PID/io
// read_bytes and write_bytes: a buffered write counts each time it
// dirties a page, so more than reaches the disk), and what the device
// under its data read and wrote and how busy it was (Disk nil: not
// known).
type ServerIO struct {
	StorageReadBytes        int64    `json:"storage_read_bytes"`
	StorageWriteBytes       int64    `json:"storage_write_bytes"`
	StorageReadBytesPerTxn  float64  `json:"storage_read_bytes_per_txn"`
	StorageWriteBytesPerTxn float64  `json:"storage_write_bytes_per_txn"`
	Disk                    *DiskUse `json:"disk,omitempty"`
}

// DiskUse is a block device's reads, writes and busy share over the
// measured window: the whole device's, the server's and anything else's.
type DiskUse struct {
	Device           string  `json:"device"`
	ReadBytes        int64   `json:"read_bytes"`
	WriteBytes       int64   `json:"write_bytes"`
	ReadBytesPerTxn  float64 `json:"read_bytes_per_txn"`
	WriteBytesPerTxn float64 `json:"write_bytes_per_txn"`
	BusyPct          float64 `json:"busy_pct"`
}

// PartLatency summarises one timed part of the events, in milliseconds.
type PartLatency struct {
	N    int64   `json:"n"`
	Mean float64 `json:"mean"`
	P50  float64 `json:"p50"`
	P95  float64 `json:"p95"`
	P99  float64 `json:"p99"`
	Max  float64 `json:"max"`
}

// Interval rates are per second: Errors every error, Failed failed
// transactions, Retries extra tries, Reconnects replaced connections.
type Interval struct {
	TS         float64 `json:"t_s"`
	TPS        float64 `json:"tps"`
	QPS        float64 `json:"qps"`
	P95Ms      float64 `json:"p95_ms"`
	Errors     float64 `json:"errors"`
	Failed     float64 `json:"failed"`
	Retries    float64 `json:"retries"`
	Reconnects float64 `json:"reconnects"`
}

type Fairness struct {
	EventsAvg    float64 `json:"events_avg"`
	EventsStddev float64 `json:"events_stddev"`
	ExecAvgS     float64 `json:"exec_time_avg_s"`
	ExecStddevS  float64 `json:"exec_time_stddev_s"`
}

type Environment struct {
	Host     string `json:"host"`
	CPUModel string `json:"cpu_model"`
	Cores    int    `json:"cores"`
	MemoryMB int64  `json:"memory_mb"`
	OS       string `json:"os"`
	Kernel   string `json:"kernel,omitempty"`
	// Disk holds the server's data (sandboxes) or the working directory.
	Disk      string `json:"disk,omitempty"`
	GoVersion string `json:"go_version"`
}

// WriteFile writes r as indented JSON atomically and durably (fsx).
func WriteFile(path string, r *Result) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding result: %w", err)
	}
	return fsx.WriteFile(path, append(data, '\n'), 0o644)
}

// ReadFile loads a result document and checks its schema.
func ReadFile(path string) (*Result, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading result: %w", err)
	}
	return Parse(data, path)
}

// Parse reads a result document; name says where it came from in errors.
func Parse(data []byte, name string) (*Result, error) {
	var r Result
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("parsing %s: %w", name, err)
	}
	switch r.Schema {
	case Schema:
	case SchemaV1:
		if err := fromV1(data, &r); err != nil {
			return nil, fmt.Errorf("parsing %s: %w", name, err)
		}
	default:
		return nil, fmt.Errorf("%s is not an encbench result (schema %q)", name, r.Schema)
	}
	return &r, nil
}

// fromV1 reads what v1 called by other names into r, now v2.
func fromV1(data []byte, r *Result) error {
	var v1 struct {
		Items map[string]PartLatency `json:"items"`
		Suite *struct {
			Interleaved *struct {
				SliceMs float64 `json:"slice_ms"`
			} `json:"interleaved"`
		} `json:"suite"`
	}
	if err := json.Unmarshal(data, &v1); err != nil {
		return err
	}
	r.Parts = v1.Items
	if v1.Suite != nil && v1.Suite.Interleaved != nil && r.Suite != nil && r.Suite.Interleaved != nil {
		r.Suite.Interleaved.TurnMs = v1.Suite.Interleaved.SliceMs
	}
	r.Schema = Schema
	return nil
}
