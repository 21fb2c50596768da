"""Checks a condacuda --json document against docs/json.md.

    check_json_docs.py DOCS FILE EXIT_CODE

The document's `schema` names its section of DOCS; the section's first table
lists the top-level fields (`field` | type | meaning). Each listed field must
be present with its type (`T?`: T, null, or absent); no other field may be;
the document starts with schema, env (where listed, and present when optional), outcome, exit_code;
`exit_code` is EXIT_CODE (the process's); `outcome` is one of the words the
table's outcome row lists in backticks; `env` is {name, prefix, kind}.
Exit 0 when it agrees, 1 with every disagreement on stderr."""
import json
import re
import sys

TYPES = {"string": str, "integer": int, "number": (int, float), "boolean": bool, "object": dict, "array": list}


def sections(docs):
    """schema -> [(field, type, meaning)] from each heading naming a schema."""
    out, current, rows = {}, None, None
    for line in open(docs, encoding="utf-8"):
        heading = re.match(r"^## .*`(condacuda\.[a-z-]+/\d+)`", line)
        if heading:
            current, rows = heading.group(1), None
            continue
        if line.startswith("## "):
            current = None
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.startswith("|") else None
        if current and cells and len(cells) >= 3 and cells[0].startswith("`"):
            if rows is None:
                rows = out.setdefault(current, [])
            if out[current] is rows:
                rows.append((cells[0].strip("`"), cells[1], cells[2]))
        elif current and rows is not None and not line.startswith("|"):
            current = None  # the first table ended
    return out


def type_ok(value, declared):
    optional = declared.endswith("?")
    base = declared.rstrip("?")
    if value is None:
        return optional
    if base == "integer" and isinstance(value, bool):
        return False
    return isinstance(value, TYPES[base])


def main():
    docs, path, exit_code = sys.argv[1], sys.argv[2], int(sys.argv[3])
    doc = json.load(open(path, encoding="utf-8"))
    problems = []
    table = sections(docs).get(doc.get("schema"))
    if table is None:
        print("%s: schema %r is not documented in %s" % (path, doc.get("schema"), docs), file=sys.stderr)
        return 1
    fields = {name: (declared, meaning) for name, declared, meaning in table}
    for name, (declared, meaning) in fields.items():
        if name not in doc:
            if not declared.endswith("?"):
                problems.append("missing field %s" % name)
        elif not type_ok(doc[name], declared):
            problems.append("%s is %s, documented as %s" % (name, type(doc[name]).__name__, declared))
    for name in doc:
        if name not in fields:
            problems.append("undocumented field %s" % name)
    head = [k for k in ("schema", "env", "outcome", "exit_code") if k in fields and (k in doc or not fields[k][0].endswith("?"))]
    if list(doc)[: len(head)] != head:
        problems.append("the document starts %s, not %s" % (list(doc)[: len(head)], head))
    if doc.get("exit_code") != exit_code:
        problems.append("exit_code %r, the process exited %d" % (doc.get("exit_code"), exit_code))
    words = re.findall(r"`([^`]+)`", fields.get("outcome", ("", ""))[1])
    if words and doc.get("outcome") not in words:
        problems.append("outcome %r is not one of %s" % (doc.get("outcome"), words))
    envs = [doc["env"]] if isinstance(doc.get("env"), dict) else []
    envs += [e for e in doc.get("envs") or [] if isinstance(e, dict)] if doc.get("schema") == "condacuda.error/1" else []
    for env in envs:
        if sorted(env) != ["kind", "name", "prefix"] or not all(isinstance(v, str) for v in env.values()):
            problems.append("env is not {name, prefix, kind}: %s" % env)
    for p in problems:
        print("%s (%s): %s" % (path, doc.get("schema"), p), file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
