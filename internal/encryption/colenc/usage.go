package colenc

import (
	"encoding/binary"
	"fmt"
	"io"
	"strconv"
)

// RndLimit is how many times one AES-GCM key may seal with random 96-bit
// nonces: NIST SP 800-38D, section 8.3, keeps the chance of a repeated
// nonce (which breaks both confidentiality and authenticity) below 2^-32
// with at most 2^32 invocations per key.
const RndLimit = 1 << 32

// RndWarnAt is where encbench starts to warn: a quarter of the limit.
const RndWarnAt = RndLimit / 4

// rndUsesFile is beside the keyset: how many values each rnd key has
// sealed, summed over every prepare and run that used it on this machine.
func rndUsesFile(p Paths) countsFile {
	return countsFile{path: p.Resolved().Keyset + ".rnd-uses", what: "an encbench count of rnd uses"}
}

// rndKeyID names an rnd key by its Tink key id (from its output prefix).
func rndKeyID(k gcmKey) string {
	if len(k.prefix) == 5 {
		return strconv.FormatUint(uint64(binary.BigEndian.Uint32(k.prefix[1:])), 10)
	}
	return "raw"
}

// RecordRndUses adds the values the primary rnd key sealed since the last
// record (counted 64 nonces at a time, as Fields draw them) to the file
// beside the keyset, and returns that key's total.
func (c *Cipher) RecordRndUses(p Paths) (uint64, error) {
	if len(c.rnd) == 0 {
		return 0, nil
	}
	delta := c.rndSealed.Swap(0)
	id := rndKeyID(c.rnd[0])
	var total uint64
	err := rndUsesFile(p).update(func(uses map[string]uint64) (bool, error) {
		uses[id] += delta
		total = uses[id]
		return delta > 0, nil
	})
	return total, err
}

// RndUses reads how many values each rnd key (by Tink key id) has sealed.
func RndUses(p Paths) (map[string]uint64, error) { return rndUsesFile(p).read() }

// RndWarning is the line to show once a key's total passes RndWarnAt, or "".
func RndWarning(total uint64) string {
	if total < RndWarnAt {
		return ""
	}
	return fmt.Sprintf("encbench: warning: the primary rnd key has sealed %d values with random nonces; NIST SP 800-38D (section 8.3) allows 2^32 (%d) per key: run `encbench keys rotate` and prepare the tables again, so that new values are sealed under a new key", total, uint64(RndLimit))
}

// RecordRndUsesAndWarn records the primary rnd key's uses and writes
// RndWarning's line to log (when given) once they pass RndWarnAt.
func (c *Cipher) RecordRndUsesAndWarn(p Paths, log io.Writer) error {
	total, err := c.RecordRndUses(p)
	if err != nil {
		return fmt.Errorf("counting the rnd key's uses: %w", err)
	}
	if w := RndWarning(total); w != "" && log != nil {
		fmt.Fprintln(log, w)
	}
	return nil
}
