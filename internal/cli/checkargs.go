package cli

import (
	"io"
	"slices"

	"github.com/encbench/encbench/internal/errs"
	"github.com/encbench/encbench/internal/orchestrator"
	"github.com/encbench/encbench/internal/spec"
	"github.com/encbench/encbench/internal/workload"
)

// CheckArgs parses a command line as encbench would, without running it:
// deployment manifests are checked against the flags with it, so they
// cannot drift from them.
func CheckArgs(args []string) error {
	root := newRoot(io.Discard, io.Discard)
	cmd, rest, err := root.Find(args)
	if err != nil || cmd == root {
		return errs.Usage("unknown command in %q", args)
	}
	if phase := spec.Command(cmd.Name()); cmd.Parent() == root && slices.Contains(spec.Commands, phase) {
		s, err := spec.Parse(phase, rest, workload.Default())
		if err != nil {
			return err
		}
		return orchestrator.CheckGenerator(s)
	}
	if err := cmd.ParseFlags(rest); err != nil {
		return errs.Usage("%w", err)
	}
	if cmd.Args != nil {
		return cmd.Args(cmd, cmd.Flags().Args())
	}
	return nil
}
