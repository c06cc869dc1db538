package mongo

import "crypto/tls"

func tlsVersion(v uint16) string { return tls.VersionName(v) }
func tlsCipher(c uint16) string  { return tls.CipherSuiteName(c) }
