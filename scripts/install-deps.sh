#!/usr/bin/env bash
# Installs the Debian packages servebench builds and tests with (DESIGN.md §2).
# Idempotent: does nothing when every package is already present; uses sudo when not root.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  libboost-dev libssl-dev libsimdjson-dev nlohmann-json3-dev libyaml-cpp-dev
  libcli11-dev libfmt-dev libsentencepiece-dev libpcre2-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  python3 ca-certificates openssl
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "install-deps: installing ${missing[*]}" >&2
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
