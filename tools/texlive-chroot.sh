#!/bin/bash
# Build (once) a Debian chroot carrying one TeX Live generation, outside the repo.
#   tools/texlive-chroot.sh SUITE DIR PACKAGES...
# SUITE: trixie (TeX Live 2024) or forky (TeX Live 2026). The mirror is the one this
# machine's apt already uses, so no new network source is introduced. A finished chroot
# carries DIR/.pithtex-ready and is reused as is; a half-built one is started over.
set -euo pipefail
suite=$1; dir=$2; shift 2
if [ -f "$dir/.pithtex-ready" ]; then
  # Reused as is, plus whatever the package list gained since it was built.
  missing=$(for p in "$@"; do chroot "$dir" dpkg -s "$p" >/dev/null 2>&1 || echo "$p"; done)
  [ -z "$missing" ] || DEBIAN_FRONTEND=noninteractive chroot "$dir" apt-get install -y -qq --no-install-recommends $missing
  echo "reusing $dir: $(cat "$dir/.pithtex-ready")"; exit 0
fi
[ "$(id -u)" = 0 ] || { echo "texlive-chroot: debootstrap and chroot need root"; exit 1; }
command -v debootstrap >/dev/null || \
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=900 debootstrap >/dev/null
mirror=$(grep -rhoE '^(URIs:|deb) +[^ ]*https?://[^ ]+/debian/?( |$)' /etc/apt/sources.list /etc/apt/sources.list.d/ 2>/dev/null \
  | grep -oE 'https?://[^ ]+' | head -1 || true)
mirror=${mirror:-http://deb.debian.org/debian}
# debootstrap has no script for a testing suite before it is named; sid's serves it.
script=/usr/share/debootstrap/scripts/$suite
[ -e "$script" ] || script=/usr/share/debootstrap/scripts/sid
rm -rf "$dir"; mkdir -p "$dir"
debootstrap --variant=minbase "$suite" "$dir" "$mirror" "$script"
# The testing index may carry an expired Valid-Until between archive runs.
echo 'Acquire::Check-Valid-Until "false";' > "$dir/etc/apt/apt.conf.d/99pithtex"
chroot "$dir" apt-get update -qq
DEBIAN_FRONTEND=noninteractive chroot "$dir" apt-get install -y -qq --no-install-recommends "$@"
chroot "$dir" apt-get clean
mkdir -p "$dir/work"
chroot "$dir" pdflatex --version | head -1 > "$dir/.pithtex-ready"
echo "built $dir: $(cat "$dir/.pithtex-ready")"
