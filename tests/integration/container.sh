#!/bin/bash
# cordon inside real containers: Debian's runc starts them as Docker and
# Podman do by default (each engine's published seccomp profile, its
# capabilities, its masked /proc paths, no user namespace; the data and
# where it comes from: tests/data/containers/README.md), as the container's
# root (TEST_AS=root) or as a user in it (TEST_AS=user: uid 65534 there).
# In each: `cordon check`'s verdict for both backends against what `cordon
# run` does, the step it names and its fix, what the run goes without
# (plan, --stats), then the landlock backend's suites inside. Variants with
# the engines' own flags (seccomp=unconfined and the /proc paths unmasked,
# only unmasked, --cap-add SYS_PTRACE) show each fix check names working.
# What an attacker would use, each tested: a check that promises a run
# that fails, or that refuses a backend that runs; a run that goes on
# without a security step (only the hostname and the supervised connect
# may be left out, and the connect then fails closed).
. "$(dirname "$0")/lib.sh"

command -v runc >/dev/null || { not_ok "runc is installed (scripts/deps.sh test)"; done_testing; exit 1; }
# one copy for every build (scripts/deps.sh test fetches it)
PROF=/var/cache/cordon/container-profiles
"$TOP/scripts/container-profiles.sh" "$PROF" >"$T/profiles.log" 2>&1 ||
    { not_ok "the engines' profiles from Debian's packages"; diag <"$T/profiles.log"; done_testing; exit 1; }
ENGINES=$TOP/tests/data/containers/engines.json

check "control: Podman's capabilities in engines.json are containers.conf's default_capabilities" python3 -c '
import json, sys, tomllib
conf = tomllib.load(open(sys.argv[1], "rb"))["containers"]["default_capabilities"]
data = json.load(open(sys.argv[2]))["podman"]["capabilities"]
sys.exit(sorted("CAP_" + c for c in conf) != sorted(data))' "$PROF/containers.conf" "$ENGINES"

# The exchange directory, the same path inside (read-write): what the
# command made, the inner suites' output.
X=$T/x
mkdir -p "$X/bin" "$X/out" && chmod 1777 "$X" "$X/out" && cp "$CORDON" "$PROBE" "$X/bin/" && chmod 755 "$X/bin"
N=0
# ctr ENGINE VARIANT CMD...: CMD in a new container (as its root); its
# output on stdout, its status ours.
ctr() {
    local engine=$1 variant=$2; shift 2
    local b=$T/bundle-$engine-$variant id
    N=$((N + 1)); id=cordon-test-$$-$N
    if [ ! -d "$b/rootfs" ]; then
        mkdir -p "$b/rootfs"/{root,tmp,proc,dev,sys,usr,etc,run,var/tmp} && chmod 700 "$b/rootfs/root"
        for l in bin sbin lib lib32 lib64 libx32; do
            [ -L "/$l" ] && ln -s "$(readlink "/$l")" "$b/rootfs/$l"
            [ -d "/$l" ] && [ ! -L "/$l" ] && mkdir -p "$b/rootfs/$l"
        done
        local marker
        marker=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]]["env_file"])' "$ENGINES" "$engine")
        mkdir -p "$b/rootfs$(dirname "$marker")" && : >"$b/rootfs$marker"
    fi
    local binds=(--bind /usr --bind /etc --bind "$TOP" --bind "$X:rw")
    for l in bin sbin lib lib32 lib64 libx32; do [ -d "/$l" ] && [ ! -L "/$l" ] && binds+=(--bind "/$l"); done
    python3 "$TOP/tests/helpers/oci-config.py" "$engine" "$PROF" "$b/rootfs" --variant "$variant" "${binds[@]}" \
        -- "$@" >"$b/config.json" || return 125
    timeout 900 runc run --bundle "$b" "$id" </dev/null
    local r=$?
    runc delete --force "$id" >/dev/null 2>&1
    return $r
}
# inside ENGINE VARIANT SHELL-TEXT: as the test's identity inside (the
# container's root, or uid 65534 in it), in $X, HOME there
inside() {
    local engine=$1 variant=$2; shift 2
    local as=""
    [ "$TEST_AS" = user ] && as="setpriv --reuid=$TEST_UID --regid=$TEST_GID --clear-groups --inh-caps=-all"
    ctr "$engine" "$variant" sh -c "cd '$X/w-$TEST_AS' && exec $as env HOME='$X/home-$TEST_AS' C='$X/bin/cordon' P='$X/bin/probe' sh -c \"\$0\"" "$1"
}
mkdir -p "$X/home-$TEST_AS" "$X/w-$TEST_AS" && { is_root_run || chown $TEST_UID:$TEST_GID "$X/home-$TEST_AS" "$X/w-$TEST_AS"; }

