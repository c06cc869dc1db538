package mysql

import (
	"database/sql/driver"
	"fmt"
	"net"
	"reflect"
	"unsafe"
)

// Capability bits encbench's reply parsing depends on (MySQL's
// CLIENT_DEPRECATE_EOF; MariaDB's MARIADB_CLIENT_CACHE_METADATA, bit 4 of
// the extended capabilities).
const (
	capDeprecateEOF = 1 << 24
	extCacheMeta    = 1 << 4
)

// session is what the driver agreed with the server during its handshake.
type session struct {
	nc           net.Conn
	deprecateEOF bool
	cacheMeta    bool
}

// takeOver reaches into go-sql-driver's connection for the socket it
// authenticated (its TLS connection when TLS is on) and the capabilities it
// negotiated. The driver does the handshake with every authentication
// plugin and TLS, which encbench has no reason to write again, but offers
// no hijack as pgconn does; go.mod pins its version, and any change to the
// fields read here fails the connection with this error (and the tests).
//
// Nothing of the driver's reads the socket after Connect returns, so no
// byte can be taken from under encbench: the driver reads only in the
// calling goroutine (mysqlConn.readPacket through its buffer, no
// background reader), and its one goroutine per connection (startWatcher)
// only watches contexts; connector.Connect ends with mc.finish(), which
// waits until the watcher has let go of Connect's context, so a later end
// of that context cannot close the socket either. What the driver read
// ahead would sit in its buffer, which must be empty (checked below).
// TestMySQLTakeOverLosesNoReply checks this with slowed writes.
func takeOver(dc driver.Conn) (session, error) {
	v := reflect.ValueOf(dc)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return session{}, layoutError(dc, "a pointer to a struct")
	}
	s := v.Elem()
	ncField := s.FieldByName("netConn")
	if !ncField.IsValid() || ncField.Type() != reflect.TypeFor[net.Conn]() {
		return session{}, layoutError(dc, "a netConn field")
	}
	caps, ext := s.FieldByName("capabilities"), s.FieldByName("extCapabilities")
	if caps.Kind() != reflect.Uint32 || ext.Kind() != reflect.Uint32 {
		return session{}, layoutError(dc, "capability fields")
	}
	if c := s.FieldByName("compress"); c.Kind() != reflect.Bool || c.Bool() {
		return session{}, layoutError(dc, "an uncompressed session")
	}
	// The handshake's last reply has been read whole: nothing may wait in
	// the driver's buffer that encbench's reader would miss.
	if buf := s.FieldByName("buf").FieldByName("buf"); buf.Kind() != reflect.Slice || buf.Len() != 0 {
		return session{}, layoutError(dc, "an empty read buffer")
	}
	nc := *(*net.Conn)(unsafe.Pointer(ncField.UnsafeAddr()))
	if nc == nil {
		return session{}, layoutError(dc, "an open socket")
	}
	return session{
		nc:           nc,
		deprecateEOF: caps.Uint()&capDeprecateEOF != 0,
		cacheMeta:    ext.Uint()&extCacheMeta != 0,
	}, nil
}

func layoutError(dc driver.Conn, want string) error {
	return fmt.Errorf("go-sql-driver's connection (%T) no longer has %s: encbench reads it after the handshake, so this driver version needs encbench's engine/mysql updated", dc, want)
}
