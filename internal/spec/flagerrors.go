package spec

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/encbench/encbench/internal/errs"
)

// flagError turns the flag parser's error into one line a user can act
// on: sysbench's connection flags get the equivalent --dsn, a misspelt
// flag the closest real one, a malformed number what the flag takes.
func flagError(err error, fs *pflag.FlagSet, args []string, cmd Command, workloadName string) error {
	see := fmt.Sprintf("see encbench %s %s --help", cmd, workloadName)
	if workloadName == "" {
		see = fmt.Sprintf("see encbench %s WORKLOAD --help", cmd)
	}
	var missing *pflag.NotExistError
	if errors.As(err, &missing) {
		name := missing.GetSpecifiedName()
		if isSysbenchConnFlag(name) {
			return errs.Usage("--%s is sysbench's way to name the server; encbench takes one DSN instead: %s", name, sysbenchDSN(args))
		}
		var names []string
		fs.VisitAll(func(f *pflag.Flag) {
			if !f.Hidden {
				names = append(names, "--"+f.Name)
			}
		})
		return errs.Usage("unknown flag --%s%s (%s)", name, errs.DidYouMean("--"+name, names), see)
	}
	var invalid *pflag.InvalidValueError
	if errors.As(err, &invalid) {
		f := invalid.GetFlag()
		what := map[string]string{
			"int": "a whole number", "int64": "a whole number", "float64": "a number",
			"duration": "a duration such as 500ms or 2s", "bool": "true or false",
		}[f.Value.Type()]
		if what == "" {
			return errs.Usage("--%s: %q is not a valid value: %v (%s)", f.Name, invalid.GetValue(), errors.Unwrap(invalid), see)
		}
		if f.Name == "report-interval" || f.Name == "time" || f.Name == "warmup-time" {
			what = "whole seconds, as sysbench's does"
		}
		return errs.Usage("--%s takes %s, not %q (%s)", f.Name, what, invalid.GetValue(), see)
	}
	return errs.Usage("%w (%s)", err, see)
}

func isSysbenchConnFlag(name string) bool {
	return name == "db-driver" || strings.HasPrefix(name, "mysql-") || strings.HasPrefix(name, "pgsql-")
}

// sysbenchDSN writes sysbench's connection flags as encbench's --dsn (and
// --tls), with sysbench's defaults for what is not given; a password
// becomes PASSWORD, so the line shows none.
func sysbenchDSN(args []string) string {
	v := sysbenchFlags(args)
	driver := v["db-driver"]
	if driver == "" {
		driver = "mysql"
		for k := range v {
			if strings.HasPrefix(k, "pgsql-") {
				driver = "pgsql"
			}
		}
	}
	scheme, port := "mysql", "3306"
	if driver == "pgsql" {
		scheme, port = "postgres", "5432"
	}
	get := func(key, def string) string {
		if s, ok := v[driver+"-"+key]; ok && s != "" {
			return s
		}
		return def
	}
	u := url.URL{Scheme: scheme, Path: "/" + get("db", "sbtest")}
	user := get("user", "sbtest")
	u.User = url.User(user)
	note := ""
	if _, ok := v[driver+"-password"]; ok {
		u.User = url.UserPassword(user, "PASSWORD")
		note = " (your password in place of PASSWORD)"
	}
	host := get("host", "127.0.0.1")
	if host == "localhost" {
		host = "127.0.0.1"
	}
	u.Host = net.JoinHostPort(host, get("port", port))
	if sock := get("socket", ""); sock != "" {
		u.RawQuery = url.Values{"socket": {sock}}.Encode()
	}
	dsn := "--dsn " + u.String()
	if ssl := get("ssl", "off"); ssl != "off" && ssl != "disable" {
		dsn += " --tls require"
	}
	return dsn + note
}

// sysbenchFlags collects --name=value and --name value pairs by name.
func sysbenchFlags(args []string) map[string]string {
	v := map[string]string{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "--") {
			continue
		}
		name, val, hasVal := strings.Cut(a[2:], "=")
		name = strings.ReplaceAll(name, "_", "-")
		if !isSysbenchConnFlag(name) {
			continue
		}
		if !hasVal && i+1 < len(args) && !strings.HasPrefix(args[i+1], "--") {
			val = args[i+1]
			i++
		}
		v[name] = val
	}
	return v
}

// runnerOnly are run's flags that a sysbench option string shared by
// prepare, run and cleanup carries; the other phases take and ignore them.
var runnerOnly = []string{"time", "events", "report-interval", "warmup-time", "rate", "percentile"}

// dropRunnerFlags removes run's flags from another phase's arguments and
// returns the names it removed.
func dropRunnerFlags(cmd Command, args []string) (kept, ignored []string) {
	if cmd == Run {
		return args, nil
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, _, hasVal := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		name = strings.ReplaceAll(name, "_", "-")
		if !strings.HasPrefix(a, "--") || !slices.Contains(runnerOnly, name) {
			kept = append(kept, a)
			continue
		}
		if !hasVal && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
			i++
		}
		ignored = append(ignored, "--"+name)
	}
	return kept, ignored
}
