# Shared by the benchmarks: the equivalent bubblewrap command line and
# helpers. Benchmarks are not tests: they print medians and ratios.
set -u
CORDON=${CORDON:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/build/cordon}
RUNS=${RUNS:-200}
BWRAP=${BWRAP:-$(command -v bwrap)}
[ -x "$CORDON" ] || { echo "bench: $CORDON not built (make)" >&2; exit 1; }
[ -n "$BWRAP" ] || { echo "bench: bubblewrap missing (scripts/deps.sh bench)" >&2; exit 1; }
command -v hyperfine >/dev/null || { echo "bench: hyperfine missing (scripts/deps.sh bench)" >&2; exit 1; }

B=$(mktemp -d /tmp/cordon-bench.XXXXXX)
trap 'rm -rf "$B"' EXIT
export HOME=$B/home CORDON_HOME=$B/home/.cordon
mkdir -p "$HOME" "$B/proj" "$B/workspace"
cd "$B/proj"

# bubblewrap with a view equivalent to cordon's default: all namespaces, /usr
# read-only with the merged-/usr links, the same /etc files, /proc, /dev,
# tmpfs /tmp, the instance root and workspace read-write, the working
# directory read-only, a new session, death with the parent, no capabilities.
bwrap_args() {
    local a=(--unshare-all --die-with-parent --new-session --cap-drop ALL --ro-bind /usr /usr)
    local d
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
mkdir -p "$CORDON_HOME"
"$CORDON" run --workspace "$B/workspace" -- /bin/true || { echo "bench: cordon cannot run here" >&2; exit 1; }
BW="$BWRAP $(bwrap_args)"
CO="$CORDON run --workspace $B/workspace --"

# median NAME.json -> seconds
median() { sed -n 's/.*"median": *\([0-9.e-]*\).*/\1/p' "$1" | head -1; }
ms() { awk -v s="$1" 'BEGIN { printf "%.3f", s * 1000 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }
machine_line() { echo "$(date -u +%Y-%m-%d) · $(nproc) cores · $(uname -r) · $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1)"; }
