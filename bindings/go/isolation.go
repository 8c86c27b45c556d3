// Package isolation runs the child processes of a Go agent under cordon
// (`cordon run`), with the API of picoclaw's pkg/isolation: Configure once,
// then every place that starts a process calls PrepareCommand, Start or Run
// instead of cmd.Start or cmd.Run.
//
// The cordon binary is $CORDON_BIN, else `cordon` on PATH. A missing or
// failing binary is an error: a command is never run unsandboxed unless the
// configuration says Enabled: false. The configuration reaches cordon as a
// JSON config through an inherited descriptor (an unlinked file), never in
// argv; cordon's usage report comes back the same way, which tells cordon's
// own refusals (a *CordonError) from the command's exit status 125.
package isolation

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
)

// ExposePath shows a host path inside the sandbox (isolation.expose_paths).
type ExposePath struct {
	Source string `json:"source"`
	Target string `json:"target,omitempty"` // "" = Source
	Mode   string `json:"mode,omitempty"`   // "ro" (also "") or "rw"
}

// Limits are cordon's isolation.limits; 0 = none.
type Limits struct {
	WallTimeS     float64 `json:"wall_time_s,omitempty"`
	CPUTimeS      float64 `json:"cpu_time_s,omitempty"`
	MemoryBytes   int64   `json:"memory_bytes,omitempty"`
	Pids          int64   `json:"pids,omitempty"`
	OpenFiles     int64   `json:"open_files,omitempty"`
	FileSizeBytes int64   `json:"file_size_bytes,omitempty"`
	TmpSizeBytes  int64   `json:"tmp_size_bytes,omitempty"`
	CPUQuota      float64 `json:"cpu_quota,omitempty"`
	KillAfterS    float64 `json:"kill_after_s,omitempty"`
}

// EnvPolicy is cordon's shell_environment_policy: how the launcher's
// environment (cmd.Env, else os.Environ()) is filtered for the command.
type EnvPolicy struct {
	Inherit               string            `json:"inherit,omitempty"` // core (default), all, none
	IgnoreDefaultExcludes bool              `json:"ignore_default_excludes,omitempty"`
	Exclude               []string          `json:"exclude,omitempty"`
	Set                   map[string]string `json:"set,omitempty"`
	IncludeOnly           []string          `json:"include_only,omitempty"`
	Pass                  []string          `json:"pass,omitempty"` // names passed as they are (one secret on purpose)
}

// Config is picoclaw's isolation object ({"isolation": {...}} unmarshals
// into it as is) plus what cordon offers on top.
type Config struct {
	Enabled     bool         `json:"enabled"`
	ExposePaths []ExposePath `json:"expose_paths,omitempty"`
	Home        string       `json:"home,omitempty"`      // the instance root; "" = cordon's default
	Workspace   string       `json:"workspace,omitempty"` // "" = <home>/workspace
	Network     string       `json:"network,omitempty"`   // none (default), loopback, full, proxy
	AllowNet    []string     `json:"network_allow,omitempty"`
	Profiles    []string     `json:"profiles,omitempty"`
	Backend     string       `json:"backend,omitempty"`
	Limits      *Limits      `json:"limits,omitempty"`
	Env         *EnvPolicy   `json:"env,omitempty"`
}

// ErrNotFound: the cordon binary is not where $CORDON_BIN or PATH says.
var ErrNotFound = errors.New("isolation: cordon binary not found")

// ErrNotConfigured: Configure was never called (or its last call failed).
// Running unsandboxed is a choice made with Enabled: false, never a default.
var ErrNotConfigured = errors.New("isolation: Configure has not succeeded: no command runs")

// CordonError is cordon refusing to run a command (its exit status 125):
// bad configuration, an exposure that cannot be made, a setup failure. The
// command did not run.
type CordonError struct {
	Message string
	Code    int
	Flag    string // the command-line flag at fault, or ""
	File    string // the config file, line, column and key at fault, or ""
	Line    int
	Column  int
	Key     string
	Record  json.RawMessage // cordon's whole report, or nil when it wrote none
}

func (e *CordonError) Error() string { return "cordon: " + e.Message }

type state struct {
	cfg    Config
	bin    string
	config []byte
}

var (
	mu      sync.Mutex
	current *state
)

// The names of the two files a prepared command is given (fds 3 and 4): no
// state is kept beside the *exec.Cmd, so nothing outlives it.
const configName, statsName = "cordon-config.json", "cordon-stats.json"

