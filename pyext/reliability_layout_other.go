//go:build pyext && !(linux && amd64 && go1.26 && !go1.27)

package main

// forkLayout is unknown for this Go version or platform: reliability.c holds
// nothing across fork() (see reliability_layout_go126.go).
var forkLayout = [7]int64{}
