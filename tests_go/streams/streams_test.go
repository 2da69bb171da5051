// Package streams_test checks core's consumer-stream rule (PlanImport's
// RetryStream and Sync) with a fake backends.StreamBackend registered for
// kDLVulkan in its own test binary: no SYCL runtime is needed.
package streams_test

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/godlpack/godlpack/backends"
	"github.com/godlpack/godlpack/core"
)

// queued serves kDLVulkan memory with one device (id 0) whose producers
// order their work only before a consumer's stream.
type queued struct{}

var queue [8]byte // the queue handle ConsumerStream names

func (queued) Type() backends.DeviceType { return backends.DeviceType(core.KDLVulkan) }
func (queued) HostAccessible() bool      { return false }
func (queued) FoldsByteOffset() bool     { return false }
func (queued) Allocate(int32, int64, bool) (unsafe.Pointer, error) {
	return nil, backends.ErrNoMemory
}
func (queued) Free(unsafe.Pointer)                                     {}
func (queued) FreeFunc() unsafe.Pointer                                { return nil }
func (queued) Copy(int32, unsafe.Pointer, unsafe.Pointer, int64) error { return nil }
func (queued) CopyFromHost(int32, unsafe.Pointer, unsafe.Pointer, int64) error {
	return nil
}
func (queued) CopyToHost(int32, unsafe.Pointer, unsafe.Pointer, int64) error { return nil }
func (queued) Synchronize(int32) error                                       { return nil }
func (queued) ConsumerStream(id int32) (unsafe.Pointer, error) {
	if id != 0 {
		return nil, backends.ErrNoDevice
	}
	return unsafe.Pointer(&queue[0]), nil
}

func init() { backends.Register(queued{}) }

var (
	vk0 = core.Device{Type: core.KDLVulkan, ID: 0}
	vk1 = core.Device{Type: core.KDLVulkan, ID: 1}
)

func TestNeedsConsumerStream(t *testing.T) {
	t.Parallel()
	assert.True(t, core.NeedsConsumerStream(vk0))
	assert.False(t, core.NeedsConsumerStream(vk1), "no such device: nothing to synchronise with")
	assert.False(t, core.NeedsConsumerStream(core.CPU))
	assert.False(t, core.NeedsConsumerStream(core.Device{Type: core.KDLCUDA}), "no backend")
	q, err := core.ConsumerStream(vk0)
	require.NoError(t, err)
	assert.Equal(t, unsafe.Pointer(&queue[0]), q)
	_, err = core.ConsumerStream(vk1)
	assert.ErrorIs(t, err, core.ErrDevice)
	_, err = core.ConsumerStream(core.CPU)
	assert.ErrorIs(t, err, core.ErrDevice)
}

func TestPlanImportAsksAgainWithAStream(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		got   core.Device
		req   core.ImportRequest
		retry core.Retry
		sync  bool
	}{
		{"first ask", vk0, core.ImportRequest{Negotiated: true, MayAskStream: true}, core.RetryStream, false},
		{"asked with the stream", vk0, core.ImportRequest{Negotiated: true, StreamGiven: true}, core.RetryNone, true},
		{"copy=True asked again too", vk0, core.ImportRequest{Negotiated: true, MayAskStream: true, Copy: core.CopyAlways}, core.RetryStream, false},
		{"raw capsule: nobody to ask", vk0, core.ImportRequest{}, core.RetryNone, false},
		{"exchange API first", vk0, core.ImportRequest{NoSync: true, MayAskStream: true}, core.RetryDLPack, false},
		{"no such device", vk1, core.ImportRequest{Negotiated: true, MayAskStream: true}, core.RetryNone, false},
		{"host memory", core.CPU, core.ImportRequest{Negotiated: true, MayAskStream: true}, core.RetryNone, false},
		{"stream given for host memory", core.CPU, core.ImportRequest{Negotiated: true, StreamGiven: true}, core.RetryNone, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := core.PlanImport(c.got, 0, c.req)
			require.NoError(t, err)
			assert.Equal(t, c.retry, p.Retry)
			assert.Equal(t, c.sync, p.Sync)
		})
	}
}