# verdict ENGINE VARIANT BACKEND: check's verdict against the run's
verdict() {
    local e=$1 v=$2 be=$3 c r
    inside "$e" "$v" "\$C check --backend $be >$X/check-$e-$v-$be 2>&1; echo \$? >$X/check-$e-$v-$be.rc
        \$C run --backend $be --expose-rw $X/out -- \$P create $X/out/ran-$e-$v-$be >$X/run-$e-$v-$be 2>&1; echo \$? >$X/run-$e-$v-$be.rc"
    c=$(cat "$X/check-$e-$v-$be.rc"); r=$(cat "$X/run-$e-$v-$be.rc")
    if [ "$c" = 0 ]; then
        check_out "$e ($v): check says the $be backend can run, and a run runs" "0 ran" \
            sh -c "echo $r \$(test -e '$X/out/ran-$e-$v-$be' && echo ran)"
    else
        check_out "$e ($v): check says the $be backend cannot run, and a run refuses (125) without running" "1 125" \
            sh -c "echo $c $r \$(test -e '$X/out/ran-$e-$v-$be' && echo ran)"
    fi
    [ "$c" = 0 ] || [ "$c" = 1 ] || { not_ok "$e ($v): check exits 0 or 1, not $c"; diag <"$X/check-$e-$v-$be"; }
}

