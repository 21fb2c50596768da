#!/usr/bin/env python3
"""Hostile inputs for the structured fuzz targets, one generator per surface:

  gen_hostile.py kernelspec DIR   kernel.json texts, server environments and
                                  runtime files, wrapper scripts, kernel names
  gen_hostile.py fleet DIR        doctor, error and fleet documents as files
                                  and JSON Lines, and hostlists
  gen_hostile.py metadata DIR     site-packages trees: dist-info METADATA and
                                  RECORD, torch/version.py, CuPy's _wheel.json,
                                  JAX plugins, .pth files, PYTHONPATH

Each writes --count inputs (default 150) to DIR, the same ones for the same
--seed. An input is the target's sections joined by 0x1e
(tests/fuzz/fuzz_sections.hpp). Every generator mixes well-formed inputs
(the shapes condacuda itself, Jupyter, pip and Slurm write) with the damage
an untrusted file can carry: wrong JSON types at every key, deep nesting,
numbers past every integer width, invalid UTF-8 and escaped NULs and lone
surrogates, huge strings and lists, separators and brackets in names,
truncation. The replay driver (replay_main.cpp) then mutates each one.
"""
import json
import os
import random
import sys

SEP = b"\x1e"

HOSTILE_STRINGS = [
    "", " ", "\t", "$", "$$", "${", "${A", "${}", "$1", "$A$B${C}", "~", "..", "../../etc/passwd", "/",
    "a" * 5000, "\u00e9\u4e2d\U0001F600", "\\u0000", "x\ny", "[", "]", "[1-3]", "a,b", "n[01-1]",
    "%s%n%x", "\x1b[31mred\x1b[0m", "C:\\x", "a=b", "=", "PYTHONEXECUTABLE",
]
HOSTILE_NUMBERS = ["0", "-1", "1.5", "1e999", "-1e999", "9223372036854775807", "9223372036854775808",
                   "-9223372036854775809", "18446744073709551616", "1" * 400, "0.0000001", "-0", "1E+2"]
# Raw JSON fragments that are valid JSON of a wrong type, or not JSON at all.
HOSTILE_VALUES = ["null", "true", "[]", "{}", '""', "[[[[[]]]]]", '{"a":{"b":{"c":[1,2,{"d":null}]}}}',
                  '"\\ud800"', '"\\udc00\\ud800"', '"\\u0000"', '"\xff\xfe"', "[1,", "{", "'x'", "NaN", "Infinity"]


def raw(rng):
    """A raw JSON value: usually hostile."""
    pick = rng.random()
    if pick < 0.3:
        return rng.choice(HOSTILE_VALUES)
    if pick < 0.55:
        return rng.choice(HOSTILE_NUMBERS)
    if pick < 0.65:
        depth = rng.choice([10, 64, 255, 256, 257, 300, 2000])
        return "[" * depth + "]" * depth
    return json.dumps(rng.choice(HOSTILE_STRINGS))


def damage(text, rng):
    """Text-level damage: truncation, a BOM, trailing garbage, duplicated keys, CRLF."""
    kind = rng.randrange(7)
    if kind == 0 and text:
        return text[: rng.randrange(len(text))]
    if kind == 1:
        return "\ufeff" + text
    if kind == 2:
        return text + rng.choice(["}", "\x00", " x", "\n{}", "\n" + text])
    if kind == 3:
        return text.replace("\n", "\r\n")
    if kind == 4 and text.startswith("{"):
        return '{"argv": 1, "schema": 2, ' + text[1:]
    return text


def with_wrong_value(doc, rng):
    """`doc` as JSON text with one key's value (at any depth) replaced by a raw hostile value."""
    paths = []

    def walk(value, path):
        if isinstance(value, dict):
            for k, v in value.items():
                paths.append(path + [k])
                walk(v, path + [k])
        elif isinstance(value, list):
            for i, v in enumerate(value):
                paths.append(path + [i])
                walk(v, path + [i])

    walk(doc, [])
    marker = "__HOSTILE_%d__" % rng.randrange(1 << 30)
    if paths:
        path = rng.choice(paths)
        target = doc
        for step in path[:-1]:
            target = target[step]
        target[path[-1]] = marker
    return json.dumps(doc).replace(json.dumps(marker), raw(rng))


