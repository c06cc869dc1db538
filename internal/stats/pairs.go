package stats

import (
	"maps"
	"slices"
)

// PairRepetitions pairs two runs' repetitions (baseline's and variant's
// repetition numbers, one entry per measured block): the indexes into
// each of the repetitions both hold, in repetition order. Nil when a
// repetition appears twice on either side (the blocks are then not
// known) or fewer than two pair: no paired interval.
func PairRepetitions(baseline, variant []int) (ib, iv []int) {
	index := func(reps []int) map[int]int {
		m := map[int]int{}
		for i, r := range reps {
			if _, dup := m[r]; dup {
				return nil
			}
			m[r] = i
		}
		return m
	}
	mb, mv := index(baseline), index(variant)
	if mb == nil || mv == nil {
		return nil, nil
	}
	for _, rep := range slices.Sorted(maps.Keys(mv)) {
		if i, ok := mb[rep]; ok {
			ib, iv = append(ib, i), append(iv, mv[rep])
		}
	}
	if len(ib) < 2 {
		return nil, nil
	}
	return ib, iv
}

// LossByRepetition is the variant's throughput loss against the baseline
// from runs numbered by repetition: paired per block (PairedLossPct) when
// the repetitions pair, else from the means (LossPct).
func LossByRepetition(baseReps []int, base []float64, varReps []int, variant []float64) (Loss, error) {
	if xb, xv, ok := pairedValues(baseReps, base, varReps, variant); ok {
		return PairedLossPct(xb, xv)
	}
	return LossPct(base, variant)
}

// DiffByRepetition is variant - baseline from runs numbered by
// repetition: paired per block (PairedDiff) when the repetitions pair,
// else from the means (DiffOfMeans).
func DiffByRepetition(baseReps []int, base []float64, varReps []int, variant []float64) (Diff, error) {
	if xb, xv, ok := pairedValues(baseReps, base, varReps, variant); ok {
		return PairedDiff(xb, xv)
	}
	return DiffOfMeans(base, variant)
}

// pairedValues are the two sides' values of the repetitions both hold, in
// repetition order; false when the repetitions do not pair.
func pairedValues(baseReps []int, base []float64, varReps []int, variant []float64) (xb, xv []float64, ok bool) {
	ib, iv := PairRepetitions(baseReps, varReps)
	if ib == nil {
		return nil, nil, false
	}
	xb, xv = make([]float64, len(ib)), make([]float64, len(iv))
	for k := range ib {
		xb[k], xv[k] = base[ib[k]], variant[iv[k]]
	}
	return xb, xv, true
}
