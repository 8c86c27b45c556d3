// The tests drive the real cordon ($CORDON_BIN, else `cordon` on PATH);
// the MCP call site runs the real @modelcontextprotocol/server-filesystem
// ($CORDON_TEST_MCP_SERVER, exposing $CORDON_TEST_MCP_MODULES; skipped
// without them, a failure under CI=true). tests/integration/bindings.sh
// runs them with a cordon on PATH, as root and as an unprivileged user.
//
// What a caller of this package relies on, each with a negative control
// (the same command with Enabled: false) where the property is isolation's:
//   - an exposed file is readable, a host secret (/etc/shadow) is not there
//   - a secret in the caller's environment (OPENAI_API_KEY, from cmd.Env or
//     os.Environ) does not reach the command; HOME is the instance's
//   - the command's exit status (and 125 of its own) is an *exec.ExitError
//   - cordon's refusal is a *CordonError, and the command did not run
//   - a missing or vanished binary is an error, and the command did not run;
//     so is a missing Configure
//   - cancelling an exec.CommandContext kills the whole tree
//   - picoclaw's four call sites: exec tool, CLI provider, hook, MCP server
package isolation_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"cordon/isolation"
)

// sleep markers differ from run to run (math/rand of Go 1.19 starts at seed 1)
func init() { rand.Seed(time.Now().UnixNano()) }

func env(t *testing.T, name string) string {
	v := os.Getenv(name)
	if v == "" && os.Getenv("CI") == "true" {
		t.Fatalf("set %s (tests/integration/bindings.sh does)", name)
	}
	if v == "" {
		t.Skipf("set %s (tests/integration/bindings.sh does)", name)
	}
	return v
}

// the cordon the package finds
func cordonBinary(t *testing.T) string {
	name := os.Getenv("CORDON_BIN")
	if name == "" {
		name = "cordon"
	}
	p, err := exec.LookPath(name)
	if err != nil {
		t.Fatalf("no cordon ($CORDON_BIN or PATH): %v", err)
	}
	return p
}

// A shell probe: does PATH exist here ("present" or "absent")?
func exists(path string) []string {
	return []string{"/bin/sh", "-c", `if [ -e "$0" ]; then echo present; else echo absent; fi`, path}
}

// the descriptors 3 and 4 the shell sees (none in the sandbox)
var fdsProbe = []string{"/bin/sh", "-c", `for n in 3 4; do [ -e /dev/fd/$n ] && echo $n; done; true`}

type layout struct{ dir, home, ws, data string }

