package core

// What loading the Go runtime takes of a process's address space (virtual
// memory, not RAM). The runtime ends the process, not the import, when an
// address-space limit (RLIMIT_AS, ulimit -v) refuses it, so the Python
// package compares these with the limit before it loads the extension
// (python/godlpack/__init__.py, from _tables.py): no code of the extension
// can run before its runtime starts. Measured by tests_py/ulimit_sweep.py
// (docs/reliability.md, "Address-space limits").
const (
	// RuntimeAddressSpace is what the runtime reserves as it starts.
	RuntimeAddressSpace = 1300 << 20
	// ThreadAddressSpace is one thread's stack, for each thread the
	// runtime may start per P (GOMAXPROCS, else the CPU count).
	ThreadAddressSpace = 8 << 20
)
