package tests_go

import (
	"math/big"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/godlpack/godlpack/core"
)

const derivedFlags = core.HeaderHost | core.HeaderCContig | core.HeaderFContig

// modelDerivedFlags states core.Header.SetDerivedFlags independently:
// host memory of DLPack's host kinds; numpy's contiguity (a zero dimension
// makes any layout contiguous, size-1 dimensions take any stride), with
// exact arithmetic.
func modelDerivedFlags(dev core.Device, shape, strides []int64) uint64 {
	var f uint64
	if modelFolds(dev.Type) {
		f |= core.HeaderHost
	}
	contig := func(order []int) bool {
		want := big.NewInt(1)
		for _, k := range order {
			if shape[k] == 0 {
				return true
			}
		}
		for _, k := range order {
			if shape[k] == 1 {
				continue
			}
			if big.NewInt(strides[k]).Cmp(want) != 0 {
				return false
			}
			want.Mul(want, big.NewInt(shape[k]))
		}
		return true
	}
	n := len(shape)
	c, fo := make([]int, n), make([]int, n)
	for i := range n {
		c[i], fo[i] = n-1-i, i
	}
	if contig(c) {
		f |= core.HeaderCContig
	}
	if contig(fo) {
		f |= core.HeaderFContig
	}
	return f
}

func TestSetDerivedFlagsTable(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name           string
		shape, strides []int64
	}{
		{"0-d", nil, nil},
		{"1-d", []int64{5}, []int64{1}},
		{"1-d strided", []int64{5}, []int64{2}},
		{"1-d reversed", []int64{5}, []int64{-1}},
		{"2-d C", []int64{2, 3}, []int64{3, 1}},
		{"2-d F", []int64{2, 3}, []int64{1, 2}},
		{"size-1 dims odd strides", []int64{1, 4, 1}, []int64{99, 1, -7}},
		{"empty with garbage strides", []int64{3, 0, 2}, []int64{5, 7, 11}},
		{"broadcast", []int64{3, 4}, []int64{0, 1}},
		{"all ones", []int64{1, 1}, []int64{3, 5}},
	}
	devices := []core.Device{core.CPU, {Type: core.KDLCUDAHost}, {Type: core.KDLCUDA, ID: 1}, {Type: core.KDLOneAPI}}
	for _, c := range cases {
		for _, d := range devices {
			h := core.Header{Device: d, Flags: core.HeaderReadOnly | derivedFlags}
			h.SetDerivedFlags(c.shape, c.strides)
			assert.Equal(t, core.HeaderReadOnly|modelDerivedFlags(d, c.shape, c.strides), h.Flags, "%s on %s", c.name, d)
		}
	}
}
