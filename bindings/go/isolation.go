// Package isolation runs the child processes of a Go agent under cordon
// (`cordon run`), with the API of picoclaw's pkg/isolation: Configure once,
// then every place that starts a process calls PrepareCommand, Start or Run
// instead of cmd.Start or cmd.Run; PrepareCommandWith gives one command a
// configuration of its own (an agent with several workspaces).
//
// The cordon binary is $CORDON_BIN, else `cordon` on PATH. A missing or
// failing binary is an error: a command is never run unsandboxed unless the
// configuration says Enabled: false and nothing else. The configuration
// reaches cordon as a JSON config through an inherited descriptor (an
// unlinked file), never in argv; cordon's usage report comes back the same
// way, which tells cordon's own refusals (a *CordonError, naming the Config
// field at fault) from the command's exit status 125.
package isolation

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"
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
// into it as is) plus what cordon offers on top. Every field but Enabled
// takes effect only in the sandbox: a Config that sets one without Enabled
// is refused (ErrSandboxNotEnabled), never run unsandboxed.
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
	// DieWithParent: when this process dies (a SIGKILL included), cordon
	// ends the sandbox as on SIGTERM, its post-run checks included. nil =
	// true on Linux (cordon's --die-with-parent), false elsewhere.
	DieWithParent *bool `json:"die_with_parent,omitempty"`
	// Explain: cordon also observes the command's calls that take a path,
	// so that WaitDenied names the reads, writes and executions the view
	// refused (it costs time per call; it never allows more).
	Explain bool `json:"explain,omitempty"`
}

// Denial is one refusal of the sandbox's, as cordon's --stats record has
// it ("denied"): Kind is read, write, exec, connect, resolve or syscall;
// Target the path, HOST:PORT or call; Rule what refused it; HostHas, for a
// path, whether the host has it (nil for the other kinds); Suggestion the
// flag that would allow it ("--expose /path", "--allow-net host:443") or
// "cannot be allowed"; SeenBy who saw it (proxy, supervisor, exit-status,
// explain).
type Denial struct {
	Kind       string `json:"kind"`
	Target     string `json:"target"`
	Rule       string `json:"rule"`
	HostHas    *bool  `json:"host_has"`
	Suggestion string `json:"suggestion"`
	SeenBy     string `json:"seen_by"`
}

// ErrNotFound: the cordon binary is not where $CORDON_BIN or PATH says.
var ErrNotFound = errors.New("isolation: cordon binary not found")

// ErrNotConfigured: Configure was never called (or its last call failed).
// Running unsandboxed is a choice made with Enabled: false, never a default.
var ErrNotConfigured = errors.New("isolation: Configure has not succeeded: no command runs")

// ErrSandboxNotEnabled: a Config sets fields that take effect only in the
// sandbox (Workspace, ExposePaths, Network, Limits, Env, Home, ...) but not
// Enabled. picoclaw documents Enabled: false as its default and these as
// effective only when enabled, so such a Config is a mistake: it is
// refused, not run as plain os/exec.
var ErrSandboxNotEnabled = errors.New("isolation: the Config sets sandbox fields but not Enabled")

// StopGrace is how long a cancelled command (exec.CommandContext) is given,
// after cordon gets SIGTERM, to end the sandbox and finish its post-run
// checks (the git check) before it is killed. cordon itself kills what
// still runs in the sandbox Limits.KillAfterS (default 2 s) after the
// SIGTERM.
const StopGrace = 5 * time.Second

