//go:build race

package tests_go

// raceDetector: the suite runs under go test -race (make test-go-race),
// which leaves out what has nothing shared for it to watch and would take it
// ten times as long; make test-go runs everything.
const raceDetector = true
