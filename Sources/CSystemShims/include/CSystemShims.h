#ifndef CSYSTEMSHIMS_H
#define CSYSTEMSHIMS_H

#include <stdint.h>

// System calls the Glibc module does not show Swift: those glibc declares only for
// _GNU_SOURCE. Each returns what the call returns and leaves errno as the call set it.

// Flushes the filesystem that holds `fd` (syncfs(2), Linux 2.6.39).
int csystemshims_syncfs(int fd);

// Opens `path` relative to the folder `dirfd` with open(2)'s `flags`, refusing a symlink in any
// component and any path that leads outside `dirfd` (openat2(2) with RESOLVE_NO_SYMLINKS,
// RESOLVE_NO_MAGICLINKS and RESOLVE_BENEATH, Linux 5.6). glibc has no wrapper: this makes the
// system call. -1 with errno ENOSYS on a kernel without it.
int csystemshims_openat_beneath(int dirfd, const char *path, int flags);

// Process-wide settings and facts, for the server.

// Raises this process's soft limit of open files (RLIMIT_NOFILE) to its hard limit. Returns
// the soft limit now in force.
uint64_t csystemshims_raise_open_file_limit(void);

// How many CPUs this process may run on (`sched_getaffinity`), at least 1.
int csystemshims_available_cpus(void);

// Lets malloc keep at most `arenas` arenas for all the process's threads (`mallopt`
// `M_ARENA_MAX`); returns 1 on success.
int csystemshims_limit_malloc_arenas(int arenas);

// Gives the memory malloc holds free back to the system, in every arena (`malloc_trim(0)`);
// returns 1 when some was released.
int csystemshims_release_free_memory(void);

// Makes the calling thread `niceness` nicer than it is (Linux keeps a nice value a thread);
// returns 0, or -1 with errno as setpriority left it.
int csystemshims_lower_thread_priority(int niceness);

#endif
