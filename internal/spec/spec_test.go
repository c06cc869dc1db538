package spec_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/encbench/encbench/internal/errs"
	"github.com/encbench/encbench/internal/spec"
	"github.com/encbench/encbench/internal/workload"
	_ "github.com/encbench/encbench/internal/workload/connect"
	_ "github.com/encbench/encbench/internal/workload/oltp"
	_ "github.com/encbench/encbench/internal/workload/tpcc"
	_ "github.com/encbench/encbench/internal/workload/ycsb"
)

var reg = workload.Default()

// A spec rendered to a command line and parsed back is the same spec.
func TestArgsRoundTrip(t *testing.T) {
	cases := [][]string{
		{"run", "oltp_read_write", "--dsn", "postgres://u:pw@127.0.0.1:5432/db", "--tls", "verify-full", "--tls-ca", "ca.pem",
			"--threads", "8", "--time", "30", "--rate", "1500.5", "--report-interval", "5", "--tables", "4", "--table_size", "100000",
			"--rand-type", "uniform", "--skip-trx", "--reconnect-per-txn", "--json", "out file.json", "--variant-name", "tls"},
		{"prepare", "tpcc", "--sandbox", "/tmp/pg", "--warehouses", "3", "--encrypt-columns", "50", "--keyset", "/k/keyset.json", "--force", "--tde"},
		{"run", "enc_range_sum", "--sandbox", "/tmp/pg", "--encrypt", "id:ore,k:ashe", "--range-size", "50", "--client-cpus", "0"},
		{"run", "ycsb_e", "--dsn", "mongodb://127.0.0.1:27017/ycsb", "--recordcount", "5000", "--scanproportion", "0.9"},
		{"cleanup", "connect", "--dsn", "host=127.0.0.1 dbname=x", "--connect-rows", "50"},
		{"check", "tpcc", "--sandbox", "/tmp/my", "--warehouses", "2"},
		{"run", "connect", "--sandbox", "/tmp/pg"},
		{"run", "select_random_ranges", "--sandbox", "/tmp/pg", "--delta", "9", "--number-of-ranges", "3"},
	}
	for _, args := range cases {
		s, err := spec.Parse(spec.Command(args[0]), args[1:], reg)
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		rendered := s.Args()
		back, err := spec.Parse(spec.Command(rendered[0]), rendered[1:], reg)
		if err != nil {
			t.Fatalf("%v rendered as %v does not parse: %v", args, rendered, err)
		}
		if !reflect.DeepEqual(s, back) {
			t.Errorf("round trip of %v:\n first %+v\n again %+v", args, s, back)
		}
		again := back.Args()
		if !reflect.DeepEqual(rendered, again) {
			t.Errorf("rendering is not stable: %v then %v", rendered, again)
		}
	}
}

// Options a user set come back on the command line; defaults do not.
func TestArgsNameOnlyWhatChanged(t *testing.T) {
	s, err := spec.Parse(spec.Run, []string{"oltp_point_select", "--sandbox", "/tmp/pg", "--threads", "8", "--tables", "4"}, reg)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(s.Args(), " ")
	if got != "run oltp_point_select --sandbox=/tmp/pg --threads=8 --tables=4" {
		t.Errorf("Args = %s", got)
	}
}

// The connect workload is a number of connections unless a limit is given.
func TestDefaultEventsOnlyWithoutLimits(t *testing.T) {
	s, _ := spec.Parse(spec.Run, []string{"connect", "--sandbox", "/x", "--connections", "200"}, reg)
	if s.Runner.Events != 200 || s.Runner.Time != 0 {
		t.Errorf("connect without limits: events %d time %d", s.Runner.Events, s.Runner.Time)
	}
	s, _ = spec.Parse(spec.Run, []string{"connect", "--sandbox", "/x", "--time", "5"}, reg)
	if s.Runner.Events != 0 || s.Runner.Time != 5*time.Second {
		t.Errorf("connect --time 5: events %d time %d", s.Runner.Events, s.Runner.Time)
	}
}

// Every workload option, given to a workload it does not belong to, is a
// usage error naming the flag and the workloads it belongs to; given to
// its own workload it parses.
func TestFlagApplicabilityForEveryFamily(t *testing.T) {
	owners := reg.Owners()
	values := map[string]string{}
	for _, name := range reg.Names() {
		fam, _ := reg.Lookup(name)
		workload.FlagSet(fam.NewOptions(), name).VisitAll(func(f *pflag.Flag) { values[f.Name] = f.DefValue })
	}
	checked := map[string]bool{}
	for flag, own := range owners {
		for _, name := range reg.Names() {
			belongs := false
			for _, o := range own {
				belongs = belongs || o == name
			}
			for _, cmd := range spec.Commands {
				args := []string{name, "--sandbox", "/x", "--" + flag + "=" + values[flag]}
				_, err := spec.Parse(cmd, args, reg)
				if belongs {
					if err != nil {
						t.Errorf("%s %s --%s: %v", cmd, name, flag, err)
					}
					continue
				}
				fam, _ := reg.Lookup(name)
				checked[fam.Name()] = true
				if err == nil || errs.ExitCode(err) != 2 {
					t.Errorf("%s %s --%s was accepted (%v)", cmd, name, flag, err)
					continue
				}
				msg := err.Error()
				if !strings.Contains(msg, "--"+flag+" does not apply to "+name) || !strings.Contains(msg, own[0]) || strings.Contains(msg, "\n") {
					t.Errorf("%s %s --%s: %q", cmd, name, flag, msg)
				}
			}
		}
	}
	for _, fam := range []string{"oltp", "tpcc", "ycsb", "connect"} {
		if !checked[fam] {
			t.Errorf("no foreign flag was tried on family %s", fam)
		}
	}
}