def write(out, index, sections):
    data = SEP.join(s if isinstance(s, bytes) else s.encode("utf-8", "surrogateescape") for s in sections)
    with open(os.path.join(out, "%04d" % index), "wb") as f:
        f.write(data)


# --- kernelspecs (jupyter_client's kernel.json, a server's environ and runtime file) ---

def kernel_argv(rng):
    launcher = ["-m", "ipykernel_launcher", "-f", "{connection_file}"]
    shapes = [
        ["/env/bin/python"] + launcher, ["python3"] + launcher, ["/link/python"] + launcher,
        ["/opt/conda/bin/conda", "run", "-p", "/env", "python"] + launcher,
        ["mamba", "run", "-n", "demo", "--no-capture-output", "python"] + launcher,
        ["/usr/bin/condacuda", "run", "-p", "/env", "--", "/env/bin/python"] + launcher,
        ["/srv/bin/python", "-m", "nb_conda_kernels.runner", "/opt/conda", "/env", "python"] + launcher,
        ["/srv/bin/python", "-m", "nb_conda_kernels.runner", "/opt/conda", "demo"],
        ["/home/u/wrapper"] + launcher, ["/home/u/start.sh"], ["condacuda", "run"], ["conda", "run", "-p"],
        ["python3.11.x"], ["/env/bin/../bin/python"], [""],
    ]
    argv = list(rng.choice(shapes))
    if rng.random() < 0.3:
        argv[rng.randrange(len(argv))] = rng.choice(HOSTILE_STRINGS)
    if rng.random() < 0.1:
        argv = argv * 200
    return argv


def kernel_json(rng):
    spec = {"argv": kernel_argv(rng), "display_name": rng.choice(["Python 3", "", "x" * 3000, "\u4e2d"]),
            "language": "python"}
    if rng.random() < 0.7:
        spec["env"] = {rng.choice(["LD_LIBRARY_PATH", "PATH", "PYTHONEXECUTABLE", "", "A=B", "CONDA_PREFIX"]):
                       rng.choice(["${LD_LIBRARY_PATH}:/opt/x", "$HOME/lib", "$$HOME", "${UNSET}", "${", "$",
                                   "/env/lib", "$PATH:$PATH:$PATH"] + HOSTILE_STRINGS) for _ in range(rng.randrange(1, 5))}
    if rng.random() < 0.3:
        spec["metadata"] = {"condacuda": {"env": "/env", "written_by": "condacuda 0.1"}} if rng.random() < 0.5 \
            else {"debugger": True}
    if rng.random() < 0.5:
        return damage(with_wrong_value(spec, rng), rng)
    return damage(json.dumps(spec, indent=rng.choice([None, 1, 2])), rng)


def environ(rng):
    names = ["JUPYTER_PATH", "JUPYTER_DATA_DIR", "XDG_DATA_HOME", "JUPYTER_PREFER_ENV_PATH", "JUPYTER_RUNTIME_DIR",
             "HOME", "LD_LIBRARY_PATH", "PATH", "PYTHONEXECUTABLE", ""]
    entries = []
    for _ in range(rng.randrange(0, 12)):
        value = rng.choice(["/a:/b::", "", "~", "~/x", "relative/dir", ":" * 100, "0", "no", "FALSE", "1",
                            "/x/" * 500] + HOSTILE_STRINGS)
        entries.append(rng.choice(names) + rng.choice(["=", "", "=="]) + value)
    blob = b"\0".join(e.encode("utf-8", "surrogateescape") for e in entries)
    if rng.random() < 0.2:
        blob += b"\0\0=x\0noequals\0\xff\xfe=\x80\0"
    return blob


def server_file(rng):
    doc = {"pid": rng.choice([1234, -1, 0, 2 ** 40]), "url": "http://localhost:8888/", "port": 8888}
    return damage(with_wrong_value(doc, rng), rng) if rng.random() < 0.6 else json.dumps(doc)


