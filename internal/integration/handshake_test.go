package integration

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/encbench/encbench/internal/engine"
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
	for _, engineName := range []string{"postgres", "mariadb"} {
		t.Run(engineName, func(t *testing.T) {
			info, _ := dsnServer(t, sandbox.Options{Engine: engineName, Variant: "tls", TLSOptional: true, BufferPool: "64M"})
			trips := map[string]int64{}
			for _, mode := range []struct{ name, tlsMode, version string }{
				{"off", engine.TLSDisable, ""}, {"tls1.2", engine.TLSVerifyFull, "1.2"}, {"tls1.3", engine.TLSVerifyFull, "1.3"},
			} {
				target, err := engine.ParseTarget(info.DSN, engine.TLSOptions{Mode: mode.tlsMode, Version: mode.version, CAFile: info.CA})
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
				target.WrapDial = func(d engine.DialFunc) engine.DialFunc { return link.DelayHandshake(d) }
				var times []time.Duration
				for range tries {
					start := time.Now()
					c, err := target.Engine.Connect(context.Background(), target)
					took := time.Since(start)
					if err != nil {
						t.Fatalf("%s: %v", mode.name, err)
					}
					tr, ok := c.(engine.Trafficker)
					if !ok {
						c.Close()
						t.Fatalf("%T counts no traffic", c)
					}
					got, _ := tr.Traffic()
					c.Close()
					if n := trips[mode.name]; n != 0 && n != got.RoundTrips {
						t.Errorf("%s: %d round trips, then %d", mode.name, n, got.RoundTrips)
					}
					trips[mode.name] = got.RoundTrips
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