// A scratch layout: an instance root, a workspace, a directory to expose.
func newLayout(t *testing.T) layout {
	d := t.TempDir()
	l := layout{d, filepath.Join(d, "home"), filepath.Join(d, "ws"), filepath.Join(d, "data")}
	for _, p := range []string{l.home, l.ws, l.data} {
		if err := os.Mkdir(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(l.data, "exposed.txt"), "exposed content\n")
	return l
}

func write(t *testing.T, path, text string) {
	if err := os.WriteFile(path, []byte(text), 0o755); err != nil {
		t.Fatal(err)
	}
}

func configure(t *testing.T, cfg isolation.Config) {
	t.Helper()
	if err := isolation.Configure(cfg); err != nil {
		t.Fatalf("Configure: %v", err)
	}
}

func (l layout) config(enabled bool) isolation.Config {
	return isolation.Config{Enabled: enabled, Home: l.home, Workspace: l.ws,
		ExposePaths: []isolation.ExposePath{{Source: l.data, Mode: "ro"}}}
}

// run: the command in the workspace, its stdout and the result of Run.
func (l layout) run(name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = l.ws
	var out bytes.Buffer
	cmd.Stdout = &out
	err := isolation.Run(cmd)
	return out.String(), err
}

func TestSeesOnlyWhatIsExposed(t *testing.T) {
	l := newLayout(t)
	exposed := filepath.Join(l.data, "exposed.txt")
	shadow := exists("/etc/shadow")

	configure(t, isolation.Config{Enabled: false})
	if out, err := l.run(shadow[0], shadow[1:]...); err != nil || out != "present\n" {
		t.Fatalf("control: unsandboxed, /etc/shadow is there: %q %v", out, err)
	}
	configure(t, l.config(true))
	if out, err := l.run("/bin/cat", exposed); err != nil || out != "exposed content\n" {
		t.Errorf("the exposed file: %q %v", out, err)
	}
	if out, _ := l.run(shadow[0], shadow[1:]...); out != "absent\n" {
		t.Errorf("/etc/shadow inside: %q, want absent", out)
	}
}

// What the sandbox refused comes back as data: nothing seen of a read in an
// ordinary run, the read and its --expose with Explain; refused either way.
func TestWaitDeniedNamesWhatWasRefused(t *testing.T) {
	l := newLayout(t)
	hidden := filepath.Join(l.dir, "hidden.txt")
	write(t, hidden, "hidden\n")
	if out, err := exec.Command("/bin/cat", hidden).Output(); err != nil || string(out) != "hidden\n" {
		t.Fatalf("control: unsandboxed, the file is readable: %q %v", out, err)
	}
	for _, explain := range []bool{false, true} {
		cfg := l.config(true)
		cfg.Explain = explain
		configure(t, cfg)
		cmd := exec.Command("/bin/cat", hidden)
		cmd.Dir = l.ws
		if err := isolation.Start(cmd); err != nil {
			t.Fatal(err)
		}
		denied, err := isolation.WaitDenied(cmd)
		if err == nil {
			t.Errorf("explain %v: the hidden file was read", explain)
		}
		found := false
		for _, d := range denied {
			found = found || (d.Kind == "read" && d.Target == hidden && d.Suggestion == "--expose "+hidden &&
				d.HostHas != nil && *d.HostHas && d.SeenBy == "explain")
		}
		if found != explain {
			t.Errorf("explain %v: denied %+v", explain, denied)
		}
	}
}

// The config (fd 3) and the report (fd 4) are cordon's: the command cannot
// read the one or forge the other.
func TestConfigAndReportDescriptorsStayOutside(t *testing.T) {
	l := newLayout(t)
	control := exec.Command(fdsProbe[0], fdsProbe[1:]...)
	control.ExtraFiles = []*os.File{os.Stdin, os.Stdin}
	if out, err := control.Output(); err != nil || string(out) != "3\n4\n" {
		t.Fatalf("control: inherited descriptors are seen: %q %v", out, err)
	}
	configure(t, l.config(true))
	if out, err := l.run(fdsProbe[0], fdsProbe[1:]...); err != nil || out != "" {
		t.Errorf("descriptors inside: %q %v", out, err)
	}
}

func TestCallerSecretsStayOutAndHomeIsTheInstance(t *testing.T) {
	l := newLayout(t)
	show := func(env []string) string {
		cmd := exec.Command("/bin/sh", "-c", `echo "key=${OPENAI_API_KEY-unset} home=$HOME"`)
		cmd.Dir, cmd.Env = l.ws, env
		var out bytes.Buffer
		cmd.Stdout = &out
		if err := isolation.Run(cmd); err != nil {
			t.Fatalf("%v", err)
		}
		return out.String()
	}
	t.Setenv("OPENAI_API_KEY", "sk-from-the-process")
	withFoo := append(os.Environ(), "FOO=1")
	configure(t, isolation.Config{Enabled: false})
	if got := show(withFoo); !strings.Contains(got, "key=sk-from-the-process") {
		t.Fatalf("control: unsandboxed, the process's key is seen: %q", got)
	}
	configure(t, l.config(true))
	home := filepath.Join(l.home, "runtime-user-env", "home")
	if got, want := show(withFoo), "key=unset home="+home+"\n"; got != want {
		t.Errorf("cmd.Env from os.Environ, with the key: %q, want %q", got, want)
	}
	if got := show(nil); !strings.HasPrefix(got, "key=unset ") {
		t.Errorf("os.Environ with the key: %q", got)
	}
	// HOME is writable, and is the instance's on the host
	if out, err := l.run("/bin/sh", "-c", `echo persisted >"$HOME/note"`); err != nil {
		t.Fatalf("write in HOME: %q %v", out, err)
	}
	if b, err := os.ReadFile(filepath.Join(home, "note")); err != nil || string(b) != "persisted\n" {
		t.Errorf("HOME's file on the host: %q %v", b, err)
	}
}

func TestExitStatusReachesTheCaller(t *testing.T) {
	l := newLayout(t)
	configure(t, l.config(true))
	for _, c := range []struct {
		script string
		want   int
	}{{"exit 0", 0}, {"exit 7", 7}, {"exit 125", 125}, {"kill -TERM $$", 143}} {
		_, err := l.run("/bin/sh", "-c", c.script)
		var ee *exec.ExitError
		switch {
		case c.want == 0 && err != nil:
			t.Errorf("%s: %v", c.script, err)
		case c.want != 0 && (!errors.As(err, &ee) || ee.ExitCode() != c.want):
			t.Errorf("%s: got %#v (%v), want an *exec.ExitError of status %d", c.script, err, err, c.want)
		}
	}
}

// The command's arguments are its own: cordon's flags among them are data.
func TestArgumentsAreNotCordonFlags(t *testing.T) {
	l := newLayout(t)
	configure(t, l.config(true))
	out, err := l.run("/bin/sh", "-c", `printf '%s|' "$@"`, "sh", "--", "--network", "full", "--expose", "/")
	if err != nil || out != "--|--network|full|--expose|/|" {
		t.Errorf("%q %v", out, err)
	}
}

func TestRefusalIsACordonError(t *testing.T) {
	l := newLayout(t)
	configure(t, l.config(true))
	marker := filepath.Join(l.ws, "ran")
	cmd := exec.Command("/bin/sh", "-c", "touch "+marker)
	cmd.Dir = "/tmp" // the sandbox's own tmpfs: cordon refuses it as the working directory
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := isolation.Run(cmd)
	var ce *isolation.CordonError
	if !errors.As(err, &ce) {
		t.Fatalf("want a *CordonError, got %#v (%v)", err, err)
	}
	if ce.Code != 125 || !strings.Contains(ce.Message, "working directory") || len(ce.Record) == 0 {
		t.Errorf("the error carries cordon's message and record: %+v (record %s)", ce, ce.Record)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the command ran")
	}
	if !strings.Contains(stderr.String(), "working directory") {
		t.Errorf("cordon's message is on stderr too: %q", stderr.String())
	}

	// a config cordon rejects: Configure says so, and nothing runs after it
	bad := l.config(true)
	bad.ExposePaths = append(bad.ExposePaths, isolation.ExposePath{Source: filepath.Join(l.dir, "missing")})
	err = isolation.Configure(bad)
	if !errors.As(err, &ce) || !strings.Contains(ce.Message, "does not exist") {
		t.Errorf("Configure of a missing source: %v", err)
	}
	if _, err := l.run("/bin/sh", "-c", "touch "+marker); !errors.Is(err, isolation.ErrNotConfigured) {
		t.Errorf("after a failed Configure: %v, want ErrNotConfigured", err)
	}
	for _, e := range []isolation.ExposePath{{Source: "rel"}, {Source: l.data, Mode: "rwx"}, {Source: l.data, Target: "x"}} {
		if err := isolation.Configure(isolation.Config{Enabled: true, ExposePaths: []isolation.ExposePath{e}}); err == nil {
			t.Errorf("Configure accepts %+v", e)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("a command ran")
	}
}

func TestMissingBinaryIsAnError(t *testing.T) {
	l := newLayout(t)
	real := cordonBinary(t)
	marker := filepath.Join(l.ws, "ran")
	t.Setenv("CORDON_BIN", filepath.Join(l.dir, "no-such-cordon"))
	if err := isolation.Configure(l.config(true)); !errors.Is(err, isolation.ErrNotFound) {
		t.Errorf("$CORDON_BIN missing: %v, want ErrNotFound", err)
	}
	t.Setenv("CORDON_BIN", "")
	t.Setenv("PATH", l.data)
	if err := isolation.Configure(l.config(true)); !errors.Is(err, isolation.ErrNotFound) {
		t.Errorf("no cordon on PATH: %v, want ErrNotFound", err)
	}
	t.Setenv("CORDON_BIN", "/bin/false") // a binary that fails
	if err := isolation.Configure(l.config(true)); err == nil {
		t.Error("a failing binary is accepted")
	}
	if _, err := l.run("/bin/sh", "-c", "touch "+marker); err == nil {
		t.Error("a command ran after a failed Configure")
	}

	// the binary vanishes after Configure
	bin := filepath.Join(l.dir, "cordon")
	b, err := os.ReadFile(real)
	if err != nil {
		t.Fatal(err)
	}
	write(t, bin, string(b))
	t.Setenv("CORDON_BIN", bin)
	configure(t, l.config(true))
	os.Remove(bin)
	if _, err := l.run("/bin/sh", "-c", "touch "+marker); err == nil {
		t.Error("Run without the binary succeeded")
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the command ran")
	}
	isolation.Configure(isolation.Config{})
}

// /proc/PID of every process whose argv is exactly argv.
func processes(argv ...string) []int {
	want := strings.Join(argv, "\x00") + "\x00"
	var pids []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		var pid int
		if _, err := fmt.Sscan(e.Name(), &pid); err != nil {
			continue
		}
		if b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline"); err == nil && string(b) == want {
			pids = append(pids, pid)
		}
	}
	return pids
}

