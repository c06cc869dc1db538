package colenc

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
)

// DataSetLen is the length of a data set's nonce.
const DataSetLen = 16

// NewDataSet draws the nonce that binds a prepared data set's ashe keys:
// each prepare under a keyset gets its own, so two data sets never share
// a pseudorandom mask, whatever their seeds and identifiers (Seabed,
// Papadimitriou et al., OSDI 2016, section 4.1: an identifier may serve
// one encryption only under a key).
func NewDataSet() []byte {
	b := make([]byte, DataSetLen)
	rand.Read(b) // never fails (crypto/rand, Go 1.24+)
	return b
}

// ForDataSet is the keyset's Cipher with its ashe keys bound to a data
// set's nonce (the other schemes' keys do not depend on it).
func (c *Cipher) ForDataSet(nonce []byte) (*Cipher, error) {
	if len(nonce) != DataSetLen {
		return nil, fmt.Errorf("a data set nonce has %d bytes, not %d", len(nonce), DataSetLen)
	}
	return &Cipher{rnd: c.rnd, det: c.det, rndSealed: c.rndSealed, dataSet: append([]byte(nil), nonce...)}, nil
}

// DataSet is the nonce the cipher's ashe keys are bound to (nil if none).
func (c *Cipher) DataSet() []byte { return c.dataSet }

// dataSetColumn is where the nonce is stored sealed: rnd AEAD, so a
// server cannot forge one, and bound to this use by its associated data.
var dataSetColumn = Column{Table: "encbench", Name: "ashe_data_set", Scheme: Rnd}

// SealDataSet is the nonce as stored with the data set.
func (c *Cipher) SealDataSet(nonce []byte) ([]byte, error) {
	return c.Encrypt(dataSetColumn, nil, Text(hex.EncodeToString(nonce)))
}

// OpenDataSet authenticates and reads a stored nonce.
func (c *Cipher) OpenDataSet(sealed []byte) ([]byte, error) {
	v, err := c.Decrypt(dataSetColumn, nil, sealed)
	if err != nil {
		return nil, fmt.Errorf("the data set's ashe nonce does not authenticate under this keyset: %w", err)
	}
	b, err := hex.DecodeString(v.S)
	if err != nil || len(b) != DataSetLen {
		return nil, errors.New("the data set's ashe nonce is malformed")
	}
	return b, nil
}

// Ledger is this client's own record, per data set, of the highest ashe
// identifier it has reserved: a file beside the keyset (mode 0600). The
// identifier counter lives on the server, and a server that set it back
// would have the client encrypt two values under one identifier, which
// reveals their difference; the ledger refuses a counter below its mark.
// It covers the clients that share the file (one machine); generators on
// other machines keep their own.
type Ledger struct{ file countsFile }

// LedgerFor is the ledger of p's keyset.
func LedgerFor(p Paths) Ledger {
	return Ledger{file: countsFile{path: p.Resolved().Keyset + ".ashe-ids", what: "an encbench ashe ledger"}}
}

// Path is the ledger file's path.
func (l Ledger) Path() string { return l.file.path }

// Reserve records that identifiers first..first+n-1 of the data set are
// about to be used, after checking that first is at or above both floor
// (the counter's known start) and every identifier reserved before. The
// record is on disk (synced, atomically replaced) before Reserve returns,
// so it holds before any identifier is used.
func (l Ledger) Reserve(dataSet []byte, first, n, floor uint64) error {
	key := hex.EncodeToString(dataSet)
	return l.file.update(func(marks map[string]uint64) (bool, error) {
		if err := l.behind(first, max(marks[key], floor)); err != nil {
			return false, err
		}
		if first+n < first {
			return false, fmt.Errorf("ashe identifier counter %d overflows", first)
		}
		if marks[key] == first+n {
			return false, nil
		}
		marks[key] = first + n
		return true, nil
	})
}

// Check refuses a server counter below floor or below this client's mark
// for the data set, before a run uses any identifier; a counter above the
// mark becomes the mark (what the server has handed out, the client will
// not take again).
func (l Ledger) Check(dataSet []byte, counter, floor uint64) error {
	return l.Reserve(dataSet, counter, 0, floor)
}

func (l Ledger) behind(counter, need uint64) error {
	if counter < need {
		return fmt.Errorf("the server's ashe identifier counter (%d) is below %d, the next identifier this client may use for these tables (ledger %s): the counter was set back, and encrypting under a used identifier would reveal the difference of two values; prepare the tables again", counter, need, l.file.path)
	}
	return nil
}
