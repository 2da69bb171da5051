//go:build !pyext

// Package main is the CPython extension module godlpack._native. It is only
// built with the "pyext" build tag and the CPython include directory in
// CGO_CFLAGS (setup.py and the Makefile do both):
//
//	CGO_CFLAGS="-I$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["include"])')" \
//	go build -tags pyext -buildmode=c-shared \
//	  -ldflags="-s -w -extldflags=-Wl,--version-script=$PWD/pyext/pyext.map" \
//	  -o python/godlpack/_native.abi3.so ./pyext
//
// Without the tag this file keeps `go build ./...`, `go vet ./...` and
// `go test ./...` working on machines without Python headers.
package main

func main() {}
