#!/usr/bin/env bash
# The loader model against the real loader of glibc 2.36 (this machine, Debian 12): one experiment
# per version-dependent rule, and doctor with the wrong version
# (tests/e2e/loader_versions_check.sh).
source "$(dirname "$0")/loader_versions_check.sh"
loader_versions_check host 2.36
