#!/bin/bash
# cordon learn on real tasks that fail under cordon only for want of an
# exposure or a host: each runs unsandboxed first (the control: it
# passes), fails under cordon, and passes with the layer cordon learn
# printed, which holds exactly what the task used (nothing broader), and
# never a private key, /etc/shadow or the home.
#   build    make, reading a config in the caller's home (linux backend:
#            the landlock backend shows a path only where it is)
#   suite    python's unittest, reading a fixtures directory of the host
#   install  pip downloading a package whose index is allowed and whose
#            file lies on another host (port)
#   tool     a program in ~/.local/bin, looked up in PATH
#   npmrc    a program reading ~/.npmrc (linux backend, as build)
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3

mkdir -p "$H/.config/mybuild" "$H/.local/bin" "$H/.ssh" "$T/fixtures/cases" "$T/idx/simple/demo" "$T/files"
echo "-O2" >"$H/.config/mybuild/flags"
echo "registry=https://registry.example/" >"$H/.npmrc"
echo "-----BEGIN OPENSSH PRIVATE KEY-----" >"$H/.ssh/id_rsa"
printf '#!/bin/sh\necho "mytool 1.0"\n' >"$H/.local/bin/mytool"
chmod 755 "$H/.local/bin/mytool"
for i in 1 2 3; do echo "case $i" >"$T/fixtures/cases/c$i.txt"; done
is_root_run || chown -R $TEST_UID:$TEST_GID "$H"
chmod 644 "$H/.ssh/id_rsa"
TOOLPATH="$H/.local/bin:$PATH"

# the tasks' files, in the workspace-like project directory
printf 'all:\n\t@cat "$$HOME/.config/mybuild/flags" && echo built\n' >"$W/Makefile"
cat >"$W/test_fixtures.py" <<EOF
import os, unittest
D = "$T/fixtures/cases"
class T(unittest.TestCase):
    def test_cases(self):
        names = sorted(os.listdir(D))
        self.assertEqual(names, ["c1.txt", "c2.txt", "c3.txt"])
        for n in names:
            with open(os.path.join(D, n)) as f:
                self.assertTrue(f.read().startswith("case"))
EOF
cat >"$W/npmrc.py" <<'EOF'
import os
with open(os.path.expanduser("~/.npmrc")) as f:
    print("configured" if "registry=" in f.read() else "empty")
EOF
# a wheel and an index that names it on another port
$PY - "$T/files/demo-1.0-py3-none-any.whl" <<'EOF'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w") as z:
    z.writestr("demo/__init__.py", "")
    z.writestr("demo-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: demo\nVersion: 1.0\n")
    z.writestr("demo-1.0.dist-info/WHEEL", "Wheel-Version: 1.0\nGenerator: t\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
    z.writestr("demo-1.0.dist-info/RECORD", "")
EOF
free_port() { $PY -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])'; }
P1=$(free_port) P2=$(free_port)
echo "<a href=\"http://127.0.0.1:$P2/demo-1.0-py3-none-any.whl\">demo-1.0-py3-none-any.whl</a>" >"$T/idx/simple/demo/index.html"
$PY -m http.server --bind 127.0.0.1 -d "$T/idx" "$P1" >/dev/null 2>&1 &
CLEANUP_PIDS="${CLEANUP_PIDS:-} $!"
$PY -m http.server --bind 127.0.0.1 -d "$T/files" "$P2" >/dev/null 2>&1 &
CLEANUP_PIDS="${CLEANUP_PIDS:-} $!"
for _ in $(seq 50); do $PY -c "import urllib.request as u; u.urlopen('http://127.0.0.1:$P1/'); u.urlopen('http://127.0.0.1:$P2/')" 2>/dev/null && break; sleep 0.1; done
user_dir() { mkdir -p "$@" && { is_root_run || chown -R $TEST_UID:$TEST_GID "$@"; }; }
user_dir "$W/dl"

