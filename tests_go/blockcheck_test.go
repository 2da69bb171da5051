package tests_go

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/godlpack/godlpack/core"
)

// core.CheckBlocks (GODLPACK_CHECK_BLOCKS=1): the loops see the same values
// and write back the same, and a block kept past its step faults on its
// next use, in the sealed memory IsSealedBlock names. Not parallel: the
// switch is the process's (parallel tests run after this one returns).

func TestCheckedBlocksGiveTheSameValuesAndWriteBack(t *testing.T) {
	defer core.CheckBlocks(core.CheckBlocks(true))
	require.True(t, core.BlocksChecked())
	checkBlocks(t, core.Float64, func(i int64) float64 { return float64(i) })
	checkBlocks(t, core.Int8, func(i int64) int8 { return int8(i % 100) })
	checkMapBlocks(t)
}

// usedAfter reads r's first element after its step and returns the fault
// address, or 0 when the read did not fault.
func usedAfter(r core.Reader[float64]) (addr uintptr, v float64) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if f, ok := recover().(interface{ Addr() uintptr }); ok {
			addr = f.Addr()
		}
	}()
	return 0, r.At(0)
}

func TestAKeptBlockFaultsOnItsNextUseWhenChecked(t *testing.T) {
	a, err := core.Empty(core.Float64, 4, 10)
	require.NoError(t, err)
	defer a.Release()
	s, _ := a.Float64s()
	for i := range s {
		s[i] = float64(i)
	}
	col, err := a.Transpose() // runs of 10 elements: gathered
	require.NoError(t, err)
	defer col.Release()
	for _, c := range []struct {
		name string
		a    *core.Array
	}{{"the array's own memory", a}, {"a gathered block", col}} {
		for _, on := range []bool{false, true} {
			prev := core.CheckBlocks(on)
			it, err := core.ReadBlocks[float64](c.a)
			require.NoError(t, err)
			var kept core.Reader[float64]
			for r := range it {
				kept = r
				break
			}
			addr, v := usedAfter(kept)
			core.CheckBlocks(prev)
			if !on {
				assert.Zero(t, addr, "%s, unchecked: the kept block still reads", c.name)
				assert.Equal(t, 0.0, v, c.name)
				continue
			}
			assert.NotZero(t, addr, "%s, checked: the kept block must fault", c.name)
			assert.True(t, core.IsSealedBlock(addr), "%s: the fault at %#x is in a sealed block", c.name, addr)
		}
	}
	assert.False(t, core.IsSealedBlock(uintptr(a.DataPtr())), "the array's memory is not a sealed block")
}
