package workload

import "github.com/encbench/encbench/internal/proof"

// The column encryption proof a workload fills in (package proof holds
// the types, so that the result document need not import workloads).
type (
	ColencProof  = proof.ColencProof
	ColencColumn = proof.ColencColumn
	TableStorage = proof.TableStorage
)