PIP="env PIP_CONFIG_FILE=/dev/null $PY -m pip download --no-deps --disable-pip-version-check --no-cache-dir --index-url http://127.0.0.1:$P1/simple/ --trusted-host 127.0.0.1 --dest $W/dl demo"
declare -A TASK=(
    [build]="make -s"
    [suite]="$PY -B -m unittest -q test_fixtures"
    [install]="$PIP"
    [tool]="mytool"
    [npmrc]="$PY npmrc.py"
)
declare -A FLAGS=([install]="--allow-net 127.0.0.1:$P1")
# what each layer must hold, exactly: exposures (source target mode) and network entries
declare -A WANT=(
    [build]='expose ~/.config/mybuild/flags $HOME/.config/mybuild/flags ro'
    [suite]="expose $T/fixtures/cases - ro"
    [install]="expose $W/dl - rw
net 127.0.0.1:$P2"
    [tool]='expose ~/.local/bin - ro'
    [npmrc]='expose ~/.npmrc $HOME/.npmrc ro'
)
in_w() { (cd "$W" && as_user env PATH="$TOOLPATH" "$@"); }
# what a layer holds, one line per entry, as WANT writes it
holds_of() {
    $PY - "$1" <<'EOF'
import json, sys
layer = json.load(open(sys.argv[1]))
iso = layer.get("isolation", {})
for r in iso.get("expose_paths", []):
    assert r.get("comment"), r
    print("expose", r["source"], r.get("target", "-"), r["mode"])
for n in iso.get("network_allow", []):
    print("net", n)
EOF
}

for task in build suite install tool npmrc; do
    rm -rf "$W/dl"/*
    check "control: $task passes unsandboxed" in_w sh -c "${TASK[$task]}"
    for b in linux landlock; do
        case $task:$b in build:landlock | npmrc:landlock) continue ;; esac
        rm -rf "$W/dl"/*
        check_fails "$b: $task fails under cordon" in_w "$CORDON" run --quiet --backend $b ${FLAGS[$task]:-} -- sh -c "${TASK[$task]}"
        in_w "$CORDON" learn --quiet --backend $b ${FLAGS[$task]:-} -- sh -c "${TASK[$task]}" >"$T/$task-$b.json" 2>"$T/$task-$b.err"
        check_out "$b: $task: cordon learn's layer holds exactly what it used" "${WANT[$task]}" holds_of "$T/$task-$b.json"
        rm -rf "$W/dl"/*
        check "$b: $task passes with the layer" \
            in_w "$CORDON" run --quiet --backend $b ${FLAGS[$task]:-} --config "$T/$task-$b.json" -- sh -c "${TASK[$task]}"
        [ $task != install ] || check "$b: install: ... and the package was downloaded" test -f "$W/dl/demo-1.0-py3-none-any.whl"
    done
done

# never a secret, /etc/shadow, nor the home; the command's stdout is on stderr
for b in linux landlock; do
    in_w "$CORDON" learn --quiet --backend $b -- sh -c 'echo on-stdout; cat ~/.ssh/id_rsa /etc/shadow; ls ~/..; cat "$0"' \
        "$H/.ssh/id_rsa" >"$T/secret-$b.json" 2>"$T/secret-$b.err"
    check_out "$b: learn: a private key, /etc/shadow, the home: nothing learned" "" holds_of "$T/secret-$b.json"
    check_contains "$b: learn: the command's stdout went to stderr" "on-stdout" cat "$T/secret-$b.err"
    # a call the seccomp filter refuses (a syscall entry, --explain's): nothing can allow it
    in_w "$CORDON" learn --quiet --backend $b -- sh -c 'unshare -m true; unshare -Ur true' >"$T/sys-$b.json" 2>/dev/null
    check_out "$b: learn: a refused system call: nothing learned" "" holds_of "$T/sys-$b.json"
    check_fails "$b: learn: ... nor named in the layer" grep -q unshare "$T/sys-$b.json"
done
done_testing
