#!/usr/bin/env bash
# The GPU check in one call (./dev gpu-pack here, ./dev gpu-check there).
#
#   ./dev gpu-pack
#       Here, on the Debian 12 development machine: downloads into .gpu/debs/
#       (ignored by git; the device tool's `carry` takes it along) the .deb
#       files a bare machine with only a vendor driver lacks: the OpenCL ICD
#       loader and headers, CLBlast, cmocka, pkgconf, meson and ninja.
#
#   ./dev gpu-check [--icd LIB] [--require SEL] [--out DIR]
#       There: unpacks those files into .gpu/root (never into /), registers the
#       vendor's OpenCL ICD library through OCL_ICD_VENDORS (by default the
#       first of NVIDIA's libnvidia-opencl.so.1, AMD's libamdocl64.so or
#       Intel's libigdrcl.so found under the driver folders), builds the
#       library with the unpacked tools, runs the device suite with
#       CLB_TEST_REQUIRE=SEL (default gpu) and `clb bench --device SEL --json`,
#       and writes every log and the JSON to DIR (default $OUT, else .gpu/out).
#       Sized for 8 minutes from cold on a 16-core machine.
#
#   Proving the logic without a GPU, here (PoCL):
#       ./dev gpu-pack && ./dev gpu-check --icd /usr/lib/x86_64-linux-gnu/libpocl.so.2 --require cpu
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

GPU=.gpu
DEBS=(ocl-icd-libopencl1 ocl-icd-opencl-dev opencl-c-headers libclblast1 libclblast-dev
      libcmocka0 libcmocka-dev pkgconf pkgconf-bin libpkgconf3 meson ninja-build)

