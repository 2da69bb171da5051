package core

import (
	"github.com/godlpack/godlpack/backends"
	// The host backend registers itself for kDLCPU.
	_ "github.com/godlpack/godlpack/backends/cpu"
)

// backendOf returns the backend that serves memory of device type t, or nil
// when godlpack can only hold such memory (no package under backends/
// registered for it).
func backendOf(t DeviceType) backends.Backend { return backends.For(int32(t)) }

// hostBackend is the kDLCPU backend: every array godlpack creates on the host
// and every host temporary of a kernel comes from it.
func hostBackend() backends.Backend { return backends.For(int32(KDLCPU)) }
