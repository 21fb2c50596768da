#include "check/python_frameworks.hpp"

#include "util/json.hpp"
#include "util/strings.hpp"

namespace condacuda::check {

namespace {
// One record per framework. Imports are the point (the loader errors surface
// there); the op proves a kernel ran. A framework that imports but sees no
// GPU is "no-gpu", not a failure of the env.
constexpr char script[] = R"PY(
import importlib.util, json, sys, traceback

def emit(**record):
    print(json.dumps(record), flush=True)

def first_line(e):
    text = str(e).strip().splitlines()
    return type(e).__name__ + ": " + (text[0] if text else "")

def run_torch(torch):
    if not torch.cuda.is_available():
        return "no-gpu", "torch.cuda.is_available() is False (CUDA %s build)" % torch.version.cuda
    a = torch.randn(256, 256, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(256, 256, device="cuda", dtype=torch.bfloat16)
    c = (a @ b).float().cpu().double()
    ref = a.double().cpu() @ b.double().cpu()
    err = float(((c - ref).abs().max() / ref.abs().max()).item())
    if not err < 2e-2:
        raise RuntimeError("bf16 matmul error %.3g" % err)
    return "pass", "bf16 matmul 256x256 on %s (CUDA %s), max error %.2g" % (
        torch.cuda.get_device_name(0), torch.version.cuda, err)

def run_jax(jax):
    gpus = [d for d in jax.devices() if d.platform == "gpu"]
    if not gpus:
        return "no-gpu", "jax.devices() has no gpu: %s" % jax.devices()
    import jax.numpy as jnp
    x = jnp.arange(256 * 256, dtype=jnp.float32).reshape(256, 256) / 65536.0
    s = float(jax.device_put(x, gpus[0]).sum().block_until_ready())
    if abs(s - float(x.sum())) > 1e-3 * abs(s):
        raise RuntimeError("sum mismatch")
    return "pass", "sum of 256x256 on %s" % gpus[0]

def run_cupy(cupy):
    if cupy.cuda.runtime.getDeviceCount() == 0:
        return "no-gpu", "cupy sees no device"
    s = int(cupy.arange(1 << 20, dtype=cupy.int64).sum())
    if s != (1 << 20) * ((1 << 20) - 1) // 2:
        raise RuntimeError("sum mismatch")
    return "pass", "arange(2^20).sum() on device %d" % cupy.cuda.runtime.getDevice()

for name, run in (("torch", run_torch), ("jax", run_jax), ("cupy", run_cupy)):
    if importlib.util.find_spec(name) is None:
        emit(framework=name, status="absent")
        continue
    try:
        module = importlib.import_module(name)
    except BaseException as e:
        emit(framework=name, status="fail", error=first_line(e), detail="import failed")
        continue
    version = str(getattr(module, "__version__", ""))
    try:
        status, detail = run(module)
        emit(framework=name, status=status, version=version, detail=detail)
    except BaseException as e:
        emit(framework=name, status="fail", version=version, error=first_line(e), detail="the GPU op failed")
)PY";
} // namespace

std::string_view python_check_script() { return script; }

const char* to_string(FrameworkStatus status) {
  switch (status) {
  case FrameworkStatus::pass: return "pass";
  case FrameworkStatus::fail: return "fail";
  case FrameworkStatus::no_gpu: return "no-gpu";
  case FrameworkStatus::absent: return "absent";
  }
  return "fail";
}

std::optional<FrameworkStatus> parse_framework_status(std::string_view word) {
  for (FrameworkStatus s : {FrameworkStatus::pass, FrameworkStatus::fail, FrameworkStatus::no_gpu, FrameworkStatus::absent})
    if (word == to_string(s)) return s;
  return std::nullopt;
}

std::vector<PythonResult> parse_python_output(std::string_view text) {
  std::vector<PythonResult> out;
  for (const auto& line : util::split(text, "\n")) {
    auto j = util::parse_json(util::trim(line));
    if (!j || !j->is_object() || j->string_at("framework").empty()) continue;
    auto status = parse_framework_status(j->string_at("status"));
    if (!status) continue;
    PythonResult r;
    r.framework = j->string_at("framework");
    r.status = *status;
    r.version = j->string_at("version");
    r.detail = j->string_at("detail");
    r.error = j->string_at("error");
    out.push_back(std::move(r));
  }
  return out;
}

const doctor::Finding* explaining_finding(std::string_view error, const std::vector<doctor::Finding>& findings) {
  if (error.empty()) return nullptr;
  for (const auto& f : findings)
    if (f.severity == doctor::Severity::error && !f.first_error.empty() && util::contains(error, f.first_error))
      return &f;
  for (const auto& f : findings) {
    if (f.severity != doctor::Severity::error || f.symbols.empty()) continue;
    for (const auto& s : util::split(f.symbols, ","))
      if (!s.empty() && util::contains(error, "symbol: " + s)) return &f;
  }
  for (const auto& f : findings)
    if (f.severity == doctor::Severity::error && !f.library.empty() && util::contains(error, f.library)) return &f;
  return nullptr;
}

void attach_findings(std::vector<PythonResult>& results, const std::vector<doctor::Finding>& findings) {
  for (auto& r : results) {
    if (const doctor::Finding* f = explaining_finding(r.error, findings)) {
      r.finding = f->code;
      r.finding_title = f->title;
      r.fix = f->fix;
    }
  }
}

} // namespace condacuda::check
