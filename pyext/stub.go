//go:build !pyext

// Package pyext is the CPython skin of godlpack: the C files of the Array
// type, the module functions and the DLPack producer and consumer, and the
// Go exports they call. It is not a main package: every extension module
// (godlpack._native and each module of the extension kit) is a small
// generated main package that imports pyext and the Go packages whose
// functions it offers, and defines PyInit_<name> calling gd_module_init
// (python/godlpack/_gobuild.py writes it; setup.py and
// `python -m godlpack build-ext` build it). One module, one Go runtime.
//
// The package is only compiled with the "pyext" build tag and the CPython
// include directory in CGO_CFLAGS. Without the tag this file keeps
// `go build ./...`, `go vet ./...` and `go test ./...` working on machines
// without Python headers.
package pyext
