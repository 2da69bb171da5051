#!/usr/bin/env bash
# The linux-aarch64 wheel, run where it was cross-built: Debian's arm64
# CPython 3.11 and qemu-user (static), both taken from Debian's packages and
# unpacked under build/aarch64 (nothing is installed on the system); numpy's
# aarch64 wheel and the wheel under test are installed into a folder by pip's
# --platform. Then, under qemu: the abi3 smoke test, `python -m godlpack
# demo`, and a zero-copy round trip with numpy, each failing loudly.
#
#   tools/qemu_aarch64.sh dist/godlpack-...-manylinux2014_aarch64...whl [KIT_WHEEL]
#
# KIT_WHEEL, a kit's aarch64 wheel from `python -m godlpack build-kit` (a Go
# plugin cross-built for that godlpack wheel), is installed too, and one of
# its functions (init-kit's `total`) is called on a numpy view under qemu.
#
# Needs apt-get (Debian bookworm; `make test-wheel-aarch64` runs it) to fetch
# the packages the first time, with an apt state of its own under
# build/aarch64 (package lists, caches, an empty package database, arm64
# added for this apt run only): the host's dpkg architectures and apt lists
# are left as they were, and the script fails if they are not. Later runs
# reuse build/aarch64.
set -euo pipefail

wheel=${1:?usage: tools/qemu_aarch64.sh WHEEL [KIT_WHEEL]}
kit=${2:-}
py=${PY:-python3}
root=build/aarch64
sys=$root/sysroot
qemu=$root/qemu/usr/bin/qemu-aarch64-static
numpy=${AARCH64_NUMPY:-numpy==2.2.6}  # the newest numpy with a manylinux2014 aarch64 wheel for cp311

if [ ! -x "$sys/usr/bin/python3.11" ] || [ ! -x "$qemu" ]; then
  command -v apt-get >/dev/null || { echo "qemu_aarch64: apt-get (Debian) is needed to fetch Debian's arm64 CPython and qemu-user-static"; exit 1; }
  echo "qemu_aarch64: fetching Debian's arm64 CPython 3.11 and qemu-user-static into $root"
  rm -rf "$root" && mkdir -p "$root/debs/partial" "$root/apt/state/lists/partial" "$root/apt/cache" "$sys" "$root/qemu"
  foreign=$(dpkg --print-foreign-architectures 2>/dev/null || true)
  : > "$root/empty-status"  # an empty package database: every dependency is downloaded, none installed
  apt=(-o Dir::State="$PWD/$root/apt/state" -o Dir::State::status="$PWD/$root/empty-status"
       -o Dir::Cache="$PWD/$root/apt/cache" -o Dir::Cache::archives="$PWD/$root/debs"
       -o APT::Architectures::=amd64 -o APT::Architectures::=arm64 -o Debug::NoLocking=1)
  apt-get update -q "${apt[@]}" >/dev/null
  apt-get install -y -q --download-only --no-install-recommends "${apt[@]}" \
    python3.11-minimal:arm64 libpython3.11-stdlib:arm64 qemu-user-static >/dev/null
  [ "$(dpkg --print-foreign-architectures 2>/dev/null || true)" = "$foreign" ] || {
    echo "qemu_aarch64: the host's dpkg architectures changed (were: '${foreign}')"; exit 1; }
  for d in "$root"/debs/*_arm64.deb "$root"/debs/*_all.deb; do dpkg-deb -x "$d" "$sys"; done
  dpkg-deb -x "$root"/debs/qemu-user-static_*_amd64.deb "$root/qemu"
fi

site=$root/site
rm -rf "$site"
"$py" -m pip install -q --target "$site" --platform manylinux2014_aarch64 --python-version 3.11 --implementation cp \
  --only-binary=:all: --no-deps "$numpy" "$wheel" ${kit:+"$kit"}

run() { PYTHONPATH="$site" "$qemu" -L "$sys" "$sys/usr/bin/python3.11" "$@"; }
run -c 'import platform, sys; assert platform.machine() == "aarch64", platform.machine(); print("qemu_aarch64:", sys.version.split()[0], platform.machine())'
run tests_py/abi3_smoke.py
run -m godlpack demo
run - <<'EOF'
import numpy as np
import godlpack as gd

x = np.arange(6.0).reshape(2, 3)
a = gd.from_dlpack(x)               # numpy -> godlpack
y = np.from_dlpack(a.T)             # godlpack -> numpy, a transposed view
y[2, 1] = 42.0                      # written through numpy ...
assert x[1, 2] == 42.0 and a[1, 2] == 42.0, (x, a)  # ... seen by both: no copy anywhere
assert np.shares_memory(x, y) and a.sum() == 52.0
assert gd.from_dlpack(np.from_dlpack(a)).tolist() == x.tolist()
print("qemu_aarch64: zero-copy numpy -> godlpack -> numpy on aarch64: ok")
EOF
if [ -n "$kit" ]; then
  name=$(basename "$kit" | cut -d- -f1)
  run - "$name" <<'EOF'
import importlib, platform, sys
import numpy as np
kit = importlib.import_module(sys.argv[1])  # its Go plugin, opened in godlpack's Go runtime
x = np.arange(6.0).reshape(2, 3)
assert kit.total(x.T) == 15.0 and kit.total.__module__ == sys.argv[1], kit.total(x.T)
print(f"qemu_aarch64: the kit {sys.argv[1]}'s Go plugin loaded and ran on {platform.machine()}: ok")
EOF
fi
echo "qemu_aarch64: $wheel${kit:+ and $kit} passed under qemu-aarch64"
