package integration

import (
	"context"
	"net"
	"slices"
	"testing"
	"time"

	"github.com/encbench/encbench/internal/engine"
	"github.com/encbench/encbench/internal/engine/netconn"
	"github.com/encbench/encbench/internal/netem"
	"github.com/encbench/encbench/internal/sandbox"
)

// TestConnectAtAnRTTTakesItsRoundTrips: through the emulated network at
// +2 ms, with TCP's handshake delayed by the dialer, a connection takes
// at least one RTT per round trip its protocol needs: TCP's, and those
// counted on the socket (TLS 1.2 two, TLS 1.3 one or, after a
// HelloRetryRequest, two; the server's start-up and authentication). The
// counts and times are logged: the connect anatomy at +2 ms.
func TestConnectAtAnRTTTakesItsRoundTrips(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers")
	}
	const rtt = 2 * time.Millisecond
	const tries = 6
	for _, engineName := range []string{"postgres", "mariadb", "mongodb"} {
		t.Run(engineName, func(t *testing.T) {
			// One server offers TLS as an option; FerretDB serves TLS on a
			// port of its own, so MongoDB's modes take a server each.
			var plain, withTLS *sandbox.Info
			if engineName == "mongodb" {
				plain, withTLS = mongoServer(t, "plain"), mongoServer(t, "tls")
			} else {
				plain, _ = dsnServer(t, sandbox.Options{Engine: engineName, Variant: "tls", TLSOptional: true, BufferPool: "64M"})
				withTLS = plain
			}
			trips := map[string]int64{}
			for _, mode := range []struct {
				name, tlsMode, version string
				server                 *sandbox.Info
			}{
				{"off", engine.TLSDisable, "", plain}, {"tls1.2", engine.TLSVerifyFull, "1.2", withTLS}, {"tls1.3", engine.TLSVerifyFull, "1.3", withTLS},
			} {
				target, err := engine.ParseTarget(mode.server.DSN, engine.TLSOptions{Mode: mode.tlsMode, Version: mode.version, CAFile: mode.server.CA})
				if err != nil {
					t.Fatal(err)
				}
				link, err := netem.Start(target.URL.Host, netem.Options{RTT: rtt})
				if err != nil {
					t.Fatal(err)
				}
				defer link.Close()
				target.TLS.ServerName = target.URL.Hostname()
				u := *target.URL
				u.Host = link.Addr
				target.URL = &u
				// Every socket the connect dials is kept: MongoDB's driver
				// opens a monitoring socket beside the one it connects on,
				// and the two run side by side, so the connection's round
				// trips are those of its busiest socket.
				var sockets []net.Conn
				target.WrapDial = func(d engine.DialFunc) engine.DialFunc {
					delayed := link.DelayHandshake(d)
					return func(ctx context.Context, network, addr string) (net.Conn, error) {
						c, err := delayed(ctx, network, addr)
						if err == nil {
							sockets = append(sockets, c)
						}
						return c, err
					}
				}
				var times []time.Duration
				for range tries {
					sockets = nil
					start := time.Now()
					c, err := target.Engine.Connect(context.Background(), target)
					took := time.Since(start)
					if err != nil {
						t.Fatalf("%s: %v", mode.name, err)
					}
					var got int64
					for _, s := range sockets {
						tr, ok := netconn.SocketTraffic(s)
						if !ok {
							t.Fatalf("%T counts no traffic", s)
						}
						got = max(got, tr.RoundTrips)
					}
					c.Close()
					if n := trips[mode.name]; n != 0 && n != got {
						t.Errorf("%s: %d round trips, then %d", mode.name, n, got)
					}
					trips[mode.name] = got
					times = append(times, took)
				}
				slices.Sort(times)
				least := time.Duration(trips[mode.name]+1) * rtt
				if times[0] < least {
					t.Errorf("%s: a connection took %v, less than %d round trips (TCP's and %d counted) of %v", mode.name, times[0], trips[mode.name]+1, trips[mode.name], rtt)
				}
				t.Logf("%s %s at +%v: %d round trips counted + TCP's = %v at least; median connect %v (%v over the round trips)",
					engineName, mode.name, rtt, trips[mode.name], least, times[len(times)/2], times[len(times)/2]-least)
			}
			if trips["tls1.2"] < trips["off"]+2 || trips["tls1.3"] < trips["off"]+1 {
				t.Errorf("round trips %v: TLS 1.2 adds two and TLS 1.3 at least one", trips)
			}
		})
	}
}