gpu_pack() {
    mkdir -p "$GPU/debs"
    rm -f "$GPU"/debs/*.deb
    (cd "$GPU/debs" && apt-get download "${DEBS[@]}")
    echo "gpu-pack: $(ls "$GPU"/debs/*.deb | wc -l) packages, $(du -sh "$GPU/debs" | cut -f1) in $GPU/debs" \
        "(pass \"carry\": [\"$GPU\"] to the device tool)"
}

# The vendor ICD: a library that exports clIcdGetPlatformIDsKHR.
find_icd() {
    local dir lib
    for dir in /usr/local/nvidia /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/lib /opt/rocm /opt/intel; do
        [[ -d $dir ]] || continue
        for lib in libnvidia-opencl.so.1 libamdocl64.so libigdrcl.so; do
            lib=$(find "$dir" -name "$lib" 2>/dev/null | head -1)
            [[ -n $lib ]] && { echo "$lib"; return 0; }
        done
    done
    return 1
}

gpu_check() {
    local icd="" require=gpu out=${OUT:-$GPU/out} t0
    while (($#)); do
        case $1 in
            --icd) icd=$2; shift 2 ;;
            --require) require=$2; shift 2 ;;
            --out) out=$2; shift 2 ;;
            *) echo "usage: ./dev gpu-check [--icd LIB] [--require SEL] [--out DIR]" >&2; exit 2 ;;
        esac
    done
    t0=$(date +%s)
    mkdir -p "$out"
    local log=$out/gpu-check.log
    exec > >(tee "$log") 2>&1
    echo "gpu-check: $(date -u +%FT%TZ) on $(uname -n), $(nproc) cores"
    ls "$GPU"/debs/*.deb >/dev/null 2>&1 || { echo "gpu-check: no $GPU/debs: run ./dev gpu-pack here and carry $GPU"; exit 1; }

    # 1. The packages, unpacked into a local prefix; .pc files pointed at it.
    local root=$PWD/$GPU/root
    rm -rf "$root"
    mkdir -p "$root"
    local deb
    for deb in "$GPU"/debs/*.deb; do
        if command -v dpkg-deb >/dev/null; then
            dpkg-deb -x "$deb" "$root"
        else
            (cd "$root" && ar p "$OLDPWD/$deb" "$(ar t "$OLDPWD/$deb" | grep '^data.tar')" | tar -x -a -f - 2>/dev/null ||
                ar p "$OLDPWD/$deb" data.tar.xz | tar -xJ)
        fi
    done
    find "$root" -name '*.pc' -exec sed -i \
        -e "s#prefix=/usr#prefix=$root/usr#" -e "s#-L/usr/#-L$root/usr/#g" \
        -e "s#-I/usr/include#-I$root/usr/include#g" {} +
    local libdir=$root/usr/lib/x86_64-linux-gnu
    export LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    export PKG_CONFIG_LIBDIR=$libdir/pkgconfig:$root/usr/share/pkgconfig
    export PKG_CONFIG=$root/usr/bin/pkgconf
    export PATH=$PATH:$root/usr/bin
    export PYTHONPATH=$root/usr/lib/python3/dist-packages${PYTHONPATH:+:$PYTHONPATH}

    # 2. The vendor's ICD, registered for this process tree only.
    [[ -n $icd ]] || icd=$(find_icd) || { echo "gpu-check: no vendor OpenCL ICD library found"; exit 1; }
    mkdir -p "$GPU/vendors"
    rm -f "$GPU"/vendors/*.icd
    echo "$icd" >"$GPU/vendors/gpu-check.icd"
    export OCL_ICD_VENDORS=$PWD/$GPU/vendors
    echo "gpu-check: ICD $icd"

    # 3. Build with the unpacked meson and ninja (the machine's own if it has them).
    local meson=(meson)
    command -v meson >/dev/null || meson=(python3 "$root/usr/bin/meson")
    command -v ninja >/dev/null || export NINJA=$root/usr/bin/ninja
    local build=$GPU/build
    rm -rf "$build"
    "${meson[@]}" setup "$build" --buildtype=release >"$out/configure.log" 2>&1 ||
        { tail -30 "$out/configure.log"; exit 1; }
    "${NINJA:-ninja}" -C "$build" >"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
    echo "gpu-check: built ($(($(date +%s) - t0)) s)"
    "$build/cli/clb" devices | tee "$out/devices.txt"
    "$build/cli/clb" devices --json >"$out/devices.json"

    # 4. The device suite on the required device (and the host backend), then the bench.
    local rc=0
    CLB_TEST_REQUIRE=$require CLB_CACHE_DIR=$PWD/$build/kernel-cache \
        "${meson[@]}" test -C "$build" --suite device --print-errorlogs \
        --num-processes "$(nproc)" >"$out/suite.log" 2>&1 || rc=1
    grep -E '^(Ok|Fail|Skipped|Timeout):' "$out/suite.log" || tail -20 "$out/suite.log"
    echo "gpu-check: suite $( ((rc == 0)) && echo passed || echo FAILED) ($(($(date +%s) - t0)) s)"
    CLB_CACHE_DIR=$PWD/$build/kernel-cache "$build/cli/clb" bench --device "$require" \
        --json "$out/bench.json" --plot "$out/bench.svg" >"$out/bench.txt" 2>"$out/bench.err" || rc=1
    cat "$out/bench.txt"
    # 5. Cold start: first result and the fixed sweep in fresh processes, empty caches.
    "$build/bench/bench_cold" --device "$require" >"$out/cold.txt" 2>&1 || rc=1
    cat "$out/cold.txt"
    echo "gpu-check: $( ((rc == 0)) && echo passed || echo FAILED) in $(($(date +%s) - t0)) s; files in $out"
    return $rc
}

case ${1:-} in
    gpu-pack) shift; gpu_pack "$@" ;;
    gpu-check) shift; gpu_check "$@" ;;
    *) echo "usage: scripts/gpu.sh gpu-pack | gpu-check [--icd LIB] [--require SEL] [--out DIR]" >&2; exit 2 ;;
esac
