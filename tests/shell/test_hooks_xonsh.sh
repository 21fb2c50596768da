#!/usr/bin/env bash
# The sh hooks under xonsh, sourced as conda's xonsh activator sources activate.d and
# deactivate.d scripts: `source-bash --suppress-skip-message -n FILE` (conda/activate.py,
# XonshActivator.run_script_tmpl), which runs them in bash and takes back the
# environment bash ends with. LD_LIBRARY_PATH as a program started from xonsh sees it
# must be byte-identical after deactivation (unset, empty, one entry, spaces, an empty
# entry of the user's), with no duplicate when activate.d runs again, through stacking,
# with CONDACUDA_HOOK_STATE holding exactly the active envs' records and nothing left
# after. Skipped when xonsh is not installed.
#
# The env prefix has no space: xonsh 0.13 passes the file to bash as `source FILE`
# unquoted, so conda's own activation scripts fail under such a prefix too.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_command xonsh

tool=$(render_hooks_tool)
sp=lib/python3.11/site-packages/nvidia
env_a=$scratch/envs/torch
env_b=$scratch/envs/other
"$tool" "$env_a" "$sp/cusparse/lib" "$sp/nvjitlink/lib" "lib/with space"
"$tool" "$env_b" lib
block_a=$env_a/$sp/cusparse/lib:$env_a/$sp/nvjitlink/lib:$env_a/lib/with\ space
block_b=$env_b/lib

# What a program started from xonsh sees: the harness's printer (lib.sh).
printer=$scratch/printer
_hk_write_printer "$printer"

# The driver: conda's order (activate.d sorted, deactivate.d reversed; a deactivation
# re-runs the activate.d of the env underneath), each step followed by the printer.
driver=$scratch/driver.xsh
cat >"$driver" <<'EOF'
import glob, sys
start, env_a, env_b, printer = $ARG_START, $ARG_A, $ARG_B, $ARG_PRINTER

def scripts(prefix, phase):
    files = sorted(glob.glob(prefix + '/etc/conda/' + phase + '.d/*.sh'))
    return list(reversed(files)) if phase == 'deactivate' else files

def run(prefix, phase):
    for f in scripts(prefix, phase):
        source-bash --suppress-skip-message -n @(f)

def show(label):
    @(printer) show @(label)
    @(printer) state @(label)

if start == 'unset':
    if 'LD_LIBRARY_PATH' in ${...}:
        del $LD_LIBRARY_PATH
else:
    $LD_LIBRARY_PATH = start
show('0')
$CONDA_PREFIX = env_a
run(env_a, 'activate')
show('1')
run(env_a, 'activate')          # sourced again while active (conda reactivation)
show('2')
$CONDA_PREFIX = env_b           # conda activate --stack other
run(env_b, 'activate')
show('3')
run(env_b, 'deactivate')        # conda deactivate: other's deactivate.d ...
$CONDA_PREFIX = env_a
run(env_a, 'activate')          # ... then torch's activate.d again
show('4')
run(env_a, 'deactivate')
del $CONDA_PREFIX
show('5')
EOF

failures=0
for start in unset empty one spaced cwd; do
  case $start in
    unset) value='' ;;
    empty) value='' ;;
    one) value=/usr/lib ;;
    spaced) value='/opt/with space/lib:/usr/lib' ;;
    cwd) value=':/usr/lib' ;;
  esac
  if [[ $start == unset ]]; then initial='<unset>'; else initial="[$value]"; fi
  with_a=$block_a${value:+:$value}
  # The state: a record per active env, [US] RS prefix US entries (the US first
  # when LD_LIBRARY_PATH was set before that env's activation).
  lead=$'\x1f'
  [[ $start == unset ]] && lead=''
  state_a="CONDACUDA_HOOK_STATE=$lead"$'\x1e'"$env_a"$'\x1f'"$block_a"
  state_ab="$state_a"$'\x1f\x1e'"$env_b"$'\x1f'"$block_b"
  {
    printf '0 %s\n0 state: none\n' "$initial"
    printf '1 [%s]\n1 state: %s \n' "$with_a" "$state_a"
    printf '2 [%s]\n2 state: %s \n' "$with_a" "$state_a"
    printf '3 [%s]\n3 state: %s \n' "$block_b:$with_a" "$state_ab"
    printf '4 [%s]\n4 state: %s \n' "$with_a" "$state_a"
    printf '5 %s\n5 state: none\n' "$initial"
  } >"$scratch/expected.$start"
  arg=$value
  [[ $start == unset ]] && arg='unset'
  # xonsh reads no rc file, keeps its history in the scratch dir, and runs in a
  # UTF-8 locale (it refuses to start in the C locale on some systems).
  if ! env -u LD_LIBRARY_PATH -u CONDA_PREFIX -u CONDACUDA_HOOK_STATE HOME="$scratch" LC_ALL=C.UTF-8 \
    ARG_START="$arg" ARG_A="$env_a" ARG_B="$env_b" ARG_PRINTER="$printer" \
    xonsh --no-rc "$driver" >"$scratch/actual.$start" 2>"$scratch/stderr.$start"; then
    echo "FAIL xonsh: start $start: the driver failed" >&2
    cat "$scratch/stderr.$start" >&2
    failures=$((failures + 1))
    continue
  fi
  if ! cmp -s "$scratch/expected.$start" "$scratch/actual.$start"; then
    echo "FAIL xonsh: start $start (- expected, + actual)" >&2
    diff -u "$scratch/expected.$start" "$scratch/actual.$start" >&2 || true
    failures=$((failures + 1))
    continue
  fi
  if [[ -s $scratch/stderr.$start ]]; then
    echo "FAIL xonsh: start $start: unexpected stderr" >&2
    cat "$scratch/stderr.$start" >&2
    failures=$((failures + 1))
    continue
  fi
  echo "ok   xonsh: activate, again, stack, deactivate both; start $start"
done
[[ $failures -eq 0 ]]
