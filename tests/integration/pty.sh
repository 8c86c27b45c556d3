#!/bin/bash
# A terminal of its own: on a terminal (or with --pty) the command gets a
# new pseudo-terminal of the sandbox's devpts as its controlling terminal,
# relayed to the caller's. Driven by tests/helpers/pty-drive.py, which runs
# the CLI on a pty of its own like a caller's shell; each check against the
# same command without cordon, or with --no-pty (the old behaviour).
. "$(dirname "$0")/lib.sh"
cp "$TOP/tests/helpers/pty-drive.py" "$T/bin/pty-drive.py"
drive() { (cd "$W" && as_user python3 "$T/bin/pty-drive.py" "$@"); }
# drive [driver options] -- CMD: cordon runs CMD
in_cordon() {
    local opts=()
    while [ "$1" != -- ]; do opts+=("$1"); shift; done
    shift
    drive "${opts[@]}" -- "$CORDON" run --quiet "$@"
}
first_line() { "$@" | head -1 | tr -d '\r'; }
first3() { "$@" | head -3 | xargs; }
check_lacks() { # DESC NEEDLE CMD...
    local d=$1 needle=$2; shift 2
    "$@" >"$T/.out" 2>&1
    if grep -qF -- "$needle" "$T/.out"; then not_ok "$d (has \"$needle\")"; diag <"$T/.out"; else ok "$d"; fi
}

# Each check runs on both backends that have the command's own terminal:
# the linux backend's (its private devpts) and the landlock backend's (a
# new pair of the host's devpts). The controls (without cordon, or
# --no-pty) run once.
check_contains "tty on the driver's terminal (control, without cordon)" /dev/pts/ drive -- tty
check_contains "--no-pty: tty says not a tty (the old behaviour)" "not a tty" in_cordon -- --no-pty -- tty
check_status "--no-pty: tty's status 1" 1 in_cordon -- --no-pty -- tty
check_contains "--no-pty: /dev/tty does not open (no controlling terminal)" "No such device" \
    in_cordon -- --no-pty -- sh -c 'echo via-dev-tty >/dev/tty'
check_contains "--no-pty: bash -i has no job control (control)" "no job control" \
    in_cordon --input 'exit 4\n' --when-raw -- --no-pty -- bash --norc -i
raw='stty raw -echo; exit 7'
check_contains "stty raw without cordon changes the terminal (control)" "TERMIOS CHANGED" drive -- sh -c "$raw"
check_contains "stty cols without cordon changes its size (control)" "WINSIZE CHANGED" drive -- stty cols 7
check_contains "TIOCSTI without cordon pushes input into the caller's terminal (control)" "PENDING 1" \
    drive -- "$PROBE" tiocsti
winch='stty size; trap "stty size; exit 0" WINCH; echo READY; while :; do sleep 0.1; done'
check_out "window size and SIGWINCH (control, without cordon)" "24 80 READY 30 100" \
    first3 drive --wait-for READY --resize 30x100 -- sh -c "$winch"

