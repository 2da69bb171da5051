package gofunc

import (
	"context"
	"sync"
	"time"
)

// Pending is a call of a function that takes a context.Context, running on
// a goroutine of its own so that its caller can wait in slices and cancel
// it (the skin checks for Ctrl-C between waits).
type Pending struct {
	Entry  *Entry
	Args   [MaxParams]Value // the arguments, set before Start
	NArgs  int
	Res    [MaxResults]Value // the results, once Wait says it is done
	Err    error
	done   chan struct{}
	cancel context.CancelFunc
	id     int64
}

var (
	parkedMu   sync.Mutex
	parkedNext int64
	parked     = map[int64]*Pending{}
)

// Start runs p.Entry on p.Args[:p.NArgs] on a new goroutine.
func (p *Pending) Start() {
	ctx, cancel := context.WithCancel(context.Background())
	p.done, p.cancel = make(chan struct{}), cancel
	go func() {
		defer close(p.done)
		returned := false
		defer func() { // runtime.Goexit ends this goroutine: the call's error says so
			if !returned {
				if r := recover(); r != nil {
					p.Err = p.Entry.PanicError(r)
				} else {
					p.Err = p.Entry.GoexitError()
				}
			}
		}()
		p.Err = p.Entry.Call(ctx, p.Args[:p.NArgs], p.Res[:len(p.Entry.Results)])
		returned = true
	}()
}

// Wait waits up to d for the call to return: true once it has (its context
// is then released and the call forgotten by ID). A call still running is
// given an ID for Parked on the first Wait that times out.
func (p *Pending) Wait(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.done:
	case <-t.C:
		parkedMu.Lock()
		if p.id == 0 {
			parkedNext++
			p.id = parkedNext
			parked[p.id] = p
		}
		parkedMu.Unlock()
		return false
	}
	parkedMu.Lock()
	delete(parked, p.id)
	parkedMu.Unlock()
	p.cancel()
	return true
}

// ID names a call Wait left running (0 before that).
func (p *Pending) ID() int64 { return p.id }

// Cancel cancels the call's context (Ctrl-C); the function decides when it
// returns.
func (p *Pending) Cancel() { p.cancel() }

// Parked is the running call named id, or nil.
func Parked(id int64) *Pending {
	parkedMu.Lock()
	defer parkedMu.Unlock()
	return parked[id]
}