for e in docker podman; do
    # -- the container is what it claims
    inside "$e" default 'grep Seccomp: /proc/self/status; cat /proc/self/uid_map; stat -c %t:%T /proc/keys
        setpriv -d | sed -n "s/^Capability bounding set: /caps: /p"' >"$T/ctl-$e" 2>&1
    check_contains "control ($e): a seccomp filter" "Seccomp:	2" cat "$T/ctl-$e"
    check_contains "control ($e): no user namespace" "0          0 4294967295" cat "$T/ctl-$e"
    check_contains "control ($e): /proc/keys masked (/dev/null over it)" "1:3" cat "$T/ctl-$e"
    want=$(python3 -c 'import json, sys
print(",".join(c[4:].lower() for c in json.load(open(sys.argv[1]))[sys.argv[2]]["capabilities"]))' "$ENGINES" "$e")
    check_out "control ($e): the engine's capabilities" "$(tr , '\n' <<<"$want" | sort | tr '\n' ,)" \
        sh -c "sed -n 's/^caps: //p' '$T/ctl-$e' | tr , '\n' | sort | tr '\n' ,"

    # -- check's verdict is what run does, for both backends
    verdict "$e" default linux
    verdict "$e" default landlock
done
# what each names, and its fix
check_contains "docker: the linux backend's first failing step is the user namespace" "user namespace: failed" \
    cat "$X/check-docker-default-linux"
check_contains "... its fix is Docker's flag" "--security-opt seccomp=unconfined" cat "$X/check-docker-default-linux"
check_contains "... and the landlock backend is named the strongest here" 'the strongest backend on this host is "landlock"' \
    cat "$X/check-docker-default-linux"
check_contains "podman: the hostname is refused, and runs go without it" "hostname: without: the sandbox keeps the host's hostname" \
    cat "$X/check-podman-default-linux"
check_contains "podman: the linux backend's first failing step is the fresh /proc" "a fresh /proc: failed" \
    cat "$X/check-podman-default-linux"
check_contains "... its fix is Podman's flag" "--security-opt unmask=ALL" cat "$X/check-podman-default-linux"
check_contains "... and the steps after it were tried without it (Landlock: ok)" "Landlock: ok" \
    cat "$X/check-podman-default-linux"
check_contains "... the run fails there, not at the hostname" "mounting /proc" cat "$X/run-podman-default-linux"
check_contains "docker: the landlock backend runs without the supervised connect, saying why and the fix" \
    "connect: without: the command's connect() and listen() fail (EPERM)" cat "$X/check-docker-default-landlock"
check_contains "... the fix is --cap-add SYS_PTRACE" "--cap-add SYS_PTRACE" cat "$X/check-docker-default-landlock"
check_fails "podman: the landlock backend goes without nothing" grep -q "(without: \|: without: " "$X/check-podman-default-landlock"

# -- what a run goes without is what the plan and the --stats record say
listen='import os, socket
p = os.environ["TMPDIR"] + "/s"
os.path.exists(p) and os.unlink(p)
s = socket.socket(socket.AF_UNIX); s.bind(p)
try:
    s.listen(); print("listen ok")
except OSError as e: print("listen", e.errno)'
inside docker default "\$C plan --backend landlock -- true >$X/plan-ll 2>&1
    \$C run --backend landlock --stats $X/stats-ll -- python3 -c '$listen' >$X/listen-ll 2>&1"
check_contains "docker: cordon plan says the run goes without connect" "without: connect:" cat "$X/plan-ll"
check_contains "... the --stats record too" '"degraded": [{"step": "connect"' cat "$X/stats-ll"
check_out "... and a unix socket's listen fails closed (EPERM), as they say" "listen 1" cat "$X/listen-ll"
verdict docker cap-ptrace landlock
inside docker cap-ptrace "\$C run --backend landlock -- python3 -c '$listen'" >"$T/listen-ptrace" 2>&1
check_out "docker --cap-add SYS_PTRACE (the fix named): the listen works" "listen ok" cat "$T/listen-ptrace"
check_fails "... and check names nothing it goes without" grep -q "(without: \|: without: " "$X/check-docker-cap-ptrace-landlock"

# the linux backend where the engine's flags allow it
verdict docker unconfined linux
check_contains "docker with seccomp=unconfined and systempaths=unconfined (the fixes named): check says can run" \
    "backend linux: can run" cat "$X/check-docker-unconfined-linux"
verdict podman unmasked linux
check_contains "podman with unmask=ALL: can run, without the hostname" "backend linux: can run (without: hostname)" \
    cat "$X/check-podman-unmasked-linux"
inside podman unmasked "\$C plan -- true >$X/plan-pu 2>&1; \$C run --stats $X/stats-pu -- hostname >$X/host-pu 2>&1"
check_contains "... cordon plan says so" "without: hostname:" cat "$X/plan-pu"
check_contains "... the --stats record too" '"degraded": [{"step": "hostname"' cat "$X/stats-pu"
check_out "... and the sandbox has the container's hostname" "ctr-podman" cat "$X/host-pu"
inside docker unconfined "\$C run -- hostname" >"$T/host-du" 2>&1
check_out "docker unconfined: the sandbox's own hostname" "cordon" cat "$T/host-du"

# -- the container's root: the sandbox user binds --pids by RLIMIT_NPROC
# (no pids cgroup in these containers), where root's command cannot be
if is_root_run; then
    inside docker default "\$C plan --backend landlock --pids 10 -- true >$X/pids-plan 2>&1
        \$C check --backend landlock >$X/pids-check 2>&1
        \$C run --backend landlock --user caller --pids 10 -- true >$X/pids-caller 2>&1; echo \$? >>$X/pids-caller"
    check_contains "docker, as root: --pids is RLIMIT_NPROC of the sandbox user" "pids=10 (by RLIMIT_NPROC of the sandbox user)" \
        cat "$X/pids-plan"
    check_contains "... cordon check says so" "process limit (--pids): RLIMIT_NPROC of the sandbox user" cat "$X/pids-check"
    check_contains "control: root's own command (--user caller) cannot be bound: refused" "RLIMIT_NPROC cannot stand in" \
        cat "$X/pids-caller"
    check_out "... with 125" "125" tail -1 "$X/pids-caller"
fi

# -- the landlock backend's suites inside, as the container's root or as
# a user in it; the linux backend's checks in them need namespaces
# (docs/backends.md), which these containers refuse. Docker's default: the
# escape probes (docs/backends.md), whose connects there fail closed (no
# pidfd_getfd: their section has no control); with the fix check names
# (--cap-add SYS_PTRACE) and Podman's default: every landlock suite.
# A sanitized build (make check runs both) spreads one pass of them over the
# containers: what it adds is the sanitizers on the same code, and CI's
# time is bounded.
ALL="probes landlock landlock-metadata landlock-attack landlock-net landlock-git sandbox-user"
sanitized=$(python3 -c 'import json, sys
o = {x["name"]: x["value"] for x in json.load(open(sys.argv[1]))}
print("yes" if o.get("b_sanitize", "none") != "none" else "no")' "$CORDON_BUILD/meson-info/intro-buildoptions.json" 2>/dev/null)
for ev in docker:default docker:cap-ptrace podman:default; do
    e=${ev%%:*} v=${ev#*:}
    SUITES=$ALL
    [ "$ev" = docker:default ] && SUITES="probes landlock landlock-metadata sandbox-user"
    if [ "$sanitized" = yes ]; then
        case $ev in
        docker:default) SUITES="probes sandbox-user" ;;
        docker:cap-ptrace) SUITES="landlock-metadata landlock-git" ;;
        podman:default) SUITES="landlock landlock-attack landlock-net" ;;
        esac
    fi
    for s in ${CONTAINER_SUITES:-$SUITES}; do
        f=$TOP/tests/escape/$s.sh
        out=$X/suite-$e-$v-$s.tap
        ctr "$e" "$v" env CORDON_BUILD="$CORDON_BUILD" TEST_AS="$TEST_AS" CORDON_TEST_NO_LINUX=1 CORDON_TEST_IN_CONTAINER=1 CI="${CI:-}" \
            UBSAN_OPTIONS="${UBSAN_OPTIONS:-}" ASAN_OPTIONS="${ASAN_OPTIONS:-}" bash "$f" >"$out" 2>"$out.err"
        rc=$?
        linux_only=0 refused=0 passed=0
        while IFS= read -r line; do
            case $line in
            "ok "*"# SKIP needs the linux backend"*) linux_only=$((linux_only + 1)) ;;
            "ok "*"# SKIP the container refuses it"*) refused=$((refused + 1)) ;;
            "ok "*"# SKIP"*) _n=$((_n + 1)); echo "ok $_n - $e ($v): $s: ${line#ok * - }" ;;
            "ok "*) passed=$((passed + 1)); ok "$e ($v): $s: ${line#ok * - }" ;;
            "not ok "*) not_ok "$e ($v): $s: ${line#not ok * - }" ;;
            esac
        done <"$out"
        grep -q '^not ok' "$out" && { grep -E '^#' "$out" | head -20 | diag; }
        if [ "$rc" -ne 0 ] && ! grep -q '^not ok' "$out"; then not_ok "$e ($v): $s exited $rc"; diag <"$out.err"; fi
        [ "$passed" -gt 0 ] || { not_ok "$e ($v): $s ran no test"; diag <"$out.err"; }
        echo "# $e ($v): $s: $passed passed inside; not run: $linux_only checks of the linux backend (namespaces), $refused whose control the container refuses too"
    done
done

done_testing
