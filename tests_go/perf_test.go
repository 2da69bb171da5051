package tests_go

import (
	"sync"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/godlpack/godlpack/core"
	"github.com/godlpack/godlpack/tests_go/cfixture"
)

// The entry points the CPython skin uses to keep exports and imports at one
// C->Go crossing and no Go->C call: ExportVersionedIn / ExportLegacyIn into a
// caller's C block, InitOwner on a caller's C block, and Retain as a Go
// atomic on the same int64 that core/owner.c updates with __atomic builtins.

func TestPerfExportIntoCallerBlock(t *testing.T) {
	h := cHeader(t, core.Float64, 8*6, 2)
	shape, strides := []int64{2, 3}, []int64{3, 1}
	for _, versioned := range []bool{true, false} {
		block := cfixture.Alloc(int64(core.ExportBlockSize(2)))
		var p unsafe.Pointer
		var tens *core.DLTensor
		if versioned {
			m, err := core.ExportVersionedIn(block, h, shape, strides, core.FlagIsCopied)
			require.NoError(t, err)
			p, tens = unsafe.Pointer(m), &m.DLTensor
			assert.Equal(t, core.FlagIsCopied, m.Flags)
		} else {
			m, err := core.ExportLegacyIn(block, h, shape, strides)
			require.NoError(t, err)
			p, tens = unsafe.Pointer(m), &m.DLTensor
		}
		assert.Equal(t, block, p, "the export is the caller's block")
		assert.Equal(t, []int64{2, 3}, unsafe.Slice(tens.Shape, 2))
		assert.Equal(t, []int64{3, 1}, unsafe.Slice(tens.Strides, 2))
		assert.EqualValues(t, 2, h.Owner.Refs(), "the export holds one reference")
		// the deleter (C) releases the reference and frees the block
		o, err := core.NewOwner(map[bool]core.OwnerKind{true: core.OwnVersioned, false: core.OwnLegacy}[versioned], p, nil)
		require.NoError(t, err)
		o.Release()
		assert.EqualValues(t, 1, h.Owner.Refs())
	}
}

func TestPerfExportIntoBlockRefusalLeavesBlock(t *testing.T) {
	h := cHeader(t, core.Float64, 8, 1)
	h.Flags |= core.HeaderReadOnly
	block := cfixture.Alloc(int64(core.ExportBlockSize(1)))
	defer cfixture.FreeMem(block)
	_, err := core.ExportLegacyIn(block, h, []int64{1}, []int64{1})
	require.ErrorIs(t, err, core.ErrReadOnlyLegacy)
	assert.EqualValues(t, 1, h.Owner.Refs(), "no reference taken on refusal")
}

func TestPerfExportBlockSize(t *testing.T) {
	v := unsafe.Sizeof(core.DLManagedTensorVersioned{})
	assert.Equal(t, v+16, core.ExportBlockSize(0), "ndim 0 still gets one shape and one stride")
	assert.Equal(t, v+16, core.ExportBlockSize(1))
	assert.Equal(t, v+2*8*64, core.ExportBlockSize(64))
	assert.Less(t, unsafe.Sizeof(core.DLManagedTensor{}), v, "a legacy export fits the versioned size")
}

func TestPerfInitOwnerAndAtomicRetain(t *testing.T) {
	p := cfixture.Alloc(64)
	block := cfixture.Alloc(64) // >= sizeof(gd_owner); freed by the last Release
	o := core.InitOwner(block, core.OwnFree, p, cfixture.FreeFunc())
	assert.Equal(t, core.OwnFree, o.Kind())
	assert.EqualValues(t, 1, o.Refs())
	// Go atomic Retain and C Release (gd_owner_decref) on the same counter,
	// from many goroutines at once.
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 1000; i++ {
				o.Retain()
				o.Release()
			}
		}()
	}
	wg.Wait()
	assert.EqualValues(t, 1, o.Refs())
	o.Release() // frees p and the block (C free): no leak, no double free
}

func TestPerfHotPathsAllocateNothing(t *testing.T) {
	h := cHeader(t, core.Float64, 8*16, 1)
	shape, strides := []int64{16}, []int64{1}
	allocs := testing.AllocsPerRun(200, func() {
		block := cfixture.Alloc(int64(core.ExportBlockSize(1)))
		m, err := core.ExportVersionedIn(block, h, shape, strides, 0)
		if err != nil {
			panic(err)
		}
		ob := cfixture.Alloc(64)
		o := core.InitOwner(ob, core.OwnVersioned, unsafe.Pointer(m), nil)
		o.Retain()
		o.Release()
		o.Release()
	})
	assert.Zero(t, allocs)
}

// PlanExportTo writes its whole plan over whatever *out held, and leaves it
// zero on a refusal found after planExport had filled some fields (the stream).
func TestPerfPlanExportToOverwritesItsPlan(t *testing.T) {
	stale := core.ExportPlan{Versioned: true, Version: core.Version{Major: 9}, Copy: true,
		Target: core.Device{Type: core.KDLCUDA, ID: 3}, ExtraFlags: 99}

	p := stale
	req := core.ExportRequest{HasMaxVersion: true, MaxVersion: core.Version{Major: 1, Minor: 3}, HasStream: true, Stream: 5}
	err := core.PlanExportTo(core.CPU, false, &req, &p)
	require.Error(t, err)
	assert.ErrorIs(t, err, core.ErrStream)
	assert.Equal(t, core.ExportPlan{}, p, "zero plan on error")

	p = stale
	req = core.ExportRequest{}
	require.NoError(t, core.PlanExportTo(core.CPU, false, &req, &p))
	assert.Equal(t, core.ExportPlan{Target: core.CPU}, p, "a legacy view of a CPU array keeps nothing of the old plan")
}
