#!/usr/bin/env bash
# Installs Gapscope's build and test dependencies from Debian packages.
# Idempotent and non-interactive: safe to run on every CI start.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  qt6-base-dev qt6-svg-dev libqcustomplot-dev
  libflatbuffers-dev flatbuffers-compiler
  libeigen3-dev catch2
  nlohmann-json3-dev libsimdjson-dev libcli11-dev libzip-dev libssl-dev
  clang-format
  libgraphviz-dev graphviz
  clang libclang-rt-14-dev zlib1g-dev
  dpkg-dev lintian desktop-file-utils appstream shared-mime-info xdg-utils libfile-mimeinfo-perl man-db
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done"
