#!/bin/bash
# make lint: who may include whom (docs/design.md, "Layers"). Each
# #include "..." of src/ and cli/ is resolved as the compiler does (the
# including file's folder, then the -I folders of the Linux build and of the
# Windows build, meson.build and src/windows/meson.build), and refused when:
#   - a file of src/core/ includes a backend's (src/linux, src/seatbelt,
#     src/windows): the core reaches a backend through backend.h's tables;
#   - a backend includes another backend's;
#   - a file of src/net/ includes a backend's;
#   - a file of cli/ includes anything but the public header and cli/.
# Prints one line per violation, FILE:LINE: ..., and exits 1 if any.
#   scripts/check-layers.sh [TREE]    check TREE (default: this checkout)
#   scripts/check-layers.sh --self-test
#                                     plant each violation in a copy of a
#                                     small tree, and check that each is found
#                                     and that the clean tree passes
set -u

BACKENDS="linux seatbelt windows"
# The -I folders, in order (Linux build; Windows build adds its own)
LINUX_PATH="include src/core src/linux src"
WINDOWS_PATH="include src/core src src/windows src/windows/compat"

layer_of() { # PATH (relative to the tree): core, net, cli, include, a backend's name, or other
        case $1 in
        include/*) echo include ;;
        src/core/*) echo core ;;
        src/net/*) echo net ;;
        src/linux/*) echo linux ;;
        src/seatbelt/*) echo seatbelt ;;
        src/windows/*) echo windows ;;
        cli/*) echo cli ;;
        *) echo other ;;
        esac
}

is_backend() { case " $BACKENDS " in *" $1 "*) return 0 ;; esac; return 1; }

# Where "NAME" from FILE resolves with the -I folders |path|: every match
# that the compiler could take, first the file's own folder.
resolve() { # TREE FILE NAME PATH...
        local tree=$1 file=$2 name=$3 dir
        shift 3
        for dir in "$(dirname "$file")" "$@"; do
                if [ -f "$tree/$dir/$name" ]; then
                        realpath -m --relative-to="$tree" "$tree/$dir/$name"
                        return
                fi
        done
}

# Why FILE (layer |from|) may not include TARGET (layer |to|), or nothing.
refusal() { # FROM TO
        local from=$1 to=$2
        if [ "$from" = core ] && is_backend "$to"; then
                echo "the core includes the $to backend's header (reach a backend through src/core/backend.h)"
        elif is_backend "$from" && is_backend "$to" && [ "$from" != "$to" ]; then
                echo "the $from backend includes the $to backend's header"
        elif [ "$from" = net ] && is_backend "$to"; then
                echo "the proxy (src/net) includes the $to backend's header"
        elif [ "$from" = cli ] && [ "$to" != include ] && [ "$to" != cli ]; then
                echo "the CLI includes an internal header (it uses the public API, include/cordon.h, only)"
        fi
}

check_tree() { # TREE: prints the violations; returns 1 if any
        local tree=$1 bad=0 file line name target why seen
        while IFS= read -r file; do
                local from
                from=$(layer_of "$file")
                while IFS=: read -r line name; do
                        seen=""
                        for path in "$LINUX_PATH" "$WINDOWS_PATH"; do
                                # shellcheck disable=SC2086 # the folders are words
                                target=$(resolve "$tree" "$file" "$name" $path)
                                [ -n "$target" ] || continue
                                case " $seen " in *" $target "*) continue ;; esac
                                seen="$seen $target"
                                why=$(refusal "$from" "$(layer_of "$target")")
                                if [ -n "$why" ]; then
                                        echo "$file:$line: #include \"$name\" ($target): $why"
                                        bad=1
                                fi
                        done
                done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$tree/$file" |
                         sed 's/^\([0-9]*\):[^"]*"\([^"]*\)".*/\1:\2/')
        done < <(cd "$tree" && find src cli -name '*.[ch]' 2>/dev/null | sort)
        return $bad
}

self_test() {
        local t failed=0
        t=$(mktemp -d /tmp/cordon-layers.XXXXXX)
        trap 'rm -rf "$t"' RETURN
        mkdir -p "$t/clean/include" "$t/clean/src/core" "$t/clean/src/net" "$t/clean/cli"
        for b in $BACKENDS; do mkdir -p "$t/clean/src/$b"; done
        echo '#include <stdio.h>' >"$t/clean/include/cordon.h"
        printf '#include "cordon.h"\n#include "util.h"\n#include "net/proxy.h"\n' >"$t/clean/src/core/plan.c"
        : >"$t/clean/src/core/util.h"
        printf '#include "util.h"\n' >"$t/clean/src/net/proxy.h"
        printf '#include "plan.h"\n#include "cordon.h"\n' >"$t/clean/src/core/plan.h"
        printf '#include "launch.h"\n#include "seatbelt/render.h"\n#include "net/proxy.h"\n' >"$t/clean/src/seatbelt/launch.c"
        : >"$t/clean/src/seatbelt/launch.h"
        : >"$t/clean/src/seatbelt/render.h"
        printf '#include "host.h"\n#include "windows/render.h"\n' >"$t/clean/src/windows/launch.c"
        : >"$t/clean/src/windows/host.h"
        : >"$t/clean/src/windows/render.h"
        printf '#include "host.h"\n#include "util.h"\n' >"$t/clean/src/linux/launch.c"
        : >"$t/clean/src/linux/host.h"
        printf '#include "cordon.h"\n#include "args.h"\n' >"$t/clean/cli/main.c"
        : >"$t/clean/cli/args.h"
        if check_tree "$t/clean" >"$t/out"; then echo "ok - layers self-test: the clean tree passes"
        else echo "not ok - layers self-test: the clean tree passes"; sed 's/^/    /' "$t/out"; failed=1; fi
        # each plant: FILE, the line it adds, what the report must name
        local plants=(
                'src/core/plan.c|#include "seatbelt/render.h"|the core includes the seatbelt backend'
                'src/core/plan.c|#include "host.h"|the core includes the linux backend'
                'src/core/plan.c|#include "render.h"|the core includes the windows backend'
                'src/core/plan.h|  #  include "windows/render.h"|the core includes the windows backend'
                'src/seatbelt/launch.c|#include "windows/render.h"|the seatbelt backend includes the windows backend'
                'src/windows/launch.c|#include "seatbelt/render.h"|the windows backend includes the seatbelt backend'
                'src/linux/launch.c|#include "seatbelt/launch.h"|the linux backend includes the seatbelt backend'
                'src/net/proxy.h|#include "linux/host.h"|the proxy (src/net) includes the linux backend'
                'cli/main.c|#include "util.h"|the CLI includes an internal header'
        )
        local p file add want
        for p in "${plants[@]}"; do
                IFS='|' read -r file add want <<<"$p"
                rm -rf "$t/planted" && cp -r "$t/clean" "$t/planted"
                echo "$add" >>"$t/planted/$file"
                if ! check_tree "$t/planted" >"$t/out" && grep -qF "$want" "$t/out" && grep -qF "$file:" "$t/out"; then
                        echo "ok - layers self-test: $file with $add is refused ($want)"
                else
                        echo "not ok - layers self-test: $file with $add is refused ($want)"
                        sed 's/^/    /' "$t/out"
                        failed=1
                fi
        done
        return $failed
}

if [ "${1:-}" = --self-test ]; then
        self_test
        exit
fi
check_tree "${1:-$(cd "$(dirname "$0")/.." && pwd)}"
