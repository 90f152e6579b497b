#!/usr/bin/env bash
# Installs the Debian packages servebench builds and tests with (docs/architecture.md).
# Idempotent: does nothing when every package is already present; uses sudo when not root.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  libboost-dev libssl-dev libsimdjson-dev nlohmann-json3-dev libyaml-cpp-dev
  libcli11-dev libfmt-dev libsentencepiece-dev libpcre2-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libopenmpi-dev openmpi-bin
  python3 ca-certificates openssl
)

# Packages only some tests use (tests/e2e/report_cli_test.cc: chromium, rsvg; tests/telemetry: prometheus, node exporter; each skips
# cleanly without them): `scripts/install-deps.sh --test` or SERVEBENCH_TEST_DEPS=1 adds them.
test_packages=(chromium librsvg2-bin prometheus prometheus-node-exporter)
if [ "${1:-}" = "--test" ] || [ "${SERVEBENCH_TEST_DEPS:-0}" = "1" ]; then
  packages+=("${test_packages[@]}")
fi

# The example backends (examples/backends/, docs/backends.md): PyTorch, FastAPI, uvicorn and
# the Prometheus client for /usr/bin/python3, plus OpenBLAS (Debian's torch falls back to the
# slow reference BLAS without it). About 150 MB to download, 660 MB installed.
# `--backends` adds them; `--test` too, for tests/backends (which skip cleanly without them).
backend_packages=(python3-torch python3-fastapi python3-uvicorn python3-prometheus-client
  libopenblas0-pthread)
if [ "${1:-}" = "--backends" ] || [ "${1:-}" = "--test" ] || [ "${SERVEBENCH_TEST_DEPS:-0}" = "1" ]; then
  packages+=("${backend_packages[@]}")
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
