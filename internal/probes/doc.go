// Package probes registers the Go functions that only godlpack's tests
// call (the _gofunc_* probes: errors and panics on demand, every argument
// kind, array results, Ctrl-C). A module has them only when it is built
// with the godlpack_probes tag (GODLPACK_PROBES=1 at build time, as make
// build does; pyext/probes.go imports this package): a release wheel has
// none. Go tests import it directly.
package probes
