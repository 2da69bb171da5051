package kernels

// Temporary exports for core's comparisons and reductions until they move
// here; deleted with the move.

const ParallelMin = parallelMin

func SplitRange(start, stop, w int64, do func(lo, hi int64)) { splitRange(start, stop, w, do) }

func OrderAxes(shape, a, b []int64) int { return orderAxes(shape, a, b) }
