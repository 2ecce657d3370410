#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <sched.h>
#include <sys/resource.h>
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

uint64_t csystemshims_raise_open_file_limit(void) {
  struct rlimit limit;
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return 0;
  if (limit.rlim_cur < limit.rlim_max) {
    struct rlimit raised = limit;
    raised.rlim_cur = limit.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &raised) == 0) limit = raised;
  }
  return (uint64_t)limit.rlim_cur;
}

int csystemshims_available_cpus(void) {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) {
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    return online > 0 ? (int)online : 1;
  }
  int count = CPU_COUNT(&set);
  return count > 0 ? count : 1;
}

int csystemshims_lower_thread_priority(int niceness) {
  // gettid and a thread's own nice value are Linux's; setpriority with the thread's id sets
  // that thread's alone.
  pid_t thread = gettid();
  errno = 0;
  int current = getpriority(PRIO_PROCESS, (id_t)thread);
  if (current == -1 && errno != 0) return -1;
  return setpriority(PRIO_PROCESS, (id_t)thread, current + niceness);
}

int csystemshims_limit_malloc_arenas(int arenas) { return mallopt(M_ARENA_MAX, arenas); }

int csystemshims_release_free_memory(void) { return malloc_trim(0); }
