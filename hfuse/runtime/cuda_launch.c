/* One CUDA launch of a compiled Triton kernel, called from Python with as little work as a launch allows.

   launch(function, grid_x, grid_y, grid_z, threads, shared_bytes, kinds, expected, stream, *args) -> bool
   pack(kinds, *args) -> bytes
   specializations(*args) -> bytes

   `kinds` has one letter per kernel parameter: p a device address (a Python int, or a tensor, whose
   `data_ptr()` is taken), b/h/i/l a signed integer of 1/2/4/8 bytes, B/H/I/L an unsigned one, f a
   float32, d a float64. Two more letters take no argument or no parameter: x an argument the kernel has
   no parameter for (a constexpr), z a parameter given a null address (the scratch buffers Triton appends
   to every kernel).
   `expected`, when not empty, has one letter per argument: what Triton specialized the compiled kernel
   on in the argument it was compiled for (a/u a tensor whose address is or is not a multiple of 16, f a
   float, b a bool, and for an int 0x40 plus the bits 1: it is 1, 2: a multiple of 16, 4: it fits 32
   bits, 8: it fits 64 bits). An argument of another specialization, or of another kind, launches
   nothing.
   `launch` returns False, launching nothing, when an argument differs from `expected`, when this thread
   has no current CUDA context or when libcuda could not be loaded; the caller then launches through
   Triton, which picks the kernel and sets up a context. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <dlfcn.h>
#include <stdint.h>
#include <string.h>

#include "cuda.h"

#define MAX_PARAMS 1024
#define LEADING 9 /* launch's arguments before the kernel's */
#define MISMATCH (-2)

typedef CUresult (*LaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                                 unsigned, CUstream, void **, void **);
typedef CUresult (*CtxGetCurrent)(CUcontext *);
typedef CUresult (*GetErrorName)(CUresult, const char **);

static LaunchKernel launch_kernel;
static CtxGetCurrent ctx_get_current;
static GetErrorName get_error_name;

static PyObject *data_ptr_name;

/* A tensor's address, from its data_ptr(); 0 with a Python error set when that fails. */
static int address_of(PyObject *value, uint64_t *address) {
  PyObject *pointer = PyObject_CallMethodNoArgs(value, data_ptr_name);
  if (pointer == NULL) return 0;
  *address = PyLong_AsUnsignedLongLong(pointer);
  Py_DECREF(pointer);
  return !PyErr_Occurred();
}

/* Triton's specialization of one argument, as `expected` spells it; `address` gets a tensor's address.
   0 with a Python error set for an argument neither a number nor a tensor. */
static char specialization_of(PyObject *value, uint64_t *address) {
  if (PyBool_Check(value)) return 'b';
  if (PyFloat_Check(value)) return 'f';
  if (PyLong_Check(value)) {
    int overflow;
    long long v = PyLong_AsLongLongAndOverflow(value, &overflow);
    if (v == -1 && PyErr_Occurred()) return 0;
    uint64_t low = overflow ? PyLong_AsUnsignedLongLongMask(value) : (uint64_t)v;
    int bits = (!overflow && v == 1) | (low % 16 == 0) << 1;
    bits |= (!overflow && v >= INT32_MIN && v <= INT32_MAX) << 2 | (!overflow) << 3;
    return (char)(0x40 | bits);
  }
  if (!address_of(value, address)) return 0;
  return *address % 16 == 0 ? 'a' : 'u';
}

/* Writes each argument into its 8-byte slot as its parameter's C type; returns the parameter count,
   MISMATCH when an argument's specialization is not the `expected` one (`expected_count` 0: not checked),
   or -1 with a Python error set. */
