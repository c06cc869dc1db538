// Command encbench measures what encryption costs a database.
package main

import (
	"context"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/encbench/encbench/internal/cli"
)

// gcPercent trades a few MB of heap for fewer collections: each one stops
// and wakes every worker thread, which on a 2-core machine shared with the
// server shows up in the client CPU being measured.
const gcPercent = 400

func main() {
	debug.SetGCPercent(gcPercent)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	stopProfile := startProfile()
	stopStats := startRuntimeStats()
	code := cli.Execute(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	stopStats()
	stopProfile()
	os.Exit(code)
}
