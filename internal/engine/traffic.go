package engine

import (
	"github.com/encbench/encbench/internal/engine/netconn"
)

// Trafficker is a connection that can say what crossed its socket: bytes
// each way and round trips, counted where encbench's own protocol code
// sends and receives (TLS records included).
type Trafficker interface {
	Traffic() (netconn.Traffic, bool)
}
