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

# Packages only the browser and chart-export tests use (tests/e2e/report_cli_test.cc skips
# cleanly without them): `scripts/install-deps.sh --test` or SERVEBENCH_TEST_DEPS=1 adds them.
test_packages=(chromium librsvg2-bin)
if [ "${1:-}" = "--test" ] || [ "${SERVEBENCH_TEST_DEPS:-0}" = "1" ]; then
  packages+=("${test_packages[@]}")
fi

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
