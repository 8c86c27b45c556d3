#!/bin/bash
# Text the command chose reaches the operator's terminal only escaped
# (issue 22, item 7). The command plants names in one run (a directory in
# the workspace whose name holds an OSC title, an OSC 52 clipboard write, a
# CSI and a C1 byte); the next runs print them: in an error, in the plan
# (cwd, rules), in a note. The proxy's denials and the call
# supervisor's refusals are tested in proxy.sh and landlock-metadata.sh.
. "$(dirname "$0")/lib.sh"
esc=$(printf 'd\033]0;pwned\007\033]52;c;aGk=\007\033[2J\302\233')
shown='d\x1b]0;pwned\x07\x1b]52;c;aGk=\x07\x1b[2J\xc2\x9b'
# how many raw ESC, BEL or C1 bytes FILE holds
raw_bytes() { python3 -c 'import sys; d = open(sys.argv[1], "rb").read(); print(sum(d.count(b) for b in (b"\x1b", b"\x07", b"\x9b")))' "$1"; }
out() { "$@" >"$T/out" 2>&1; raw_bytes "$T/out"; }

check "the command plants a directory with escape sequences in its name" \
    cordon run --expose "$W:rw" -- mkdir "$W/$esc"
check_out "control: its name holds the raw bytes" "3 2 1" sh -c \
    "ls '$W' | python3 -c 'import sys; d = sys.stdin.buffer.read(); print(d.count(b\"\\x1b\"), d.count(b\"\\x07\"), d.count(b\"\\x9b\"))'"

check_out "an error naming the path: no raw control byte" "0" out cordon run --expose "$W/$esc/missing" -- true
check_contains "... the path shown escaped" "$W/$shown/missing" cat "$T/out"
plan_inside() { CWD="$W/$esc" cordon plan -- true; }
check_out "cordon plan from inside it: no raw control byte" "0" out plan_inside
check_contains "... its cwd shown escaped" "cwd: $W/$shown" cat "$T/out"
check_out "the landlock backend's plan, a rule naming it: no raw control byte" "0" out \
    cordon plan --backend landlock --expose "$W:rw" --expose-ro "$W/$esc" -- true
check_contains "... the rule shown escaped" "ro  $W/$shown -> $W/$shown" cat "$T/out"
mkdir -p "$T/pathdir/$esc"
check_out "a note naming a PATH entry: no raw control byte" "0" out \
    as_user env PATH="$T/pathdir/$esc:$PATH" "$CORDON" run --verbose -- true
check_contains "... the entry shown escaped" "$T/pathdir/$shown" cat "$T/out"
plain_cwd() { cordon plan -- true | grep "^cwd:"; }
check_out "control: a plain name is shown as it is" "cwd: $W" plain_cwd
done_testing
