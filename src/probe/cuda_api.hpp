#pragma once
// The few CUDA entry points the probe calls, declared here so that building
// condacuda needs no CUDA headers or libraries (the probe dlopens them).
// Types and values as in the CUDA 13.0 headers (cuda.h, cublas_api.h,
// cusparse.h, nvJitLink.h, library_types.h) and unchanged since 12.0 for
// everything used here (docs/gpu-check.md). Handles are opaque pointers; enums
// are int.
#include <cstddef>
#include <cstdint>

namespace condacuda::probe {

// ---- driver (libcuda.so.1) ----------------------------------------------------
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long; // 64-bit since the _v2 ABI (CUDA 3.2)
using CUcontext = struct CUctx_opaque*;
using CUstream = struct CUstream_opaque*;
using CUevent = struct CUevent_opaque*;
using CUmodule = struct CUmodule_opaque*;
using CUfunction = struct CUfunction_opaque*;

// cuDeviceGetAttribute (docs/gpu-check.md, "Driver").
namespace attr {
inline constexpr int clock_rate = 13;
inline constexpr int multiprocessor_count = 16;
inline constexpr int memory_clock_rate = 36;
inline constexpr int global_memory_bus_width = 37;
inline constexpr int l2_cache_size = 38;
inline constexpr int compute_capability_major = 75;
inline constexpr int compute_capability_minor = 76;
} // namespace attr

// The ABI the probe asks cuGetProcAddress_v2 for: CUDA 12.0's, which 12.x and
// 13.x drivers serve. It maps cuMemAlloc to cuMemAlloc_v2 and keeps
// cuEventElapsedTime and cuCtxSynchronize at their 12.0 signatures (13.0
// changed the latter two).
inline constexpr int requested_cuda_version = 12000;

struct DriverApi {
  CUresult (*cuInit)(unsigned flags) = nullptr;
  CUresult (*cuDriverGetVersion)(int* version) = nullptr;
  CUresult (*cuGetErrorName)(CUresult error, const char** name) = nullptr;
  CUresult (*cuDeviceGetCount)(int* count) = nullptr;
  CUresult (*cuDeviceGet)(CUdevice* device, int ordinal) = nullptr;
  CUresult (*cuDeviceGetName)(char* name, int len, CUdevice device) = nullptr;
  CUresult (*cuDeviceGetAttribute)(int* value, int attribute, CUdevice device) = nullptr;
  CUresult (*cuDeviceTotalMem)(std::size_t* bytes, CUdevice device) = nullptr;
  CUresult (*cuDeviceGetPCIBusId)(char* id, int len, CUdevice device) = nullptr;
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext* ctx, CUdevice device) = nullptr;
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice device) = nullptr;
  CUresult (*cuCtxSetCurrent)(CUcontext ctx) = nullptr;
  CUresult (*cuMemAlloc)(CUdeviceptr* ptr, std::size_t bytes) = nullptr;
  CUresult (*cuMemFree)(CUdeviceptr ptr) = nullptr;
  CUresult (*cuMemcpyDtoH)(void* dst, CUdeviceptr src, std::size_t bytes) = nullptr;
  CUresult (*cuMemcpyDtoDAsync)(CUdeviceptr dst, CUdeviceptr src, std::size_t bytes, CUstream stream) = nullptr;
  CUresult (*cuMemsetD32Async)(CUdeviceptr dst, unsigned value, std::size_t count, CUstream stream) = nullptr;
  CUresult (*cuStreamCreate)(CUstream* stream, unsigned flags) = nullptr;
  CUresult (*cuStreamDestroy)(CUstream stream) = nullptr;
  CUresult (*cuStreamSynchronize)(CUstream stream) = nullptr;
  CUresult (*cuEventCreate)(CUevent* event, unsigned flags) = nullptr;
  CUresult (*cuEventRecord)(CUevent event, CUstream stream) = nullptr;
  CUresult (*cuEventSynchronize)(CUevent event) = nullptr;
  CUresult (*cuEventElapsedTime)(float* ms, CUevent start, CUevent end) = nullptr;
  CUresult (*cuEventDestroy)(CUevent event) = nullptr;
  CUresult (*cuModuleLoadData)(CUmodule* module, const void* image) = nullptr;
  CUresult (*cuModuleUnload)(CUmodule module) = nullptr;
  CUresult (*cuModuleGetFunction)(CUfunction* f, CUmodule module, const char* name) = nullptr;
  CUresult (*cuLaunchKernel)(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                             unsigned bz, unsigned shared_bytes, CUstream stream, void** params,
                             void** extra) = nullptr;
};

// ---- cudart ---------------------------------------------------------------------
struct RuntimeApi {
  int (*cudaRuntimeGetVersion)(int* version) = nullptr;
};

// ---- cuBLAS / cuBLASLt ------------------------------------------------------------
using cublasHandle_t = struct cublas_opaque*;
inline constexpr int cuda_r_32f = 0;   // cudaDataType
inline constexpr int cuda_r_16bf = 14;
inline constexpr int cublas_op_n = 0;
inline constexpr int cublas_compute_32f = 68;
inline constexpr int cublas_compute_32f_pedantic = 69;
inline constexpr int cublas_compute_32f_fast_tf32 = 77;
inline constexpr int cublas_gemm_default = -1;
inline constexpr int major_version = 0, minor_version = 1, patch_level = 2; // libraryPropertyType

struct BlasApi {
  int (*cublasCreate)(cublasHandle_t* handle) = nullptr;   // cublasCreate_v2
  int (*cublasDestroy)(cublasHandle_t handle) = nullptr;   // cublasDestroy_v2
  int (*cublasSetStream)(cublasHandle_t handle, CUstream stream) = nullptr; // cublasSetStream_v2
  int (*cublasGetProperty)(int type, int* value) = nullptr;
  int (*cublasGemmEx)(cublasHandle_t handle, int transa, int transb, int m, int n, int k, const void* alpha,
                      const void* a, int a_type, int lda, const void* b, int b_type, int ldb, const void* beta,
                      void* c, int c_type, int ldc, int compute_type, int algo) = nullptr;
};

