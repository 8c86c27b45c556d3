#!/bin/bash
# The workspace is hostile: the small hardening items, each property with
# its control (the same probe succeeding unsandboxed, or with the knob off).
. "$(dirname "$0")/lib.sh"
unset CORDON_DEBUG
mkdir -p "$T/data"; echo secret >"$T/data/file"
[ "$TEST_AS" = user ] && chown -R $TEST_UID:$TEST_GID "$T/data"

# cordon with CORDON_DEBUG=$1
cordon_debug() { local v=$1; shift; (export CORDON_DEBUG="$v"; cordon "$@"); }
# ok when file $2 has (or, with "!" first, lacks) the fixed string $3
has() { local neg=""; [ "$1" = "!" ] && { neg=1; shift; }
    local d=$1 f=$2 s=$3
    if grep -qF -- "$s" "$f"; then [ -z "$neg" ] && ok "$d" || { not_ok "$d"; diag <"$f"; }
    else [ -n "$neg" ] && ok "$d" || { not_ok "$d (no \"$s\")"; diag <"$f"; }; fi
}

# -- CORDON_DEBUG takes whole words. The read-only bind lies outside the
# writable /tmp (Landlock follows the path hierarchy) and Landlock is off, so
# the mount is the only wall.
ro_create=(run --landlock off --expose "$T/data:/opt/cordon-data" -- "$PROBE" create /opt/cordon-data/x)
check_out "CORDON_DEBUG=no-rw-binds-please: a ro bind stays read-only" "EROFS" \
    cordon_debug no-rw-binds-please "${ro_create[@]}"
cordon_debug no-rw-binds-please run -- true 2>"$T/dbg.err"
has ! "... and there is no rw-binds warning" "$T/dbg.err" "rw-binds: read-only binds"
has "... but a warning names the unknown word" "$T/dbg.err" 'CORDON_DEBUG: unknown word "no-rw-binds-please"'
check "... and nothing was written" test ! -e "$T/data/x"
check_out "control: CORDON_DEBUG=rw-binds makes the ro bind writable" "OK" cordon_debug rw-binds "${ro_create[@]}"
rm -f "$T/data/x"
cordon_debug timing,rw-binds run -- true 2>"$T/dbg.err"
has "control: ... and warns (in a list of words)" "$T/dbg.err" "CORDON_DEBUG=rw-binds: read-only binds"
has "... while the other word of the list works too" "$T/dbg.err" "timing (ms)"
done_testing
