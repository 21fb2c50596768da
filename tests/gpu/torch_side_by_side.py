"""The check's sizes through PyTorch, for a side-by-side ratio with
`condacuda check` (tests/gpu/run-on-device.sh). Same shapes, same layouts
(column-major NN GEMM is what torch's row-major matmul calls), random
full-mantissa data, two warm-ups, five runs timed with CUDA events, medians.
Prints one JSON document."""
import json
import sys

import torch


def median_ms(fn, warmups=2, reps=5):
    for _ in range(warmups):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    times.sort()
    return times[len(times) // 2]


def uniform(shape, dtype):
    return (torch.rand(shape, device="cuda", dtype=torch.float32) * 2 - 1).to(dtype)


def gemm(n, dtype, tf32):
    torch.backends.cuda.matmul.allow_tf32 = tf32
    a, b = uniform((n, n), dtype), uniform((n, n), dtype)
    ms = median_ms(lambda: torch.matmul(a, b))
    out = {"size": n, "median_ms": ms, "tflops": 2.0 * n ** 3 / (ms * 1e-3) / 1e12}
    # bf16 in, fp32 out, as the check's GEMM writes (torch >= 2.8 has out_dtype).
    if dtype == torch.bfloat16:
        try:
            ms32 = median_ms(lambda: torch.mm(a, b, out_dtype=torch.float32))
            out["fp32_out_median_ms"] = ms32
            out["fp32_out_tflops"] = 2.0 * n ** 3 / (ms32 * 1e-3) / 1e12
        except (TypeError, RuntimeError) as e:
            out["fp32_out_error"] = str(e).splitlines()[0]
    return out


def banded_csr(rows, per_row):
    r = torch.arange(rows, device="cuda", dtype=torch.int64)
    start = (r - per_row // 2).clamp(min=0).clamp(max=rows - per_row)
    cols = (start[:, None] + torch.arange(per_row, device="cuda")).reshape(-1).to(torch.int32)
    crow = torch.arange(0, rows * per_row + 1, per_row, device="cuda", dtype=torch.int32)
    vals = uniform((rows * per_row,), torch.float32)
    return torch.sparse_csr_tensor(crow, cols, vals, size=(rows, rows))


def main():
    sizes = json.loads(sys.argv[1]) if len(sys.argv) > 1 else {}
    copy_bytes = sizes.get("copy_bytes", 1 << 30)
    rows, per_row = sizes.get("spmv_rows", 8 << 20), sizes.get("nnz_per_row", 16)
    spmm_rows, spmm_cols = sizes.get("spmm_rows", 1 << 20), sizes.get("spmm_cols", 16)
    result = {"torch": torch.__version__, "cuda": torch.version.cuda, "device": torch.cuda.get_device_name(0)}

    src = uniform((copy_bytes // 4,), torch.float32)
    dst = torch.empty_like(src)
    ms = median_ms(lambda: dst.copy_(src))
    result["copy"] = {"bytes": copy_bytes, "median_ms": ms, "gbs": 2.0 * copy_bytes / (ms * 1e-3) / 1e9}
    del src, dst

    result["gemm-bf16"] = gemm(sizes.get("gemm_bf16", 8192), torch.bfloat16, False)
    result["gemm-tf32"] = gemm(sizes.get("gemm_tf32", 4096), torch.float32, True)
    result["gemm-fp32"] = gemm(sizes.get("gemm_fp32", 4096), torch.float32, False)
    torch.backends.cuda.matmul.allow_tf32 = False

    a = banded_csr(rows, per_row)
    x = uniform((rows,), torch.float32)
    ms = median_ms(lambda: torch.mv(a, x))
    moved = 4.0 * (rows + 1) + 8.0 * rows * per_row + 8.0 * rows  # the check's count
    result["spmv"] = {"rows": rows, "median_ms": ms, "gbs": moved / (ms * 1e-3) / 1e9}
    del a, x

    a = banded_csr(spmm_rows, per_row)
    b = uniform((spmm_cols, spmm_rows), torch.float32).t()  # column-major, as the check's B
    ms = median_ms(lambda: torch.mm(a, b))
    result["spmm"] = {"rows": spmm_rows, "cols": spmm_cols, "median_ms": ms,
                      "tflops": 2.0 * spmm_rows * per_row * spmm_cols / (ms * 1e-3) / 1e12}
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
