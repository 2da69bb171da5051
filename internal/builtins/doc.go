// Package builtins registers godlpack's own Go functions with package
// gofunc: may_share_memory and the _gofunc_* probes of the tests and
// benchmarks. pyext imports it, so every extension module built with the
// kit (godlpack._native included) offers them, and every test run goes
// through the kit's call path. It needs no cgo: Go tests reach the
// functions through gofunc.Lookup.
package builtins
