//===- File.cpp - whole-file reads and atomic writes ----------------------===//

#include "shardc/Runtime/File.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <fstream>
#include <unistd.h>

namespace shardc {

StatusOr<std::string> readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return Status::error("cannot open '" + path + "': " + std::strerror(errno));
  // Read with istream::read, which sets badbit on a read error (a directory,
  // EIO); copying rdbuf() into a stream would hide the error as an empty file.
  std::string contents;
  char chunk[1 << 16];
  errno = 0;
  while (in.read(chunk, sizeof(chunk)) || in.gcount() > 0)
    contents.append(chunk, (size_t)in.gcount());
  if (in.bad())
    return Status::error("cannot read '" + path + "'" +
                         (errno ? std::string(": ") + std::strerror(errno) : ""));
  return contents;
}

Status writeFileAtomically(const std::string &path, const std::string &contents) {
  std::string tmp = path + ".tmp.XXXXXX";
  int fd = mkstemp(tmp.data());
  if (fd < 0)
    return Status::error("cannot create a file beside '" + path + "': " + std::strerror(errno));
  const char *p = contents.data();
  size_t left = contents.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      std::string why = std::strerror(errno);
      ::close(fd);
      ::unlink(tmp.c_str());
      return Status::error("cannot write '" + path + "': " + why);
    }
    p += n;
    left -= (size_t)n;
  }
  // mkstemp creates 0600 files; give the result the usual permissions.
  ::fchmod(fd, 0644);
  if (::close(fd) != 0 || ::rename(tmp.c_str(), path.c_str()) != 0) {
    std::string why = std::strerror(errno);
    ::unlink(tmp.c_str());
    return Status::error("cannot write '" + path + "': " + why);
  }
  return Status::success();
}

Status makeDirectories(const std::string &path) {
  std::string partial;
  for (size_t i = 0; i <= path.size(); ++i) {
    if (i == path.size() || (path[i] == '/' && i > 0)) {
      partial = path.substr(0, i);
      if (::mkdir(partial.c_str(), 0755) != 0 && errno != EEXIST)
        return Status::error("cannot create directory '" + partial + "': " + std::strerror(errno));
    }
  }
  return Status::success();
}

} // namespace shardc
