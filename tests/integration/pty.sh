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

# -- tty and /dev/tty
check_contains "tty on the driver's terminal (control, without cordon)" /dev/pts/ drive -- tty
check_out "tty inside: the sandbox's own /dev/pts/0" "/dev/pts/0" \
    first_line in_cordon -- -- tty
check_contains "--no-pty: tty says not a tty (the old behaviour)" "not a tty" in_cordon -- --no-pty -- tty
check_status "--no-pty: tty's status 1" 1 in_cordon -- --no-pty -- tty
check_contains "/dev/tty opens inside" via-dev-tty in_cordon -- -- sh -c 'echo via-dev-tty >/dev/tty'
check_contains "--no-pty: /dev/tty does not (no controlling terminal)" "No such device" \
    in_cordon -- --no-pty -- sh -c 'echo via-dev-tty >/dev/tty'

# -- job control of an interactive shell, and the exit status
jobs_in='set -m; sleep 0 & wait; jobs; echo JOBS-$?; exit 4\n'
check_contains "--no-pty: bash -i has no job control (control)" "no job control" \
    in_cordon --input 'exit 4\n' --when-raw -- --no-pty -- bash --norc -i
check_contains "bash -i runs a background job" JOBS-0 \
    in_cordon --input "$jobs_in" --when-raw -- -- bash --norc -i
check_lacks "... with job control" "no job control" \
    in_cordon --input "$jobs_in" --when-raw -- -- bash --norc -i
check_status "... and its exit status is cordon's" 4 in_cordon --input "$jobs_in" --when-raw -- -- bash --norc -i
check_status "a signal's status too (128+15)" 143 in_cordon -- -- sh -c 'kill -TERM $$'

# -- the caller's terminal is restored
raw='stty raw -echo; exit 7'
check_contains "stty raw without cordon changes the terminal (control)" "TERMIOS CHANGED" drive -- sh -c "$raw"
check_contains "--no-pty: stty raw inside changes the caller's terminal (control)" "TERMIOS CHANGED" \
    in_cordon -- --no-pty -- sh -c "$raw"
check_contains "stty raw inside leaves the caller's terminal as it was" "TERMIOS SAME" in_cordon -- -- sh -c "$raw"
check_status "... and passes the status through" 7 in_cordon -- -- sh -c "$raw"

# -- input, EOF, window size
check_out "a typed line and ^D reach cat (EOF through the relay)" "hello hello TERMIOS SAME" \
    first3 in_cordon --input 'hello\n\x04' --when-raw -- -- cat
check_out "--pty without a terminal: the pipe's EOF ends cat" "hi" \
    first_line as_user sh -c "echo hi | timeout 20 '$CORDON' run --quiet --pty -C '$W' -- cat"
winch='stty size; trap "stty size; exit 0" WINCH; echo READY; while :; do sleep 0.1; done'
check_out "window size and SIGWINCH (control, without cordon)" "24 80 READY 30 100" \
    first3 drive --wait-for READY --resize 30x100 -- sh -c "$winch"
check_out "window size and SIGWINCH reach the command's terminal" "24 80 READY 30 100" \
    first3 in_cordon --wait-for READY --resize 30x100 -- -- sh -c "$winch"

# -- TIOCSTI reaches only the sandbox's own terminal
check_contains "TIOCSTI without cordon pushes input into the caller's terminal (control)" "PENDING 1" \
    drive -- "$PROBE" tiocsti
check_contains "TIOCSTI inside: nothing in the caller's input" "PENDING 0" \
    in_cordon -- --expose-ro "$PROBE" -- "$PROBE" tiocsti

# -- the landlock backend has no devpts of its own
check_status "--backend landlock --pty: an error (125)" 125 in_cordon -- --backend landlock --pty -- true
check_contains "... that says why" "needs the linux backend" in_cordon -- --backend landlock --pty -- true
check_status "--backend landlock on a terminal: runs without one" 0 in_cordon -- --backend landlock -- true

done_testing
