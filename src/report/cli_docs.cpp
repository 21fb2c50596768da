#include "report/cli_docs.hpp"

#include "doctor/findings.hpp"
#include "util/strings.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>

namespace condacuda::report {

namespace {
std::string option_words(const CommandSpec& c) {
  std::string words;
  for (const auto& o : c.options)
    for (const auto& n : o.names) words += (words.empty() ? "" : " ") + n;
  if (c.takes_command) words += " --";
  return words;
}

std::string single_quote(const std::string& s) { return "'" + util::replace_all(s, "'", "'\\''") + "'"; }

// --------------------------------------------------------------------- bash
// Env names come from the tool itself (`condacuda list --names`: no scan), one
// per line. A name or path may hold a space, `$` or `'`: candidates are never
// split or expanded, and each is quoted the way the word was begun (my\ env,
// 'my env', "cost\$HOME"), so readline inserts one literal word. Not through
// `-o filenames`: bash leaves a `$` unquoted in a candidate that is not a file
// in the working folder (an env name), and the shell would expand it.
// `command` skips an alias or function of the same name.
constexpr const char* bash_helpers = R"BASH(# The word being completed without its shell quoting ('my e, "my e, my\ e: my e).
_condacuda_dequote() {
  local w=$1 out='' quote='' c i
  for ((i = 0; i < ${#w}; i++)); do
    c=${w:i:1}
    if [[ $quote == "'" ]]; then
      if [[ $c == "'" ]]; then quote=''; else out+=$c; fi
    elif [[ $c == "\\" ]]; then
      i=$((i + 1))
      # between double quotes a backslash escapes only $ ` " and itself
      if [[ $quote == '"' && ${w:i:1} != [\$\`\"\\] ]]; then out+=$c; fi
      out+=${w:i:1}
    elif [[ -z $quote && ( $c == "'" || $c == '"' ) ]]; then quote=$c
    elif [[ $quote == '"' && $c == '"' ]]; then quote=''
    else out+=$c
    fi
  done
  REPLY=$out
}
# Adds candidate $1 to COMPREPLY quoted as the word typed so far ($2) began;
# a leading ~ or ~user stays unquoted when the word began with it.
_condacuda_reply() {
  local reply=$1 typed=$2 head=''
  case $typed in
    \'*) reply=${reply//\'/\'\\\'\'} ;;
    \"*) reply=${reply//\\/\\\\} reply=${reply//\$/\\\$} reply=${reply//\`/\\\`} reply=${reply//\"/\\\"} ;;
    *)
      if [[ $typed == \~* && $reply == \~* ]]; then head=${reply%%/*} reply=${reply#"$head"}; fi
      if [[ -n $reply ]]; then printf -v reply %q "$reply"; fi ;;
  esac
  COMPREPLY+=("$head$reply")
}
# Env names starting with $1 (the word typed so far: $2).
_condacuda_envs() {
  local name
  while IFS= read -r name; do
    if [[ -n $name && $name == "$1"* ]]; then _condacuda_reply "$name" "$2"; fi
  done < <(command condacuda list --names 2>/dev/null)
}
# Files (-f) or folders (-d) starting with $2 (typed so far: $3); a folder
# ends with / and nothing follows it, so that TAB goes on into it.
_condacuda_paths() {
  local path real
  while IFS= read -r path; do
    real=$path
    if [[ $path == "~/"* ]]; then real=$HOME/${path#"~/"}; fi
    if [[ -d $real ]]; then path+=/; compopt -o nospace 2>/dev/null; fi
    _condacuda_reply "$path" "$3"
  done < <(compgen "$1" -- "$2")
}
# Fixed words (subcommands, options, choices: no spaces) starting with $2.
_condacuda_words() {
  local word
  while IFS= read -r word; do COMPREPLY+=("$word"); done < <(compgen -W "$1" -- "$2")
}
# Command names on PATH starting with $1 (typed so far: $2), put into
# COMPREPLY as data: through `compgen -W` a name such as zz$(touch x) (a file
# in an activated env's bin/) would be expanded, and run.
_condacuda_commands() {
  local name
  while IFS= read -r name; do _condacuda_reply "$name" "$2"; done < <(compgen -c -- "$1")
}
# The words after `--` (from word $1 on) form a command line of their own:
# its command, then what that command's completion offers (bash-completion),
# else file names. $2, $3: the word being completed, dequoted and as typed.
_condacuda_command() {
  if declare -F _comp_command_offset >/dev/null; then _comp_command_offset "$1"
  elif declare -F _command_offset >/dev/null; then _command_offset "$1"
  elif ((COMP_CWORD == $1)); then _condacuda_commands "$2" "$3"
  else _condacuda_paths -f "$2" "$3"
  fi
}
)BASH";

// `case $prev` arms: one per option of any command that takes a value, so a
// value is completed as what it is (an env name, a folder, a file, a choice).
std::string bash_value_arms(const CliSpec& spec) {
  std::vector<std::string> seen, arms;
  for (const auto& c : spec.commands)
    for (const auto& o : c.options) {
      if (o.value == ValueKind::none) continue;
      std::string pattern = util::join(o.names, "|");
      if (std::find(seen.begin(), seen.end(), pattern) != seen.end()) continue;
      seen.push_back(pattern);
      std::string reply;
      switch (o.value) {
      case ValueKind::env_name: reply = "_condacuda_envs \"$cur\" \"$typed\""; break;
      case ValueKind::directory: reply = "_condacuda_paths -d \"$cur\" \"$typed\""; break;
      case ValueKind::file: reply = "_condacuda_paths -f \"$cur\" \"$typed\""; break;
      case ValueKind::choice: reply = "_condacuda_words " + single_quote(util::join(o.choices, " ")) + " \"$cur\""; break;
      default: reply = ":"; break; // free text: nothing to offer
      }
      arms.push_back("    " + pattern + ") " + reply + "; return ;;\n");
    }
  return util::join(arms, "");
}
} // namespace

std::string bash_completion(const CliSpec& spec) {
  std::string commands;
  for (const auto& c : spec.commands) commands += (commands.empty() ? "" : " ") + c.name;
  std::string out = "# bash completion for " + spec.program + " " + spec.version +
                    " (generated from its command-line definition; do not edit)\n";
  out += bash_helpers;
  out += "_" + spec.program + "() {\n";
  out += "  local typed cur prev cmd word i dashdash=0\n  COMPREPLY=()\n";
  out += "  typed=${COMP_WORDS[COMP_CWORD]}\n  _condacuda_dequote \"$typed\"\n  cur=$REPLY\n  prev=${COMP_WORDS[COMP_CWORD-1]}\n  cmd=\n";
  out += "  for ((i = 1; i < COMP_CWORD; i++)); do\n    word=${COMP_WORDS[i]}\n"
         "    if [ -z \"$cmd\" ]; then\n      case $word in -*) ;; *) cmd=$word ;; esac\n"
         "    elif [ \"$word\" = -- ]; then\n      dashdash=$i\n      break\n    fi\n  done\n";
  out += "  if [ -z \"$cmd\" ]; then\n    _condacuda_words " + single_quote(commands + " --help --version") +
         " \"$cur\"\n    return\n  fi\n";
  std::vector<std::string> with_command;
  for (const auto& c : spec.commands)
    if (c.takes_command) with_command.push_back(c.name);
  if (!with_command.empty())
    out += "  case $cmd in " + util::join(with_command, "|") +
           ")\n    if ((dashdash)); then\n      _condacuda_command $((dashdash + 1)) \"$cur\" \"$typed\"\n      return\n    fi ;;\n  esac\n";
  out += "  case $prev in\n" + bash_value_arms(spec) + "  esac\n";
  out += "  case $cmd in\n";
  for (const auto& c : spec.commands) {
    out += "    " + c.name + ")\n      if [[ $cur == -* ]]; then _condacuda_words " +
           single_quote(option_words(c) + " --help") + " \"$cur\"";
    if (c.takes_env) out += "\n      else _condacuda_envs \"$cur\" \"$typed\"; _condacuda_paths -d \"$cur\" \"$typed\"";
    out += "; fi ;;\n";
  }
  out += "  esac\n}\ncomplete -F _" + spec.program + " " + spec.program + "\n";
  return out;
}

// ---------------------------------------------------------------------- zsh
std::string zsh_completion(const CliSpec& spec) {
  const std::string p = spec.program;
  std::string out = "#compdef " + p + "\n# zsh completion for " + p + " " + spec.version +
                    " (generated from its command-line definition; do not edit)\n";
  // compadd quotes what it inserts; _describe would read a ':' in a name as
  // the start of its description.
  out += "_" + p + "_envs() {\n  local -a envs expl\n  envs=(${(f)\"$(command " + p +
         " list --names 2>/dev/null)\"})\n  _wanted envs expl env compadd -a envs\n}\n";
  out += "_" + p + "_env_or_folder() {\n  _alternative 'envs:env:_" + p + "_envs' 'folders:env folder:_files -/'\n}\n";
  out += "_" + p + "() {\n  local line state\n  _arguments -C '1: :->command' '*:: :->args'\n";
  out += "  case $state in\n  command)\n    local -a commands\n    commands=(\n";
  for (const auto& c : spec.commands)
    out += "      " + single_quote(c.name + ":" + util::replace_all(c.description, ":", "\\:")) + "\n";
  out += "    )\n    _describe -t commands 'command' commands ;;\n  args)\n    case $line[1] in\n";
  for (const auto& c : spec.commands) {
    out += "    " + c.name + ")\n";
    if (c.takes_command) // after `--`: the command and its arguments, as zsh completes them
      out += "      local dashdash=${words[(i)--]}\n      if (( dashdash < CURRENT )); then\n"
             "        shift $dashdash words\n        (( CURRENT -= dashdash ))\n        _normal\n        return\n      fi\n";
    out += "      _arguments";
    for (const auto& o : c.options) {
      std::string excl = o.names.size() > 1 ? "(" + util::join(o.names, " ") + ")" : "";
      std::string desc = "[" + util::replace_all(util::replace_all(o.description, "\\", "\\\\"), "]", "\\]") + "]";
      std::string action;
      switch (o.value) {
      case ValueKind::none: break;
      case ValueKind::env_name: action = ":env:_" + p + "_envs"; break;
      case ValueKind::directory: action = ":folder:_files -/"; break;
      case ValueKind::file: action = ":file:_files"; break;
      case ValueKind::choice: action = ":value:(" + util::join(o.choices, " ") + ")"; break;
      default: action = ":value:"; break;
      }
      for (const auto& n : o.names) out += " \\\n        " + single_quote(excl + n + desc + action);
    }
    if (c.takes_env) out += " \\\n        '1::env:_" + p + "_env_or_folder'";
    out += " ;;\n";
  }
  out += "    esac ;;\n  esac\n}\n_" + p + " \"$@\"\n";
  return out;
}

// --------------------------------------------------------------------- fish
std::string fish_completion(const CliSpec& spec) {
  const std::string p = spec.program;
  std::string out = "# fish completion for " + p + " " + spec.version +
                    " (generated from its command-line definition; do not edit)\n";
  std::string all;
  for (const auto& c : spec.commands) all += (all.empty() ? "" : " ") + c.name;
  const std::string envs = "\"(command " + p + " list --names 2>/dev/null)\"";
  out += "complete -c " + p + " -f\n";
  out += "function __" + p + "_after_dashdash -d 'a -- before the word being completed'\n"
         "    contains -- -- (commandline -opc)\nend\n";
  out += "function __" + p + "_command -d 'the words after --, completed as a command line of their own'\n"
         "    set -l words (commandline -opc)\n    set -e words[1..(contains -i -- -- $words)]\n"
         "    __fish_complete_subcommand --commandline $words (commandline -ct)\nend\n";
  for (const auto& c : spec.commands)
    out += "complete -c " + p + " -n \"not __fish_seen_subcommand_from " + all + "\" -a " + c.name + " -d " +
           single_quote(c.description) + "\n";
  for (const auto& c : spec.commands) {
    std::string cond = "__fish_seen_subcommand_from " + c.name;
    if (c.takes_command) {
      out += "complete -c " + p + " -n \"" + cond + "; and __" + p + "_after_dashdash\" -x -a \"(__" + p +
             "_command)\"\n";
      cond += "; and not __" + p + "_after_dashdash";
    }
    const std::string when = "-n \"" + cond + "\"";
    for (const auto& o : c.options) {
      out += "complete -c " + p + " " + when;
      for (const auto& n : o.names) out += n.rfind("--", 0) == 0 ? " -l " + n.substr(2) : " -s " + n.substr(1);
      // -x (-r and -f): the value is required and is not a file name
      if (o.value == ValueKind::env_name) out += " -x -a " + envs;
      else if (o.value == ValueKind::directory) out += " -x -a \"(__fish_complete_directories)\"";
      else if (o.value == ValueKind::file) out += " -r -F";
      else if (o.value == ValueKind::choice) out += " -x -a " + single_quote(util::join(o.choices, " "));
      else if (o.value != ValueKind::none) out += " -x";
      out += " -d " + single_quote(o.description) + "\n";
    }
    if (c.takes_env) {
      out += "complete -c " + p + " " + when + " -a " + envs + " -d env\n";
      out += "complete -c " + p + " " + when + " -a \"(__fish_complete_directories (commandline -ct) 'env folder')\"\n";
    }
  }
  return out;
}

// ----------------------------------------------------------------- man page
namespace {
// Text as roff reads it literally: backslashes, hyphens as minus signs (the
// options), apostrophes, a leading dot, and characters past ASCII as \[uXXXX]
// (troff reads its input as Latin-1).
std::string roff(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '\\') out += "\\e";
    else if (c == '-') out += "\\-";
    else if (c == '\'') out += "\\(aq";
    else if (std::size_t n = util::utf8_sequence_length(s, i); (static_cast<unsigned char>(c) & 0x80) && n > 1) {
      unsigned code = static_cast<unsigned char>(c) & (0x7f >> n);
      for (std::size_t k = 1; k < n; ++k) code = (code << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3f);
      char buf[16];
      std::snprintf(buf, sizeof buf, "\\[u%04X]", code);
      out += buf;
      i += n - 1;
    } else out += c;
  }
  if (!out.empty() && out[0] == '.') out = "\\&" + out;
  return out;
}

std::string man_entries(const std::vector<ManEntry>& entries) {
  std::string out;
  for (const auto& e : entries) out += ".TP\n.B " + roff(e.term) + "\n" + roff(e.text) + "\n";
  return out;
}

struct ManExample {
  const char* title;
  const char* text;
  std::vector<const char*> lines; // a shell session, verbatim
};

const std::vector<ManExample>& man_examples() {
  static const std::vector<ManExample> examples = {
      {"A system CUDA shadows the env's nvJitLink",
       "PyTorch's cuSPARSE needs nvJitLink 12.1 or later; an older system CUDA on LD_LIBRARY_PATH wins over the "
       "env's own copy (the loader searches LD_LIBRARY_PATH before RUNPATH) and import torch fails with undefined "
       "symbol: __nvJitLinkAddData_12_1. doctor names the file the loader chose, the path entry that chose it and "
       "the fix; repair plans, verifies by simulation and writes the activation hooks and the symlink (undo takes "
       "them back); check proves the GPU computes with the env's own libraries.",
       {"$ export LD_LIBRARY_PATH=/opt/cuda-12.0/lib64",
        "$ condacuda doctor -p ./env",
        "ERROR undefined-symbol  libnvJitLink.so.12 from /opt/cuda-12.0/lib64/libnvJitLink.so.12 lacks "
        "__nvJitLinkAddData_12_1 (version libnvJitLink.so.12)",
        "  why  found through LD_LIBRARY_PATH entry '/opt/cuda-12.0/lib64', which the loader searches before the library's own search path",
        "  fix  run `condacuda repair -p './env'` ..., or remove '/opt/cuda-12.0/lib64' from LD_LIBRARY_PATH",
        "$ condacuda repair -p ./env", "$ condacuda doctor -p ./env          # exit 0 now",
        "$ condacuda check -p ./env           # exit 3 where there is no usable GPU"}},
      {"Lock the CUDA components in CI",
       "lock writes the env's CUDA components (package, version, soname, sha256, release) and the alignment verdict; "
       "the same env gives the same bytes. lock --check exits 0 when the env matches and loads here, 1 on drift "
       "(with a diff) or when it does not load here (a locked library that fails with this shell's LD_LIBRARY_PATH, "
       "as doctor's loader model finds it, or the driver rule failing on this node), and 2 when the lock is "
       "unreadable.",
       {"$ condacuda lock -p ./env -o cuda.lock.yml             # commit it",
        "$ condacuda lock --check cuda.lock.yml -p ./env        # in CI, on every node"}},
      {"The env on every node of a partition",
       "fleet runs condacuda doctor on each node through one srun (no GPU needed) and groups the nodes by verdict, "
       "named in Slurm's hostlist notation, with the facts that tell the classes apart (the LD_LIBRARY_PATH a "
       "TaskProlog or module sets, the driver, the GPUs) and each class's first error and next step. --from reads "
       "documents gathered any other way. Exit: the worst class (5 when nodes gave no verdict).",
       {"login$ condacuda fleet /shared/envs/torch --partition gpu      # (e2e.fleet_slurm runs it on a real cluster)",
        "  NODES                         N  VERDICT                                 LD_LIBRARY_PATH",
        "  gpu[002,009]                  2  fails: undefined-symbol, not-activated  +/opt/modules/cuda-12.0/lib64",
        "  gpu[001,003-008,010-016]     14  loads                                   unset",
        "login$ pdsh -w 'gpu[001-016]' 'condacuda doctor /shared/envs/torch --json --gpu visible --context not-activated > /shared/out/$(hostname).json'",
        "login$ condacuda fleet --from /shared/out"}},
      {"A Slurm job",
       "A batch job starts the env's programs without activating it, so no activation hook runs. condacuda run gives "
       "the command the LD_LIBRARY_PATH the env's hook would give (for an env not repaired yet, the folders repair "
       "would plan), the env's bin first on PATH and CONDA_PREFIX set; its exit status is the command's. "
       "repair --pin makes the env load without activation instead.",
       {"#SBATCH --gres=gpu:1", "srun condacuda run -p /envs/train -- python train.py"}},
  };
  return examples;
}

// Every variable condacuda, its hooks and its package's notice read
// (e2e.man_page greps the sources for them).
const std::vector<ManEntry>& man_environment() {
  static const std::vector<ManEntry> vars = {
      {"CONDA_PREFIX", "The active env, used when neither ENV, -n nor -p is given; its .condarc, condarc and condarc.d/ "
                       "are read as conda reads them. run sets it for CMD (conda, micromamba and pixi envs)."},
      {"VIRTUAL_ENV", "The active venv or uv env, used after CONDA_PREFIX. run sets it for CMD (venv, uv) and unsets "
                      "PYTHONHOME."},
      {"CONDA_ENVS_DIRS, CONDA_ENVS_PATH",
       "Envs dirs (separated by ':') searched for -n NAME and listed by list, before the envs_dirs of the .condarc "
       "files; when both are set, CONDA_ENVS_DIRS is used, with a warning."},
      {"CONDA_ROOT, CONDA_EXE, MAMBA_ROOT_PREFIX",
       "Roots of conda installations (CONDA_EXE as <root>/bin/conda or <root>/condabin/conda): their envs/ folder is "
       "an envs dir, and the root is the env named base. CONDA_ROOT's .condarc files are read too."},
      {"CONDARC, XDG_CONFIG_HOME, CONDA_RESTRICT_RC_SEARCH_PATH",
       "The .condarc files, found as conda finds them ($CONDARC last; with CONDA_RESTRICT_RC_SEARCH_PATH set, "
       "$CONDARC alone), for their envs_dirs."},
      {"HOME", "~/.conda/envs, ~/.conda/environments.txt and the .condarc files under it; the caches are under "
               "~/.cache/condacuda when XDG_CACHE_HOME is not set."},
      {"PWD", "Stands for the working folder when it cannot be read (a pixi workspace is looked up from it)."},
      {"XDG_CACHE_HOME", "The caches are under $XDG_CACHE_HOME/condacuda when it is an absolute path (FILES)."},
      {"LD_LIBRARY_PATH", "The value doctor, repair's verification, check and run start from, as this shell has it "
                          "(doctor and check take --ld-library-path or --no-ld-library-path instead). The activation "
                          "hooks put the env's folders first on it."},
      {"LD_BIND_NOW", "When not empty, doctor binds every symbol at load time, as ld.so does."},
      {"NO_COLOR", "When not empty, --color auto prints no colour."},
      {"TERM", "dumb: --color auto prints no colour."},
      {"PATH", "run looks CMD up in it, with the env's bin first."},
      {"PYTHONUSERBASE", "The user site's base, for the env's sys.path (as site.getuserbase() reads it) and the "
                         "share/jupyter folder Jupyter's data path has under it."},
      {"SHELL", "repair's re-activation line for this shell: csh and tcsh get `;` between the two commands, the others `&&`."},
      {"JUPYTER_PATH, JUPYTER_DATA_DIR, XDG_DATA_HOME, JUPYTER_PREFER_ENV_PATH, JUPYTER_RUNTIME_DIR",
       "Where Jupyter's kernelspecs and running servers' runtime files are looked for, as jupyter_core reads them "
       "(this shell's, and each running server's from /proc/PID/environ); kernel install writes into the data dir "
       "they name (docs/jupyter.md)."},
      {"CONDACUDA_QUIET", "When not empty, the activation hooks and the package's activation notice print nothing "
                          "(the lines saying that the env changed after its repair, or has CUDA libraries no repair "
                          "has fixed)."},
      {"CONDACUDA_HOOK_STATE", "Set by the activation hooks while an env is activated: what they put on "
                               "LD_LIBRARY_PATH, so that deactivation restores it exactly. doctor reads it to judge "
                               "a launch without activation from an activated shell."},
      {"CONDACUDA_DRIVER", "The NVIDIA driver version of this node (535.104.05), for nodes where "
                           "/proc/driver/nvidia is absent or hidden (containers, gVisor): set it where jobs start (a "
                           "TaskProlog, a module, the container's environment). It wins over /proc/driver/nvidia/version, "
                           "as CONDA_OVERRIDE_CUDA does for conda; --driver wins over it."},
      {"CONDACUDA_GPU", "This node's GPUs for --gpu auto and visible, in --gpu's words (V100, sm_90, 8.0; several "
                        "separated by commas), for the same nodes; it wins over /proc/driver/nvidia/gpus."},
      {"SLURMD_NODENAME", "The Slurm node name doctor's node facts give (else the host name): fleet names nodes by it."},
      {"CONDACUDA_CHILD_START", "fork: check starts its child with fork, execve and waitpid instead of pidfd_open "
                                "(which it does by itself where pidfd_open is refused)."},
      {"NVIDIA_TF32_OVERRIDE, TORCH_ALLOW_TF32_CUBLAS_OVERRIDE, CUBLAS_EMULATION_STRATEGY, CUDA_LAUNCH_BLOCKING, "
       "CUBLAS_WORKSPACE_CONFIG, CUDA_VISIBLE_DEVICES",
       "Passed to check's child as they are; check warns about each one set, saying what it changes in its results "
       "(--device counts the devices CUDA_VISIBLE_DEVICES leaves)."},
  };
  return vars;
}

const std::vector<ManEntry>& man_files() {
  static const std::vector<ManEntry> files = {
      {"$PREFIX/etc/condacuda/manifest.yml",
       "What repair wrote into the env (files with their hashes, links with their targets, folders it created), "
       "written first as a journal; undo removes exactly that. The folder's mtime is the repair's stamp, which the "
       "hooks compare with the env's library folders."},
      {"$PREFIX/etc/condacuda/originals/<hash>-<name>", "The original of each library repair --pin changed (a hard "
                                                        "link to the original inode), put back by undo."},
      {"$PREFIX/etc/conda/activate.d/condacuda.{sh,fish,csh}",
       "The activation hooks repair writes: the env's folders first on LD_LIBRARY_PATH."},
      {"$PREFIX/etc/conda/deactivate.d/condacuda.{sh,fish,csh}", "Their deactivation counterparts: LD_LIBRARY_PATH "
                                                                 "as it was before."},
      {"$PREFIX/etc/conda/activate.d/condacuda-notice.{sh,fish}",
       "The conda package's activation notice for an env with CUDA libraries and no repair."},
      {"$PREFIX/.messages.txt", "Where repair --post-link (the conda package's post-link) leaves its paragraph, which "
                                "conda prints."},
      {"$XDG_CACHE_HOME/condacuda/hashes", "The sha256 of files lock hashed, keyed by device, inode, size, mtime and "
                                           "ctime (~/.cache/condacuda/hashes without XDG_CACHE_HOME)."},
      {"$XDG_CACHE_HOME/condacuda/fatbins", "The GPU targets of the fat binaries doctor --gpu read, keyed the same way."},
      {"$XDG_CACHE_HOME/condacuda/load-checks",
       "What mapping, relocating and initialising each library would meet, keyed the same way plus the glibc release, "
       "page size and commit limit (doctor --no-cache neither reads nor writes it). A cache another user owns, or "
       "others may write, is ignored."},
      {"$XDG_CACHE_HOME/condacuda/system-folders",
       "Whether each of the machine's CUDA folder candidates (/usr/local/cuda*, the ld.so.conf.d folders) holds a CUDA "
       "library, keyed the same way: a folder is listed again when a name in it changes (doctor --no-cache neither "
       "reads nor writes it)."},
      {"$XDG_CACHE_HOME/condacuda/dist-info",
       "What doctor's env scan parses of each wheel's METADATA (its Name, Version and Requires-Dist headers) and "
       "RECORD (the lines of shared libraries), keyed the same way (doctor --no-cache neither reads nor writes it)."},
      {"$XDG_CACHE_HOME/condacuda/results",
       "What binding each library's symbols left unbound, and the symbol rule's findings, keyed by a SHA-256 of "
       "condacuda's version and everything they read: the device, inode, size, mtime and ctime of each file, the "
       "scopes, the glibc release (doctor --no-cache neither reads nor writes it)."},
      {"~/.conda/environments.txt", "Envs conda created outside the envs dirs, listed by list."},
      {"/etc/ld.so.cache", "Read by doctor and repair, as ld.so reads it."},
      {"<bin>/../libexec/condacuda/condacuda-probe",
       "The GPU child check and doctor --gpu auto|visible start, found beside the condacuda that runs (needs glibc "
       "2.28 or newer)."},
      {"<bin>/../share/condacuda", "The installation's templates and link scripts (--print-share-dir)."},
  };
  return files;
}
} // namespace

const std::vector<FindingDoc>& finding_docs() {
  static const std::vector<FindingDoc> docs = {
      {doctor::code::not_found, "error", "a needed library is not found (cannot open shared object file); says whether the env has it elsewhere"},
      {doctor::code::undefined_symbol, "error", "a symbol (and its version node) is not defined by the library the loader chose"},
      {doctor::code::version_not_found, "error", "a required version node is missing from the library the loader chose"},
      {doctor::code::bad_file, "error", "the loader stops at a candidate: too short, not ELF, a directory, ..."},
      {doctor::code::loader_abort, "error", "ld.so would abort (a versioned reference into a library without symbol versions, glibc ≤ 2.40)"},
      {doctor::code::executable_stack, "error", "dlopen refuses a library that asks for an executable stack (glibc ≥ 2.41; start-up still allows it); fix: patchelf --clear-execstack, or GLIBC_TUNABLES=glibc.rtld.execstack=2"},
      {doctor::code::misaligned, "error", "components that do not belong together (see lock); for libraries of another CUDA major than the "
                              "consumers', one finding naming the stray packages to remove"},
      {doctor::code::driver_too_old, "error", "the visible driver branch is below the CUDA series' minimum; with --gpu, a file whose only kernel "
                                  "for the GPU is PTX of a newer ISA than the driver compiles"},
      {doctor::code::requirement_mismatch, "error",
       "the copy of a component a root loads has a known version that does not satisfy what the root's package requires "
       "(Requires-Dist, conda depends): the loader maps it, the import raises (torch's cuDNN check); names the requirement, "
       "both versions and their evidence, why the loader takes that copy, and the env's copy that satisfies"},
      {doctor::code::not_activated, "warning (error with --context not-activated)",
       "roots that load only when the env is activated: a Jupyter kernel, cron or srun launch fails; fix: repair --pin"},
      {doctor::code::stale_repair, "warning", "the env changed since repair: today's plan for the recorded launches differs from the "
                                  "recorded one (lists +/- folders, links, pins); never raised by a shell change; run and check use "
                                  "today's plan meanwhile"},
      {doctor::code::unreadable_repair_record, "error",
       "the env's repair record (etc/condacuda/manifest.yml) is corrupt, cut short, not a regular file, or from a newer "
       "condacuda: repair and undo refuse the env; fix: restore it, or move it away and run repair"},
      {doctor::code::unverified_launch, "info (warning when a repair from this shell would change the env)",
       "this shell's LD_LIBRARY_PATH (without the env's hook) is none of the launches the repair verified; fix: repair from this "
       "shell adds it"},
      {doctor::code::folders_before_hook, "warning",
       "this shell put folders in front of the env's hook entries after activation (module load after conda activate): doctor "
       "judges that order; fix: load modules first, or re-activate"},
      {doctor::code::dangling_repair_link, "warning", "a symlink repair made points at nothing, or is all that is left of a removed package's "
                                          "folder; repair and undo remove it"},
      {doctor::code::foreign_cuda_major, "error (warning while the env has its own copy)",
       "a CUDA library of another major than the env's comes from outside it (judged by its soname, the CUDA libraries it needs, "
       "e.g. libnvJitLink.so.13, or a cuda-13.0/cu13 folder; cuSPARSE is libcusparse.so.12 in CUDA 12 and 13), even when the "
       "loader accepts it"},
      {doctor::code::no_kernel_image, "error (with --gpu)", "a library or extension the roots load has neither SASS nor usable PTX for the GPU: "
                                                "what it has, and the fix"},
      {doctor::code::ptx_jit_only, "warning (with --gpu)", "only PTX serves the GPU: JIT-compiled at the first launch"},
      {doctor::code::no_gpu_code, "info (with --gpu)", "no library of the env that loads carries GPU code: nothing was judged for --gpu"},
      {doctor::code::import_order, "error (warning when only without activation, or only after opening the other copy by path)",
       "two roots that load alone fail in one process in one order: the soname, the copy each loads, the error, the "
       "order that works"},
      {doctor::code::import_order_skipped, "info",
       "the import-order pass reached its cap of simulated orders (4096; one per pair of classes of roots that load alike): "
       "how many orders of which roots were not judged"},
      {doctor::code::import_fails, "error",
       "a framework's import (import torch, jax.devices(), import cupy), run as its release's recipe runs it, fails where no "
       "library finding explains it (a preload took an older copy from the user site or PYTHONPATH): the recipe, what it "
       "preloaded from where, the error, and the fix that changes it (the user site's wheel uninstalled, the PYTHONPATH entry to drop)"},
      {doctor::code::outside_wheel, "warning",
       "an NVIDIA wheel in a sys.path folder outside the env (the user site, PYTHONPATH) holds another version of a library the "
       "env has: where it is on sys.path, and how to remove it"},
      {doctor::code::kernel_fails, "error (warning when only a recorded launch breaks it)",
       "a Jupyter kernel of the env (a kernelspec whose argv starts its python) fails in the environment a server gives it: a server started from this shell, a running server of this user (its /proc/PID/environ), a recorded launch; which, with the error; fix: condacuda repair"},
      {doctor::code::kernel_exposed, "warning",
       "a Jupyter kernel of the env loads in every launch judged but finds a CUDA library through the libraries' own search path, after LD_LIBRARY_PATH: an older copy on the server's LD_LIBRARY_PATH would break it; fix: condacuda repair (pins)"},
      {doctor::code::bad_kernelspec, "warning",
       "a kernelspec on Jupyter's data path whose kernel.json cannot be read (not JSON, argv not a list of strings, too large, not a regular file): which and why"},
      {doctor::code::shadowed, "warning", "a library the env has is taken from outside it"},
      {doctor::code::empty_path_entry, "warning", "LD_LIBRARY_PATH has an empty entry (the current directory)"},
      {doctor::code::unusable_prefix, "warning",
       "the env's path contains a colon or a semicolon, which separate LD_LIBRARY_PATH's entries: its hook leaves LD_LIBRARY_PATH alone "
       "and run refuses it; fix: move the env"},
      {doctor::code::stubs_on_path, "warning", "a CUDA stubs folder is on LD_LIBRARY_PATH"},
      {doctor::code::foreign_hook, "info", "another package's activation script changes LD_LIBRARY_PATH (not modelled)"},
  };
  return docs;
}

std::string man_page(const CliSpec& spec, const std::vector<ManEntry>& exit_codes) {
  const std::string p = spec.program;
  std::string out = ".\\\" Generated from " + p + "'s command-line definition; do not edit.\n";
  std::string title = p;
  for (char& ch : title) ch = char(std::toupper(static_cast<unsigned char>(ch)));
  out += ".TH " + title + " 1 \"\" \"" + p + " " + spec.version + "\" \"User Commands\"\n";
  out += ".SH NAME\n" + p + " \\- " + roff(spec.summary) + "\n";
  out += ".SH SYNOPSIS\n.B " + p + "\n.I command\n[\\fIENV\\fR] [\\fIoptions\\fR]\n";
  for (const auto& c : spec.commands)
    if (c.takes_command)
      out += ".br\n.B " + p + " " + roff(c.name) + "\n[\\fIENV\\fR] [\\fIoptions\\fR] \\fB\\-\\-\\fR \\fICMD\\fR [\\fIARGS\\fR...]\n";
  std::string summary = spec.summary;
  if (!summary.empty()) summary[0] = char(std::toupper(static_cast<unsigned char>(summary[0])));
  out += ".SH DESCRIPTION\n" + roff(summary) +
         ".\n.PP\nEvery command that works on one env selects it like conda: a positional ENV (a name, or a path "
         "when it contains a slash), \\fB\\-n\\fR \\fINAME\\fR (looked up in conda\\(aqs envs dirs; base is the "
         "root), \\fB\\-p\\fR \\fIPREFIX\\fR, else $CONDA_PREFIX, else $VIRTUAL_ENV. An unknown name or a path that "
         "is not an env exits 2 with the envs found.\n";
  out += ".SH COMMANDS\n";
  for (const auto& c : spec.commands) {
    out += ".SS " + c.name + (c.action.empty() ? "" : " " + c.action) + "\n" + roff(c.description) + "\n";
    for (const auto& o : c.options) {
      std::vector<std::string> bold;
      for (const auto& n : o.names) bold.push_back("\\fB" + roff(n) + "\\fR");
      out += ".TP\n" + util::join(bold, ", ") + (o.value == ValueKind::none ? "" : " \\fIVALUE\\fR") + "\n" +
             roff(o.description) + "\n";
    }
  }
  out += ".SH EXAMPLES\n";
  for (const auto& e : man_examples()) {
    out += ".SS \"" + roff(e.title) + "\"\n" + roff(e.text) + "\n.PP\n.RS 4\n.nf\n";
    for (const char* line : e.lines) out += roff(line) + "\n";
    out += ".fi\n.RE\n";
  }
  out += ".SH ENVIRONMENT\n" + man_entries(man_environment());
  out += ".SH EXIT STATUS\n" + man_entries(exit_codes);
  out += ".SH FILES\n" + man_entries(man_files());
  out += ".SH FINDINGS\ndoctor and repair report findings by these stable codes (\\-\\-json: \"code\").\n";
  for (const auto& f : finding_docs())
    out += ".TP\n.B " + roff(std::string(f.code)) + "\n" + roff(std::string(f.severity)) + ": " +
           roff(std::string(f.what)) + "\n";
  out += ".SH SEE ALSO\n.BR ld.so (8),\n.BR ldconfig (8),\n.BR conda (1)\n";
  return out;
}

} // namespace condacuda::report
