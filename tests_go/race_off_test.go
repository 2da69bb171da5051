//go:build !race

package tests_go

const raceDetector = false
