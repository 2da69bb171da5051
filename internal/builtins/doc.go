// Package builtins registers godlpack's own Go functions with package
// gofunc: may_share_memory, and what godlpack's shipped commands call
// (`python -m godlpack bench`: _bench_call, _bench_call_quick, _bench_box3;
// `python -m godlpack check`: _check_keep, _check_drop_kept). pyext imports
// it, so every extension module built with the kit (godlpack._native
// included) offers them. The probes only tests call are package probes,
// in test builds only. It needs no cgo: Go tests reach the functions
// through gofunc.Lookup.
package builtins
