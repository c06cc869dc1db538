package mysql

import "testing"

// TestRequiresClientCert reads an account's TLS requirement from SHOW
// GRANTS as MariaDB prints it; a password's own text cannot fake one.
func TestRequiresClientCert(t *testing.T) {
	for grant, want := range map[string]bool{
		"GRANT USAGE ON *.* TO `sbtest`@`127.0.0.1` IDENTIFIED BY PASSWORD '*A1' REQUIRE X509": true,
		"GRANT USAGE ON *.* TO `u`@`%` REQUIRE SUBJECT '/CN=u' AND ISSUER '/CN=ca'":            true,
		"GRANT USAGE ON *.* TO `sbtest`@`127.0.0.1` IDENTIFIED BY PASSWORD '*A1' REQUIRE SSL":  false,
		"GRANT USAGE ON *.* TO `sbtest`@`127.0.0.1` IDENTIFIED BY PASSWORD '*A1'":              false,
		"GRANT ALL PRIVILEGES ON `sbtest`.* TO `sbtest`@`127.0.0.1`":                           false,
		"GRANT USAGE ON *.* TO `x509`@`127.0.0.1`":                                             false,
	} {
		if got := requiresClientCert(grant); got != want {
			t.Errorf("%s: %v, want %v", grant, got, want)
		}
	}
}
