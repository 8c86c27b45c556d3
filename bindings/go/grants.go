package isolation

// Live grants: AllowNet and RemoveNet change the allowlist of a running
// command, through cordon's --control-fd (one JSON line per change, each
// answered with one line). A command whose network is the proxy (AllowNet
// or Network "proxy" in its Config) gets the socket; its end here lives
// until Wait (or Refusal).

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"sync"
	"syscall"
)

const controlName = "cordon-control"

type control struct {
	mu sync.Mutex
	f  *os.File
	r  *bufio.Reader
}

var controls sync.Map // *exec.Cmd -> *control

// controlPair: cordon's end (given to it as fd 5) and ours.
func controlPair() (theirs, ours *os.File, err error) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, err
	}
	return os.NewFile(uintptr(fds[1]), controlName), os.NewFile(uintptr(fds[0]), controlName+"-caller"), nil
}

func controlDone(cmd *exec.Cmd) {
	if c, ok := controls.LoadAndDelete(cmd); ok {
		c.(*control).f.Close()
	}
}

func change(cmd *exec.Cmd, op, entry string) error {
	v, ok := controls.Load(cmd)
	if !ok {
		return &CordonError{Message: op + ": the command was not started with the network proxy (AllowNet, or Network \"proxy\"), or it was waited for"}
	}
	c := v.(*control)
	line, err := json.Marshal(map[string]string{op: entry})
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, err := c.f.Write(append(line, '\n')); err != nil {
		return &CordonError{Message: op + ": the sandbox has ended"}
	}
	answer, err := c.r.ReadBytes('\n')
	if err != nil {
		return &CordonError{Message: op + ": the sandbox has ended"}
	}
	var reply struct {
		Ok    bool   `json:"ok"`
		Error string `json:"error"`
	}
	if json.Unmarshal(answer, &reply) != nil {
		return errors.New("isolation: " + op + ": cordon's answer is not JSON")
	}
	if !reply.Ok {
		return &CordonError{Message: op + ": " + reply.Error}
	}
	return nil
}

// AllowNet allows entry (HOST[:PORT], as Config.AllowNet takes it) to the
// running cmd at once, for every new connection: the approval loop
// (denied, ask, grant, retry) without a restart. A *CordonError when
// cordon refuses it. Safe from any goroutine; listed in the record's
// network_grants.
func AllowNet(cmd *exec.Cmd, entry string) error { return change(cmd, "allow_net", entry) }

// RemoveNet removes an entry of the running cmd's allowlist (given at
// start or granted). A *CordonError when it is not there.
func RemoveNet(cmd *exec.Cmd, entry string) error { return change(cmd, "remove_net", entry) }
