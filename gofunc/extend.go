package gofunc

import (
	"errors"
	"fmt"
)

// Extend runs load, which runs the init functions of Go packages loaded
// after the module was opened (a kit's Go plugin, opened by the extension
// that hosts it), and adds the functions they register to the opened
// registry, numbered after those already there. It returns the numbers of
// the added functions, [first, end). If load fails or any of its
// registrations does, nothing it registered is added: the error names
// every failed registration, and the plugin's Go code stays loaded (Go
// cannot unload it) without a function reaching Python.
func Extend(load func() error) (first, end int, err error) {
	mu.Lock()
	if !frozen || late {
		mu.Unlock()
		return 0, 0, fmt.Errorf("gofunc: Extend before Open, or inside another Extend")
	}
	first, nbad := len(entries), len(badRegs)
	late = true
	mu.Unlock()
	err = load()
	mu.Lock()
	defer mu.Unlock()
	late = false
	added, bad := entries[first:], badRegs[nbad:]
	if err == nil && len(bad) > 0 {
		err = errors.Join(bad...)
	}
	if err != nil {
		for _, e := range added {
			delete(byName, e.Pkg+"."+e.Name)
		}
		clear(entries[first:])
		entries, badRegs = entries[:first], badRegs[:nbad]
		return first, first, err
	}
	for i, e := range added {
		e.applySource()
		table[first+i] = e
	}
	ntable.Store(int32(len(entries)))
	return first, len(entries), nil
}
