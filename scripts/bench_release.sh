#!/usr/bin/env bash
# The release check for speed: an older build against this tree, every
# pattern of bench/bench_ab_cases.c timed alternately (ABBA rounds) in one
# process, on each device given; exits non-zero when any pattern is slower
# beyond noise (bench_ab's verdict: median old/new ratio below 1 - tol with the
# upper quartile below 1 too), or when a build fails.
#
#   scripts/bench_release.sh [OLD_REF] [--device SEL]... [bench_ab args...]
#
# OLD_REF (default: the newest tag, else HEAD~1) is checked out into a git
# worktree under build-ab/old (library only: -Dtests=false -Dbench=false
# -Dcli=false), this tree's library and bench_ab build in build/. Devices
# default to pocl and rusticl (RUSTICL_ENABLE=llvmpipe is set when unset).
# Other arguments (--rounds N, --tol F, --only KEY,...) go to bench_ab.
# Logs: build-ab/bench_ab-<device>.txt.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

old_ref=""
devices=()
args=()
while (($#)); do
    case "$1" in
    --device) devices+=("$2"); shift 2 ;;
    --rounds | --tol | --only) args+=("$1" "$2"); shift 2 ;;
    -*) echo "bench_release: unknown option $1" >&2; exit 2 ;;
    *) old_ref=$1; shift ;;
    esac
done
((${#devices[@]})) || devices=(pocl rusticl)
[[ -n $old_ref ]] || old_ref=$(git describe --tags --abbrev=0 2>/dev/null || echo HEAD~1)
export RUSTICL_ENABLE=${RUSTICL_ENABLE:-llvmpipe}

mkdir -p build-ab
old=build-ab/old
if [[ -d $old ]]; then
    git -C "$old" checkout -q --detach "$old_ref"
else
    git worktree add -q --detach "$old" "$old_ref"
fi
[[ -d $old/buildlib ]] || meson setup "$old/buildlib" "$old" -Dtests=false -Dbench=false -Dcli=false >/dev/null
ninja -C "$old/buildlib" >build-ab/old-build.log
[[ -d build ]] || meson setup build >/dev/null
meson compile -C build clbroadcast bench_ab >build-ab/new-build.log
old_lib=$(find "$old/buildlib" -name 'libclbroadcast.so' | head -n 1)

status=0
for dev in "${devices[@]}"; do
    echo "bench_release: $old_ref ($(git rev-parse --short "$old_ref")) against this tree on $dev," \
         "load $(cut -d' ' -f1-3 /proc/loadavg)"
    build/bench/bench_ab "$old_lib" build/src/libclbroadcast.so --device "$dev" "${args[@]}" \
        | tee "build-ab/bench_ab-$dev.txt" || status=1
done
exit $status
