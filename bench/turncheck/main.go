// Command turncheck measures one loss two ways on the same servers, to
// validate the suite's turn design (issue 40, item 5): the suite's
// interleaved turns, and long continuous runs in ABBA order of encbench and
// of sysbench. TLS uses one MariaDB server that offers TLS; TDE two (plain
// and encrypted at rest). It prints, per layer and model, the losses with
// their 95% intervals: the turns' at each -turns length (with the turn the
// suite ran), then the continuous runs'.
//
//	go run ./bench/turncheck -encbench bin/encbench -out /tmp/turncheck
//	go run ./bench/turncheck -layers tls -models oltp_read_write -turns auto,25ms,400ms -continuous=false
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/encbench/encbench/internal/report"
	"github.com/encbench/encbench/internal/result"
	"github.com/encbench/encbench/internal/stats"
)

type options struct {
	encbench, out, models, layers, clientCPU, serverCPU string
	threads, seconds, pairs, tables, tableSize, reps    int
	// turns are the suite's turn lengths to measure (auto or durations);
	// continuous says whether to run the continuous ABBA runs too.
	turns      []string
	continuous bool
}

// server is a sandbox the check started, as its sandbox.json says.
type server struct {
	DSN, CA, Password     string
	PID, Port             int
	ClientCert, ClientKey string `json:"-"`
}

func main() {
	var o options
	flag.StringVar(&o.encbench, "encbench", "bin/encbench", "encbench binary")
	flag.StringVar(&o.out, "out", "/tmp/turncheck", "new directory for sandboxes and results")
	flag.StringVar(&o.models, "models", "oltp_read_only,oltp_read_write,oltp_write_only", "sysbench models")
	flag.StringVar(&o.layers, "layers", "tls,tde", "layers to check")
	flag.StringVar(&o.clientCPU, "client-cpus", "0", "CPU of encbench's and sysbench's workers")
	flag.StringVar(&o.serverCPU, "server-cpus", "1", "CPU of the servers")
	flag.IntVar(&o.threads, "threads", 8, "threads")
	flag.IntVar(&o.seconds, "time", 10, "seconds of each continuous run and of each variant per block")
	flag.IntVar(&o.pairs, "pairs", 6, "ABBA pairs of continuous runs per tool")
	flag.IntVar(&o.reps, "blocks", 6, "blocks of the turns suite")
	flag.IntVar(&o.tables, "tables", 4, "tables")
	flag.IntVar(&o.tableSize, "table-size", 10000, "rows per table")
	turns := flag.String("turns", "auto", "the suite's turn lengths, comma-separated: auto or durations such as 50ms (a turn-edge bias shrinks as turns grow)")
	flag.BoolVar(&o.continuous, "continuous", true, "also measure with continuous ABBA runs of encbench and sysbench")
	flag.Parse()
	o.turns = strings.Split(*turns, ",")
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "turncheck:", err)
		os.Exit(1)
	}
}

