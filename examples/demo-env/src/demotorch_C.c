/* demotorch._C: a torch-like Python extension. Like libtorch_cuda it needs the
 * CUDA libraries by soname and finds them through its RUNPATH
 * ($ORIGIN/../nvidia/<component>/lib); cuSPARSE in turn needs nvJitLink. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

int cudaRuntimeGetVersion(int* version);
int cusparseCreate(void** handle);
int cusparseGetVersion(void* handle, int* version);

static PyObject* sparse_version(PyObject* self, PyObject* args) {
  (void)self;
  (void)args;
  void* handle = NULL;
  int version = 0;
  if (cusparseCreate(&handle) != 0 || cusparseGetVersion(handle, &version) != 0) {
    PyErr_SetString(PyExc_RuntimeError, "cusparseCreate failed");
    return NULL;
  }
  return PyLong_FromLong(version);
}

static PyObject* runtime_version(PyObject* self, PyObject* args) {
  (void)self;
  (void)args;
  int version = 0;
  cudaRuntimeGetVersion(&version);
  return PyLong_FromLong(version);
}

static PyMethodDef methods[] = {
    {"sparse_version", sparse_version, METH_NOARGS, "cuSPARSE version (initialises cuSPARSE, which JIT-links)"},
    {"runtime_version", runtime_version, METH_NOARGS, "CUDA runtime version"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_C", NULL, -1, methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__C(void) { return PyModule_Create(&module); }
