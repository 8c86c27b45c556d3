# Shared by the benchmarks: the equivalent bubblewrap command line and
# helpers. Benchmarks are not tests: they print medians and ratios.
set -u
BENCH=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CORDON=${CORDON:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/build/cordon}
RUNS=${RUNS:-200}
BWRAP=${BWRAP:-$(command -v bwrap)}
[ -x "$CORDON" ] || { echo "bench: $CORDON not built (make)" >&2; exit 1; }
[ -n "$BWRAP" ] || { echo "bench: bubblewrap missing (scripts/deps.sh bench)" >&2; exit 1; }
command -v hyperfine >/dev/null || { echo "bench: hyperfine missing (scripts/deps.sh bench)" >&2; exit 1; }

B=$(mktemp -d /tmp/cordon-bench.XXXXXX)
trap 'rm -rf "$B"' EXIT
export HOME=$B/home CORDON_HOME=$B/home/.cordon
mkdir -p "$HOME" "$B/proj" "$B/workspace" "$B/gitws"
cd "$B/proj"

git init -q "$B/gitws" # the workspace agents really use: a git repository
mkdir -p "$CORDON_HOME"
for ws in workspace gitws; do
    "$CORDON" run --workspace "$B/$ws" -- /bin/true || { echo "bench: cordon cannot run here" >&2; exit 1; }
done

# bubblewrap with the view cordon plans for WORKSPACE (bench/bwrap-view: the
# same mounts, /etc files, /proc entries, protected git paths; every
# namespace, a new session, no capabilities).
bwrap_args() { "$CORDON" plan --json --workspace "$1" -- /bin/true | "$BENCH/bwrap-view"; }
# ... and the lighter line of earlier rounds (11 /etc files, no /proc masks,
# no package database, no instance mounts), for comparison with them
bwrap_min_args() {
    local a=(--unshare-all --die-with-parent --new-session --cap-drop ALL --ro-bind /usr /usr) d f
    for d in bin sbin lib lib32 lib64 libx32; do
        if [ -L "/$d" ]; then a+=(--symlink "$(readlink "/$d")" "/$d"); elif [ -d "/$d" ]; then a+=(--ro-bind "/$d" "/$d"); fi
    done
    for f in resolv.conf hosts nsswitch.conf ld.so.cache ld.so.conf ld.so.conf.d localtime ssl ca-certificates alternatives; do
        [ -e "/etc/$f" ] && a+=(--ro-bind "/etc/$f" "/etc/$f")
    done
    a+=(--proc /proc --dev /dev --tmpfs /tmp --bind "$CORDON_HOME" "$CORDON_HOME" --bind "$B/workspace" "$B/workspace"
        --ro-bind "$B/proj" "$B/proj" --chdir "$B/proj" --hostname cordon)
    printf '%q ' "${a[@]}"
}
BW="$BWRAP $(bwrap_args "$B/workspace")"
BWMIN="$BWRAP $(bwrap_min_args)"
BWG="$BWRAP $(bwrap_args "$B/gitws")"
CO="$CORDON run --workspace $B/workspace --"
COG="$CORDON run --workspace $B/gitws --"

# The previous round's build (bench/baseline), run the same ways, when
# BASELINE=1 (make bench) or BASELINE_REF / BASELINE_CORDON is set.
BASE=""
if [ "${BASELINE:-0}" = 1 ] || [ -n "${BASELINE_REF:-}" ] || [ -n "${BASELINE_CORDON:-}" ]; then
    BASE=$("$BENCH/baseline") || exit 1
    for ws in workspace gitws; do
        "$BASE" run --workspace "$B/$ws" -- /bin/true || { echo "bench: the baseline cordon cannot run here" >&2; exit 1; }
    done
fi
BA="$BASE run --workspace $B/workspace --"
BAG="$BASE run --workspace $B/gitws --"

# median NAME.json -> seconds
median() { sed -n 's/.*"median": *\([0-9.e-]*\).*/\1/p' "$1" | head -1; }
ms() { awk -v s="$1" 'BEGIN { printf "%.3f", s * 1000 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }
# the median of a file of numbers
median_of() { sort -g "$1" | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
machine_line() { echo "$(date -u +%Y-%m-%d) · $(nproc) cores · $(uname -r) · $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1)"; }