def kernelspec(out, count, rng):
    for i in range(count):
        script = rng.choice(["#!/bin/sh\nsource /opt/conda/bin/activate /env\nexec /env/bin/python \"$@\"\n",
                             "#!/bin/sh\nexec /env/bin/python3.11 \"$@\"\n", "#!", "", "no shebang /env/bin/python",
                             "#!/bin/sh\n" + "activate " * 2000])
        name = rng.choice(["python3", "demo-torch", "a.b_c", "", "UPPER", "bad name", "../x", "\u00e9", "k" * 300])
        write(out, i, [kernel_json(rng), environ(rng), server_file(rng), script, name])


# --- fleet documents (condacuda doctor --json on each node, fleet --from) ---

def doctor_document(rng, node):
    gpus = [{"name": rng.choice(["H100", "A100", "V100", ""]), "sm": rng.choice(["sm_90", "sm_80", "sm_70", ""])}
            for _ in range(rng.randrange(0, 3))]
    findings = [{"code": rng.choice(["undefined-symbol", "version-not-found", "shadowed", "missing"]),
                 "severity": rng.choice(["error", "warning", "info", ""]), "title": "t", "library": "libcusparse.so.12",
                 "via_entry": "/opt/cuda/lib64", "first_error": "undefined symbol", "fix": "condacuda repair -p /env"}
                for _ in range(rng.randrange(0, 4))]
    return {
        "schema": "condacuda.doctor/1",
        "outcome": "problems" if findings else "healthy",
        "exit_code": 1 if findings else 0,
        "summary": {"roots": 31, "fails": len(findings)},
        "env": {"prefix": "/env"},
        "node": {"name": node, "hostname": "host-" + node, "glibc": rng.choice(["2.36", "2.31", "2.41"]),
                 "driver": {"version": rng.choice(["580.65.06", "535.104.05", None]), "source": "/proc/driver/nvidia/version"},
                 "gpus": gpus, "gpus_source": "/proc/driver/nvidia/gpus",
                 "ld_library_path": rng.choice([None, "", "/usr/local/cuda-12.1/lib64", "::"]),
                 "system_cuda_folders": rng.choice([[], ["/usr/local/cuda/lib64"]]), "ld_so_cache_cuda": []},
        "findings": findings,
    }


def node_name(rng, i):
    plain = ["gpu%03d" % i, "gpu%d" % i, "node-%d" % i, "a%d" % (i % 3), "gpu%020d" % i, "g" + "9" * 25]
    hostile = ["", "gpu[001-003]", "a,b", "x]y", "n[" + "0" * 300 + "1]", "\u00e9%d" % i, "n\n1", " ", "%s"]
    return rng.choice(plain) if rng.random() < 0.8 else rng.choice(hostile)


def one_document(rng, i):
    kind = rng.random()
    if kind < 0.6:
        doc = doctor_document(rng, node_name(rng, i))
    elif kind < 0.75:
        doc = {"schema": "condacuda.error/1", "exit_code": rng.choice([2, 4, 70, -1]),
               "error": {"message": rng.choice(HOSTILE_STRINGS), "code": "bad-input"}}
    elif kind < 0.9:
        nodes = []
        for j in range(rng.randrange(0, 6)):
            entry = {"name": node_name(rng, j)}
            if rng.random() < 0.7:
                entry["doctor"] = doctor_document(rng, entry["name"])
            else:
                entry["no_answer"] = {"kind": rng.choice(["timed-out", "unavailable", "error", "odd"]),
                                      "reason": "drained: disk", "exit_code": rng.choice([2, 5, "2"]), "detail": "x"}
            if rng.random() < 0.2:
                entry["check"] = {"schema": "condacuda.check/1", "outcome": "ok", "exit_code": 0, "reason": "r"}
            nodes.append(entry)
        doc = {"schema": "condacuda.fleet/1", "nodes": nodes}
    else:
        doc = {"schema": rng.choice(["condacuda.lock/1", "", "x"]), "node": {"name": "n"}}
    return with_wrong_value(doc, rng) if rng.random() < 0.4 else json.dumps(doc, indent=rng.choice([None, 2]))


