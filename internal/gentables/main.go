// Command gentables writes python/godlpack/_tables.py from the tables of
// package core (see package pytables). Run it from the repository root:
//
//	go run ./internal/gentables
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/godlpack/godlpack/internal/gentables/pytables"
)

func main() {
	out := flag.String("o", pytables.Path, "file to write (- for standard output)")
	flag.Parse()
	src := pytables.Render()
	if *out == "-" {
		os.Stdout.Write(src)
		return
	}
	if err := os.WriteFile(*out, src, 0o644); err != nil {
		fmt.Fprintf(os.Stderr, "gentables: %v; run it from the repository root\n", err)
		os.Exit(1)
	}
	fmt.Println("wrote", *out)
}
