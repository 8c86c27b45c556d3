//go:build !go1.20

package isolation

import (
	"context"
	"os/exec"
	"reflect"
	"sync"
	"syscall"
	"time"
	"unsafe"
)

// Before Go 1.20 os/exec kills the process (SIGKILL) when the context of
// exec.CommandContext is done, and offers no Cancel nor WaitDelay: cordon
// would die before its post-run checks. So Start takes the context out of
// cmd before cmd.Start (an unexported field, found by reflection) and
// watches it itself: SIGTERM to cordon, SIGKILL StopGrace later. A command
// prepared with PrepareCommand and started with cmd.Start keeps os/exec's
// SIGKILL on these versions.
func stopGracefully(cmd *exec.Cmd) {}

var watches sync.Map // *exec.Cmd -> chan struct{}, closed when the command was waited for

func contextField(cmd *exec.Cmd) *context.Context {
	f := reflect.ValueOf(cmd).Elem().FieldByName("ctx")
	if !f.IsValid() || f.Type() != reflect.TypeOf((*context.Context)(nil)).Elem() {
		return nil
	}
	return (*context.Context)(unsafe.Pointer(f.UnsafeAddr()))
}

// takeContext, before cmd.Start: the returned function, after a successful
// start, watches the context taken out of cmd.
func takeContext(cmd *exec.Cmd) func() {
	p := contextField(cmd)
	if p == nil || *p == nil || (*p).Done() == nil {
		return func() {}
	}
	ctx := *p
	if ctx.Err() != nil {
		return func() {} // cmd.Start returns the context's error, as it would
	}
	*p = nil
	done := make(chan struct{})
	watches.Store(cmd, done)
	return func() {
		go func() {
			select {
			case <-ctx.Done():
			case <-done:
				return
			}
			cmd.Process.Signal(syscall.SIGTERM) // os.Process: no signal after Wait reaped it
			select {
			case <-time.After(StopGrace):
				cmd.Process.Kill()
			case <-done:
			}
		}()
	}
}

// waited: Wait or Refusal saw the command end.
func waited(cmd *exec.Cmd) {
	if done, ok := watches.LoadAndDelete(cmd); ok {
		close(done.(chan struct{}))
	}
}