// until cond or the deadline
func eventually(d time.Duration, cond func() bool) bool {
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if cond() {
			return true
		}
	}
	return cond()
}

func TestCancellationKillsTheTree(t *testing.T) {
	l := newLayout(t)
	// sh with a background job and a foreground one, each `sleep MARKER`
	tree := func() (context.CancelFunc, *exec.Cmd, string) {
		marker := fmt.Sprint(800000 + rand.Intn(100000))
		ctx, cancel := context.WithCancel(context.Background())
		cmd := exec.CommandContext(ctx, "/bin/sh", "-c", "sleep $0 & sleep $0; wait", marker)
		cmd.Dir = l.ws
		if err := isolation.Start(cmd); err != nil {
			t.Fatal(err)
		}
		if !eventually(5*time.Second, func() bool { return len(processes("sleep", marker)) == 2 }) {
			t.Fatalf("the tree did not start: %v", processes("sleep", marker))
		}
		return cancel, cmd, marker
	}

	configure(t, isolation.Config{})
	cancel, cmd, marker := tree()
	cancel()
	cmd.Wait()
	time.Sleep(300 * time.Millisecond)
	left := processes("sleep", marker)
	for _, pid := range left {
		if p, err := os.FindProcess(pid); err == nil {
			p.Kill()
		}
	}
	if len(left) == 0 {
		t.Fatal("control: unsandboxed, the killed shell's children live on")
	}

	// the linux backend (a pid namespace) and landlock (none: cordon's own)
	for _, backend := range []string{"linux", "landlock"} {
		cfg := l.config(true)
		cfg.Backend = backend
		configure(t, cfg)
		cancel, cmd, marker = tree()
		cancel()
		err := isolation.Wait(cmd)
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			t.Errorf("%s: Wait after cancel: %v", backend, err)
		}
		if !eventually(5*time.Second, func() bool { return len(processes("sleep", marker)) == 0 }) {
			t.Errorf("%s: after cancel the sandbox's processes live on: %v", backend, processes("sleep", marker))
		}
	}
}