// Configure validates cfg and makes it the configuration of every later
// launch. With Enabled, it finds the binary and has cordon check the
// configuration (`cordon plan`, nothing runs); on an error no command runs
// until a Configure succeeds.
func Configure(cfg Config) error {
	mu.Lock()
	current = nil
	mu.Unlock()
	if err := validateExposePaths(cfg.ExposePaths); err != nil {
		return err
	}
	st := &state{cfg: cfg}
	if cfg.Enabled && runtime.GOOS == "windows" {
		// no inherited descriptors for the config (cmd.ExtraFiles) there yet
		return errors.New("isolation: this package does not drive cordon on Windows yet")
	}
	if cfg.Enabled {
		var err error
		if st.bin, err = findBinary(); err != nil {
			return err
		}
		if st.config, err = cordonConfig(cfg); err != nil {
			return err
		}
		if err := checkWithPlan(st); err != nil {
			return err
		}
	}
	mu.Lock()
	current = st
	mu.Unlock()
	return nil
}

// CurrentConfig returns the configuration in effect and whether there is one.
func CurrentConfig() (Config, bool) {
	mu.Lock()
	defer mu.Unlock()
	if current == nil {
		return Config{}, false
	}
	return current.cfg, true
}

func validateExposePaths(items []ExposePath) error {
	seen := map[string]bool{}
	for i, e := range items {
		where := fmt.Sprintf("isolation: expose_paths[%d]", i)
		if e.Mode != "" && e.Mode != "ro" && e.Mode != "rw" {
			return fmt.Errorf("%s.mode: must be \"ro\" or \"rw\", got %q", where, e.Mode)
		}
		if !filepath.IsAbs(e.Source) {
			return fmt.Errorf("%s.source: must be an absolute path, got %q", where, e.Source)
		}
		target := e.Target
		if target == "" {
			target = e.Source
		}
		if !filepath.IsAbs(target) {
			return fmt.Errorf("%s.target: must be an absolute path, got %q", where, e.Target)
		}
		target = filepath.Clean(target)
		if seen[target] {
			return fmt.Errorf("%s.target: %s is exposed twice", where, target)
		}
		seen[target] = true
	}
	return nil
}

func findBinary() (string, error) {
	name, from := "cordon", "PATH"
	if v := os.Getenv("CORDON_BIN"); v != "" {
		name, from = v, "$CORDON_BIN"
	}
	p, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("%w (%s: %q): %v", ErrNotFound, from, name, err)
	}
	if !filepath.IsAbs(p) {
		// a relative $CORDON_BIN would change meaning with cmd.Dir
		if p, err = filepath.Abs(p); err != nil {
			return "", fmt.Errorf("%w: %v", ErrNotFound, err)
		}
	}
	return p, nil
}

// cordon's config layer: the isolation object and the environment policy.
func cordonConfig(cfg Config) ([]byte, error) {
	iso := cfg
	iso.Env = nil
	return json.Marshal(struct {
		Isolation Config     `json:"isolation"`
		Env       *EnvPolicy `json:"shell_environment_policy,omitempty"`
	}{iso, cfg.Env})
}

// checkWithPlan has cordon read the configuration: syntax, keys, values,
// exposed sources that exist. The plan is for cordon itself (which exists)
// in "/" (the sandbox's own): neither PATH nor the working directory matter.
func checkWithPlan(st *state) error {
	f, err := unlinkedFile(configName, st.config)
	if err != nil {
		return err
	}
	defer f.Close()
	cmd := exec.Command(st.bin, "plan", "--config", "/dev/fd/3", "-C", "/", "--", st.bin)
	cmd.ExtraFiles = []*os.File{f}
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		msg := lastLine(out)
		if msg == "" {
			msg = fmt.Sprintf("%s plan: exit status %d, no message", st.bin, ee.ExitCode())
		}
		return &CordonError{Message: msg, Code: ee.ExitCode()}
	}
	if err != nil {
		return fmt.Errorf("%w: %v", ErrNotFound, err)
	}
	return nil
}

func lastLine(out []byte) string {
	s := string(out)
	for len(s) > 0 && s[len(s)-1] == '\n' {
		s = s[:len(s)-1]
	}
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '\n' {
			s = s[i+1:]
			break
		}
	}
	if len(s) > 8 && s[:8] == "cordon: " {
		s = s[8:]
	}
	return s
}

// unlinkedFile: a file only this process (and its children, through an
// inherited descriptor) can reach, holding data, at offset 0. Made in a
// directory of mode 0700 and removed from it at once.
func unlinkedFile(name string, data []byte) (*os.File, error) {
	dir, err := os.MkdirTemp("", "cordon-go-")
	if err != nil {
		return nil, fmt.Errorf("isolation: %v", err)
	}
	defer os.RemoveAll(dir)
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("isolation: %v", err)
	}
	if _, err = f.Write(data); err == nil {
		_, err = f.Seek(0, 0)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("isolation: %v", err)
	}
	return f, nil
}

