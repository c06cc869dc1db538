// Package serverconf holds the one rule a server setting given to
// encbench must meet, wherever it is given (a sandbox's --set, a suite's
// server_settings), so that the suite's checks need no sandbox code.
package serverconf

import (
	"regexp"
	"strings"

	"github.com/encbench/encbench/internal/errs"
)

var settingName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.-]*$`)

// Check accepts one name=value server setting: a plain name and a
// one-line value, so a setting cannot add lines of its own to the file.
func Check(kv string) error {
	name, value, ok := strings.Cut(kv, "=")
	if !ok || !settingName.MatchString(name) || value == "" || strings.ContainsAny(value, "\n\r\x00") {
		return errs.Usage("bad server setting %q: give name=value, for example --set innodb_doublewrite=0", kv)
	}
	return nil
}
