// Command gentables writes the files generated from the tables of package
// core: python/godlpack/_tables.py (package pytables), pyext/errors_gen.h
// and the sentinel table of docs/exceptions.md (package errtables), and
// pyext/gocall_gen.h, the gates into Go (package gates), and
// pyext/gofunc_gen.h, the C entry points of Go functions (package
// fnentries), and pyext/pyspec_gen.{c,h}, the module's and Array's tables
// for CPython (package pyspec). Run it
// from the repository root:
//
//	go run ./internal/gentables
package main

import (
	"fmt"
	"os"

	"github.com/godlpack/godlpack/internal/gentables/errtables"
	"github.com/godlpack/godlpack/internal/gentables/fnentries"
	"github.com/godlpack/godlpack/internal/gentables/gates"
	"github.com/godlpack/godlpack/internal/gentables/pyspec"
	"github.com/godlpack/godlpack/internal/gentables/pytables"
)

func main() {
	docs, err := os.ReadFile(errtables.DocsPath)
	if err == nil {
		docs, err = errtables.RenderDocs(docs)
	}
	if err != nil {
		fail(err)
	}
	exports, err := gates.Exports("pyext")
	if err != nil {
		fail(err)
	}
	gocall, err := gates.Render(exports)
	if err != nil {
		fail(err)
	}
	for _, f := range []struct {
		path string
		src  []byte
	}{
		{pytables.Path, pytables.Render()},
		{errtables.HeaderPath, errtables.RenderHeader()},
		{errtables.DocsPath, docs},
		{gates.Path, gocall},
		{fnentries.Path, fnentries.Render()},
		{pyspec.HPath, pyspec.RenderH()},
		{pyspec.CPath, pyspec.RenderC()},
	} {
		if err := os.WriteFile(f.path, f.src, 0o644); err != nil {
			fail(err)
		}
		fmt.Println("wrote", f.path)
	}
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "gentables: %v; run it from the repository root\n", err)
	os.Exit(1)
}