func run(o options) error {
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	if err := os.Chmod(o.out, 0o755); err != nil {
		return err
	}
	servers := map[string]*server{}
	for _, v := range []string{"tls", "plain", "tde"} {
		args := []string{"sandbox", "up", "--engine", "mariadb", "--variant", v, "--dir", filepath.Join(o.out, "sb-"+v), "--server-cpus", o.serverCPU, "--buffer-pool", "256M"}
		if v == "tls" {
			args = append(args, "--tls-optional")
		}
		if _, err := sh(o.encbench, args...); err != nil {
			return err
		}
		defer sh(o.encbench, "sandbox", "down", "--dir", filepath.Join(o.out, "sb-"+v)) //nolint:errcheck
		s := &server{}
		raw, err := os.ReadFile(filepath.Join(o.out, "sb-"+v, "sandbox.json"))
		if err != nil {
			return err
		}
		if err := json.Unmarshal(raw, s); err != nil {
			return err
		}
		var keys struct {
			Cert string `json:"client_cert"`
			Key  string `json:"client_key"`
		}
		if err := json.Unmarshal(raw, &keys); err != nil {
			return err
		}
		s.ClientCert, s.ClientKey = keys.Cert, keys.Key
		u, err := url.Parse(s.DSN)
		if err != nil {
			return err
		}
		u.RawQuery = ""
		s.DSN = u.String()
		servers[v] = s
	}
	fmt.Printf("%-5s %-16s", "layer", "model")
	for _, t := range o.turns {
		fmt.Printf(" %-36s", "turns "+t)
	}
	if o.continuous {
		fmt.Printf(" %-28s %-28s", "encbench continuous", "sysbench continuous")
	}
	fmt.Println()
	for _, layer := range strings.Split(o.layers, ",") {
		for _, model := range strings.Split(o.models, ",") {
			a, b := servers["tls"], servers["tls"]
			if layer == "tde" {
				a, b = servers["plain"], servers["tde"]
			}
			row := fmt.Sprintf("%-5s %-16s", layer, model)
			for _, turn := range o.turns {
				loss, turnMs, err := turnsLoss(o, layer, model, turn, a, b)
				if err != nil {
					return fmt.Errorf("%s %s turns %s: %w", layer, model, turn, err)
				}
				row += fmt.Sprintf(" %-36s", fmt.Sprintf("%s [%.0fms]", lossText(loss), turnMs))
			}
			if o.continuous {
				eb, sb, err := continuousLosses(o, layer, model, a, b)
				if err != nil {
					return fmt.Errorf("%s %s continuous: %w", layer, model, err)
				}
				row += fmt.Sprintf(" %-28s %-28s", lossText(eb), lossText(sb))
			}
			fmt.Println(row)
		}
	}
	return nil
}

// turnsLoss runs the suite design on the servers and reads its loss.
func turnsLoss(o options, layer, model, turn string, a, b *server) (*stats.Loss, float64, error) {
	target := fmt.Sprintf("  - name: m\n    dsn: '%s'\n    server_pid: %d\n", a.DSN, a.PID)
	variant := layer
	if layer == "tls" {
		target += fmt.Sprintf("    tls_ca: %s\n", a.CA)
	} else {
		target += fmt.Sprintf("    tde_dsn: '%s'\n    tde_server_pid: %d\n", b.DSN, b.PID)
	}
	name := layer + "-" + model + "-turn-" + turn
	text := fmt.Sprintf("name: %s\ntargets:\n%svariants: [plain, %s]\nworkloads: [{name: %s}]\nthreads: [%d]\ntime: %d\nwarmup: 2\nturn: %s\nrepetitions: %d\nprecision: 0\n"+
		"data: {tables: %d, table-size: %d}\nclient_cpus: \"%s\"\n", name, target, variant, model, o.threads, o.seconds, turn, o.reps, o.tables, o.tableSize, o.clientCPU)
	file := filepath.Join(o.out, name+".yaml")
	if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
		return nil, 0, err
	}
	dir := filepath.Join(o.out, name)
	if _, err := sh(o.encbench, "suite", "run", file, "--out", dir); err != nil {
		return nil, 0, err
	}
	raw, err := os.ReadFile(filepath.Join(dir, report.AnalysisFile))
	if err != nil {
		return nil, 0, err
	}
	var an report.Analysis
	if err := json.Unmarshal(raw, &an); err != nil {
		return nil, 0, err
	}
	for _, c := range an.Rows {
		if c.Variant != "plain" && c.Loss != nil {
			return c.Loss, turnOf(dir), nil
		}
	}
	return nil, 0, fmt.Errorf("no loss in %s", dir)
}

// turnOf is the turn length, in ms, the suite's cells ran (0: unknown).
func turnOf(dir string) float64 {
	files, _ := filepath.Glob(filepath.Join(dir, "cells", "*.json"))
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		var r result.Result
		if json.Unmarshal(raw, &r) == nil && r.Suite != nil && r.Suite.Interleaved != nil {
			return r.Suite.Interleaved.TurnMs
		}
	}
	return 0
}

