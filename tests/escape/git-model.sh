#!/bin/bash
# cordon's model of git's config syntax (src/core/gitmodel.c) against the
# real git: for configs drawn from a grammar of what git's parser accepts
# and refuses (section forms, quotes, escapes, continuations, comments,
# CRLF, a BOM, stray bytes), `git config -f FILE --list -z` and the
# model's reading must be the same, keys, values and refusal alike. A
# config that git reads one way and the model another would let a key
# that runs a program pass for benign after the run.
. "$(dirname "$0")/../integration/lib.sh"
MODEL=$CORDON_BUILD/tests/test-gitmodel
N=${GIT_MODEL_CASES:-600}
mkdir -p "$T/cfg"
/usr/bin/python3 - "$T/cfg" "$N" <<'PY'
import os, random, sys
out, n = sys.argv[1], int(sys.argv[2])
rnd = random.Random(32)
good_heads = ['[core]', '[Core]', '[a.B]', '[a "x y"]', '[a "q\\"z"]', '[ "x"]', '[include]', '[includeIf "gitdir:~/w/"]',
              '[remote "o"]', '[core "."]', '[a "\\\\"]', '[a-b]', '[a.b.c]', '[alias]']
bad_heads = ['[]', '[a', '[a "x" ]', '[a "x"', '[1a', '[a b]']
good_keys = ['pager', 'fsmonitor', 'Path', 'url', 'x1', 'b-c', 'A', 'h', 'st']
bad_keys = ['1k', 'k k', 'k\\', '-k']
good_vals = ['v', ' v ', '"a b"', 'a"b"c', 'x\\ty', 'x\\ny', 'x \\\n y', 'a ; c', 'a # c', '"a;b"', '',
             '\\"', '"x\\\n"', '  "  "  ', 'ü', '\x01', '=', 'a=b', '!sh -c x']
bad_vals = ['"a', 'x\\q', 'x\\']
seps = [' = ', '=', ' =', '\t=\t', '', ' ']
ends = ['\n', '\r\n', '\r', ' # c\n', ' ;c\n', '\n\n']
pick = lambda good, bad: rnd.choice(bad) if rnd.random() < 0.04 else rnd.choice(good)
for i in range(n):
    parts = []
    if rnd.random() < 0.1:
        parts.append('\ufeff' if rnd.random() < 0.8 else '\xef')
    for _ in range(rnd.randint(1, 5)):
        if rnd.random() < 0.3 or not parts:
            parts.append(pick(good_heads, bad_heads) + rnd.choice(['', '\n', ' ', '\t#c\n']))
        parts.append(rnd.choice(['', ' ', '\t']) + pick(good_keys, bad_keys))
        if rnd.random() < 0.85:
            parts.append(rnd.choice(seps) + pick(good_vals, bad_vals))
        parts.append(rnd.choice(ends) if rnd.random() < 0.97 else '')
    with open(os.path.join(out, 'c%04d' % i), 'w', encoding='utf-8', errors='surrogateescape', newline='') as f:
        f.write(''.join(parts))
PY
same=0 differ=0 refused=0
for f in "$T"/cfg/c*; do
    git config -f "$f" --list -z >"$f.git" 2>/dev/null; g=$?
    "$MODEL" --dump "$f" >"$f.model" 2>/dev/null; m=$?
    [ "$g" -ne 0 ] && g=128 && refused=$((refused + 1))
    if [ "$g" = "$m" ] && cmp -s "$f.git" "$f.model"; then same=$((same + 1))
    else
        differ=$((differ + 1))
        [ "$differ" -le 5 ] && { echo "differs: $(basename "$f") (git $g, model $m)"; od -c "$f" | head -5; } | diag
    fi
done
check_out "the model reads $N generated configs as git $(git --version | cut -d' ' -f3) does" 0 echo "$differ"
# the grammar reaches both outcomes: at least a tenth refused, a tenth read
check "... ($refused of $N refused by git: both outcomes reached)" test "$refused" -ge $((N / 10)) -a "$refused" -le $((N - N / 10))
done_testing
