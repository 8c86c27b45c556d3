#!/bin/bash
# A CLI model provider (claude, codex, ...) under cordon. tests/helpers/fake-cli.js
# stands in for one, installed as npm installs a global CLI (a bin/ symlink
# to a "#!/usr/bin/env node" script in lib/node_modules): it reads API keys
# from its environment and keeps its settings under XDG_CONFIG_HOME and HOME.
# Checked: secrets are absent unless the policy lets them in (`set`, or
# `inherit: all` + `include_only`), HOME and the XDG directories point into
# the instance (<home>/runtime-user-env/...), and what the CLI writes there
# persists from run to run, on the host, but never in the real home.
. "$(dirname "$0")/lib.sh"

jget() { # FILE .path  -> the value (strings raw, the rest as JSON)
    node -e 'const o = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
             const v = process.argv[2].split(".").slice(1).reduce((a, k) => a == null ? a : a[k], o);
             console.log(typeof v === "string" ? v : JSON.stringify(v));' "$1" "$2"
}

PREFIX=$T/prefix
mkdir -p "$PREFIX/bin" "$PREFIX/lib/node_modules/fake-cli"
cp "$TOP/tests/helpers/fake-cli.js" "$PREFIX/lib/node_modules/fake-cli/cli.js"
chmod 755 "$PREFIX/lib/node_modules/fake-cli/cli.js"
ln -s ../lib/node_modules/fake-cli/cli.js "$PREFIX/bin/fake-cli"
AGENT_ENV=(PATH="$PREFIX/bin:/usr/bin:/bin" OPENAI_API_KEY=sk-agent-secret ANTHROPIC_API_KEY=sk-ant-secret)
RUNTIME=$H/.cordon/runtime-user-env
REAL_CONFIG=$H/.config/fake-cli/config.json