// continuousLosses runs each tool in ABBA order: pair k is (A, B) for odd
// k and (B, A) for even k; the loss pairs the runs of a pair.
func continuousLosses(o options, layer, model string, a, b *server) (eb, sb *stats.Loss, err error) {
	var ebA, ebB, sbA, sbB []float64
	for k := 1; k <= o.pairs; k++ {
		order := []bool{false, true}
		if k%2 == 0 {
			order = []bool{true, false}
		}
		for _, on := range order {
			srv := a
			if on {
				srv = b
			}
			tps, err := encbenchRun(o, model, srv, layer, on, fmt.Sprintf("%s-%s-%d-%v", layer, model, k, on))
			if err != nil {
				return nil, nil, err
			}
			stps, err := sysbenchRun(o, model, srv, layer == "tls" && on)
			if err != nil {
				return nil, nil, err
			}
			if on {
				ebB, sbB = append(ebB, tps), append(sbB, stps)
			} else {
				ebA, sbA = append(ebA, tps), append(sbA, stps)
			}
		}
	}
	el, err := stats.PairedLossPct(ebA, ebB)
	if err != nil {
		return nil, nil, err
	}
	sl, err := stats.PairedLossPct(sbA, sbB)
	return &el, &sl, err
}

func encbenchRun(o options, model string, s *server, layer string, on bool, name string) (float64, error) {
	path := filepath.Join(o.out, "runs", name+".json")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return 0, err
	}
	args := []string{"run", model, "--dsn", s.DSN, "--threads", strconv.Itoa(o.threads), "--time", strconv.Itoa(o.seconds),
		"--tables", strconv.Itoa(o.tables), "--table-size", strconv.Itoa(o.tableSize), "--client-cpus", o.clientCPU, "--json", path}
	switch {
	case on && layer == "tls":
		args = append(args, "--tls", "verify-full", "--tls-ca", s.CA)
	case on && layer == "tde":
		args = append(args, "--tde")
	}
	if _, err := sh(o.encbench, args...); err != nil {
		return 0, err
	}
	r, err := result.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return r.TPS, nil
}

var sysbenchTPS = regexp.MustCompile(`transactions:\s+\d+\s+\(([0-9.]+) per sec`)

func sysbenchRun(o options, model string, s *server, tls bool) (float64, error) {
	args := []string{"-c", o.clientCPU, "sysbench", model, "--db-driver=mysql", "--mysql-host=127.0.0.1", "--mysql-port=" + strconv.Itoa(s.Port),
		"--mysql-user=sbtest", "--mysql-password=" + s.Password, "--mysql-db=sbtest", "--tables=" + strconv.Itoa(o.tables),
		"--table-size=" + strconv.Itoa(o.tableSize), "--threads=" + strconv.Itoa(o.threads), "--time=" + strconv.Itoa(o.seconds)}
	if tls {
		args = append(args, "--mysql-ssl=on")
	}
	// sysbench's mysql driver reads its TLS files from the current
	// directory, under fixed names, and needs a client certificate.
	dir := filepath.Join(o.out, "sysbench-"+strconv.Itoa(s.Port))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return 0, err
	}
	for name, from := range map[string]string{"cacert.pem": s.CA, "client-cert.pem": s.ClientCert, "client-key.pem": s.ClientKey} {
		if from == "" {
			continue
		}
		if _, err := os.Lstat(filepath.Join(dir, name)); err != nil {
			if err := os.Symlink(from, filepath.Join(dir, name)); err != nil {
				return 0, err
			}
		}
	}
	out, err := shIn(dir, "taskset", append(args, "run")...)
	if err != nil {
		return 0, err
	}
	m := sysbenchTPS.FindStringSubmatch(out)
	if m == nil {
		return 0, fmt.Errorf("no TPS in sysbench's output:\n%s", out)
	}
	return strconv.ParseFloat(m[1], 64)
}

func lossText(l *stats.Loss) string {
	return fmt.Sprintf("%.1f (%.1f to %.1f)", l.Pct, l.Low, l.High)
}

func sh(name string, args ...string) (string, error) { return shIn("", name, args...) }

func shIn(dir, name string, args ...string) (string, error) {
	var out bytes.Buffer
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("%s %s: %w\n%s", name, strings.Join(args, " "), err, out.String())
	}
	return out.String(), nil
}