def hostlist(rng):
    return rng.choice(["gpu[001-012,015]", "gpu[1-999999999]", "n[0-65535]m[0-65535]", "a[", "a]b", "n[01-1]",
                       "x[18446744073709551615]", "x[18446744073709551614-18446744073709551615]", "n[" + "0" * 5000 + "1-9]",
                       "a[1-3]b[1-3]c[1-3]", "[1-2]", "n[3-1]", "n[1-2,,3]", "a,b,,c", "", "n[-1]", "a" * 70000,
                       "gpu[001-003]-ib[1-2]", "n[1-3],n[2-4]", "x[0-" + "9" * 30 + "]"])


def fleet(out, count, rng):
    for i in range(count):
        files = []
        for f in range(rng.randrange(1, 4)):
            if rng.random() < 0.4:  # JSON Lines: compact documents, some lines broken
                lines = [one_document(rng, i * 100 + j).replace("\n", " ") for j in range(rng.randrange(1, 40))]
                if rng.random() < 0.3:
                    lines.insert(rng.randrange(len(lines) + 1), rng.choice(["{not json", "", "[]", "null", "\x00"]))
                files.append(damage("\n".join(lines), rng) if rng.random() < 0.2 else "\n".join(lines))
            else:
                files.append(damage(one_document(rng, i + f), rng) if rng.random() < 0.3 else one_document(rng, i + f))
        write(out, i, files + [hostlist(rng)])


# --- framework metadata (a site-packages tree a python imports from) ---

def metadata_text(rng, name, version):
    lines = ["Metadata-Version: 2.1", "Name: " + name, "Version: " + version]
    for _ in range(rng.randrange(0, 5)):
        lines.append("Requires-Dist: " + rng.choice([
            "nvidia-cusparse-cu12==12.3.1.170; platform_system == \"Linux\" and platform_machine == \"x86_64\"",
            "nvidia-nvjitlink-cu12 (>=12.1)", "jax-cuda12-plugin[with_cuda] <=0.4.30,>=0.4.30 ; extra == 'cuda'",
            "x ; " + "(" * 300 + "python_version > '3'" + ")" * 300, "a[", "b (>=", "c ===1.0", "d ~= 1", "e @ file:///x",
            "f; python_version < '3.8' or os_name == 'nt' and extra == \"test\"", "g ; extra == ", ";", "",
            "h==1.*,!=1.2.*", "i>=1!2.0.post1.dev3+local.7", "j ; python_full_version ~= '3.11.2'"]))
    if rng.random() < 0.2:
        lines.insert(2, "Version: 0.1")  # a second Version header
    if rng.random() < 0.2:
        lines.append("        continued " * rng.randrange(1, 50))
    text = "\n".join(lines) + "\n\nThe long description.\nVersion: 9.9\n"
    return damage(text, rng) if rng.random() < 0.2 else text


def version(rng):
    return rng.choice(["2.5.1", "2.5.1+cu121", "2.6.0a0+git1234", "0.4.30", "13.0.0", "1!2.0.post1.dev3+local.7",
                       "v1.0", "1.0.0rc1", "1e9999", "9" * 400, "1." * 300 + "0", "", " ", "1.0-1", "1.0_dev",
                       "1.0.dev", "1.0.post", "1.0+", "1..0", "\u0661.0"])


def record_text(rng, files):
    lines = []
    for f in files:
        lines.append("%s,sha256=%s,%s" % (f, "A" * 43, rng.choice(["1234", "", "-1", "1" * 40])))
    lines += rng.sample(['"quoted,path",sha256=x,1', "../../bin/tool,,", ",,", "nvidia/x/lib/libx.so.12",
                         "nvidia/cublas/lib/libcublas.so.12,\"sha256=a\",1", "\r", "a,b,c,d,e"], 3)
    return "\n".join(lines) + "\n"


