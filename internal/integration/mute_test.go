package integration

import (
	"bytes"
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// muteProxy stands between encbench and a server and goes silent, like a
// server frozen at that instant, the moment a client sends a given
// statement: that statement and everything after it in either direction
// is held, and new connections are accepted (the kernel's listen queue
// does that for a frozen server) but never answered. Freezing the server
// itself lands wherever the scheduler puts it; this lands on one
// statement every time.
type muteProxy struct {
	ln      net.Listener
	target  string
	trigger []byte
	muted   atomic.Bool
	mutedAt atomic.Int64
	mu      sync.Mutex
	conns   []net.Conn
	wg      sync.WaitGroup
}

func newMuteProxy(t *testing.T, target, trigger string) *muteProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &muteProxy{ln: ln, target: target, trigger: []byte(trigger)}
	p.wg.Add(1)
	go p.accept()
	t.Cleanup(p.close)
	return p
}

func (p *muteProxy) keep(c net.Conn) {
	p.mu.Lock()
	p.conns = append(p.conns, c)
	p.mu.Unlock()
}

func (p *muteProxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.keep(c)
		if p.muted.Load() {
			continue // accepted, never answered
		}
		up, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		p.keep(up)
		p.wg.Add(2)
		go p.pump(up, c, true)
		go p.pump(c, up, false)
	}
}

// pump copies from src to dst until the proxy mutes; the client's side
// (watch) mutes it on the trigger, which it does not pass on.
func (p *muteProxy) pump(dst, src net.Conn, watch bool) {
	defer p.wg.Done()
	buf := make([]byte, 32<<10)
	var tail []byte
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if watch {
				seen := append(tail, buf[:n]...)
				if bytes.Contains(seen, p.trigger) && !p.muted.Swap(true) {
					p.mutedAt.Store(time.Now().UnixNano())
				}
				tail = append(tail[:0], seen[max(0, len(seen)-len(p.trigger)):]...)
			}
			if p.muted.Load() {
				_, _ = io.Copy(io.Discard, src) // held until the proxy closes
				return
			}
			if _, err := dst.Write(buf[:n]); err != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

func (p *muteProxy) close() {
	p.ln.Close()
	p.mu.Lock()
	for _, c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
}

// A server that stops answering at any statement of an interleaved suite
// against a DSN target (its pre-flight checks, reading the data set
// record, a cell's set-up and proofs, a worker's statements) ends the
// suite with exit 1 and a line that says the server stopped answering,
// within a bound of that phase's own: never a wait for the server.
// (The freeze test's "connecting" case hung in CI for want of one: its
// freeze landed on pre-flight's read of the data set record.)
func TestMuteServerAtEachStatementEndsTheSuite(t *testing.T) {
	s := servers(t)[0]
	u, err := url.Parse(s.info.DSN)
	if err != nil {
		t.Fatal(err)
	}
	mustRun(t, "prepare", "oltp_point_select", "--dsn", s.info.DSN, "--tables", "1", "--table-size", "1000", "--force")
	defer mustRun(t, "cleanup", "oltp_point_select", "--dsn", s.info.DSN)
	for _, at := range []struct{ name, trigger string }{
		{"probe-table", "CREATE TABLE encbench_probe_"},
		{"dataset-record", "prepared_at FROM encbench_dataset"},
		{"server-info", "FROM pg_settings"},
		{"worker", "FROM sbtest1 WHERE id="},
	} {
		t.Run(at.name, func(t *testing.T) {
			p := newMuteProxy(t, u.Host, at.trigger)
			via := *u
			via.Host = p.ln.Addr().String()
			dir := t.TempDir()
			file := filepath.Join(dir, "s.yaml")
			text := "name: mute\ntargets:\n  - name: mine\n    dsn: '" + via.String() + "'\nvariants: [plain, aa]\n" +
				"workloads:\n  - name: oltp_point_select\nthreads: [2]\ntime: 4\nwarmup: 0\nrepetitions: 1\nprecision: 0\n" +
				"data: {tables: 1, table-size: 1000}\n"
			if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
				t.Fatal(err)
			}
			done := background("suite", "run", file, "--out", filepath.Join(dir, "out"), "--no-report")
			o := await(t, done, 3*time.Minute, p.close, "the suite, its server silent,")
			if !p.muted.Load() {
				t.Fatalf("no client sent %q: the test no longer reaches its statement (exit %d)\n%s%s", at.trigger, o.code, o.out, o.err)
			}
			took := time.Since(time.Unix(0, p.mutedAt.Load()))
			all := o.out + o.err
			if o.code != 1 || took > 90*time.Second || !strings.Contains(all, "in time") && !strings.Contains(all, "stopped answering") {
				t.Errorf("exit %d, %v after the server went silent:\n%s", o.code, took, all)
			}
			t.Logf("the suite ended %v after the server went silent", took.Round(time.Millisecond))
		})
	}
}
