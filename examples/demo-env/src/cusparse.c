/* A stand-in for cuSPARSE 12.1 (libcusparse.so.12). It was built against the
 * nvJitLink 12.1 header, whose macros map each entry point to a versioned
 * name; AddData changed in 12.1, so it references __nvJitLinkAddData_12_1
 * (version node libnvJitLink.so.12) and the rest _12_0. An nvJitLink 12.0 on
 * LD_LIBRARY_PATH has the node but not that symbol: the seed failure. */
typedef struct nvJitLink* nvJitLinkHandle;
int __nvJitLinkCreate_12_0(nvJitLinkHandle* h, unsigned n, const char** opts);
int __nvJitLinkAddData_12_1(nvJitLinkHandle h, int kind, const void* data, unsigned long size, const char* name);
int __nvJitLinkComplete_12_0(nvJitLinkHandle h);
int __nvJitLinkDestroy_12_0(nvJitLinkHandle* h);

int cusparseCreate(void** handle) {
  nvJitLinkHandle link;
  static const char ptx[] = ".version 7.0\n.target sm_75\n";
  if (__nvJitLinkCreate_12_0(&link, 0, 0)) return 1;
  if (__nvJitLinkAddData_12_1(link, 2, ptx, sizeof ptx, "demo")) return 2;
  if (__nvJitLinkComplete_12_0(link)) return 3;
  __nvJitLinkDestroy_12_0(&link);
  *handle = (void*)1;
  return 0;
}

int cusparseGetVersion(void* handle, int* version) {
  (void)handle;
  *version = 12100;
  return 0;
}