func TestDisabledIsPlainExec(t *testing.T) {
	l := newLayout(t)
	configure(t, isolation.Config{})
	cmd := exec.Command("/bin/sh", "-c", "echo $OPENAI_API_KEY")
	cmd.Env = []string{"OPENAI_API_KEY=visible"}
	cmd.Dir = l.ws
	path := cmd.Path
	if err := isolation.PrepareCommand(cmd); err != nil || cmd.Path != path || cmd.ExtraFiles != nil {
		t.Fatalf("the command was changed: %v %v", err, cmd.Args)
	}
	out, err := cmd.Output()
	if err != nil || string(out) != "visible\n" {
		t.Errorf("%q %v", out, err)
	}
}

func TestNotConfiguredIsAnError(t *testing.T) {
	isolation.Configure(isolation.Config{Enabled: true, Backend: "no-such-backend"})
	cmd := exec.Command("/bin/true")
	if err := isolation.Run(cmd); !errors.Is(err, isolation.ErrNotConfigured) || cmd.Process != nil {
		t.Errorf("%v", err)
	}
}

func TestPicoclawConfigUnmarshals(t *testing.T) {
	var c struct {
		Isolation isolation.Config `json:"isolation"`
	}
	in := `{"isolation": {"enabled": true, "expose_paths": [
		{"source": "/opt/toolchains/go", "target": "/opt/toolchains/go", "mode": "ro"},
		{"source": "/data/shared-assets", "target": "/opt/picoclaw-instance-a/workspace/assets", "mode": "rw"}]}}`
	if err := json.Unmarshal([]byte(in), &c); err != nil {
		t.Fatal(err)
	}
	want := isolation.Config{Enabled: true, ExposePaths: []isolation.ExposePath{
		{"/opt/toolchains/go", "/opt/toolchains/go", "ro"},
		{"/data/shared-assets", "/opt/picoclaw-instance-a/workspace/assets", "rw"}}}
	if fmt.Sprint(c.Isolation) != fmt.Sprint(want) {
		t.Errorf("%+v", c.Isolation)
	}
}

// ---- picoclaw's four call sites, as picoclaw writes them -------------------

// pkg/tools/shell.go: the model's command in the workspace, output captured,
// a deadline.
func TestCallSiteExecTool(t *testing.T) {
	l := newLayout(t)
	configure(t, l.config(true))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", "echo out; echo err >&2; pwd; echo made >made.txt; exit 3")
	cmd.Dir = l.ws
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := isolation.Start(cmd); err != nil {
		t.Fatal(err)
	}
	err := isolation.Wait(cmd)
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 3 {
		t.Errorf("status: %v", err)
	}
	if stdout.String() != "out\n"+l.ws+"\n" || !strings.Contains(stderr.String(), "err\n") {
		t.Errorf("stdout %q stderr %q", stdout.String(), stderr.String())
	}
	if b, _ := os.ReadFile(filepath.Join(l.ws, "made.txt")); string(b) != "made\n" {
		t.Errorf("the workspace file on the host: %q", b)
	}
}

// pkg/providers (claude-cli, codex-cli): a CLI that needs its API key and
// keeps its login in its config directory from run to run.
func TestCallSiteCLIProvider(t *testing.T) {
	l := newLayout(t)
	bin := filepath.Join(l.dir, "bin")
	os.Mkdir(bin, 0o755)
	cli := filepath.Join(bin, "fake-cli")
	write(t, cli, `#!/bin/sh
dir="$XDG_CONFIG_HOME/fake-cli"
if [ -f "$dir/session" ]; then echo "logged in"; else mkdir -p "$dir" && echo s >"$dir/session" && echo "login"; fi
echo "anthropic=${ANTHROPIC_API_KEY-unset} openai=${OPENAI_API_KEY-unset} prompt=$2"
`)
	cfg := l.config(true)
	cfg.Env = &isolation.EnvPolicy{Pass: []string{"ANTHROPIC_API_KEY"}}
	configure(t, cfg)
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-provider")
	t.Setenv("OPENAI_API_KEY", "sk-other")
	var outs []string
	for i := 0; i < 2; i++ {
		cmd := exec.CommandContext(context.Background(), cli, "-p", "hello")
		cmd.Dir = l.ws
		var stdout bytes.Buffer
		cmd.Stdout = &stdout
		if err := isolation.Run(cmd); err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
		outs = append(outs, stdout.String())
	}
	want := []string{"login\nanthropic=sk-ant-provider openai=unset prompt=hello\n",
		"logged in\nanthropic=sk-ant-provider openai=unset prompt=hello\n"}
	if fmt.Sprint(outs) != fmt.Sprint(want) {
		t.Errorf("got %q, want %q", outs, want)
	}
}