// PrepareCommand rewrites cmd to run under cordon: cmd.Path becomes the
// cordon binary, the command and its arguments follow `--`. cmd.Dir,
// cmd.Env (filtered by the environment policy), stdio and SysProcAttr keep
// their meaning. With Enabled: false, cmd is left as it is. Start the
// command with cmd.Start (or Start) and wait with Wait, which tells a
// refusal of cordon's from the command's status.
func PrepareCommand(cmd *exec.Cmd) error {
	mu.Lock()
	st := current
	mu.Unlock()
	switch {
	case st == nil:
		return ErrNotConfigured
	case cmd.Process != nil:
		return errors.New("isolation: the command has already started")
	case prepared(cmd) != nil:
		return errors.New("isolation: the command is already prepared")
	case !st.cfg.Enabled:
		return nil
	case cmd.Err != nil:
		return cmd.Err
	case cmd.Path == "":
		return errors.New("isolation: no command")
	case len(cmd.ExtraFiles) > 0:
		return errors.New("isolation: ExtraFiles are not passed into the sandbox")
	}
	config, err := unlinkedFile(configName, st.config)
	if err != nil {
		return err
	}
	stats, err := unlinkedFile(statsName, nil)
	if err != nil {
		config.Close()
		return err
	}
	args := []string{st.bin, "run", "--config", "/dev/fd/3", "--stats-fd", "4", "--", cmd.Path}
	if len(cmd.Args) > 1 {
		args = append(args, cmd.Args[1:]...)
	}
	cmd.Path, cmd.Args = st.bin, args
	cmd.ExtraFiles = []*os.File{config, stats}
	return nil
}

// prepared: the config and stats files PrepareCommand gave cmd, or nil.
func prepared(cmd *exec.Cmd) []*os.File {
	f := cmd.ExtraFiles
	if len(f) != 2 || f[0] == nil || f[1] == nil ||
		filepath.Base(f[0].Name()) != configName || filepath.Base(f[1].Name()) != statsName {
		return nil
	}
	return f
}

// Start prepares cmd and starts it. Wait for it with Wait (cmd.Wait works
// too, but reports a refusal as an *exec.ExitError of status 125).
func Start(cmd *exec.Cmd) error {
	if err := PrepareCommand(cmd); err != nil {
		return err
	}
	err := cmd.Start()
	if f := prepared(cmd); f != nil {
		f[0].Close() // cordon has its own descriptor
		if err != nil {
			f[1].Close()
		}
	}
	return err
}

// Run is Start then Wait.
func Run(cmd *exec.Cmd) error {
	if err := Start(cmd); err != nil {
		return err
	}
	return Wait(cmd)
}

// Wait waits for cmd like cmd.Wait. The command's status is an
// *exec.ExitError as usual (a signal N is status 128+N); cordon's refusal
// to run it is a *CordonError.
func Wait(cmd *exec.Cmd) error {
	return Refusal(cmd, cmd.Wait())
}

// Refusal turns the result of cmd.Wait into a *CordonError when cordon
// refused to run cmd, and returns it unchanged otherwise: for a caller that
// waits with cmd.Wait itself (an SDK's transport). Call it once per command.
func Refusal(cmd *exec.Cmd, waitErr error) error {
	f := prepared(cmd)
	if f == nil {
		return waitErr
	}
	f[0].Close()
	record := readRecord(f[1])
	f[1].Close()
	var ee *exec.ExitError
	if !errors.As(waitErr, &ee) || ee.ExitCode() != 125 {
		return waitErr
	}
	return refusalOf(record, waitErr)
}

func readRecord(f *os.File) []byte {
	fi, err := f.Stat()
	if err != nil || fi.Size() == 0 || fi.Size() > 1<<20 {
		return nil
	}
	b := make([]byte, fi.Size())
	if n, _ := f.ReadAt(b, 0); n != len(b) {
		return nil
	}
	return b
}

// A record with "exit_code" and no "error" is a run that started: its 125 is
// the command's. A record with "error", or none at all (cordon failed before
// it could write one), is cordon's refusal.
func refusalOf(record []byte, waitErr error) error {
	var r struct {
		ExitCode *int `json:"exit_code"`
		Error    *struct {
			Message string `json:"message"`
			Code    int    `json:"code"`
			Flag    string `json:"flag"`
			File    string `json:"file"`
			Line    int    `json:"line"`
			Column  int    `json:"column"`
			Key     string `json:"key"`
		} `json:"error"`
	}
	if len(record) > 0 && json.Unmarshal(record, &r) == nil {
		if r.Error == nil && r.ExitCode != nil {
			return waitErr
		}
		if e := r.Error; e != nil {
			return &CordonError{Message: e.Message, Code: e.Code, Flag: e.Flag, File: e.File,
				Line: e.Line, Column: e.Column, Key: e.Key, Record: json.RawMessage(record)}
		}
	}
	return &CordonError{Message: "refused to run the command (exit status 125; its message is on the command's stderr)",
		Code: 125, Record: json.RawMessage(record)}
}
