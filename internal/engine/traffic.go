package engine

import (
	"net"

	"github.com/encbench/encbench/internal/engine/netconn"
)

// Trafficker is a connection that can say what crossed its socket: bytes
// each way and round trips, counted where encbench's own protocol code
// sends and receives (TLS records included).
type Trafficker interface {
	Traffic() (netconn.Traffic, bool)
}

// SocketTraffic reads the counts of the encbench socket under c, through
// TLS and any wrapper that gives its connection (NetConn); false when c
// is not one of encbench's sockets.
func SocketTraffic(c net.Conn) (netconn.Traffic, bool) { return netconn.SocketTraffic(c) }