// The three silent flags of the issue.
func TestSilentFlagsAreRefused(t *testing.T) {
	for _, c := range []struct {
		cmd  spec.Command
		args []string
		flag string
	}{
		{spec.Run, []string{"oltp_point_select", "--warehouses", "5"}, "--warehouses does not apply to oltp_point_select: it is an option of tpcc"},
		{spec.Run, []string{"tpcc", "--recordcount", "5"}, "--recordcount does not apply to tpcc: it is an option of ycsb_a"},
		{spec.Prepare, []string{"oltp_point_select", "--encrypt-columns", "50"}, "--encrypt-columns does not apply to oltp_point_select: it is an option of tpcc"},
		{spec.Run, []string{"oltp_read_only", "--encrypt", "k"}, "--encrypt does not apply to oltp_read_only: it is an option of enc_point_select"},
		{spec.Run, []string{"oltp_read_only", "--random-points", "3"}, "--random-points does not apply to oltp_read_only: it is an option of select_random_points"},
	} {
		_, err := spec.Parse(c.cmd, c.args, reg)
		if err == nil || errs.ExitCode(err) != 2 || !strings.Contains(err.Error(), c.flag) {
			t.Errorf("%s %v: %v", c.cmd, c.args, err)
		}
	}
}

func TestParseUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"oltp_nothing"},
		{"oltp_point_select", "tpcc"},
		{"oltp_point_select", "--workload", "tpcc"},
		{"oltp_point_select", "--no-such-flag"},
		{"--threads", "4"},
		{"tpcc", "--encrypt-columns", "30"},
		{"oltp_point_select", "--threads", "many"},
	} {
		_, err := spec.Parse(spec.Run, args, reg)
		if err == nil || errs.ExitCode(err) != 2 || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: %v", args, err)
		}
	}
}

// --help shows the runner's flags and the workload's own options only.
func TestHelpShowsOnlyTheWorkloadsOptions(t *testing.T) {
	s, err := spec.Parse(spec.Run, []string{"oltp_point_select", "--help"}, reg)
	if !errors.Is(err, spec.ErrHelp) || s.Workload != "oltp_point_select" {
		t.Fatalf("--help: %v %q", err, s.Workload)
	}
	h := spec.Help(spec.Run, "oltp_point_select", reg)
	for _, want := range []string{"--threads", "--time", "--table-size", "--rand-type"} {
		if !strings.Contains(h, want) {
			t.Errorf("help lacks %s", want)
		}
	}
	for _, foreign := range []string{"--warehouses", "--recordcount", "--encrypt ", "--encrypt-columns", "--connections", "--keyset"} {
		if strings.Contains(h, foreign) {
			t.Errorf("oltp_point_select's help shows %s", foreign)
		}
	}
	if h := spec.Help(spec.Run, "tpcc", reg); !strings.Contains(h, "--warehouses") || strings.Contains(h, "--table-size") {
		t.Errorf("tpcc help:\n%s", h)
	}
}

func TestSetAndHas(t *testing.T) {
	fam, _ := reg.Lookup("tpcc")
	s := spec.New(spec.Run, "tpcc", fam)
	if !s.Has("warehouses") || s.Has("tables") {
		t.Fatal("Has")
	}
	if err := s.Set("warehouses", "4"); err != nil {
		t.Fatal(err)
	}
	if err := s.Set("table_size", "4"); err == nil {
		t.Error("Set of a foreign flag succeeded")
	}
	if got := strings.Join(s.Args(), " "); got != "run tpcc --warehouses=4" {
		t.Errorf("Args after Set: %s", got)
	}
	c := s.Clone()
	_ = c.Set("warehouses", "9")
	if strings.Join(s.Args(), " ") != "run tpcc --warehouses=4" {
		t.Error("Clone shares options")
	}
}

func TestDisplayRedactsAndQuotes(t *testing.T) {
	s, err := spec.Parse(spec.Run, []string{"enc_range_sum", "--dsn", "postgres://u:secret@127.0.0.1:5432/db", "--encrypt", "id:ore,k:ashe", "--json", "it's.json"}, reg)
	if err != nil {
		t.Fatal(err)
	}
	got := s.Display()
	want := `encbench run enc_range_sum --dsn=postgres://u:xxxxx@127.0.0.1:5432/db '--json=it'\''s.json' --encrypt=id:ore,k:ashe`
	if got != want {
		t.Errorf("Display:\n got %s\nwant %s", got, want)
	}
}

// TestEveryFlagSaysWhatItNames: every flag a phase binds itself has a kind
// (data, location or setting) at the place it is bound; and where the
// server is, or how fast prepare loads, never changes a data set's
// parameters, while the data options do.
func TestEveryFlagSaysWhatItNames(t *testing.T) {
	for _, cmd := range spec.Commands {
		fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
		spec.Bind(fs, &spec.Spec{Command: cmd})
		fs.VisitAll(func(f *pflag.Flag) {
			if !workload.Marked(f) {
				t.Errorf("%s --%s has no kind: mark it data, location or setting where it is bound", cmd, f.Name)
			}
		})
	}
	base := []string{"oltp_read_write", "--tables", "4", "--table-size", "500"}
	s, err := spec.Parse(spec.Prepare, base, reg)
	if err != nil {
		t.Fatal(err)
	}
	where, err := spec.Parse(spec.Prepare, append(base, "--dsn", "postgres://u@127.0.0.1:5999/b", "--tls", "require", "--threads", "4", "--force"), reg)
	if err != nil {
		t.Fatal(err)
	}
	data := s.DataChanged()
	if !reflect.DeepEqual(data, where.DataChanged()) || data["tables"] != "4" || data["table-size"] != "500" {
		t.Errorf("data parameters %v, with a server and load settings %v", data, where.DataChanged())
	}
}
