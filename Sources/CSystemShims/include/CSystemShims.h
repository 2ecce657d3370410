#ifndef CSYSTEMSHIMS_H
#define CSYSTEMSHIMS_H

// System calls the Glibc module does not show Swift: those glibc declares only for
// _GNU_SOURCE. Each returns what the call returns and leaves errno as the call set it.

// Flushes the filesystem that holds `fd` (syncfs(2), Linux 2.6.39).
int csystemshims_syncfs(int fd);

#endif