# The agent's environment holds both keys; the CLI runs as the agent would
# start it: unsandboxed (the control), or through cordon run.
unsandboxed() { (cd "$W" && as_user env "${AGENT_ENV[@]}" fake-cli "$@"); }
provider() { # OUT [cordon flags...] -- [fake-cli args...]
    local out=$1; shift
    local flags=()
    while [ $# -gt 0 ] && [ "$1" != -- ]; do flags+=("$1"); shift; done
    shift
    (cd "$W" && as_user env "${AGENT_ENV[@]}" "$CORDON" run "${flags[@]}" -- fake-cli "$@") >"$out" 2>"$T/provider.err"
    [ -s "$out" ] || diag <"$T/provider.err"
}

# -- the control: without cordon, the CLI sees the keys and writes the real home
unsandboxed >/dev/null
unsandboxed --peek "$REAL_CONFIG" >"$T/c.json"
check_out "control: unsandboxed, the CLI sees OPENAI_API_KEY" "sk-agent-secret" jget "$T/c.json" .env.OPENAI_API_KEY
check_out "control: unsandboxed, its config is in the real home" "$REAL_CONFIG" jget "$T/c.json" .config_file
check_out "control: ... where it has counted 2 runs" '{"runs":2}' cat "$REAL_CONFIG"
check_out "control: unsandboxed, it can read the real home's config" '{"runs":2}' jget "$T/c.json" .peeks.0.result

# -- under cordon, default policy
provider "$T/p1.json" -- --peek "$REAL_CONFIG"
check_out "OPENAI_API_KEY is absent" "null" jget "$T/p1.json" .env.OPENAI_API_KEY
check_out "ANTHROPIC_API_KEY is absent" "null" jget "$T/p1.json" .env.ANTHROPIC_API_KEY
check_out "HOME is the instance's" "$RUNTIME/home" jget "$T/p1.json" .env.HOME
check_out "os.homedir() follows HOME" "$RUNTIME/home" jget "$T/p1.json" .home
check_out "XDG_CONFIG_HOME is the instance's" "$RUNTIME/config" jget "$T/p1.json" .env.XDG_CONFIG_HOME
check_out "XDG_CACHE_HOME is the instance's" "$RUNTIME/cache" jget "$T/p1.json" .env.XDG_CACHE_HOME
check_out "XDG_STATE_HOME is the instance's" "$RUNTIME/state" jget "$T/p1.json" .env.XDG_STATE_HOME
check_out "TMPDIR is the instance's" "$RUNTIME/tmp" jget "$T/p1.json" .env.TMPDIR
check_out "the CLI starts with a fresh config (run 1, not the real home's 3rd)" "1" jget "$T/p1.json" .runs
check_out "the real home's config cannot be read inside" "ENOENT" jget "$T/p1.json" .peeks.0.result
check_out "its config is written into the instance, on the host" '{"runs":1}' cat "$RUNTIME/config/fake-cli/config.json"
check_out "its HOME files too" "run 1" cat "$RUNTIME/home/.fake-cli/history"
check_out "no network by default: the marker is set" "1" jget "$T/p1.json" .env.CORDON_SANDBOX_NETWORK_DISABLED
provider "$T/p2.json" --
check_out "the config persists across runs in the instance (run 2)" "2" jget "$T/p2.json" .runs
check_out "... on the host" '{"runs":2}' cat "$RUNTIME/config/fake-cli/config.json"
check_out "... and so does its HOME" "$(printf 'run 1\nrun 2')" cat "$RUNTIME/home/.fake-cli/history"
check_out "the real home's config is untouched" '{"runs":2}' cat "$REAL_CONFIG"
mkdir -p "$T/other"; [ "$TEST_AS" = user ] && chown $TEST_UID:$TEST_GID "$T/other"
provider "$T/p3.json" --home "$T/other" --
check_out "another instance root has its own config (run 1)" "1" jget "$T/p3.json" .runs
check_out "... under its own runtime-user-env" "$T/other/runtime-user-env/config/fake-cli/config.json" jget "$T/p3.json" .config_file

# -- letting a key in, on purpose
provider "$T/s.json" --set OPENAI_API_KEY=sk-from-set --network full --
check_out "set: the CLI gets the key set for it" "sk-from-set" jget "$T/s.json" .env.OPENAI_API_KEY
check_out "set: ... and no other key" "null" jget "$T/s.json" .env.ANTHROPIC_API_KEY
check_out "network full: no network-disabled marker" "null" jget "$T/s.json" .env.CORDON_SANDBOX_NETWORK_DISABLED
cat >"$T/provider.json" <<'EOF'
{
  "shell_environment_policy": {
    "inherit": "all",
    "ignore_default_excludes": true,
    "include_only": ["PATH", "LANG", "OPENAI_API_KEY"]
  }
}
EOF
chmod 644 "$T/provider.json"
provider "$T/i.json" --config "$T/provider.json" --
check_out "inherit all + include_only: the agent's OPENAI_API_KEY passes" "sk-agent-secret" jget "$T/i.json" .env.OPENAI_API_KEY
check_out "inherit all + include_only: ANTHROPIC_API_KEY does not" "null" jget "$T/i.json" .env.ANTHROPIC_API_KEY
check_out "inherit all + include_only: HOME is still the instance's" "$RUNTIME/home" jget "$T/i.json" .env.HOME
provider "$T/d.json" --inherit all --include-only 'OPENAI_*' --include-only PATH --
check_out "include_only alone does not undo the default *KEY* exclusion" "null" jget "$T/d.json" .env.OPENAI_API_KEY

# -- the same CLI on the landlock backend (no namespaces: the real home is
# there, Landlock refuses it)
mkdir -p "$T/ll-home"; [ "$TEST_AS" = user ] && chown $TEST_UID:$TEST_GID "$T/ll-home"
LL_RUNTIME=$T/ll-home/runtime-user-env
provider "$T/l1.json" --backend landlock --home "$T/ll-home" -- --peek "$REAL_CONFIG"
check_out "landlock: OPENAI_API_KEY is absent" "null" jget "$T/l1.json" .env.OPENAI_API_KEY
check_out "landlock: HOME is the instance's" "$LL_RUNTIME/home" jget "$T/l1.json" .env.HOME
check_out "landlock: XDG_CONFIG_HOME is the instance's" "$LL_RUNTIME/config" jget "$T/l1.json" .env.XDG_CONFIG_HOME
check_out "landlock: the CLI starts with a fresh config" "1" jget "$T/l1.json" .runs
check_out "landlock: the real home's config cannot be read (EACCES)" "EACCES" jget "$T/l1.json" .peeks.0.result
provider "$T/l2.json" --backend landlock --home "$T/ll-home" --
check_out "landlock: the config persists across runs in the instance (run 2)" "2" jget "$T/l2.json" .runs
check_out "landlock: the real home's config is untouched" '{"runs":2}' cat "$REAL_CONFIG"
done_testing
