/* A stand-in for libnvJitLink.so.12 (the symbols a real one exports, with the
 * version node real ones use). NVJITLINK_MINOR decides how new it is: the
 * header of release 12.N maps nvJitLinkAddData to __nvJitLinkAddData_12_N, and
 * a library exports every _12_0 ... _12_N entry point. Built twice: 12.4 for
 * the env's wheel, 12.0 for the "system CUDA" folder. */
#ifndef NVJITLINK_MINOR
#error define NVJITLINK_MINOR
#endif

typedef struct nvJitLink* nvJitLinkHandle;

static int handle_storage;

#define ENTRY_POINTS(M)                                                                    \
  int __nvJitLinkCreate_12_##M(nvJitLinkHandle* h, unsigned n, const char** opts) {       \
    (void)n; (void)opts; *h = (nvJitLinkHandle)&handle_storage; return 0; }              \
  int __nvJitLinkAddData_12_##M(nvJitLinkHandle h, int kind, const void* data,            \
                                unsigned long size, const char* name) {                  \
    (void)h; (void)kind; (void)data; (void)name; return size ? 0 : 1; }                  \
  int __nvJitLinkComplete_12_##M(nvJitLinkHandle h) { (void)h; return 0; }              \
  int __nvJitLinkDestroy_12_##M(nvJitLinkHandle* h) { *h = 0; return 0; }

ENTRY_POINTS(0)
#if NVJITLINK_MINOR >= 1
ENTRY_POINTS(1)
#endif
#if NVJITLINK_MINOR >= 4
ENTRY_POINTS(4)
#endif

int nvJitLinkVersion(unsigned* major, unsigned* minor) {
  *major = 12;
  *minor = NVJITLINK_MINOR;
  return 0;
}