// CordonError is cordon refusing to run a command (its exit status 125):
// bad configuration, an exposure that cannot be made, a setup failure. The
// command did not run. For a configuration this package generated, Message
// names the Config field (Option, e.g. "ExposePaths[0].Source") and no
// position in the generated JSON; Key, File, Line and Column are cordon's
// own report of where it failed (File "/dev/fd/3" is the generated config;
// a profile's file and line are where the profile is wrong).
type CordonError struct {
	Message string
	Code    int
	Option  string // the Config field at fault, as this package spells it, or ""
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

// The generated config, as cordon names it in its errors.
const configPath = "/dev/fd/3"

// Configure validates cfg and makes it the configuration of every later
// launch. With Enabled, it finds the binary and has cordon check the
// configuration (`cordon plan`, nothing runs); on an error no command runs
// until a Configure succeeds.
func Configure(cfg Config) error {
	mu.Lock()
	current = nil
	mu.Unlock()
	st, err := newState(cfg)
	if err != nil {
		return err
	}
	if cfg.Enabled {
		if err := checkWithPlan(st); err != nil {
			return err
		}
	}
	mu.Lock()
	current = st
	mu.Unlock()
	return nil
}

// newState: cfg validated here (what cordon would refuse without a run is
// checked by Configure's plan), its binary and its JSON.
func newState(cfg Config) (*state, error) {
	if err := failClosed(cfg); err != nil {
		return nil, err
	}
	if err := validateExposePaths(cfg.ExposePaths); err != nil {
		return nil, err
	}
	st := &state{cfg: cfg}
	if !cfg.Enabled {
		return st, nil
	}
	if runtime.GOOS == "windows" {
		// no inherited descriptors for the config (cmd.ExtraFiles) there yet
		return nil, errors.New("isolation: this package does not drive cordon on Windows yet")
	}
	var err error
	if st.bin, err = findBinary(); err != nil {
		return nil, err
	}
	if st.config, err = cordonConfig(cfg); err != nil {
		return nil, err
	}
	return st, nil
}

// failClosed refuses a Config that sets what only a sandbox uses without
// enabling it.
func failClosed(cfg Config) error {
	if cfg.Enabled {
		return nil
	}
	var set []string
	for _, f := range []struct {
		name string
		on   bool
	}{
		{"ExposePaths", len(cfg.ExposePaths) > 0}, {"Home", cfg.Home != ""}, {"Workspace", cfg.Workspace != ""},
		{"Network", cfg.Network != ""}, {"AllowNet", len(cfg.AllowNet) > 0}, {"Profiles", len(cfg.Profiles) > 0},
		{"Backend", cfg.Backend != ""}, {"Limits", cfg.Limits != nil}, {"Env", cfg.Env != nil},
		{"DieWithParent", cfg.DieWithParent != nil}, {"Explain", cfg.Explain},
	} {
		if f.on {
			set = append(set, f.name)
		}
	}
	if len(set) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s take effect only in the sandbox; set Enabled: true to run the commands sandboxed "+
		"(or leave them unset to run them unsandboxed, as plain os/exec)", ErrSandboxNotEnabled, strings.Join(set, ", "))
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
		where := fmt.Sprintf("isolation: ExposePaths[%d]", i)
		if e.Mode != "" && e.Mode != "ro" && e.Mode != "rw" {
			return fmt.Errorf("%s.Mode: must be \"ro\" or \"rw\", got %q", where, e.Mode)
		}
		if !filepath.IsAbs(e.Source) {
			return fmt.Errorf("%s.Source: must be an absolute path, got %q", where, e.Source)
		}
		target := e.Target
		if target == "" {
			target = e.Source
		}
		if !filepath.IsAbs(target) {
			return fmt.Errorf("%s.Target: must be an absolute path, got %q", where, e.Target)
		}
		target = filepath.Clean(target)
		if seen[target] {
			return fmt.Errorf("%s.Target: %s is exposed twice", where, target)
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

func dieWithParent(cfg Config) bool {
	if cfg.DieWithParent != nil {
		return *cfg.DieWithParent
	}
	return runtime.GOOS == "linux"
}

// cordon's config layer: the isolation object and the environment policy.
func cordonConfig(cfg Config) ([]byte, error) {
	iso := cfg
	iso.Env = nil
	die := dieWithParent(cfg)
	iso.DieWithParent = &die
	return json.Marshal(struct {
		Isolation Config     `json:"isolation"`
		Env       *EnvPolicy `json:"shell_environment_policy,omitempty"`
	}{iso, cfg.Env})
}

// checkWithPlan has cordon read the configuration: syntax, keys, values,
// exposed sources that exist. The plan is for cordon itself (which exists)
// in "/" (the sandbox's own): neither PATH nor the working directory matter.
// Its refusal comes back as its record (--stats-fd), as a run's does.
func checkWithPlan(st *state) error {
	f, err := unlinkedFile(configName, st.config)
	if err != nil {
		return err
	}
	defer f.Close()
	stats, err := unlinkedFile(statsName, nil)
	if err != nil {
		return err
	}
	defer stats.Close()
	cmd := exec.Command(st.bin, "plan", "--config", configPath, "--stats-fd", "4", "-C", "/", "--", st.bin)
	cmd.ExtraFiles = []*os.File{f, stats}
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if e, ok := refusalOf(readRecord(stats), err).(*CordonError); ok {
			if len(e.Record) == 0 && len(out) > 0 {
				e.Message = lastLine(out)
			}
			return e
		}
		return &CordonError{Message: fmt.Sprintf("%s plan: exit status %d", st.bin, ee.ExitCode()), Code: ee.ExitCode()}
	}
	if err != nil {
		return fmt.Errorf("%w: %v", ErrNotFound, err)
	}
	return nil
}

func lastLine(out []byte) string {
	s := strings.TrimRight(string(out), "\n")
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return strings.TrimPrefix(s, "cordon: ")
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

// PrepareCommand rewrites cmd to run under cordon with the configuration of
// Configure: cmd.Path becomes the cordon binary, the command and its
// arguments follow `--`. cmd.Dir, stdio and SysProcAttr keep their
// meaning; cmd.Env is the command's environment as in os/exec (see
// PrepareCommandWith). With Enabled: false, cmd is left as it is. Start
// the command with cmd.Start (or Start) and wait with Wait, which tells a
// refusal of cordon's from the command's status.
func PrepareCommand(cmd *exec.Cmd) error {
	mu.Lock()
	st := current
	mu.Unlock()
	if st == nil {
		return ErrNotConfigured
	}
	return prepare(cmd, st)
}

// PrepareCommandWith is PrepareCommand with cfg for this command only,
// whatever Configure set (an agent that runs several workspaces at once
// gives each command its own Workspace). cfg is validated as Configure
// validates it, but not checked with cordon beforehand: cordon's refusal
// of it is a *CordonError from Wait.
//
// The program: a name without a slash (exec.Command("python3")) is looked
// up inside the sandbox, on the sandbox's PATH, as `cordon run` does, not
// where the host's exec.LookPath found it (a host shim that does not work
// inside). The environment: cmd.Env (else os.Environ()) goes through the
// policy (Config.Env; default core: *KEY*, *SECRET*, *TOKEN*, *PASSWORD*, *CREDENTIAL*, ... dropped), and
// each variable of cmd.Env that os.Environ() does not have, or has with
// another value, reaches the command as it is (you put it there). HOME,
// TMPDIR and XDG_* point into <Home>/runtime-user-env/.
func PrepareCommandWith(cmd *exec.Cmd, cfg Config) error {
	st, err := newState(cfg)
	if err != nil {
		return err
	}
	return prepare(cmd, st)
}

func prepare(cmd *exec.Cmd, st *state) error {
	switch {
	case cmd.Process != nil:
		return errors.New("isolation: the command has already started")
	case prepared(cmd) != nil:
		return errors.New("isolation: the command is already prepared")
	case !st.cfg.Enabled:
		return nil
	case cmd.Path == "":
		return errors.New("isolation: no command")
	case len(cmd.ExtraFiles) > 0:
		return errors.New("isolation: ExtraFiles are not passed into the sandbox")
	}
	program, err := programOf(cmd)
	if err != nil {
		return err
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
	args := []string{st.bin, "run", "--config", configPath, "--stats-fd", "4"}
	if dieWithParent(st.cfg) {
		args = append(args, fmt.Sprintf("--die-with-parent=%d", os.Getpid()))
	}
	for _, name := range addedEnv(cmd.Env) {
		args = append(args, "--pass-env", name)
	}
	files := []*os.File{config, stats}
	if len(st.cfg.AllowNet) > 0 || st.cfg.Network == "proxy" { // live grants (grants.go)
		theirs, ours, err := controlPair()
		if err != nil {
			config.Close()
			stats.Close()
			return err
		}
		files = append(files, theirs)
		args = append(args, "--control-fd", "5")
		controls.Store(cmd, &control{f: ours, r: bufio.NewReader(ours)})
	}
	args = append(args, "--", program)
	if len(cmd.Args) > 1 {
		args = append(args, cmd.Args[1:]...)
	}
	cmd.Path, cmd.Args, cmd.Err = st.bin, args, nil
	cmd.ExtraFiles = files
	stopGracefully(cmd)
	return nil
}

// programOf: what cordon runs. A bare name (no slash) is cordon's to look
// up inside, whatever the host's LookPath made of it (cmd.Err included).
func programOf(cmd *exec.Cmd) (string, error) {
	name := ""
	if len(cmd.Args) > 0 {
		name = cmd.Args[0]
	}
	if name != "" && !strings.Contains(name, "/") && (cmd.Path == name || filepath.Base(cmd.Path) == name) {
		return name, nil
	}
	if cmd.Err != nil {
		return "", cmd.Err
	}
	return cmd.Path, nil
}

// addedEnv: the names of cmd.Env that os.Environ() lacks or has with
// another value (the last assignment of a name counts, as in os/exec).
func addedEnv(env []string) []string {
	if env == nil {
		return nil
	}
	parse := func(list []string) (map[string]string, []string) {
		m, order := map[string]string{}, []string{}
		for _, kv := range list {
			i := strings.IndexByte(kv, '=')
			if i <= 0 {
				continue
			}
			if _, seen := m[kv[:i]]; !seen {
				order = append(order, kv[:i])
			}
			m[kv[:i]] = kv[i+1:]
		}
		return m, order
	}
	host, _ := parse(os.Environ())
	mine, order := parse(env)
	var added []string
	for _, name := range order {
		if v, ok := host[name]; !ok || v != mine[name] {
			added = append(added, name)
		}
	}
	return added
}

// prepared: the config and stats files PrepareCommand gave cmd, or nil.
func prepared(cmd *exec.Cmd) []*os.File {
	f := cmd.ExtraFiles
	if (len(f) != 2 && len(f) != 3) || f[0] == nil || f[1] == nil ||
		filepath.Base(f[0].Name()) != configName || filepath.Base(f[1].Name()) != statsName ||
		(len(f) == 3 && (f[2] == nil || f[2].Name() != controlName)) {
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
	return startPrepared(cmd)
}

func startPrepared(cmd *exec.Cmd) error {
	watch := takeContext(cmd)
	err := cmd.Start()
	if f := prepared(cmd); f != nil {
		f[0].Close() // cordon has its own descriptor
		if len(f) == 3 {
			f[2].Close() // and of the control socket
		}
		if err != nil {
			f[1].Close()
			controlDone(cmd)
		}
	}
	if err == nil {
		watch()
	} else {
		waited(cmd)
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
	_, err := refusalAndDenied(cmd, waitErr)
	return err
}

// WaitDenied is Wait, and what the sandbox refused the command (the
// record's "denied"; nil when nothing was, or when cordon wrote no
// record). Hand it to the model, or to the user who decides what to allow.
func WaitDenied(cmd *exec.Cmd) ([]Denial, error) {
	return refusalAndDenied(cmd, cmd.Wait())
}

func refusalAndDenied(cmd *exec.Cmd, waitErr error) ([]Denial, error) {
	waited(cmd)
	controlDone(cmd)
	f := prepared(cmd)
	if f == nil {
		return nil, waitErr
	}
	f[0].Close()
	record := readRecord(f[1])
	f[1].Close()
	var r struct {
		Denied []Denial `json:"denied"`
	}
	if len(record) > 0 {
		_ = json.Unmarshal(record, &r) // a refusal's record has none
	}
	var ee *exec.ExitError
	if !errors.As(waitErr, &ee) || ee.ExitCode() != 125 {
		return r.Denied, waitErr
	}
	return r.Denied, refusalOf(record, waitErr)
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
			ce := &CordonError{Message: e.Message, Code: e.Code, Flag: e.Flag, File: e.File,
				Line: e.Line, Column: e.Column, Key: e.Key, Record: json.RawMessage(record)}
			inCallersTerms(ce)
			return ce
		}
	}
	return &CordonError{Message: "refused to run the command (exit status 125; its message is on the command's stderr)",
		Code: 125, Record: json.RawMessage(record)}
}

// ---- cordon's errors in this package's terms ---------------------------------

// inCallersTerms: an error in the generated config ("/dev/fd/3:1:100:
// isolation.expose_paths[0].source: does not exist") says the Config field
// and no position ("ExposePaths[0].Source: does not exist"). Errors cordon
// finds later in a value (the workspace is the caller's home) carry the
// location in their message only: it is read from there.
func inCallersTerms(e *CordonError) {
	key, reason, ok := e.Key, e.Message, false
	if rest := strings.TrimPrefix(e.Message, configPath+":"); rest != e.Message {
		if k, r, found := splitLocated(rest); found {
			key, reason, ok = k, r, true
			if e.File == "" {
				e.File = configPath
				fmt.Sscanf(rest, "%d:%d:", &e.Line, &e.Column)
			}
			if e.Key == "" {
				e.Key = k
			}
		}
	}
	switch {
	case ok || e.File == configPath:
		if opt := optionOf(key); opt != "" {
			e.Option = opt
			e.Message = opt + ": " + reason
		}
	case e.Flag == "--pass-env":
		e.Option = "cmd.Env"
	case e.Flag == "--die-with-parent":
		e.Option = "DieWithParent"
	}
}

// splitLocated: "LINE:COLUMN: KEY: REASON" -> KEY, REASON.
func splitLocated(s string) (key, reason string, ok bool) {
	parts := strings.SplitN(s, ": ", 3)
	if len(parts) != 3 || strings.Count(parts[0], ":") != 1 || !strings.HasPrefix(parts[1], "isolation") &&
		!strings.HasPrefix(parts[1], "shell_environment_policy") {
		return "", "", false
	}
	return parts[1], parts[2], true
}

// optionOf: cordon's key ("isolation.expose_paths[0].source") as this
// package's field ("ExposePaths[0].Source"), from the json tags of Config.
func optionOf(key string) string {
	var t reflectType
	switch {
	case strings.HasPrefix(key, "isolation."):
		t, key = configType(), strings.TrimPrefix(key, "isolation.")
	case strings.HasPrefix(key, "shell_environment_policy."):
		t, key = envPolicyType(), strings.TrimPrefix(key, "shell_environment_policy.")
		return "Env." + fieldPath(t, key)
	default:
		return ""
	}
	return fieldPath(t, key)
}
