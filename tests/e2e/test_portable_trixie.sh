#!/usr/bin/env bash
# The portable condacuda (tarball and wheel) in a Debian 13 root (trixie, glibc 2.41): tests/e2e/portable_root_check.sh.
source "$(dirname "$0")/portable_root_check.sh"
portable_root_check trixie 2.41
