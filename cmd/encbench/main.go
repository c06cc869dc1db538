// Command encbench measures what encryption costs a database.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/encbench/encbench/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	stopProfile := startProfile()
	code := cli.Execute(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	stopProfile()
	os.Exit(code)
}
