//go:build pyext && linux && amd64 && go1.26 && !go1.27

package main

// forkLayout: byte offsets into the Go 1.26 runtime's g, m and p structs on
// linux/amd64 (read from the DWARF of an unstripped build), for the fork-hold
// of reliability.c: g.m, g.atomicstatus, m.curg, m.p, p.status, p.m,
// g.preempt. The C
// side cross-checks them (m.curg.m == m, m.p.m == m, the statuses) before
// using them and otherwise holds nothing. Another Go version or platform
// gets reliability_layout_other.go (all zero: no fork-hold).
var forkLayout = [7]int64{48, 144, 184, 208, 4, 48, 177}
