"""The default text view's rules (issue 51), checked on what condacuda prints.

    violations(name, text, doc=None) -> [str]

- no line over 100 columns that has a space to break at (a path longer than
  a line may stand alone on one, a command's with its " \\" after it);
- none of the loader's terms (TERMS): `-v` keeps them, the default view
  says "the library's own search path";
- with the same command's --json (`doc`): each finding's loader error said
  once, and each of its steps (`actions`) as the command a user pastes,
  alone on a line (`command_of` words it as condacuda's command_line does).

Run as a script, it checks files: text_rules.py NAME TEXT [JSON].
"""
import json
import re
import shlex
import sys

WIDTH = 100
TERMS = re.compile(r"DT_RUNPATH|DT_RPATH|RUNPATH|RPATH|version node|major only|beyond the major|(?<![/\w.-])roots?(?![/\w-])")


def command_of(action):
    """The command a step is typed as (None: no single command, remove-path-entry)."""
    kind, args = action["kind"], action["args"]
    if kind == "repair":
        return " ".join(["condacuda repair -p", "'" + args[0].replace("'", "'\\''") + "'"] + [shlex.quote(a) for a in args[1:]])
    if kind == "activate":
        return "conda deactivate; conda activate '" + args[0].replace("'", "'\\''") + "'"
    if kind in ("pip-install", "pip-uninstall"):
        return " ".join(["pip"] + [shlex.quote(a) for a in args])
    return None


def commands(lines):
    """Each line stripped, a command broken with a trailing backslash joined back into one."""
    held = ""
    for line in lines:
        if line.endswith(" \\"):
            held += line.strip()[:-1]
            continue
        yield (held + line.strip()) if held else line.strip()
        held = ""


def said(text, error):
    """How often `error` (a path, ': ', the message) is said: as its file's name and message, across wrapped lines."""
    flat = re.sub(r"\s*\n\s*", " ", text)
    path, sep, message = error.partition(": ")
    return flat.count(path.rsplit("/", 1)[-1] + sep + message if sep else error)


def violations(name, text, doc=None):
    out = []
    lines = text.splitlines()
    for line in lines:
        body = line[:-2] if line.endswith(" \\") else line  # a command's continuation mark is no break point
        if len(line) > WIDTH and " " in body.strip():
            out.append("%s: a line of %d columns with a break point: %s" % (name, len(line), line))
        if TERMS.search(line):
            out.append("%s: a loader term in the default view: %s" % (name, line.strip()))
    stripped = set(commands(lines))
    for f in (doc or {}).get("findings", []):
        if f.get("first_error") and said(text, f["first_error"]) > 1:
            out.append("%s: the error of %s is said %d times: %s" % (name, f["code"], said(text, f["first_error"]), f["first_error"]))
        for a in f.get("actions", []):
            command = command_of(a)
            if command is not None and command not in stripped:
                out.append("%s: the step of %s is not a line of its own: %s" % (name, f["code"], command))
            if command is None and a["args"][-1] not in text:
                out.append("%s: the step of %s names what is not in the text: %s" % (name, f["code"], a))
    return out


def doctor_both(run, *args):
    """doctor ARGS --json and its text view through `run` (argv -> CompletedProcess): both exit
    alike (0 or 1), the text within the rules; (exit status, the parsed --json)."""
    r = run(["doctor", *args, "--json"])
    if r.returncode not in (0, 1):
        raise SystemExit("FAIL: doctor exited %d: %s" % (r.returncode, r.stderr.strip()))
    doc = json.loads(r.stdout)
    t = run(["doctor", *args])
    if t.returncode != r.returncode:
        raise SystemExit("FAIL: doctor's text view exited %d, its --json %d" % (t.returncode, r.returncode))
    problems = violations("doctor", t.stdout, doc)
    if problems:
        raise SystemExit("FAIL: doctor's text view breaks the layout rules: %s\n%s" % (problems, t.stdout))
    return r.returncode, doc


if __name__ == "__main__":
    doc = json.load(open(sys.argv[3])) if len(sys.argv) > 3 else None
    problems = violations(sys.argv[1], open(sys.argv[2]).read(), doc)
    for p in problems:
        print("FAIL: " + p, file=sys.stderr)
    sys.exit(1 if problems else 0)
