package sandbox

import (
	"context"
	"fmt"
	"os/user"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/encbench/encbench/internal/errs"
	"github.com/encbench/encbench/internal/quiet"
)

// restarter is a provider whose server can stop and start again on its
// own data: a restart mid-run is the fault a failover or an upgrade is.
type restarter interface {
	// haltSignal stops the server: fast (sessions rolled back, a clean
	// shutdown) or immediate (no shutdown checkpoint: crash recovery at
	// the next start).
	haltSignal(immediate bool) syscall.Signal
	// ready succeeds once the server accepts its admin connection.
	ready(ctx context.Context, info *Info) error
}

// RestartOptions say how a server goes down and how long it stays down.
type RestartOptions struct {
	Immediate bool
	Down      time.Duration
	// Member names a replica to restart instead of the primary.
	Member string
}

// Restart stops the sandbox's server, waits o.Down, and starts it again
// on the same data directory, port and settings; it returns when the
// server accepts connections again.
func Restart(ctx context.Context, dir string, o RestartOptions) (*Info, error) {
	info, err := Load(dir)
	if err != nil {
		return nil, err
	}
	providers.mu.RLock()
	p := providers.providers[info.Engine]
	providers.mu.RUnlock()
	r, ok := p.(restarter)
	if !ok || len(info.Start) == 0 {
		return nil, errs.Usage("the %s sandbox in %s cannot be restarted (its server's command line is not recorded: start it again with this encbench)", info.Engine, info.Dir)
	}
	var u *user.User
	if info.RunAs != "" {
		if u, err = user.Lookup(info.RunAs); err != nil {
			return nil, fmt.Errorf("restarting %s: %w", info.Dir, err)
		}
	}
	if o.Member != "" {
		return restartMember(ctx, info, u, r, o)
	}
	pid, err := restartProcess(ctx, u, r, o, info.PID, info.Start, info.StartLog, info)
	if err != nil {
		return nil, fmt.Errorf("restarting the %s sandbox in %s: %w", info.Engine, info.Dir, err)
	}
	info.PID = pid
	if err := save(info); err != nil {
		return nil, err
	}
	return info, nil
}

// restartProcess stops a server, waits o.Down, starts it again with its
// command line and waits until it accepts its admin connection (admin);
// it returns the new process's pid.
func restartProcess(ctx context.Context, u *user.User, r restarter, o RestartOptions, pid int, start []string, log string, admin *Info) (int, error) {
	_ = quiet.Thaw(pid)
	if err := halt(pid, r.haltSignal(o.Immediate), 60*time.Second); err != nil {
		return 0, err
	}
	select {
	case <-time.After(o.Down):
	case <-ctx.Done():
		return 0, ctx.Err()
	}
	cmd, logf, err := command(u, log, start...)
	if err != nil {
		return 0, err
	}
	pid, exited, err := startServer(cmd, logf)
	if err != nil {
		return 0, err
	}
	if err := waitReady(ctx, exited, log, func(c context.Context) error { return r.ready(c, admin) }); err != nil {
		_ = stop(pid, 10*time.Second)
		return 0, err
	}
	return pid, nil
}

// restartMember restarts one replica on its own data, port and settings;
// it catches up from the primary once it is back.
func restartMember(ctx context.Context, info *Info, u *user.User, r restarter, o RestartOptions) (*Info, error) {
	i := slices.IndexFunc(info.Members, func(m Member) bool { return m.Name == o.Member })
	if i < 0 {
		has := "none"
		if len(info.Members) > 0 {
			names := make([]string, len(info.Members))
			for k, m := range info.Members {
				names[k] = m.Name
			}
			has = strings.Join(names, ", ")
		}
		return nil, errs.Usage("the sandbox in %s has no replica %q (it has %s)", info.Dir, o.Member, has)
	}
	m := &info.Members[i]
	admin := &Info{AdminDSN: m.AdminDSN, Socket: m.Socket, AdminPassword: info.AdminPassword}
	pid, err := restartProcess(ctx, u, r, o, m.PID, m.Start, m.StartLog, admin)
	if err != nil {
		return nil, fmt.Errorf("restarting %s of the sandbox in %s: %w", m.Name, info.Dir, err)
	}
	m.PID = pid
	return info, save(info)
}

// userName is the account a server runs as, "" for the invoking user.
func userName(u *user.User) string {
	if u == nil {
		return ""
	}
	return u.Username
}
