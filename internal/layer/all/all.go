// Package all registers every encryption layer encbench has: a new layer
// is one line here.
package all

import (
	_ "github.com/encbench/encbench/internal/layer/colenc"
	_ "github.com/encbench/encbench/internal/layer/fscrypt"
	_ "github.com/encbench/encbench/internal/layer/srvenc"
	_ "github.com/encbench/encbench/internal/layer/tde"
	_ "github.com/encbench/encbench/internal/layer/tls"
	_ "github.com/encbench/encbench/internal/layer/tlsrepl"
)
