//go:build !cgo

package core

// core is Go and C together (tensor memory is C memory; owners and deleters
// are C), so it cannot be built with CGO_ENABLED=0. Owner, the first of the
// names only the cgo files define that the type checker meets, stands here
// for a name that says so: a cgo-less build fails on it first, not on a list
// of undefined identifiers (tests_go/nocgo_test.go).
type Owner = godlpack_needs_cgo__build_with_CGO_ENABLED_1_and_a_C_compiler_such_as_gcc