for backend in linux landlock; do
    B=(--backend "$backend")
    # -- tty and /dev/tty
    if [ "$backend" = linux ]; then
        check_out "$backend: tty inside: the sandbox's own /dev/pts/0" "/dev/pts/0" first_line in_cordon -- "${B[@]}" -- tty
    else
        outer=$(first_line drive -- tty)
        inner=$(first_line in_cordon -- "${B[@]}" -- tty)
        case $inner in /dev/pts/*) [ "$inner" != "$outer" ] ;; *) false ;; esac &&
            ok "$backend: tty inside: a new terminal ($inner, the caller's is $outer)" ||
            not_ok "$backend: tty inside: a new terminal (got \"$inner\", the caller's is $outer)"
        check_contains "$backend: ... which it reopens by name" via-name \
            in_cordon -- "${B[@]}" -- sh -c 'echo via-name >"$(tty)"'
        check_contains "$backend: ... but no other terminal of the host" "Permission denied" \
            in_cordon -- "${B[@]}" -- sh -c "echo x >$outer"
    fi
    check_contains "$backend: /dev/tty opens inside" via-dev-tty in_cordon -- "${B[@]}" -- sh -c 'echo via-dev-tty >/dev/tty'

    # -- job control of an interactive shell, and the exit status
    jobs_in='set -m; sleep 0 & wait; jobs; echo JOBS-$?; exit 4\n'
    check_contains "$backend: bash -i runs a background job" JOBS-0 \
        in_cordon --input "$jobs_in" --when-raw -- "${B[@]}" -- bash --norc -i
    check_lacks "$backend: ... with job control" "no job control" \
        in_cordon --input "$jobs_in" --when-raw -- "${B[@]}" -- bash --norc -i
    check_status "$backend: ... and its exit status is cordon's" 4 \
        in_cordon --input "$jobs_in" --when-raw -- "${B[@]}" -- bash --norc -i
    check_status "$backend: a signal's status too (128+15)" 143 in_cordon -- "${B[@]}" -- sh -c 'kill -TERM $$'

    # -- the caller's terminal is restored: its settings and its size,
    # whether the command exits, is killed, or leaves a process behind
    check_contains "$backend: stty raw inside leaves the caller's terminal as it was" "TERMIOS SAME" \
        in_cordon -- "${B[@]}" -- sh -c "$raw"
    check_status "$backend: ... and passes the status through" 7 in_cordon -- "${B[@]}" -- sh -c "$raw"
    for end in 'exit 0' 'kill -KILL $$' 'sleep 1000 & exit 0'; do
        in_cordon -- "${B[@]}" -- sh -c "stty -echo cols 7; $end" >"$T/.out" 2>&1
        grep -q "TERMIOS SAME" "$T/.out" && grep -q "WINSIZE SAME" "$T/.out" &&
            ok "$backend: stty -echo cols 7; $end: the caller's settings and size as they were" ||
            { not_ok "$backend: stty -echo cols 7; $end: the caller's settings and size as they were"; diag <"$T/.out"; }
    done

    # -- input, EOF, window size
    check_out "$backend: a typed line and ^D reach cat (EOF through the relay)" "hello hello TERMIOS SAME" \
        first3 in_cordon --input 'hello\n\x04' --when-raw -- "${B[@]}" -- cat
    check_out "$backend: --pty without a terminal: the pipe's EOF ends cat" "hi" \
        first_line as_user sh -c "echo hi | timeout 20 '$CORDON' run --quiet --backend $backend --pty -C '$W' -- cat"
    check_out "$backend: window size and SIGWINCH reach the command's terminal" "24 80 READY 30 100" \
        first3 in_cordon --wait-for READY --resize 30x100 -- "${B[@]}" -- sh -c "$winch"

    # -- TIOCSTI reaches only the sandbox's own terminal (and seccomp
    # refuses it: --no-pty)
    check_contains "$backend: TIOCSTI inside: nothing in the caller's input" "PENDING 0" \
        in_cordon -- "${B[@]}" --expose-ro "$PROBE" -- "$PROBE" tiocsti
    check_contains "$backend: --no-pty: TIOCSTI inside: nothing in the caller's input" "PENDING 0" \
        in_cordon -- "${B[@]}" --no-pty --expose-ro "$PROBE" -- "$PROBE" tiocsti
done

# -- without a terminal of its own, the command holds the caller's
# terminal: it may change it during the run, and cordon puts its settings
# and size back when the sandbox ends. The ways it gets the caller's
# terminal: --no-pty, or stdin not a terminal (stdout and stderr are); the
# ways the run ends: an exit, a SIGKILL of the command, a process left
# behind; cordon in the background (restoring must not stop it: SIGTTOU).
same_after() { # DESC CMD...: the caller's settings and size as they were
    local d=$1; shift
    "$@" >"$T/.out" 2>&1
    # (a job stopped by SIGTTOU: bash's "Stopped", "job 1[PID] stopped")
    if grep -q "TERMIOS SAME" "$T/.out" && grep -q "WINSIZE SAME" "$T/.out" && ! grep -qE "TIMEOUT|[Ss]topped" "$T/.out"; then
        ok "$d"
    else not_ok "$d"; diag <"$T/.out"; fi
}
changed_after() { # DESC CMD...: the control
    local d=$1; shift
    "$@" >"$T/.out" 2>&1
    if grep -q "TERMIOS CHANGED" "$T/.out" && grep -q "WINSIZE CHANGED" "$T/.out"; then ok "$d"
    else not_ok "$d"; diag <"$T/.out"; fi
}
changed_after "stdin not a terminal, without cordon: stty on stdout changes the terminal for good (control)" \
    drive -- sh -c "stty -echo cols 7 <&1 </dev/stdout" </dev/null
changed_after "in the background, without cordon, in a session of its own (as cordon's command): the same (control)" \
    drive --timeout 10 -- bash -c "set -m; setsid -w sh -c 'stty -echo cols 7' & wait"
for backend in linux landlock; do
    for end in 'exit 0' 'kill -KILL $$' 'sleep 1000 & exit 0'; do
        same_after "$backend: --no-pty: stty -echo cols 7; $end: put back" \
            in_cordon -- --backend "$backend" --no-pty -- sh -c "stty -echo cols 7; $end"
    done
    same_after "$backend: stdin not a terminal: stty -echo cols 7 on stdout: put back" \
        drive -- sh -c "exec '$CORDON' run --quiet --backend $backend -- sh -c 'stty -echo cols 7 <&1' </dev/null"
    same_after "$backend: cordon in the background: put back, and cordon is not stopped" \
        drive --timeout 10 -- bash -c "set -m; '$CORDON' run --quiet --backend $backend --no-pty -- sh -c 'stty -echo cols 7' & wait"
done

# -- a host whose /dev/ptmx makes no terminal (a file in its place, in a
# mount namespace of the driver's): the landlock backend runs with the
# caller's terminal, and puts it back
: >"$T/no-ptmx"
chmod 644 "$T/no-ptmx"
user=(env HOME="$H")
is_root_run || user=(setpriv --reuid=$TEST_UID --regid=$TEST_GID --clear-groups -- "${user[@]}")
no_ptmx="mount --bind '$T/no-ptmx' /dev/ptmx && cd '$W' && exec $(printf '%q ' "${user[@]}")"
check_contains "control: without /dev/ptmx, nothing makes a terminal" "Error: [Errno" \
    python3 "$T/bin/pty-drive.py" -- unshare -m sh -c "$no_ptmx python3 -c 'import os; os.openpty()'"
same_after "landlock: without /dev/ptmx: runs on the caller's terminal, put back" \
    python3 "$T/bin/pty-drive.py" -- unshare -m sh -c "$no_ptmx '$CORDON' run --quiet --backend landlock -- sh -c 'stty -echo cols 7'"
check_contains "... and runs" /dev/pts/ \
    python3 "$T/bin/pty-drive.py" -- unshare -m sh -c "$no_ptmx '$CORDON' run --quiet --backend landlock -- tty"

done_testing
