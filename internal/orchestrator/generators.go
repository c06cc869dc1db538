package orchestrator

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/encbench/encbench/internal/spec"
)

// StartLead is how long generator processes get to start, connect and
// prove their variant before the common start.
func StartLead(threads int) time.Duration {
	return 3*time.Second + time.Duration(threads)*20*time.Millisecond
}

// RunGenerators measures s with n local encbench processes that share its
// threads and start together (--generator I/N --start-at) and returns
// their result files (generator i's at resultOf(i)), which merge.Files
// combines exactly; each process's output goes to log.
func RunGenerators(ctx context.Context, s spec.Spec, n int, resultOf func(i int) string, log io.Writer) ([]string, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("finding the encbench binary for the generators: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(resultOf(0)), 0o755); err != nil {
		return nil, fmt.Errorf("creating the generators' directory: %w", err)
	}
	start := time.Now().Add(StartLead(s.Threads)).UTC().Format(time.RFC3339Nano)
	type proc struct {
		cmd  *exec.Cmd
		out  bytes.Buffer
		path string
	}
	procs := make([]*proc, n)
	for i := range procs {
		p := &proc{path: resultOf(i)}
		p.cmd = generatorCommand(ctx, exe, s, i, n, start, p.path)
		p.cmd.Stdout, p.cmd.Stderr = &p.out, &p.out
		fmt.Fprintf(log, "$ %s --generator=%d/%d --start-at=%s\n", s.Display(), i, n, start)
		if err := p.cmd.Start(); err != nil {
			return nil, fmt.Errorf("starting generator %d: %w", i, err)
		}
		procs[i] = p
	}
	var failed []string
	for i, p := range procs {
		err := p.cmd.Wait()
		fmt.Fprintf(log, "\n--- generator %d/%d ---\n%s", i, n, p.out.String())
		if err != nil {
			failed = append(failed, fmt.Sprintf("generator %d: %v: %s", i, err, lastLine(p.out.String())))
		}
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if len(failed) > 0 {
		return nil, fmt.Errorf("%s", strings.Join(failed, "; "))
	}
	paths := make([]string, n)
	for i, p := range procs {
		paths[i] = p.path
	}
	return paths, nil
}

// generatorCommand is generator i of n's process: the spec's command line
// with --generator and --start-at, and the DSN (with any password) in the
// environment rather than on the command line.
func generatorCommand(ctx context.Context, exe string, s spec.Spec, i, n int, start, path string) *exec.Cmd {
	g := s.Clone()
	g.Runner.Generator, g.Runner.StartAt, g.JSON = fmt.Sprintf("%d/%d", i, n), start, path
	dsn := g.Server.DSN
	g.Server.DSN = ""
	cmd := exec.CommandContext(ctx, exe, g.Args()...)
	cmd.Env = os.Environ()
	if dsn != "" {
		cmd.Env = append(cmd.Env, DSNEnv+"="+dsn)
	}
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 30 * time.Second
	return cmd
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
