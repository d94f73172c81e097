//===- NcclUnavailable.h - the NCCL calls of a build without NCCL -*- C++ -*-===//
//
// NCCL is not part of the CUDA toolkit. Without it the CUDA backend still
// builds and runs every plan whose collectives stay within one GPU (groups
// of one device, all_slice); creating a communicator for a larger group
// fails with "built without NCCL". These declarations mirror the subset of
// nccl.h that CudaNccl.cpp uses.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_LIB_RUNTIME_CUDA_NCCLUNAVAILABLE_H
#define SHARDC_LIB_RUNTIME_CUDA_NCCLUNAVAILABLE_H

#include <cstddef>

#include <cuda_runtime_api.h>

typedef struct ncclComm *ncclComm_t;
struct ncclConfig_t;
struct ncclUniqueId {
  char internal[128];
};
enum ncclResult_t { ncclSuccess = 0, ncclSystemError = 2 };
enum ncclDataType_t {
  ncclInt8,
  ncclUint8,
  ncclInt32,
  ncclInt64,
  ncclFloat16,
  ncclFloat32,
  ncclFloat64,
  ncclBfloat16
};
enum ncclRedOp_t { ncclSum, ncclMax, ncclMin };

inline const char *ncclGetErrorString(ncclResult_t) {
  return "this shardc was built without NCCL (collectives across GPUs need it)";
}
inline ncclResult_t ncclCommDestroy(ncclComm_t) { return ncclSuccess; }
inline ncclResult_t ncclGetUniqueId(ncclUniqueId *) { return ncclSystemError; }
inline ncclResult_t ncclCommInitRank(ncclComm_t *, int, ncclUniqueId, int) {
  return ncclSystemError;
}
inline ncclResult_t ncclCommSplit(ncclComm_t, int, int, ncclComm_t *, ncclConfig_t *) {
  return ncclSystemError;
}
inline ncclResult_t ncclCommInitAll(ncclComm_t *, int, const int *) { return ncclSystemError; }
inline ncclResult_t ncclGroupStart() { return ncclSystemError; }
inline ncclResult_t ncclGroupEnd() { return ncclSystemError; }
inline ncclResult_t ncclAllReduce(const void *, void *, size_t, ncclDataType_t, ncclRedOp_t,
                                  ncclComm_t, cudaStream_t) {
  return ncclSystemError;
}
inline ncclResult_t ncclAllGather(const void *, void *, size_t, ncclDataType_t, ncclComm_t,
                                  cudaStream_t) {
  return ncclSystemError;
}
inline ncclResult_t ncclReduceScatter(const void *, void *, size_t, ncclDataType_t, ncclRedOp_t,
                                      ncclComm_t, cudaStream_t) {
  return ncclSystemError;
}
inline ncclResult_t ncclSend(const void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t) {
  return ncclSystemError;
}
inline ncclResult_t ncclRecv(void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t) {
  return ncclSystemError;
}

#endif // SHARDC_LIB_RUNTIME_CUDA_NCCLUNAVAILABLE_H
