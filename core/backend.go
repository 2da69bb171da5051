package core

import (
	"github.com/godlpack/godlpack/backends"
	// Every device backend is linked into core itself, so that any Go
	// program and the Python extension answer Reachable, CanCopy and
	// FoldsByteOffset alike. The host backend registers kDLCPU; the oneAPI
	// backend registers kDLOneAPI and loads its runtime (dpctl's C library)
	// with dlopen on first use, so it costs nothing without dpctl.
	_ "github.com/godlpack/godlpack/backends/cpu"
	_ "github.com/godlpack/godlpack/backends/oneapi"
)

// backendOf returns the backend that serves memory of device type t, or nil
// when godlpack can only hold such memory (no package under backends/
// registered for it).
func backendOf(t DeviceType) backends.Backend { return backends.For(int32(t)) }

// hostBackend is the kDLCPU backend: every array godlpack creates on the host
// and every host temporary of a kernel comes from it.
func hostBackend() backends.Backend { return backends.For(int32(KDLCPU)) }
