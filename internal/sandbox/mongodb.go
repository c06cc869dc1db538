package sandbox

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/encbench/encbench/internal/encryption/certs"
	"github.com/encbench/encbench/internal/errs"
)

func init() { register(mongoProvider{}) }

// mongoProvider runs the MongoDB wire-protocol test server (mongo-java-server
// behind the project's launcher): no MongoDB server package exists here.
// Results say it is not mongod.
type mongoProvider struct{}

func (mongoProvider) Name() string { return "mongodb" }

const launcherJar = "mongo-test-server-1.jar"

// launcher finds the built test server: --bin-dir, $ENCBENCH_MONGO_TEST_SERVER,
// next to the encbench binary's checkout, or under the working directory.
func (mongoProvider) launcher(o Options) (string, error) {
	var dirs []string
	if o.BinDir != "" {
		dirs = append(dirs, o.BinDir)
	}
	if d := os.Getenv("ENCBENCH_MONGO_TEST_SERVER"); d != "" {
		dirs = append(dirs, d)
	}
	rel := filepath.Join("tools", "mongo-test-server", "target")
	if exe, err := os.Executable(); err == nil {
		dirs = append(dirs, filepath.Join(filepath.Dir(exe), "..", rel))
	}
	dirs = append(dirs, rel)
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, launcherJar)); err == nil {
			if _, err := exec.LookPath("java"); err != nil {
				return "", errs.Usage("the MongoDB test server needs java (apt-get install openjdk-17-jre-headless)")
			}
			return filepath.Abs(d)
		}
	}
	return "", errs.Usage("no MongoDB server package exists here: the mongodb sandbox runs the wire-protocol test server; build it with `make mongo-test-server` (Java 17 and Maven) or point ENCBENCH_MONGO_TEST_SERVER at its target directory")
}

func (p mongoProvider) Check(o Options) error {
	if o.tde() {
		return errs.Usage("the MongoDB test server has no encryption at rest: use --variant plain or tls")
	}
	_, err := p.launcher(o)
	return err
}

func (p mongoProvider) Up(ctx context.Context, o Options, port int, _ *user.User, files certs.Files) (*Info, error) {
	dir, err := p.launcher(o)
	if err != nil {
		return nil, err
	}
	// Runs as the invoking user: it needs no system account.
	data, _, logDir, err := serverDirs(o.Dir, nil)
	if err != nil {
		return nil, err
	}
	logPath := filepath.Join(logDir, "server.log")
	// -Dencbench.sandbox names the directory on the command line, where
	// ServersUnder looks for a sandbox's server.
	args := []string{"-Dencbench.sandbox=" + o.Dir, "-Xss512k", "-cp", filepath.Join(dir, launcherJar) + string(os.PathListSeparator) + filepath.Join(dir, "lib", "*"),
		"encbench.MongoTestServer", "--daemon", "--port", strconv.Itoa(port)}
	if o.tls() {
		args = append(args, "--tls-cert", files.ServerCert, "--tls-key", files.ServerKey)
	}
	cmd, logf, err := command(nil, logPath, o.pinned("java", args...)...)
	if err != nil {
		return nil, err
	}
	pid, exited, err := startServer(cmd, logf)
	if err != nil {
		return nil, err
	}
	ready := func(ctx context.Context) error {
		b, _ := os.ReadFile(logPath)
		if !strings.Contains(string(b), "listening ") {
			return fmt.Errorf("not listening yet")
		}
		var d net.Dialer
		c, err := d.DialContext(ctx, "tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		if err != nil {
			return err
		}
		return c.Close()
	}
	if err := waitReady(ctx, exited, logPath, ready); err != nil {
		_ = stop(pid, 10*time.Second)
		return nil, err
	}
	dsn := fmt.Sprintf("mongodb://127.0.0.1:%d/encbench", port)
	return &Info{Engine: "mongodb", Version: "MongoDB wire-protocol test server (mongo-java-server 1.47.0)", DSN: dsn, AdminDSN: dsn,
		PID: pid, Port: port, Dir: o.Dir, DataDir: data}, nil
}
