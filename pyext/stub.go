//go:build !pyext

// Package main is the CPython extension module godlpack._native. It is only
// built with the "pyext" build tag and the CPython include directory in
// CGO_CFLAGS. The one command line that builds it is go_build_command in
// setup.py, which `python setup.py build_ext --inplace` (`make build`),
// `pip install .` and `make test-cgocheck2` run and echo.
//
// Without the tag this file keeps `go build ./...`, `go vet ./...` and
// `go test ./...` working on machines without Python headers.
package main

func main() {}
