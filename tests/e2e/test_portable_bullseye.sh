#!/usr/bin/env bash
# The portable condacuda (tarball and wheel) in a Debian 11 root (bullseye, glibc 2.31): tests/e2e/portable_root_check.sh.
source "$(dirname "$0")/portable_root_check.sh"
portable_root_check bullseye 2.31
