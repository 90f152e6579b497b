#include "results/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "common/error.h"

namespace sb::results {
namespace {

bool write_all(int fd, std::string_view content) {
  while (!content.empty()) {
    const ssize_t n = ::write(fd, content.data(), content.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    content.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

std::string parent_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// Makes the rename durable; a folder that cannot be opened or synced is not an error.
void sync_folder(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  (void)::fsync(fd);
  ::close(fd);
}

constexpr int kNotRegular = -(1 << 20);

// open_output_file's descriptor, or -errno, or kNotRegular.
int open_raw(const std::string& path, bool overwrite, mode_t mode) {
  // O_NONBLOCK: a FIFO planted at PATH fails at once (ENXIO) instead of blocking the open.
  const int flags =
      O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | (overwrite ? O_TRUNC : O_EXCL);
  const int fd = ::open(path.c_str(), flags, mode);
  if (fd < 0) {
    const int err = errno;
    struct stat st {};
    if (err == EEXIST && ::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) return -ELOOP;
    return err == ENXIO ? kNotRegular : -err;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return kNotRegular;
  }
  (void)::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  // An existing file keeps its permissions unless the caller asks for fewer (launch logs).
  if ((mode & 0777) != 0666 && ::fchmod(fd, mode) != 0) {
    const int err = errno;
    ::close(fd);
    return -err;
  }
  return fd;
}

// The error of open_raw's result `code` (-errno or kNotRegular) for PATH.
Error open_error(const std::string& path, int code) {
  if (code == kNotRegular)
    return Error(
        fmt::format("{}: exists and is not a regular file; give another folder with -o", path));
  if (code == -ELOOP)
    return Error(
        fmt::format("{}: is a symbolic link; servebench does not write through links "
                    "(remove it, or give another folder with -o)",
                    path));
  if (code == -EEXIST)
    return Error(
        fmt::format("{}: already exists; give a new folder with -o, or --overwrite to "
                    "write over it",
                    path));
  return Error(fmt::format("cannot create {}: {}", path, std::strerror(-code)));
}

}  // namespace

int open_output_file(const std::string& path, bool overwrite, mode_t mode) {
  const int fd = open_raw(path, overwrite, mode);
  if (fd < 0) throw open_error(path, fd);
  return fd;
}

void write_file_atomically(const std::string& path, std::string_view content) {
  static std::atomic<unsigned> counter{0};
  std::string tmp;
  int fd = -EEXIST;
  // A name already taken (a leftover, or a link planted there): the next one.
  for (int attempt = 0; (fd == -EEXIST || fd == -ELOOP) && attempt < 100; ++attempt) {
    tmp = fmt::format("{}.tmp.{}.{}", path, ::getpid(), counter++);
    fd = open_raw(tmp, false, 0666);
  }
  if (fd < 0) throw open_error(tmp, fd);
  // EINVAL: a file system without fsync (the data is written all the same).
  const bool wrote = write_all(fd, content) && (::fsync(fd) == 0 || errno == EINVAL);
  const int saved = errno;
  if (::close(fd) != 0 || !wrote) {
    ::unlink(tmp.c_str());
    throw Error(fmt::format("cannot write {}: {}", tmp, std::strerror(wrote ? errno : saved)));
  }
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
    ::unlink(tmp.c_str());
    throw open_error(path, -ELOOP);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    throw Error(fmt::format("cannot rename {} to {}: {}", tmp, path, std::strerror(err)));
  }
  sync_folder(parent_of(path));
}

}  // namespace sb::results
