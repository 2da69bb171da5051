// Package tests_go holds godlpack's Go test suites: table-driven tests with
// testify, deleter-call counters, allocation checks and fuzz targets. C
// fixtures (hostile structs, counting deleters) live in tests_go/cfixture
// because cgo cannot be used from _test.go files.
package tests_go
