// Package proof holds the proofs a run carries in its result that the
// layers were on, as data: the workloads fill them in, the result document
// and the reports read them, and none of those needs the other's code.
package proof

// ColencProof lists the columns a level encrypts and what the server holds
// in them: stored values read raw and checked to be ciphertexts of their
// column (and row) under the run's keyset.
type ColencProof struct {
	// Name is the variant this encryption is reported as (colencNN when empty).
	Name string `json:"name,omitempty"`
	// Predicate says where the workload's predicate on an encrypted column
	// ran: on the server, as an IN list, or in a client-side filter.
	Predicate       string         `json:"predicate,omitempty"`
	Level           int            `json:"level"`
	Columns         []ColencColumn `json:"columns"`
	BusinessColumns int            `json:"business_columns"`
	SharePct        float64        `json:"share_pct"`
	Source          string         `json:"source"`
	Checked         int            `json:"checked"`
	Ciphertext      int            `json:"ciphertext"`
	// Storage is each table's size as the server reports it, read before
	// the run.
	Storage []TableStorage `json:"storage,omitempty"`
}

// TableStorage is one table's rows and bytes, from the server's own
// statistics and size functions.
type TableStorage struct {
	Table      string `json:"table"`
	Rows       int64  `json:"rows"`
	TableBytes int64  `json:"table_bytes"`
	IndexBytes int64  `json:"index_bytes"`
}

// ColencColumn is one encrypted column and its scheme.
type ColencColumn struct {
	Table  string `json:"table"`
	Column string `json:"column"`
	Scheme string `json:"scheme"`
	// Copy marks a copy of another column kept for the server's work (such
	// as sbtest's k_sum or k_value), not a business column.
	Copy bool `json:"copy,omitempty"`
}

// BusinessEncrypted counts the encrypted business columns (copies aside).
func (p *ColencProof) BusinessEncrypted() int {
	n := 0
	for _, c := range p.Columns {
		if !c.Copy {
			n++
		}
	}
	return n
}

// LayerProof is a plugin layer's proof from the server's side (package
// layer's Plugin): what was read, where, and what it showed.
type LayerProof struct {
	// Layer is the layer's canonical name with its options.
	Layer string `json:"layer"`
	// Source names what was read (a catalogue, a raw table, an ioctl).
	Source string `json:"source"`
	// Checked values or objects, of which Proven showed the layer on.
	Checked int `json:"checked"`
	Proven  int `json:"proven"`
	// Facts are what the proof read, by name (the functions and mode,
	// the column types, the key's route).
	Facts map[string]string `json:"facts,omitempty"`
	// Leakage is the message id stem of the layer's leakage statement.
	Leakage string `json:"leakage,omitempty"`
}
