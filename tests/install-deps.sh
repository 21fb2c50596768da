#!/usr/bin/env bash
# Installs what condacuda needs on Debian 12 with apt, when run as root, and
# only what is missing. `install-deps.sh build` installs the build
# dependencies (lld: the linker that lays out condacuda's code in run order,
# cmake/link_order.cmake); `install-deps.sh test` (the default) adds what the test suites
# run: the shells the hooks are tested in (xonsh too), bash-completion (the completions
# under it), shellcheck, hyperfine and libtree
# for the benchmarks, strace and valgrind (processes the hooks start, their
# instruction counts), patchelf, groff and man-db (rendering the man page), dpkg-dev (CPack DEB),
# python3-yaml and python3-jinja2 (reading the conda recipes), python3-venv (a venv the wheel
# installs into, pip from ensurepip), time (/usr/bin/time -v: peak RSS),
# slurmctld, slurmd, slurm-client and munge (a Slurm cluster for the fleet tests;
# scontrol, the oracle of util/hostlist), debootstrap (the Debian 11 and 13 roots of
# e2e.portable_bullseye and e2e.portable_trixie: tests/e2e/debian_root.sh), python3-jupyter-client
# and python3-ipykernel (the real kernels e2e.jupyter starts). Not root
# and something missing: says what, and leaves it to the caller (the suites that need it skip).
set -euo pipefail
level=${1:-test}

build_pkgs=(g++ cmake ninja-build pkgconf lld libboost1.81-dev libboost-filesystem1.81-dev
            libyaml-cpp-dev libcli11-dev doctest-dev python3 python3-dev)
test_pkgs=(bash zsh dash ksh fish tcsh xonsh bash-completion shellcheck hyperfine libtree strace valgrind patchelf binutils file
           groff-base man-db dpkg-dev python3-yaml python3-jinja2 python3-venv time slurmctld slurmd slurm-client munge
           debootstrap python3-jupyter-client python3-ipykernel)

want=("${build_pkgs[@]}")
[ "$level" = test ] && want+=("${test_pkgs[@]}")

missing=()
for p in "${want[@]}"; do
  # grep reads a finished string: under pipefail `producer | grep -q` fails when grep exits first
  grep -q "install ok installed" <<< "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" != 0 ] || ! command -v apt-get > /dev/null; then
  echo "install-deps: missing Debian packages: ${missing[*]} (run as root to install them)" >&2
  exit 0
fi
echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" > /dev/null
