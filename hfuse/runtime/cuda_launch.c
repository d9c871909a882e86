/* One CUDA launch of a compiled Triton kernel, called from Python with as little work as a launch allows.

   launch(function, grid_x, grid_y, grid_z, threads, shared_bytes, kinds, stream, *args) -> bool
   pack(kinds, *args) -> bytes

   `kinds` has one letter per kernel parameter: p a device address (a Python int), b/h/i/l a signed
   integer of 1/2/4/8 bytes, B/H/I/L an unsigned one, f a float32, d a float64. Two more letters take
   no argument or no parameter: x an argument the kernel has no parameter for (a constexpr), z a
   parameter given a null address (the scratch buffers Triton appends to every kernel).
   `launch` returns False, launching nothing, when this thread has no current CUDA context or libcuda
   could not be loaded; the caller then launches through Triton, which sets one up. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <dlfcn.h>
#include <stdint.h>
#include <string.h>

#include "cuda.h"

#define MAX_PARAMS 1024
#define LEADING 8 /* launch's arguments before the kernel's */

typedef CUresult (*LaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                                 unsigned, CUstream, void **, void **);
typedef CUresult (*CtxGetCurrent)(CUcontext *);
typedef CUresult (*GetErrorName)(CUresult, const char **);

static LaunchKernel launch_kernel;
static CtxGetCurrent ctx_get_current;
static GetErrorName get_error_name;

/* Writes each argument into its 8-byte slot as its parameter's C type; returns the parameter count, or
   -1 with a Python error set. */
static Py_ssize_t pack_params(const char *kinds, Py_ssize_t kind_count, PyObject *const *args,
                              Py_ssize_t arg_count, uint64_t *slots) {
  Py_ssize_t arg = 0, param = 0;
  for (Py_ssize_t k = 0; k < kind_count; k++) {
    char kind = kinds[k];
    if (kind == 'z') {
      if (param == MAX_PARAMS) goto too_many;
      slots[param++] = 0;
      continue;
    }
    if (arg == arg_count) {
      PyErr_Format(PyExc_TypeError, "launch: %zd arguments for the kinds %s", arg_count, kinds);
      return -1;
    }
    PyObject *value = args[arg++];
    if (kind == 'x') continue;
    if (param == MAX_PARAMS) goto too_many;
    uint64_t *slot = &slots[param++];
    *slot = 0;
    switch (kind) {
      case 'p': case 'L': { uint64_t v = PyLong_AsUnsignedLongLong(value); memcpy(slot, &v, 8); break; }
      case 'l': { int64_t v = PyLong_AsLongLong(value); memcpy(slot, &v, 8); break; }
      case 'i': { int32_t v = (int32_t)PyLong_AsLong(value); memcpy(slot, &v, 4); break; }
      case 'I': { uint32_t v = (uint32_t)PyLong_AsUnsignedLong(value); memcpy(slot, &v, 4); break; }
      case 'h': { int16_t v = (int16_t)PyLong_AsLong(value); memcpy(slot, &v, 2); break; }
      case 'H': { uint16_t v = (uint16_t)PyLong_AsUnsignedLong(value); memcpy(slot, &v, 2); break; }
      case 'b': { int8_t v = (int8_t)PyLong_AsLong(value); memcpy(slot, &v, 1); break; }
      case 'B': { uint8_t v = (uint8_t)PyLong_AsUnsignedLong(value); memcpy(slot, &v, 1); break; }
      case 'f': { float v = (float)PyFloat_AsDouble(value); memcpy(slot, &v, 4); break; }
      case 'd': { double v = PyFloat_AsDouble(value); memcpy(slot, &v, 8); break; }
      default:
        PyErr_Format(PyExc_ValueError, "launch: unknown parameter kind %c", kind);
        return -1;
    }
    if (PyErr_Occurred()) return -1;
  }
  if (arg != arg_count) {
    PyErr_Format(PyExc_TypeError, "launch: %zd arguments for the kinds %s", arg_count, kinds);
    return -1;
  }
  return param;
too_many:
  PyErr_Format(PyExc_ValueError, "launch: more than %d kernel parameters", MAX_PARAMS);
  return -1;
}

