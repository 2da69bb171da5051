package backends

import "fmt"

// registry holds the backend of each device type; index = DLDeviceType.
// It is written only by Register, from init functions, before any lookup:
// lookups then need no lock and allocate nothing.
var registry [MaxDeviceType + 1]Backend

// Register makes b the backend of its device type. Call it from an init
// function of the backend's package. Registering a type twice, or a type
// outside 1..MaxDeviceType, panics: that is a build mistake.
func Register(b Backend) {
	t := b.Type()
	if t < 1 || t > MaxDeviceType {
		panic(fmt.Sprintf("backends.Register: device type %d is not a DLPack device type", t))
	}
	if registry[t] != nil {
		panic(fmt.Sprintf("backends.Register: device type %d already has a backend", t))
	}
	registry[t] = b
}

// For returns the backend registered for device type t, or nil when no
// package serves that device (its memory can then only be held and
// exchanged, never allocated, read or copied by godlpack).
func For(t DeviceType) Backend {
	if t < 1 || t > MaxDeviceType {
		return nil
	}
	return registry[t]
}
