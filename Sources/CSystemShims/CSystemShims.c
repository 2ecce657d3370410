#define _GNU_SOURCE
#include <errno.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "CSystemShims.h"

int csystemshims_syncfs(int fd) { return syncfs(fd); }

int csystemshims_openat_beneath(int dirfd, const char *path, int flags) {
#ifdef SYS_openat2
  struct open_how how = {
      .flags = (unsigned long long)flags,
      .mode = 0,
      .resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_BENEATH,
  };
  return (int)syscall(SYS_openat2, dirfd, path, &how, sizeof how);
#else
  (void)dirfd;
  (void)path;
  (void)flags;
  errno = ENOSYS;
  return -1;
#endif
}
