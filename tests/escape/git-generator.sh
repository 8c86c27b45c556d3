#!/bin/bash
# The post-run git check, proven by a generator (issue 32, item 8): for each
# case of a grammar derived from git 2.39's source (tests/escape/git-generator.md:
# WHERE git reads x WHAT runs a program x HOW it gets there), the command
# plants it inside `cordon run --workspace WS -C WS` (linux and landlock
# backends), then the host's real git runs there as the test user on a
# terminal, every child process it starts recorded (GIT_TRACE2_EVENT) and a
# marker the planted program would touch. A case passes when git starts none
# of the command's programs; its control (the same plant by plain sh) must
# run the planted program, or the case is a failure of the generator.
# The helper is tests/helpers/gitgen.py; GITGEN_FULL=1 (or =all) runs a
# longer sweep, GITGEN_ONLY=REGEX a part. The cases' directories are made on
# a tmpfs of their own mounted at $T/gg (some ten times faster here than the
# disk for the many small files; git's rules and cordon's check do not depend
# on the file system; not /dev/shm, which another suite's run may expose and
# check meanwhile), or in GITGEN_DIR.
. "$(dirname "$0")/../integration/lib.sh"
if [ -z "${GITGEN_DIR:-}" ]; then
    GITGEN_DIR=$T/gg
    mkdir -p "$GITGEN_DIR"
    if mount -t tmpfs -o mode=755,size=4g cordon-gitgen "$GITGEN_DIR" 2>/dev/null; then
        trap 'umount -l "$GITGEN_DIR"; cleanup_test' EXIT
    fi
fi
mkdir -p "$GITGEN_DIR" && chmod 755 "$GITGEN_DIR"
GG_CORDON=$CORDON GG_SCRATCH=$T GG_HOME=$H GG_PROJ=$W TEST_AS=$TEST_AS GITGEN_DIR=$GITGEN_DIR \
    /usr/bin/python3 "$TOP/tests/helpers/gitgen.py"