static int kinds_of(PyObject *object, const char **kinds, Py_ssize_t *count) {
  if (!PyBytes_Check(object)) {
    PyErr_SetString(PyExc_TypeError, "launch: kinds must be bytes");
    return 0;
  }
  *kinds = PyBytes_AS_STRING(object);
  *count = PyBytes_GET_SIZE(object);
  return 1;
}

static PyObject *launch(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
  if (nargs < LEADING) {
    PyErr_SetString(PyExc_TypeError, "launch(function, x, y, z, threads, shared, kinds, stream, *args)");
    return NULL;
  }
  const char *kinds;
  Py_ssize_t kind_count;
  if (!kinds_of(args[6], &kinds, &kind_count)) return NULL;
  CUfunction function = (CUfunction)(uintptr_t)PyLong_AsUnsignedLongLong(args[0]);
  unsigned x = PyLong_AsUnsignedLong(args[1]), y = PyLong_AsUnsignedLong(args[2]);
  unsigned z = PyLong_AsUnsignedLong(args[3]), threads = PyLong_AsUnsignedLong(args[4]);
  unsigned shared = PyLong_AsUnsignedLong(args[5]);
  CUstream stream = (CUstream)(uintptr_t)PyLong_AsUnsignedLongLong(args[7]);
  if (PyErr_Occurred()) return NULL;
  uint64_t slots[MAX_PARAMS];
  void *params[MAX_PARAMS];
  Py_ssize_t count = pack_params(kinds, kind_count, args + LEADING, nargs - LEADING, slots);
  if (count < 0) return NULL;
  CUcontext context = NULL;
  if (launch_kernel == NULL || ctx_get_current(&context) != CUDA_SUCCESS || context == NULL) Py_RETURN_FALSE;
  if ((uint64_t)x * y * z == 0) Py_RETURN_TRUE; /* an empty grid launches nothing, as in Triton */
  for (Py_ssize_t i = 0; i < count; i++) params[i] = &slots[i];
  CUresult result;
  Py_BEGIN_ALLOW_THREADS;
  result = launch_kernel(function, x, y, z, threads, 1, 1, shared, stream, params, NULL);
  Py_END_ALLOW_THREADS;
  if (result != CUDA_SUCCESS) {
    const char *name = "unknown";
    get_error_name(result, &name);
    PyErr_Format(PyExc_RuntimeError, "CUDA error %s (%d) launching the kernel", name, (int)result);
    return NULL;
  }
  Py_RETURN_TRUE;
}

static PyObject *pack(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
  const char *kinds;
  Py_ssize_t kind_count;
  if (nargs < 1 || !kinds_of(args[0], &kinds, &kind_count)) return NULL;
  uint64_t slots[MAX_PARAMS];
  Py_ssize_t count = pack_params(kinds, kind_count, args + 1, nargs - 1, slots);
  if (count < 0) return NULL;
  return PyBytes_FromStringAndSize((const char *)slots, count * 8);
}

static PyObject *available(PyObject *self, PyObject *unused) { return PyBool_FromLong(launch_kernel != NULL); }

static PyMethodDef methods[] = {
    {"launch", (PyCFunction)(void (*)(void))launch, METH_FASTCALL, "one launch of a compiled kernel"},
    {"pack", (PyCFunction)(void (*)(void))pack, METH_FASTCALL, "the kernel parameters as launch passes them"},
    {"available", available, METH_NOARGS, "whether libcuda was loaded"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "hfuse_cuda_launch", NULL, -1, methods};

PyMODINIT_FUNC PyInit_hfuse_cuda_launch(void) {
  void *cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (cuda != NULL) {
    ctx_get_current = (CtxGetCurrent)dlsym(cuda, "cuCtxGetCurrent");
    get_error_name = (GetErrorName)dlsym(cuda, "cuGetErrorName");
    launch_kernel = (LaunchKernel)dlsym(cuda, "cuLaunchKernel");
    if (ctx_get_current == NULL || get_error_name == NULL) launch_kernel = NULL;
  }
  return PyModule_Create(&module);
}
