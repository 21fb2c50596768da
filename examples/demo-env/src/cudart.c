/* A stand-in for libcudart.so.12 (CUDA 12.1 runtime). */
int cudaRuntimeGetVersion(int* version) {
  *version = 12010;
  return 0;
}
