#!/usr/bin/env bash
# doctor against the real loader of glibc 2.31 (a Debian 11 root, bullseye): the scenario roots, the import sequences, a hostile sample (tests/e2e/agreement_root_check.sh).
source "$(dirname "$0")/agreement_root_check.sh"
agreement_root_check bullseye 2.31