static Py_ssize_t pack_params(const char *kinds, Py_ssize_t kind_count, const char *expected,
                              Py_ssize_t expected_count, PyObject *const *args, Py_ssize_t arg_count,
                              uint64_t *slots) {
  if (expected_count && expected_count != arg_count) {
    PyErr_Format(PyExc_TypeError, "launch: %zd arguments for %zd expected", arg_count, expected_count);
    return -1;
  }
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
    PyObject *value = args[arg];
    uint64_t address = 0;
    int is_address = 0;
    if (expected_count) {
      char found = specialization_of(value, &address);
      if (found == 0) PyErr_Clear(); /* not a number nor a tensor: Triton's dispatch decides */
      if (found != expected[arg]) return MISMATCH;
      is_address = found == 'a' || found == 'u';
    }
    arg++;
    if (kind == 'x') continue;
    if (param == MAX_PARAMS) goto too_many;
    uint64_t *slot = &slots[param++];
    *slot = 0;
    if (kind == 'p' && !is_address && !PyLong_Check(value)) {
      if (!address_of(value, &address)) return -1;
      is_address = 1;
    }
    if (is_address) {
      memcpy(slot, &address, 8);
      continue;
    }
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

static int bytes_of(PyObject *object, const char *what, const char **bytes, Py_ssize_t *count) {
  if (!PyBytes_Check(object)) {
    PyErr_Format(PyExc_TypeError, "launch: %s must be bytes", what);
    return 0;
  }
  *bytes = PyBytes_AS_STRING(object);
  *count = PyBytes_GET_SIZE(object);
  return 1;
}

static PyObject *launch(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
  if (nargs < LEADING) {
    PyErr_SetString(PyExc_TypeError, "launch(function, x, y, z, threads, shared, kinds, expected, stream, *args)");
    return NULL;
  }
  const char *kinds, *expected;
  Py_ssize_t kind_count, expected_count;
  if (!bytes_of(args[6], "kinds", &kinds, &kind_count)) return NULL;
  if (!bytes_of(args[7], "expected", &expected, &expected_count)) return NULL;
  CUfunction function = (CUfunction)(uintptr_t)PyLong_AsUnsignedLongLong(args[0]);
  unsigned x = PyLong_AsUnsignedLong(args[1]), y = PyLong_AsUnsignedLong(args[2]);
  unsigned z = PyLong_AsUnsignedLong(args[3]), threads = PyLong_AsUnsignedLong(args[4]);
  unsigned shared = PyLong_AsUnsignedLong(args[5]);
  CUstream stream = (CUstream)(uintptr_t)PyLong_AsUnsignedLongLong(args[8]);
  if (PyErr_Occurred()) return NULL;
  uint64_t slots[MAX_PARAMS];
  void *params[MAX_PARAMS];
  Py_ssize_t count = pack_params(kinds, kind_count, expected, expected_count, args + LEADING,
                                 nargs - LEADING, slots);
  if (count == MISMATCH) Py_RETURN_FALSE;
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
  if (nargs < 1 || !bytes_of(args[0], "kinds", &kinds, &kind_count)) return NULL;
  uint64_t slots[MAX_PARAMS];
  Py_ssize_t count = pack_params(kinds, kind_count, NULL, 0, args + 1, nargs - 1, slots);
  if (count < 0) return NULL;
  return PyBytes_FromStringAndSize((const char *)slots, count * 8);
}

static PyObject *specializations(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
  PyObject *letters = PyBytes_FromStringAndSize(NULL, nargs);
  if (letters == NULL) return NULL;
  for (Py_ssize_t i = 0; i < nargs; i++) {
    uint64_t address;
    char letter = specialization_of(args[i], &address);
    if (letter == 0) {
      Py_DECREF(letters);
      return NULL;
    }
    PyBytes_AS_STRING(letters)[i] = letter;
  }
  return letters;
}

static PyObject *available(PyObject *self, PyObject *unused) { return PyBool_FromLong(launch_kernel != NULL); }

static PyMethodDef methods[] = {
    {"launch", (PyCFunction)(void (*)(void))launch, METH_FASTCALL, "one launch of a compiled kernel"},
    {"pack", (PyCFunction)(void (*)(void))pack, METH_FASTCALL, "the kernel parameters as launch passes them"},
    {"specializations", (PyCFunction)(void (*)(void))specializations, METH_FASTCALL,
     "each argument's specialization as launch's `expected` spells it"},
    {"available", available, METH_NOARGS, "whether libcuda was loaded"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "hfuse_cuda_launch", NULL, -1, methods};

PyMODINIT_FUNC PyInit_hfuse_cuda_launch(void) {
  data_ptr_name = PyUnicode_InternFromString("data_ptr");
  if (data_ptr_name == NULL) return NULL;
  void *cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (cuda != NULL) {
    ctx_get_current = (CtxGetCurrent)dlsym(cuda, "cuCtxGetCurrent");
    get_error_name = (GetErrorName)dlsym(cuda, "cuGetErrorName");
    launch_kernel = (LaunchKernel)dlsym(cuda, "cuLaunchKernel");
    if (ctx_get_current == NULL || get_error_name == NULL) launch_kernel = NULL;
  }
  return PyModule_Create(&module);
}
