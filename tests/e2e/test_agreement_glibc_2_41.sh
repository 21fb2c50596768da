#!/usr/bin/env bash
# doctor against the real loader of glibc 2.41 (a Debian 13 root, trixie): the scenario roots, the import sequences, a hostile sample (tests/e2e/agreement_root_check.sh).
source "$(dirname "$0")/agreement_root_check.sh"
agreement_root_check trixie 2.41
