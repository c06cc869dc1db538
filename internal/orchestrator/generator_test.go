package orchestrator

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/encbench/encbench/internal/engine"
	"github.com/encbench/encbench/internal/errs"
	"github.com/encbench/encbench/internal/runner"
	"github.com/encbench/encbench/internal/runset"
	"github.com/encbench/encbench/internal/spec"
)

// Generators share the threads without gaps or overlaps, and the worker
// ids they use cover 0..threads-1 once.
func TestGeneratorsShareThreadsAndIDs(t *testing.T) {
	at := time.Now().Add(time.Minute).UTC().Format(time.RFC3339)
	for _, threads := range []int{3, 7, 8, 64} {
		ids := map[int]bool{}
		for i := 0; i < 3; i++ {
			g, err := parseGenerator(runset.Settings{Generator: strings.Join([]string{itoa(i), "3"}, "/"), StartAt: at}, threads)
			if err != nil {
				t.Fatal(err)
			}
			for w := 0; w < g.Threads; w++ {
				if ids[g.IDOffset+w] {
					t.Fatalf("%d threads: worker id %d used twice", threads, g.IDOffset+w)
				}
				ids[g.IDOffset+w] = true
			}
			cfg := runner.Config{Settings: runset.Settings{Events: 100, Rate: 30}}
			g.apply(&cfg)
			if cfg.TotalThreads != threads || cfg.Rate != 10 || cfg.Events != int64(share(100, i, 3)) || !cfg.StartTime.Equal(g.StartAt) {
				t.Errorf("generator %d: %+v", i, cfg)
			}
		}
		if len(ids) != threads {
			t.Errorf("%d threads: %d worker ids", threads, len(ids))
		}
	}
}

// A start in the past, a missing start, a malformed index or too few
// threads are usage errors saying what to give.
func TestGeneratorStartRefusals(t *testing.T) {
	past := time.Now().Add(-3 * time.Second).UTC().Format(time.RFC3339Nano)
	for _, tc := range []struct {
		r       runset.Settings
		threads int
		want    string
	}{
		{runset.Settings{Generator: "0/3", StartAt: past}, 3, "in the past"},
		{runset.Settings{Generator: "1/3"}, 3, "needs --start-at"},
		{runset.Settings{Generator: "3/3", StartAt: past}, 3, "0 <= I < N"},
		{runset.Settings{Generator: "a/b"}, 3, "bad --generator"},
		{runset.Settings{Generator: "0/4", StartAt: past}, 3, "at least one thread each"},
		{runset.Settings{StartAt: past}, 3, "needs --generator"},
		{runset.Settings{Generator: "0/2", StartAt: "tomorrow"}, 3, "RFC3339"},
	} {
		_, err := parseGenerator(tc.r, tc.threads)
		if err == nil || !strings.Contains(err.Error(), tc.want) || errs.ExitCode(err) != 2 {
			t.Errorf("%+v: %v, want a usage error naming %q", tc.r, err, tc.want)
		}
	}
	if g, err := parseGenerator(runset.Settings{Generator: "0/1"}, 4); err != nil || g.Threads != 4 {
		t.Errorf("one generator alone needs no start: %v", err)
	}
}

func itoa(i int) string { return string(rune('0' + i)) }

// skewedClock is a server whose clock is off by off.
type skewedClock struct {
	engine.Engine
	off time.Duration
}

func (s skewedClock) ServerTime(context.Context, engine.Conn) (time.Time, error) {
	return time.Now().Add(s.off), nil
}

// Generators refuse a server whose clock is obviously not theirs, and
// record the offset they measured.
func TestClockCheck(t *testing.T) {
	g := &generatorPlan{Schedule: Schedule{Index: 1, Count: 2, StartAt: time.Now().Add(time.Minute)}, Threads: 2}
	if _, err := g.checkClock(context.Background(), skewedClock{off: -3 * time.Second}, nil); err == nil || !strings.Contains(err.Error(), "synchronise") {
		t.Errorf("a clock 3 s behind: %v", err)
	}
	doc, err := g.checkClock(context.Background(), skewedClock{off: 20 * time.Millisecond}, nil)
	if err != nil || doc.ClockOffsetMs == nil || *doc.ClockOffsetMs < 15 || *doc.ClockOffsetMs > 200 || doc.Index != 1 || doc.StartAt == "" {
		t.Errorf("a clock 20 ms ahead: %+v, %v", doc, err)
	}
}

// A generator process gets the DSN (and its password) by environment,
// never on its command line, which other users of the machine can read.
func TestGeneratorCommandKeepsTheDSNOffTheCommandLine(t *testing.T) {
	fam, _ := reg.Lookup("oltp_point_select")
	s := spec.New(spec.Run, "oltp_point_select", fam)
	s.Server.DSN = "postgres://bench:s3cret@db1:5432/bench"
	s.Threads = 4
	cmd := generatorCommand(context.Background(), "/bin/encbench", s, 1, 2, "2030-01-01T00:00:00Z", "/tmp/g1.json")
	args := strings.Join(cmd.Args, " ")
	if strings.Contains(args, "s3cret") || strings.Contains(args, "--dsn") || !strings.Contains(args, "--generator=1/2") || !strings.Contains(args, "--json=/tmp/g1.json") {
		t.Errorf("command line: %s", args)
	}
	if !slices.Contains(cmd.Env, DSNEnv+"="+s.Server.DSN) {
		t.Error("the DSN is not in the generator's environment")
	}
}
