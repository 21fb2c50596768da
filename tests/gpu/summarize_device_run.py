"""Reads the JSON of a device run (tests/gpu/run-on-device.sh) and prints the
summary: the check's figures, torch's, their ratios and the issue's targets
(whole check <= 2 s wall; bf16 GEMM >= 90 % of torch's at the same size;
SpMV >= 60 % of the measured copy bandwidth)."""
import json
import sys


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        return {"error": str(e)}


def step(check, name):
    return next((s for s in check.get("steps", []) if s["name"] == name), {})


def main():
    out = sys.argv[1]
    check, torch, seed = load(out + "/check.json"), load(out + "/torch.json"), load(out + "/seed.json")
    run = load(out + "/run.json")
    lines, targets = [], {}
    lines.append("check: outcome %s, exit %s: %s" % (check.get("outcome"), check.get("exit_code"), check.get("reason")))
    for s in check.get("steps", []):
        rate = "" if s.get("rate") is None else "%.1f %s" % (s["rate"], s["rate_unit"])
        frac = "" if s.get("fraction_of_peak") is None else " (%.0f %% of peak)" % (100 * s["fraction_of_peak"])
        copy = "" if s.get("fraction_of_copy") is None else " (%.0f %% of copy)" % (100 * s["fraction_of_copy"])
        err = "" if s.get("max_error") is None else " err %.2g" % s["max_error"]
        med = "" if s.get("median_ms") is None else "%.3f ms" % s["median_ms"]
        lines.append("  %-10s %-7s %-22s %-10s %s%s%s%s" % (s["name"], s["status"], s.get("size", ""), med, rate, frac, copy, err))
    lines.append("  phases: " + ", ".join("%s %.1f ms" % (p["name"], p["ms"]) for p in check.get("phases", [])))
    ratios = {}
    for name, unit in (("gemm-bf16", "tflops"), ("gemm-tf32", "tflops"), ("gemm-fp32", "tflops"), ("copy", "gbs"),
                       ("spmv", "gbs"), ("spmm", "tflops")):
        mine, theirs = step(check, name).get("rate"), torch.get(name, {}).get(unit)
        if mine and theirs:
            ratios[name] = mine / theirs
    bf16_fp32_out = torch.get("gemm-bf16", {}).get("fp32_out_tflops")
    if bf16_fp32_out and step(check, "gemm-bf16").get("rate"):
        ratios["gemm-bf16 (torch fp32 out)"] = step(check, "gemm-bf16")["rate"] / bf16_fp32_out
    lines.append("torch %s (CUDA %s) on %s" % (torch.get("torch"), torch.get("cuda"), torch.get("device")))
    for k, v in ratios.items():
        lines.append("  ratio check/torch %-28s %.3f" % (k, v))
    try:
        wall = float(run.get("check_warm_wall_s"))
    except (TypeError, ValueError):
        wall = None
    targets["check wall <= 2 s (warm)"] = (wall, wall is not None and wall <= 2.0)
    targets["bf16 GEMM >= 90 % of torch"] = (ratios.get("gemm-bf16"), ratios.get("gemm-bf16", 0) >= 0.9)
    spmv = step(check, "spmv").get("fraction_of_copy")
    targets["SpMV >= 60 % of copy bandwidth"] = (spmv, spmv is not None and spmv >= 0.6)
    lines.append("targets")
    for k, (value, ok) in targets.items():
        lines.append("  %-34s %-6s %s" % (k, "met" if ok else "MISSED", value))
    lines.append("run")
    for k, v in run.items():
        lines.append("  %-34s %s" % (k, v))
    lines.append("seed scenario")
    for k, v in seed.items():
        lines.append("  %-34s %s" % (k, v))
    text = "\n".join(lines) + "\n"
    open(out + "/summary.txt", "w").write(text)
    print(text)


if __name__ == "__main__":
    main()
