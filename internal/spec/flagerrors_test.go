package spec_test

import (
	"strings"
	"testing"

	"github.com/encbench/encbench/internal/errs"
	"github.com/encbench/encbench/internal/spec"
)

// Habits from sysbench and typing slips get one line that says what to do.
func TestFlagErrorsSayWhatToDo(t *testing.T) {
	for _, c := range []struct {
		cmd  spec.Command
		args []string
		want string
	}{
		{spec.Run, []string{"oltp_point_select", "--db-driver=mysql", "--mysql-host=127.0.0.1", "--mysql-port=3307", "--mysql-user=bob", "--mysql-password=s3cret", "--mysql-db=app_db"},
			"--dsn mysql://bob:PASSWORD@127.0.0.1:3307/app_db (your password in place of PASSWORD)"},
		{spec.Prepare, []string{"oltp_read_write", "--db-driver", "pgsql", "--pgsql-host", "localhost", "--pgsql-db", "bench"},
			"--dsn postgres://sbtest@127.0.0.1:5432/bench"},
		{spec.Run, []string{"oltp_point_select", "--mysql-socket=/run/mysqld/mysqld.sock", "--mysql-ssl=on"},
			"--dsn mysql://sbtest@127.0.0.1:3306/sbtest?socket=%2Frun%2Fmysqld%2Fmysqld.sock --tls require"},
		{spec.Run, []string{"oltp_point_select", "--thread", "2"}, "unknown flag --thread (did you mean --threads?)"},
		{spec.Run, []string{"oltp_point_selct"}, `unknown workload "oltp_point_selct" (did you mean oltp_point_select?)`},
		{spec.Run, []string{"oltp_point_select", "--report-interval", "1.5"}, `--report-interval takes whole seconds, as sysbench's does, not "1.5"`},
		{spec.Run, []string{"oltp_point_select", "--threads", "many"}, `--threads takes a whole number, not "many"`},
		{spec.Run, []string{"oltp_point_select", "--rate", "fast"}, `--rate takes a number, not "fast"`},
	} {
		_, err := spec.Parse(c.cmd, c.args, reg)
		if err == nil || errs.ExitCode(err) != 2 || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %v:\n got %v\nwant a line with %s", c.cmd, c.args, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "s3cret") {
			t.Errorf("the error shows the password: %v", err)
		}
	}
}

// A sysbench option string shared by every phase carries run's flags:
// prepare and cleanup take them, say they ignore them, and leave them out
// of the command line that reproduces the phase.
func TestOtherPhasesIgnoreRunFlags(t *testing.T) {
	for _, cmd := range []spec.Command{spec.Prepare, spec.Cleanup} {
		s, err := spec.Parse(cmd, []string{"oltp_read_write", "--dsn", "mysql://u@127.0.0.1/db", "--time=60", "--report-interval", "1", "--tables", "2"}, reg)
		if err != nil {
			t.Fatalf("%s: %v", cmd, err)
		}
		if strings.Join(s.Ignored, " ") != "--time --report-interval" {
			t.Errorf("%s ignored %q", cmd, s.Ignored)
		}
		if args := strings.Join(s.Args(), " "); strings.Contains(args, "time") || !strings.Contains(args, "--tables=2") {
			t.Errorf("%s reproduces as %s", cmd, args)
		}
	}
	if _, err := spec.Parse(spec.Run, []string{"oltp_read_write", "--time=60", "--report-interval", "1"}, reg); err != nil {
		t.Errorf("run: %v", err)
	}
}
