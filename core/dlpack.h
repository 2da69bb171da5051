/*
 * dlpack.h: godlpack's own C definition of the DLPack 1.3 ABI.
 *
 * Written from the specification (dmlc/dlpack, include/dlpack/dlpack.h and
 * docs/source/python_spec.rst). The Go mirror types in core/abi.go are checked
 * against these definitions at build time (core/abi_check.go); keep the two in
 * sync field for field.
 */
#ifndef GODLPACK_DLPACK_H_
#define GODLPACK_DLPACK_H_

#include <stddef.h>
#include <stdint.h>

#define DLPACK_MAJOR_VERSION 1
#define DLPACK_MINOR_VERSION 3

/* A consumer seeing a major version other than its own must not read any field
 * but `version` and `deleter`. Minor versions only add things. */
typedef struct {
  uint32_t major;
  uint32_t minor;
} DLPackVersion;

/* Device types. The enum is an int32 on every ABI we target. Gaps (5, 6) are
 * numbers the specification retired; they stay unused. */
typedef enum {
  kDLCPU = 1,
  kDLCUDA = 2,
  kDLCUDAHost = 3,
  kDLOpenCL = 4,
  kDLVulkan = 7,
  kDLMetal = 8,
  kDLVPI = 9,
  kDLROCM = 10,
  kDLROCMHost = 11,
  kDLExtDev = 12,
  kDLCUDAManaged = 13,
  kDLOneAPI = 14,
  kDLWebGPU = 15,
  kDLHexagon = 16,
  kDLMAIA = 17,
  kDLTrn = 18 /* since 1.2 */
} DLDeviceType;

/* device_id MUST be 0 for kDLCPU, kDLCUDAHost and kDLCUDAManaged memory. */
typedef struct {
  DLDeviceType device_type;
  int32_t device_id;
} DLDevice;

typedef enum {
  kDLInt = 0,
  kDLUInt = 1,
  kDLFloat = 2,
  kDLOpaqueHandle = 3,
  kDLBfloat = 4,
  kDLComplex = 5,
  kDLBool = 6,           /* since 0.8; 8 bits */
  kDLFloat8_e3m4 = 7,    /* codes 7..17 since 1.1 */
  kDLFloat8_e4m3 = 8,
  kDLFloat8_e4m3b11fnuz = 9,
  kDLFloat8_e4m3fn = 10,
  kDLFloat8_e4m3fnuz = 11,
  kDLFloat8_e5m2 = 12,
  kDLFloat8_e5m2fnuz = 13,
  kDLFloat8_e8m0fnu = 14,
  kDLFloat6_e2m3fn = 15, /* bits MUST be 6 */
  kDLFloat6_e3m2fn = 16, /* bits MUST be 6 */
  kDLFloat4_e2m1fn = 17  /* bits MUST be 4 */
} DLDataTypeCode;

/* code is a DLDataTypeCode stored in 8 bits; lanes > 1 means a vector type. */
typedef struct {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
} DLDataType;

/* A strided view. strides are in ELEMENTS; since 1.2 they MUST NOT be NULL when
 * ndim != 0 (older producers used NULL for C-contiguous). Element i lives at
 * (char*)data + byte_offset + sum(i_k * strides_k) * itemsize. */
typedef struct {
  void *data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t *shape;
  int64_t *strides;
  uint64_t byte_offset;
} DLTensor;

/* Legacy (pre-1.0) managed tensor, carried by capsules named "dltensor". */
typedef struct DLManagedTensor {
  DLTensor dl_tensor;
  void *manager_ctx;
  void (*deleter)(struct DLManagedTensor *self); /* may be NULL */
} DLManagedTensor;

/* Flag bits of DLManagedTensorVersioned.flags. */
#define DLPACK_FLAG_BITMASK_READ_ONLY (1UL << 0UL)
#define DLPACK_FLAG_BITMASK_IS_COPIED (1UL << 1UL)
#define DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED (1UL << 2UL) /* since 1.1 */

/* Versioned managed tensor (1.0+), carried by capsules named
 * "dltensor_versioned". `version` is first so that any consumer can check it. */
typedef struct DLManagedTensorVersioned {
  DLPackVersion version;
  void *manager_ctx;
  void (*deleter)(struct DLManagedTensorVersioned *self); /* may be NULL */
  uint64_t flags;
  DLTensor dl_tensor;
} DLManagedTensorVersioned;

/* ---- The C exchange API (struct since 1.2; discovery changed in 1.3) ---- */

typedef int (*DLPackManagedTensorAllocator)(
    DLTensor *prototype, DLManagedTensorVersioned **out, void *error_ctx,
    void (*SetError)(void *error_ctx, const char *kind, const char *message));
typedef int (*DLPackManagedTensorFromPyObjectNoSync)(
    void *py_object, DLManagedTensorVersioned **out);
typedef int (*DLPackManagedTensorToPyObjectNoSync)(
    DLManagedTensorVersioned *tensor, void **out_py_object);
typedef int (*DLPackDLTensorFromPyObjectNoSync)(void *py_object, DLTensor *out);
typedef int (*DLPackCurrentWorkStream)(DLDeviceType device_type,
                                       int32_t device_id, void **out_stream);

typedef struct DLPackExchangeAPIHeader {
  DLPackVersion version;
  struct DLPackExchangeAPIHeader *prev_api;
} DLPackExchangeAPIHeader;

typedef struct DLPackExchangeAPI {
  DLPackExchangeAPIHeader header;
  DLPackManagedTensorAllocator managed_tensor_allocator;
  DLPackManagedTensorFromPyObjectNoSync managed_tensor_from_py_object_no_sync;
  DLPackManagedTensorToPyObjectNoSync managed_tensor_to_py_object_no_sync;
  DLPackDLTensorFromPyObjectNoSync dltensor_from_py_object_no_sync; /* may be NULL */
  DLPackCurrentWorkStream current_work_stream;
} DLPackExchangeAPI;

#endif /* GODLPACK_DLPACK_H_ */
