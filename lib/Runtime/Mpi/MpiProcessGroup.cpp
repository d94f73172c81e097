//===- MpiProcessGroup.cpp - the process group over MPI -------------------===//
//
// MPI's world communicator as a ProcessGroup. MPI is initialized on first
// use (with MPI_THREAD_MULTIPLE: device threads may exchange at once) and
// finalized at exit. A failed MPI call is an error naming the call; MPI's
// default handler would abort the process instead, so errors are returned
// (MPI_ERRORS_RETURN) and the launcher ends the others.
//
//===----------------------------------------------------------------------===//

#include "shardc/Runtime/ProcessGroup.h"

// The C API only (OpenMPI and MPICH would otherwise declare their C++
// bindings, which live in a library not linked).
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

namespace shardc {

namespace {

Status mpiError(const char *call, int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  return Status::error(std::string(call) + ": " + std::string(text, length));
}

class MpiProcessGroup : public ProcessGroup {
public:
  MpiProcessGroup(int rank, int size) : rank_(rank), size_(size) {}
  int rank() const override { return rank_; }
  int size() const override { return size_; }

  Status sendRecv(const void *send, size_t sendBytes, int to, void *recv, size_t recvBytes,
                  int from) override {
    // Messages over 2 GiB go in parts: MPI counts are ints. Both sides of
    // an exchange split alike, as each part's size follows from the sizes.
    const char *s = static_cast<const char *>(send);
    char *r = static_cast<char *>(recv);
    do {
      int sendPart = (int)std::min<size_t>(sendBytes, INT_MAX);
      int recvPart = (int)std::min<size_t>(recvBytes, INT_MAX);
      int code = MPI_Sendrecv(s, sendPart, MPI_BYTE, to, kTag, r, recvPart, MPI_BYTE, from, kTag,
                              MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (code != MPI_SUCCESS)
        return mpiError("MPI_Sendrecv", code);
      s += sendPart, r += recvPart, sendBytes -= sendPart, recvBytes -= recvPart;
    } while (sendBytes > 0 || recvBytes > 0);
    return Status::success();
  }

  Status exchange(const std::vector<Transfer> &sends, const std::vector<Transfer> &recvs) override {
    // Messages over 2 GiB go in parts, posted in order: MPI keeps the order
    // of messages between two processes, so the parts arrive in order.
    std::vector<MPI_Request> requests;
    auto post = [&](const Transfer &t, bool send) -> Status {
      char *at = static_cast<char *>(t.data);
      size_t left = t.bytes;
      do {
        int part = (int)std::min<size_t>(left, INT_MAX);
        MPI_Request request;
        int code = send ? MPI_Isend(at, part, MPI_BYTE, t.peer, kTag, MPI_COMM_WORLD, &request)
                        : MPI_Irecv(at, part, MPI_BYTE, t.peer, kTag, MPI_COMM_WORLD, &request);
        if (code != MPI_SUCCESS)
          return mpiError(send ? "MPI_Isend" : "MPI_Irecv", code);
        requests.push_back(request);
        at += part, left -= part;
      } while (left > 0);
      return Status::success();
    };
    for (const Transfer &t : recvs)
      if (Status s = post(t, false); !s.ok())
        return s;
    for (const Transfer &t : sends)
      if (Status s = post(t, true); !s.ok())
        return s;
    if (int code = MPI_Waitall((int)requests.size(), requests.data(), MPI_STATUSES_IGNORE);
        code != MPI_SUCCESS)
      return mpiError("MPI_Waitall", code);
    return Status::success();
  }

  Status broadcast(void *data, size_t bytes, int root) override {
    char *d = static_cast<char *>(data);
    do {
      int part = (int)std::min<size_t>(bytes, INT_MAX);
      if (int code = MPI_Bcast(d, part, MPI_BYTE, root, MPI_COMM_WORLD); code != MPI_SUCCESS)
        return mpiError("MPI_Bcast", code);
      d += part, bytes -= part;
    } while (bytes > 0);
    return Status::success();
  }

  Status barrier() override {
    if (int code = MPI_Barrier(MPI_COMM_WORLD); code != MPI_SUCCESS)
      return mpiError("MPI_Barrier", code);
    return Status::success();
  }

  [[noreturn]] void abort(int code) override {
    MPI_Abort(MPI_COMM_WORLD, code);
    std::_Exit(code); // MPI_Abort does not return
  }

private:
  static constexpr int kTag = 0x5d;
  int rank_, size_;
};

void finalizeMpi() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized)
    MPI_Finalize();
}

} // namespace

bool mpiBuilt() { return true; }

StatusOr<std::shared_ptr<ProcessGroup>> worldProcessGroup() {
  static std::once_flag once;
  static StatusOr<std::shared_ptr<ProcessGroup>> world = std::shared_ptr<ProcessGroup>();
  std::call_once(once, [] {
    if (!launchedByMpi())
      return;
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (!initialized) {
      int provided = 0;
      if (int code = MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided);
          code != MPI_SUCCESS) {
        world = mpiError("MPI_Init_thread", code);
        return;
      }
      std::atexit(finalizeMpi);
      if (provided < MPI_THREAD_MULTIPLE) {
        world = Status::error("this MPI does not support MPI_THREAD_MULTIPLE, which the CPU "
                              "backend's device threads need");
        return;
      }
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    world = std::shared_ptr<ProcessGroup>(std::make_shared<MpiProcessGroup>(rank, size));
  });
  return world;
}

} // namespace shardc