struct BlasLtApi {
  std::size_t (*cublasLtGetVersion)() = nullptr;
};

// ---- cuSPARSE (libcusparse.so.12 in CUDA 12 and 13; generic API) ---------------
using cusparseHandle_t = struct cusparse_opaque*;
using cusparseSpMatDescr_t = struct cusparse_spmat_opaque*;
using cusparseDnVecDescr_t = struct cusparse_dnvec_opaque*;
using cusparseDnMatDescr_t = struct cusparse_dnmat_opaque*;
inline constexpr int cusparse_index_32i = 2;
inline constexpr int cusparse_index_base_zero = 0;
inline constexpr int cusparse_operation_non_transpose = 0;
inline constexpr int cusparse_order_col = 1;
inline constexpr int cusparse_spmv_alg_default = 0;
inline constexpr int cusparse_spmm_alg_default = 0;

struct SparseApi {
  int (*cusparseCreate)(cusparseHandle_t* handle) = nullptr;
  int (*cusparseDestroy)(cusparseHandle_t handle) = nullptr;
  int (*cusparseSetStream)(cusparseHandle_t handle, CUstream stream) = nullptr;
  int (*cusparseGetProperty)(int type, int* value) = nullptr;
  int (*cusparseCreateCsr)(cusparseSpMatDescr_t* mat, std::int64_t rows, std::int64_t cols, std::int64_t nnz,
                           void* row_offsets, void* col_ind, void* values, int row_offsets_type, int col_ind_type,
                           int base, int value_type) = nullptr;
  int (*cusparseCreateDnVec)(cusparseDnVecDescr_t* vec, std::int64_t size, void* values, int value_type) = nullptr;
  int (*cusparseCreateDnMat)(cusparseDnMatDescr_t* mat, std::int64_t rows, std::int64_t cols, std::int64_t ld,
                             void* values, int value_type, int order) = nullptr;
  int (*cusparseDestroySpMat)(cusparseSpMatDescr_t mat) = nullptr;
  int (*cusparseDestroyDnVec)(cusparseDnVecDescr_t vec) = nullptr;
  int (*cusparseDestroyDnMat)(cusparseDnMatDescr_t mat) = nullptr;
  int (*cusparseSpMV_bufferSize)(cusparseHandle_t handle, int op, const void* alpha, cusparseSpMatDescr_t a,
                                 cusparseDnVecDescr_t x, const void* beta, cusparseDnVecDescr_t y, int compute_type,
                                 int alg, std::size_t* bytes) = nullptr;
  int (*cusparseSpMV)(cusparseHandle_t handle, int op, const void* alpha, cusparseSpMatDescr_t a,
                      cusparseDnVecDescr_t x, const void* beta, cusparseDnVecDescr_t y, int compute_type, int alg,
                      void* buffer) = nullptr;
  int (*cusparseSpMM_bufferSize)(cusparseHandle_t handle, int op_a, int op_b, const void* alpha,
                                 cusparseSpMatDescr_t a, cusparseDnMatDescr_t b, const void* beta,
                                 cusparseDnMatDescr_t c, int compute_type, int alg, std::size_t* bytes) = nullptr;
  int (*cusparseSpMM)(cusparseHandle_t handle, int op_a, int op_b, const void* alpha, cusparseSpMatDescr_t a,
                      cusparseDnMatDescr_t b, const void* beta, cusparseDnMatDescr_t c, int compute_type, int alg,
                      void* buffer) = nullptr;
};

// ---- nvJitLink ------------------------------------------------------------------
using nvJitLinkHandle = struct nvjitlink_opaque*;
inline constexpr int nvjitlink_input_ptx = 2;

struct JitApi {
  int (*create)(nvJitLinkHandle* handle, std::uint32_t num_options, const char** options) = nullptr;
  int (*destroy)(nvJitLinkHandle* handle) = nullptr;
  int (*add_data)(nvJitLinkHandle handle, int input_type, const void* data, std::size_t size, const char* name) = nullptr;
  int (*complete)(nvJitLinkHandle handle) = nullptr;
  int (*get_linked_cubin_size)(nvJitLinkHandle handle, std::size_t* size) = nullptr;
  int (*get_linked_cubin)(nvJitLinkHandle handle, void* cubin) = nullptr;
  int (*get_error_log_size)(nvJitLinkHandle handle, std::size_t* size) = nullptr;
  int (*get_error_log)(nvJitLinkHandle handle, char* log) = nullptr;
  int (*get_info_log_size)(nvJitLinkHandle handle, std::size_t* size) = nullptr;
  int (*get_info_log)(nvJitLinkHandle handle, char* log) = nullptr;
  int (*version)(unsigned* major, unsigned* minor) = nullptr; // nvJitLinkVersion, 12.3 and later
};

// ---- NVML (libnvidia-ml.so.1, part of the driver): persistence mode only -------
using nvmlDevice_t = struct nvml_device_opaque*;
struct NvmlApi {
  int (*init)() = nullptr;                                              // nvmlInit_v2
  int (*shutdown)() = nullptr;                                          // nvmlShutdown
  int (*handle_by_pci_bus_id)(const char* id, nvmlDevice_t* device) = nullptr; // nvmlDeviceGetHandleByPciBusId_v2
  int (*persistence_mode)(nvmlDevice_t device, int* mode) = nullptr;    // nvmlDeviceGetPersistenceMode: 1 enabled
};

} // namespace condacuda::probe
