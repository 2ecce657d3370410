#ifndef CSYSTEMSHIMS_H
#define CSYSTEMSHIMS_H

// System calls the Glibc module does not show Swift: those glibc declares only for
// _GNU_SOURCE. Each returns what the call returns and leaves errno as the call set it.

// Flushes the filesystem that holds `fd` (syncfs(2), Linux 2.6.39).
int csystemshims_syncfs(int fd);

// Opens `path` relative to the folder `dirfd` with open(2)'s `flags`, refusing a symlink in any
// component and any path that leads outside `dirfd` (openat2(2) with RESOLVE_NO_SYMLINKS,
// RESOLVE_NO_MAGICLINKS and RESOLVE_BENEATH, Linux 5.6). glibc has no wrapper: this makes the
// system call. -1 with errno ENOSYS on a kernel without it.
int csystemshims_openat_beneath(int dirfd, const char *path, int flags);

#endif
