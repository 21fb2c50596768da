#!/usr/bin/env bash
# The hooks' quoting function for tcsh (src/repair/hooks.cpp) round-trips through a
# real tcsh: spaces, quotes, $, backslashes, newlines, ! and UTF-8 come back byte
# for byte (hooks_quoting.sh). Skipped (125) when tcsh is not installed.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/hooks_quoting.sh"
hooks_quoting_roundtrip tcsh