def site_tree(rng):
    files = []
    torch_v, jax_v = version(rng), version(rng)
    if rng.random() < 0.8:
        files.append(("torch/__init__.py", ""))
        files.append(("torch/version.py", rng.choice([
            "__version__ = '%s'\ncuda: Optional[str] = '12.4'\n" % torch_v, "cuda = None\n", "cuda = '13.0'\n",
            "cuda='12.1", "cuda = \"\"\n", "cudaX = '1'\ncuda :  = '12'\n", "cuda = '" + "9" * 500 + "'\n",
            "    cuda = '12.1'  # indented\n", "\x00cuda = '12.4'\n"])))
        files.append(("torch-%s.dist-info/METADATA" % torch_v, metadata_text(rng, "torch", torch_v)))
    if rng.random() < 0.5:
        files.append(("jax_plugins/xla_cuda12/__init__.py", ""))
        files.append(("jax_cuda12_plugin-%s.dist-info/METADATA" % jax_v, metadata_text(rng, "jax-cuda12-plugin", jax_v)))
    if rng.random() < 0.4:
        files.append(("cupy/__init__.py", ""))
        wheel = {"cuda": rng.choice(["12.x", "13.x", "x", ""]), "packaging": "pip",
                 "cutensor": {"version": "2.0", "filenames": ["libcutensor.so.2"]}, "nccl": {"filenames": "x"}}
        files.append(("cupy/.data/_wheel.json", with_wrong_value(wheel, rng) if rng.random() < 0.5 else json.dumps(wheel)))
        files.append(("cupy_cuda12x-13.3.0.dist-info/METADATA", metadata_text(rng, "cupy-cuda12x", "13.3.0")))
    libs = ["nvidia/cublas/lib/libcublas.so.12", "nvidia/nvjitlink/lib/libnvJitLink.so.12", "nvidia/cu13/lib/libcudart.so.13"]
    where = rng.choice(["~/", "/p/", ""])
    for lib in rng.sample(libs, rng.randrange(0, 3)):
        files.append((where + lib, "\x7fELF"))
    files.append((where + "nvidia_cublas_cu12-12.4.5.8.dist-info/RECORD", record_text(rng, libs)))
    files.append((where + "nvidia_cublas_cu12-12.4.5.8.dist-info/METADATA", metadata_text(rng, "nvidia-cublas-cu12", version(rng))))
    for _ in range(rng.randrange(0, 3)):
        files.append((rng.choice(["", "~/"]) + rng.choice(["a.pth", ".hidden.pth", "x.pth", "z.pth"]), rng.choice([
            "/p\n", "import os; os.system('x')\n", "../../..\n", "/p\n" * 300, "# comment\n\n/home/u/lib\n", "\x00\n",
            "relative\n", "/env/lib/python3.11/site-packages\n", "~/.local\n"])))
    if rng.random() < 0.1:
        files.append(("torch-%s.dist-info/METADATA" % torch_v, "\x00" * 100))
    return files


def metadata(out, count, rng):
    for i in range(count):
        pythonpath = rng.choice(["", "/p", "/p:/p", ":", "/p::relative", "~/x", "/p/" * 1000, "\x00", "/p:" * 300])
        write(out, i, [pythonpath] + [path + "\n" + text for path, text in site_tree(rng)])


GENERATORS = {"kernelspec": kernelspec, "fleet": fleet, "metadata": metadata}


def main(argv):
    if len(argv) < 2 or argv[0] not in GENERATORS:
        sys.exit("usage: gen_hostile.py {%s} DIR [--count N] [--seed S]" % ",".join(GENERATORS))
    surface, out = argv[0], argv[1]
    count = int(argv[argv.index("--count") + 1]) if "--count" in argv else 150
    seed = int(argv[argv.index("--seed") + 1]) if "--seed" in argv else 1
    os.makedirs(out, exist_ok=True)
    GENERATORS[surface](out, count, random.Random("%s/%d" % (surface, seed)))


if __name__ == "__main__":
    main(sys.argv[1:])
