#include "check/cuda_names.hpp"

#include <utility>

namespace condacuda::check {

namespace {
template <std::size_t N>
std::string lookup(const std::pair<int, const char*> (&table)[N], int code, const char* what) {
  for (const auto& [value, name] : table)
    if (value == code) return name;
  return std::string(what) + " " + std::to_string(code);
}

constexpr std::pair<int, const char*> cu_results[] = {
    {0, "CUDA_SUCCESS"},
    {1, "CUDA_ERROR_INVALID_VALUE"},
    {2, "CUDA_ERROR_OUT_OF_MEMORY"},
    {3, "CUDA_ERROR_NOT_INITIALIZED"},
    {4, "CUDA_ERROR_DEINITIALIZED"},
    {34, "CUDA_ERROR_STUB_LIBRARY"},
    {36, "CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER"},
    {46, "CUDA_ERROR_DEVICE_UNAVAILABLE"},
    {100, "CUDA_ERROR_NO_DEVICE"},
    {101, "CUDA_ERROR_INVALID_DEVICE"},
    {102, "CUDA_ERROR_DEVICE_NOT_LICENSED"},
    {200, "CUDA_ERROR_INVALID_IMAGE"},
    {201, "CUDA_ERROR_INVALID_CONTEXT"},
    {209, "CUDA_ERROR_NO_BINARY_FOR_GPU"},
    {214, "CUDA_ERROR_ECC_UNCORRECTABLE"},
    {218, "CUDA_ERROR_INVALID_PTX"},
    {221, "CUDA_ERROR_JIT_COMPILER_NOT_FOUND"},
    {222, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION"},
    {300, "CUDA_ERROR_INVALID_SOURCE"},
    {303, "CUDA_ERROR_SHARED_OBJECT_INIT_FAILED"},
    {304, "CUDA_ERROR_OPERATING_SYSTEM"},
    {400, "CUDA_ERROR_INVALID_HANDLE"},
    {500, "CUDA_ERROR_NOT_FOUND"},
    {600, "CUDA_ERROR_NOT_READY"},
    {700, "CUDA_ERROR_ILLEGAL_ADDRESS"},
    {701, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"},
    {702, "CUDA_ERROR_LAUNCH_TIMEOUT"},
    {715, "CUDA_ERROR_ILLEGAL_INSTRUCTION"},
    {716, "CUDA_ERROR_MISALIGNED_ADDRESS"},
    {719, "CUDA_ERROR_LAUNCH_FAILED"},
    {800, "CUDA_ERROR_NOT_PERMITTED"},
    {801, "CUDA_ERROR_NOT_SUPPORTED"},
    {802, "CUDA_ERROR_SYSTEM_NOT_READY"},
    {803, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH"},
    {804, "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE"},
    {805, "CUDA_ERROR_MPS_CONNECTION_FAILED"},
    {909, "CUDA_ERROR_TIMEOUT"},
    {999, "CUDA_ERROR_UNKNOWN"},
};

constexpr std::pair<int, const char*> cublas_statuses[] = {
    {0, "CUBLAS_STATUS_SUCCESS"},          {1, "CUBLAS_STATUS_NOT_INITIALIZED"},
    {3, "CUBLAS_STATUS_ALLOC_FAILED"},     {7, "CUBLAS_STATUS_INVALID_VALUE"},
    {8, "CUBLAS_STATUS_ARCH_MISMATCH"},    {11, "CUBLAS_STATUS_MAPPING_ERROR"},
    {13, "CUBLAS_STATUS_EXECUTION_FAILED"}, {14, "CUBLAS_STATUS_INTERNAL_ERROR"},
    {15, "CUBLAS_STATUS_NOT_SUPPORTED"},   {16, "CUBLAS_STATUS_LICENSE_ERROR"},
};

constexpr std::pair<int, const char*> cusparse_statuses[] = {
    {0, "CUSPARSE_STATUS_SUCCESS"},
    {1, "CUSPARSE_STATUS_NOT_INITIALIZED"},
    {2, "CUSPARSE_STATUS_ALLOC_FAILED"},
    {3, "CUSPARSE_STATUS_INVALID_VALUE"},
    {4, "CUSPARSE_STATUS_ARCH_MISMATCH"},
    {5, "CUSPARSE_STATUS_MAPPING_ERROR"},
    {6, "CUSPARSE_STATUS_EXECUTION_FAILED"},
    {7, "CUSPARSE_STATUS_INTERNAL_ERROR"},
    {8, "CUSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED"},
    {9, "CUSPARSE_STATUS_ZERO_PIVOT"},
    {10, "CUSPARSE_STATUS_NOT_SUPPORTED"},
    {11, "CUSPARSE_STATUS_INSUFFICIENT_RESOURCES"},
};

constexpr std::pair<int, const char*> nvjitlink_results[] = {
    {0, "NVJITLINK_SUCCESS"},
    {1, "NVJITLINK_ERROR_UNRECOGNIZED_OPTION"},
    {2, "NVJITLINK_ERROR_MISSING_ARCH"},
    {3, "NVJITLINK_ERROR_INVALID_INPUT"},
    {4, "NVJITLINK_ERROR_PTX_COMPILE"},
    {5, "NVJITLINK_ERROR_NVVM_COMPILE"},
    {6, "NVJITLINK_ERROR_INTERNAL"},
    {7, "NVJITLINK_ERROR_THREADPOOL"},
    {8, "NVJITLINK_ERROR_UNRECOGNIZED_INPUT"},
    {9, "NVJITLINK_ERROR_FINALIZE"},
    {10, "NVJITLINK_ERROR_NULL_INPUT"},
    {11, "NVJITLINK_ERROR_INCOMPATIBLE_OPTIONS"},
    {12, "NVJITLINK_ERROR_INCORRECT_INPUT_TYPE"},
    {13, "NVJITLINK_ERROR_ARCH_MISMATCH"},
    {14, "NVJITLINK_ERROR_OUTDATED_LIBRARY"},
    {15, "NVJITLINK_ERROR_MISSING_FATBIN"},
    {16, "NVJITLINK_ERROR_UNRECOGNIZED_ARCH"},
    {17, "NVJITLINK_ERROR_UNSUPPORTED_ARCH"},
    {18, "NVJITLINK_ERROR_LTO_NOT_ENABLED"},
};
} // namespace

std::string cu_result_name(int code) { return lookup(cu_results, code, "CUresult"); }
std::string cublas_status_name(int code) { return lookup(cublas_statuses, code, "cublasStatus_t"); }
std::string cusparse_status_name(int code) { return lookup(cusparse_statuses, code, "cusparseStatus_t"); }
std::string nvjitlink_result_name(int code) { return lookup(nvjitlink_results, code, "nvJitLinkResult"); }

std::string cu_init_hint(int code) {
  switch (code) {
  case cu::stub_library:
    return "the libcuda.so.1 that loaded is the CUDA toolkit's link-time stub, not the driver";
  case cu::no_device:
    return "the driver sees no device (check CUDA_VISIBLE_DEVICES, the container's --gpus, nvidia-smi)";
  case cu::device_unavailable:
    return "the device is busy or unavailable (exclusive-process compute mode, or in use by another process)";
  case cu::system_driver_mismatch:
    return "libcuda.so.1 and the kernel module are different driver versions (reboot or reinstall the driver)";
  case cu::compat_not_supported_on_device:
    return "a CUDA forward-compatibility libcuda is on the path, but this GPU does not support forward compatibility";
  case cu::not_initialized:
    return "the driver did not initialise";
  case 999:
    return "the driver failed to initialise (often: no /dev/nvidia* device files, or the kernel module is not loaded)";
  default: return "";
  }
}

} // namespace condacuda::check