// pkg/agent/hook_process.go: the event on stdin, the answer on stdout.
func TestCallSiteHook(t *testing.T) {
	l := newLayout(t)
	hooks := filepath.Join(l.dir, "hooks")
	os.Mkdir(hooks, 0o755)
	hook := filepath.Join(hooks, "pre-tool-use.sh")
	write(t, hook, `#!/bin/sh
read -r event
printf '{"decision": "allow", "event": %s}\n' "$event"
`)
	configure(t, l.config(true))
	payload, _ := json.Marshal(map[string]string{"tool": "exec", "command": "ls"})
	cmd := exec.Command(hook)
	cmd.Dir = l.ws
	cmd.Stdin = bytes.NewReader(append(payload, '\n'))
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	if err := isolation.Run(cmd); err != nil {
		t.Fatal(err)
	}
	var answer struct {
		Decision string            `json:"decision"`
		Event    map[string]string `json:"event"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &answer); err != nil || answer.Decision != "allow" || answer.Event["tool"] != "exec" {
		t.Errorf("answer %q: %v", stdout.String(), err)
	}
}

// pkg/mcp/manager.go: an MCP stdio server, its pipes taken before Start
// (as the SDK's command transport does), waited for when the session ends.
func TestCallSiteMCPStdioServer(t *testing.T) {
	l := newLayout(t)
	server, modules := env(t, "CORDON_TEST_MCP_SERVER"), env(t, "CORDON_TEST_MCP_MODULES")
	write(t, filepath.Join(l.ws, "hello.txt"), "inside the workspace\n")
	cfg := l.config(true)
	cfg.ExposePaths = append(cfg.ExposePaths, isolation.ExposePath{Source: modules, Mode: "ro"})
	configure(t, cfg)

	cmd := exec.Command("node", server, l.ws)
	cmd.Dir = l.ws
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := isolation.Start(cmd); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewReader(stdout)
	call := func(id int, method string, params interface{}) map[string]interface{} {
		req, _ := json.Marshal(map[string]interface{}{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		if _, err := stdin.Write(append(req, '\n')); err != nil {
			t.Fatalf("%s: %v (stderr %q)", method, err, stderr.String())
		}
		line, err := lines.ReadBytes('\n')
		var resp map[string]interface{}
		if err != nil || json.Unmarshal(line, &resp) != nil {
			t.Fatalf("%s: %q %v (stderr %q)", method, line, err, stderr.String())
		}
		return resp
	}
	init := call(1, "initialize", map[string]interface{}{"protocolVersion": "2024-11-05", "capabilities": map[string]interface{}{},
		"clientInfo": map[string]string{"name": "picoclaw-test", "version": "1"}})
	if !strings.Contains(fmt.Sprint(init["result"]), "secure-filesystem-server") {
		t.Errorf("initialize: %v", init)
	}
	stdin.Write([]byte(`{"jsonrpc": "2.0", "method": "notifications/initialized"}` + "\n"))
	read := call(2, "tools/call", map[string]interface{}{"name": "read_text_file",
		"arguments": map[string]string{"path": filepath.Join(l.ws, "hello.txt")}})
	if !strings.Contains(fmt.Sprint(read["result"]), "inside the workspace") {
		t.Errorf("read_text_file: %v", read)
	}
	stdin.Close()
	io.Copy(io.Discard, stdout)
	if err := isolation.Refusal(cmd, cmd.Wait()); err != nil {
		t.Errorf("the server's end: %v (stderr %q)", err, stderr.String())
	}
}

// ---- failing closed ---------------------------------------------------------

// Sandbox fields without Enabled are refused, by Configure and by
// PrepareCommandWith; Enabled: false alone (or a picoclaw config without
// "enabled") is plain os/exec.
func TestSandboxFieldsWithoutEnabledAreRefused(t *testing.T) {
	l := newLayout(t)
	marker := filepath.Join(l.ws, "ran")
	for _, cfg := range []isolation.Config{
		{Workspace: l.ws}, {ExposePaths: []isolation.ExposePath{{Source: l.data}}}, {Network: "none"},
		{Limits: &isolation.Limits{WallTimeS: 1}}, {Env: &isolation.EnvPolicy{}}, {Home: l.home},
	} {
		err := isolation.Configure(cfg)
		if !errors.Is(err, isolation.ErrSandboxNotEnabled) || !strings.Contains(err.Error(), "Enabled: true") {
			t.Errorf("Configure(%+v): %v, want ErrSandboxNotEnabled", cfg, err)
		}
		if _, err := l.run("/bin/sh", "-c", "touch "+marker); !errors.Is(err, isolation.ErrNotConfigured) {
			t.Errorf("after the refused %+v: %v", cfg, err)
		}
		cmd := exec.Command("/bin/sh", "-c", "touch "+marker)
		if err := isolation.PrepareCommandWith(cmd, cfg); !errors.Is(err, isolation.ErrSandboxNotEnabled) {
			t.Errorf("PrepareCommandWith(%+v): %v", cfg, err)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("a command ran")
	}
	for _, in := range []string{`{"isolation": {"expose_paths": [{"source": "/usr"}]}}`,
		`{"isolation": {"enabled": false, "workspace": "/tmp"}}`} {
		var c struct {
			Isolation isolation.Config `json:"isolation"`
		}
		json.Unmarshal([]byte(in), &c)
		if err := isolation.Configure(c.Isolation); !errors.Is(err, isolation.ErrSandboxNotEnabled) {
			t.Errorf("%s: %v", in, err)
		}
	}
	// the control: nothing but enabled: false (or no "enabled"), plain os/exec
	for _, in := range []string{`{"isolation": {"enabled": false}}`, `{"isolation": {}}`} {
		var c struct {
			Isolation isolation.Config `json:"isolation"`
		}
		json.Unmarshal([]byte(in), &c)
		configure(t, c.Isolation)
		out, err := l.run("/bin/sh", "-c", `echo "$OPENAI_API_KEY"`)
		if err != nil {
			t.Errorf("%s: %v", in, err)
		}
		_ = out
		if out, _ := l.run(exists("/etc/shadow")[0], exists("/etc/shadow")[1:]...); out != "present\n" {
			t.Errorf("%s: plain os/exec sees the host: %q", in, out)
		}
	}
}

// ---- errors in the caller's terms ----------------------------------------------

func TestRefusalNamesTheConfigField(t *testing.T) {
	l := newLayout(t)
	missing := filepath.Join(l.dir, "missing")
	bad := l.config(true)
	bad.ExposePaths = []isolation.ExposePath{{Source: missing}}
	err := isolation.Configure(bad)
	var ce *isolation.CordonError
	if !errors.As(err, &ce) {
		t.Fatalf("Configure: %v", err)
	}
	if !strings.HasPrefix(ce.Message, "ExposePaths[0].Source: does not exist: "+missing) ||
		strings.Contains(ce.Message, "/dev/fd") || strings.Contains(ce.Message, "expose_paths") {
		t.Errorf("the message names the field, no position: %q", ce.Message)
	}
	if ce.Option != "ExposePaths[0].Source" || ce.Key != "isolation.expose_paths[0].source" ||
		ce.File != "/dev/fd/3" || ce.Line != 1 || ce.Column <= 0 {
		t.Errorf("the fields from cordon's record: %+v", ce)
	}
	// found by cordon in a value, not at parse time: the location is in its message
	for field, cfg := range map[string]isolation.Config{
		"Workspace":   {Enabled: true, Home: l.home, Workspace: "/etc"},
		"Network":     {Enabled: true, Home: l.home, Workspace: l.ws, Network: "bogus"},
		"Limits.Pids": {Enabled: true, Home: l.home, Workspace: l.ws, Limits: &isolation.Limits{Pids: -1}},
		"Env.Inherit": {Enabled: true, Home: l.home, Workspace: l.ws, Env: &isolation.EnvPolicy{Inherit: "some"}},
	} {
		err := isolation.Configure(cfg)
		if !errors.As(err, &ce) || !strings.HasPrefix(ce.Message, field+": ") || strings.Contains(ce.Message, "/dev/fd") ||
			ce.Option != field || ce.Key == "" || ce.File != "/dev/fd/3" || ce.Line != 1 || ce.Column <= 0 {
			t.Errorf("%s: %v (%+v)", field, err, ce)
		}
	}
	// the same at run time, from PrepareCommandWith's config
	cmd := exec.Command("/bin/true")
	cmd.Dir = l.ws
	cmd.Stderr = io.Discard
	if err := isolation.PrepareCommandWith(cmd, bad); err != nil {
		t.Fatal(err)
	}
	cmd.Start()
	err = isolation.Wait(cmd)
	if !errors.As(err, &ce) || ce.Option != "ExposePaths[0].Source" || !strings.HasPrefix(ce.Message, "ExposePaths[0].Source: ") {
		t.Errorf("at run time: %v", err)
	}
}

// ---- one config per command; the program looked up inside ------------------

func TestPrepareCommandWithSeveralWorkspaces(t *testing.T) {
	a, b := newLayout(t), newLayout(t)
	run := func(l layout, other layout) (string, error) {
		cmd := exec.Command("/bin/sh", "-c", `echo mine >"$0/mine" && cat "$1/mine" 2>&1 || true`, l.ws, other.ws)
		cmd.Dir = l.ws
		var out bytes.Buffer
		cmd.Stdout = &out
		if err := isolation.PrepareCommandWith(cmd, isolation.Config{Enabled: true, Home: l.home, Workspace: l.ws}); err != nil {
			return "", err
		}
		err := cmd.Start()
		if err == nil {
			err = isolation.Wait(cmd)
		}
		return out.String(), err
	}
	type result struct {
		out string
		err error
	}
	ra, rb := make(chan result), make(chan result)
	go func() { o, e := run(a, b); ra <- result{o, e} }()
	go func() { o, e := run(b, a); rb <- result{o, e} }()
	for _, r := range []result{<-ra, <-rb} {
		if r.err != nil || strings.Contains(r.out, "mine\n") && !strings.Contains(r.out, "No such") {
			t.Errorf("a command sees the other's workspace: %q %v", r.out, r.err)
		}
	}
	for _, l := range []layout{a, b} {
		if b, _ := os.ReadFile(filepath.Join(l.ws, "mine")); string(b) != "mine\n" {
			t.Errorf("the workspace %s: %q", l.ws, b)
		}
	}
}

func TestBareProgramNameIsLookedUpInside(t *testing.T) {
	l := newLayout(t)
	shims := filepath.Join(l.dir, "shims")
	os.Mkdir(shims, 0o755)
	write(t, filepath.Join(shims, "sh"), "#!/bin/sh\necho host-shim\n")
	t.Setenv("CORDON_BIN", cordonBinary(t))
	t.Setenv("PATH", shims+":/usr/bin:/bin")
	if out, err := exec.Command("sh", "-c", "echo real").Output(); err != nil || string(out) != "host-shim\n" {
		t.Fatalf("control: the host's lookup finds the shim: %q %v", out, err)
	}
	configure(t, l.config(true))
	if out, err := l.run("sh", "-c", "echo real"); err != nil || out != "real\n" {
		t.Errorf("sh looked up inside: %q %v, want the sandbox's sh", out, err)
	}
	// a name the host cannot find is cordon's to look for (127), not exec's error
	_, err := l.run("no-such-program-anywhere")
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 127 {
		t.Errorf("a name found nowhere: %v, want exit status 127", err)
	}
}

// cmd.Env is the command's environment, as in os/exec: what it adds to
// os.Environ() reaches the command; what came from os.Environ() goes
// through the policy.
func TestCmdEnvIsTheCommands(t *testing.T) {
	l := newLayout(t)
	configure(t, l.config(true))
	t.Setenv("OPENAI_API_KEY", "sk-from-the-process")
	t.Setenv("SOME_HOST_VAR", "host")
	cmd := exec.Command("/bin/sh", "-c", `echo "foo=${FOO-unset} key=${OPENAI_API_KEY-unset} host=${SOME_HOST_VAR-unset} tok=${MY_TOKEN-unset}"`)
	cmd.Dir = l.ws
	cmd.Env = append(os.Environ(), "FOO=1", "MY_TOKEN=for-this-command")
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := isolation.Run(cmd); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "foo=1 key=unset host=unset tok=for-this-command\n" {
		t.Errorf("got %q", got)
	}
}

// ---- the agent's death; a cancelled command's post-run check -----------------

// The test binary itself as the agent (TestAgentDeathEndsTheSandbox):
// configures, starts a sandboxed tree and waits, until the test SIGKILLs it.
func TestMain(m *testing.M) {
	if mark := os.Getenv("CORDON_GO_HELPER_MARK"); mark != "" {
		helperAgent(mark)
		return
	}
	os.Exit(m.Run())
}

func helperAgent(mark string) {
	die := os.Getenv("CORDON_GO_HELPER_DIE") == "1"
	l := layout{home: os.Getenv("CORDON_GO_HELPER_HOME"), ws: os.Getenv("CORDON_GO_HELPER_WS")}
	if err := isolation.Configure(isolation.Config{Enabled: true, Home: l.home, Workspace: l.ws, DieWithParent: &die}); err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	cmd := exec.Command("/bin/sh", "-c", "trap '' TERM; sleep $0 & exec sleep $0", mark)
	cmd.Dir = l.ws
	if err := isolation.Start(cmd); err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	fmt.Println("started")
	time.Sleep(time.Minute)
}

func TestAgentDeathEndsTheSandbox(t *testing.T) {
	l := newLayout(t)
	agent := func(die bool) (string, *exec.Cmd) {
		mark := fmt.Sprint(800000 + rand.Intn(100000))
		d := "0"
		if die {
			d = "1"
		}
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), "CORDON_GO_HELPER_MARK="+mark, "CORDON_GO_HELPER_DIE="+d,
			"CORDON_GO_HELPER_HOME="+l.home, "CORDON_GO_HELPER_WS="+l.ws)
		cmd.Stdout = io.Discard
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if !eventually(10*time.Second, func() bool { return len(processes("sleep", mark)) == 2 }) {
			t.Fatalf("the agent's sandbox did not start")
		}
		return mark, cmd
	}
	mark, cmd := agent(false)
	cmd.Process.Kill()
	cmd.Wait()
	time.Sleep(time.Second)
	left := processes("sleep", mark)
	for _, pid := range left {
		syscall.Kill(pid, syscall.SIGKILL)
	}
	if len(left) != 2 {
		t.Fatalf("control: DieWithParent false, the SIGKILLed agent's sandbox lives on: %v", left)
	}
	mark, cmd = agent(true) // the default, said explicitly
	cmd.Process.Kill()
	cmd.Wait()
	if !eventually(10*time.Second, func() bool { return len(processes("sleep", mark)) == 0 }) {
		t.Errorf("the SIGKILLed agent's sandbox lives on: %v", processes("sleep", mark))
	}
}

// A command whose context expires while it runs (it made a repository with
// a hook, and ignores SIGTERM): cordon gets SIGTERM, ends the sandbox and
// runs its git check before Wait returns.
func TestCancelledCommandIsChecked(t *testing.T) {
	l := newLayout(t)
	plant := `git init -q new && printf '#!/bin/sh\necho ran\n' >new/.git/hooks/post-checkout &&
		chmod +x new/.git/hooks/post-checkout && trap '' TERM && sleep 60`
	hook := filepath.Join(l.ws, "new", ".git", "hooks", "post-checkout")
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	configure(t, isolation.Config{})
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", plant)
	cmd.Dir = l.ws
	cmd.Run()
	if fi, err := os.Stat(hook); err != nil || fi.Mode()&0o111 == 0 {
		t.Fatalf("control: unsandboxed, the hook is planted: %v", err)
	}
	os.RemoveAll(filepath.Join(l.ws, "new"))

	configure(t, l.config(true))
	// cancelled once the hook is planted (a fixed deadline is too short
	// for a loaded machine: then nothing was planted to check)
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	cancelled := make(chan time.Time, 1)
	go func() {
		for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
			if fi, err := os.Stat(hook); err == nil && fi.Mode()&0o111 != 0 {
				break
			}
		}
		cancelled <- time.Now()
		cancel()
	}()
	cmd = exec.CommandContext(ctx, "/bin/sh", "-c", plant)
	cmd.Dir = l.ws
	cmd.Stderr = io.Discard
	err := isolation.Run(cmd)
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Errorf("Run after the cancel: %v", err)
	}
	if d := time.Since(<-cancelled); d > isolation.StopGrace+2*time.Second {
		t.Errorf("the stop took %v after the cancel", d)
	}
	if _, err := os.Stat(hook); err == nil {
		t.Errorf("after the cancelled run the planted hook is live: cordon's git check did not run")
	}
	ents, _ := os.ReadDir(filepath.Join(l.ws, "new", ".git"))
	found := false
	for _, e := range ents {
		found = found || strings.Contains(e.Name(), "cordon-quarantine")
	}
	if !found {
		t.Errorf("nothing was set aside in new/.git: %v", ents)
	}
}

// Live grants: a client the proxy denies waits; AllowNet lets it through
// without a restart, RemoveNet shuts it out again; a command without the
// proxy has nothing to change.
func TestLiveGrantLetsAWaitingClientThrough(t *testing.T) {
	l := newLayout(t)
	ln, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("hi")) })}
	go srv.Serve(ln)
	defer srv.Close()
	entry := ln.Addr().String()
	cfg := l.config(true)
	cfg.AllowNet = []string{"example.org"}
	configure(t, cfg)
	cmd := exec.Command("/bin/sh", "-c", `for i in 1 2 3; do curl -s -o /dev/null -w "%{http_code}\n" "$0"; read x; done`,
		"http://"+entry+"/")
	cmd.Dir = l.ws
	in, _ := cmd.StdinPipe()
	outPipe, _ := cmd.StdoutPipe()
	if err := isolation.Start(cmd); err != nil {
		t.Fatal(err)
	}
	out := bufio.NewReader(outPipe)
	line := func() string { s, _ := out.ReadString('\n'); return strings.TrimSpace(s) }
	got := []string{line()}
	if err := isolation.AllowNet(cmd, entry); err != nil {
		t.Fatalf("AllowNet: %v", err)
	}
	in.Write([]byte("\n"))
	got = append(got, line())
	if err := isolation.RemoveNet(cmd, entry); err != nil {
		t.Fatalf("RemoveNet: %v", err)
	}
	var ce *isolation.CordonError
	if err := isolation.RemoveNet(cmd, "not-there.example"); !errors.As(err, &ce) {
		t.Errorf("RemoveNet of an entry not there: %v, want a *CordonError", err)
	}
	in.Write([]byte("\n"))
	got = append(got, line())
	in.Write([]byte("\n"))
	in.Close()
	if err := isolation.Wait(cmd); err != nil {
		t.Fatalf("Wait: %v", err)
	}
	if strings.Join(got, " ") != "403 200 403" {
		t.Errorf("denied, granted, removed: %q, want 403 200 403", got)
	}
	configure(t, l.config(true))
	plain := exec.Command("/bin/true")
	plain.Dir = l.ws
	if err := isolation.Start(plain); err != nil {
		t.Fatal(err)
	}
	if err := isolation.AllowNet(plain, "example.org"); !errors.As(err, &ce) {
		t.Errorf("AllowNet without the proxy: %v, want a *CordonError", err)
	}
	isolation.Wait(plain)
}
