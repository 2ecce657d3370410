#define _GNU_SOURCE
#include "CMicroHTTPDShims.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

// MARK: - Listening

int cmicrohttpdshims_listen(const char *address, int port, int *socket_out, int *port_out) {
  struct sockaddr_storage storage;
  socklen_t length;
  memset(&storage, 0, sizeof storage);
  struct sockaddr_in *v4 = (struct sockaddr_in *)&storage;
  struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&storage;
  if (inet_pton(AF_INET, address, &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons((uint16_t)port);
    length = sizeof *v4;
  } else if (inet_pton(AF_INET6, address, &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons((uint16_t)port);
    length = sizeof *v6;
  } else {
    return CMICROHTTPDSHIMS_NOT_AN_ADDRESS;
  }

  int fd = socket(storage.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return errno;
  // SO_REUSEADDR lets a restarted server bind while the old connections sit in TIME_WAIT; it
  // does not let two servers share the port (SO_REUSEPORT would, silently).
  int on = 1;
  if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on) != 0 ||
      bind(fd, (struct sockaddr *)&storage, length) != 0 || listen(fd, SOMAXCONN) != 0) {
    int error = errno;
    close(fd);
    return error;
  }
  struct sockaddr_storage bound;
  socklen_t bound_length = sizeof bound;
  if (getsockname(fd, (struct sockaddr *)&bound, &bound_length) != 0) {
    int error = errno;
    close(fd);
    return error;
  }
  *port_out = bound.ss_family == AF_INET ? ntohs(((struct sockaddr_in *)&bound)->sin_port)
                                         : ntohs(((struct sockaddr_in6 *)&bound)->sin6_port);
  *socket_out = fd;
  return 0;
}

// MARK: - The daemon

// libmicrohttpd formats its messages with printf and often ends them with a newline, sometimes
// with several lines. Each becomes one line on standard error, written in one call so that
// lines from several threads never interleave.
static void cmicrohttpdshims_log(void *cls, const char *format, va_list arguments) {
  (void)cls;
  static const char prefix[] = "libmicrohttpd: ";
  char line[1024];
  memcpy(line, prefix, sizeof prefix - 1);
  size_t start = sizeof prefix - 1;
  int written = vsnprintf(line + start, sizeof line - start - 1, format, arguments);
  if (written < 0) return;
  size_t room = sizeof line - start - 2;
  size_t end = start + ((size_t)written < room ? (size_t)written : room);
  for (size_t i = start; i < end; i++) {
    unsigned char c = (unsigned char)line[i];
    if (c < 0x20 || c == 0x7f) line[i] = ' ';
  }
  while (end > start && line[end - 1] == ' ') end--;
  line[end++] = '\n';
  ssize_t result;
  do {
    result = write(STDERR_FILENO, line, end);
  } while (result < 0 && errno == EINTR);
}

// The module reads the raw target from the URI callback and never libmicrohttpd's decoded
// `url`, so decoding is left undone (a decoded %00 would cut the path short anyway).
static size_t cmicrohttpdshims_keep_escapes(void *cls, struct MHD_Connection *connection,
                                            char *text) {
  (void)cls;
  (void)connection;
  return strlen(text);
}

struct MHD_Daemon *cmicrohttpdshims_start(const cmicrohttpdshims_settings *settings) {
  unsigned int flags = MHD_USE_EPOLL_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_TURBO |
                       MHD_USE_ERROR_LOG;
  struct MHD_OptionItem options[12];
  size_t count = 0;
#define CMICROHTTPDSHIMS_OPTION(name, value, pointer) \
  options[count++] = (struct MHD_OptionItem){(name), (intptr_t)(value), (void *)(pointer)}
  CMICROHTTPDSHIMS_OPTION(MHD_OPTION_LISTEN_SOCKET, settings->listen_fd, NULL);
  // A pool of one is no pool: libmicrohttpd warns of the option unless it is above 1.
  if (settings->threads > 1) {
    CMICROHTTPDSHIMS_OPTION(MHD_OPTION_THREAD_POOL_SIZE, settings->threads, NULL);
  }
  CMICROHTTPDSHIMS_OPTION(MHD_OPTION_CONNECTION_TIMEOUT, settings->connection_timeout, NULL);
  CMICROHTTPDSHIMS_OPTION(MHD_OPTION_CONNECTION_LIMIT, settings->connection_limit, NULL);
  CMICROHTTPDSHIMS_OPTION(MHD_OPTION_PER_IP_CONNECTION_LIMIT, settings->per_address_limit, NULL);
  CMICROHTTPDSHIMS_OPTION(MHD_OPTION_CONNECTION_MEMORY_LIMIT, settings->memory_limit, NULL);
  // Options of two pointers take the first as the value (libmicrohttpd's MHD_OPTION_ARRAY).
  CMICROHTTPDSHIMS_OPTION(MHD_OPTION_NOTIFY_COMPLETED, settings->request_completed,
                          settings->context);
  CMICROHTTPDSHIMS_OPTION(MHD_OPTION_NOTIFY_CONNECTION, settings->connection_notification,
                          settings->context);
  CMICROHTTPDSHIMS_OPTION(MHD_OPTION_URI_LOG_CALLBACK, settings->uri_callback, settings->context);
  CMICROHTTPDSHIMS_OPTION(MHD_OPTION_UNESCAPE_CALLBACK, cmicrohttpdshims_keep_escapes, NULL);
  CMICROHTTPDSHIMS_OPTION(MHD_OPTION_END, 0, NULL);
#undef CMICROHTTPDSHIMS_OPTION
  return MHD_start_daemon(flags, 0, NULL, NULL, settings->access_handler, settings->context,
                          // First, so that no message of the start goes elsewhere.
                          MHD_OPTION_EXTERNAL_LOGGER, cmicrohttpdshims_log, NULL,
                          MHD_OPTION_ARRAY, options, MHD_OPTION_END);
}

// MARK: - Connections

int cmicrohttpdshims_connection_socket(struct MHD_Connection *connection) {
  const union MHD_ConnectionInfo *info =
      MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
  return info == NULL ? -1 : info->connect_fd;
}

size_t cmicrohttpdshims_client_address(struct MHD_Connection *connection, char *buffer,
                                       size_t size) {
  const union MHD_ConnectionInfo *info =
      MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
  if (info == NULL || info->client_addr == NULL || size == 0) return 0;
  const struct sockaddr *address = info->client_addr;
  const char *text = NULL;
  if (address->sa_family == AF_INET) {
    const struct in_addr *v4 = &((const struct sockaddr_in *)address)->sin_addr;
    text = inet_ntop(AF_INET, v4, buffer, (socklen_t)size);
  } else if (address->sa_family == AF_INET6) {
    const struct in6_addr *v6 = &((const struct sockaddr_in6 *)address)->sin6_addr;
    if (IN6_IS_ADDR_V4MAPPED(v6)) {
      text = inet_ntop(AF_INET, &v6->s6_addr[12], buffer, (socklen_t)size);
    } else {
      text = inet_ntop(AF_INET6, v6, buffer, (socklen_t)size);
    }
  }
  return text == NULL ? 0 : strlen(buffer);
}

void *cmicrohttpdshims_socket_context(struct MHD_Connection *connection) {
  const union MHD_ConnectionInfo *info =
      MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
  return info == NULL ? NULL : info->socket_context;
}

unsigned int cmicrohttpdshims_response_status(struct MHD_Connection *connection) {
  const union MHD_ConnectionInfo *info =
      MHD_get_connection_info(connection, MHD_CONNECTION_INFO_HTTP_STATUS);
  return info == NULL ? 0 : info->http_status;
}

// MARK: - The process

uint64_t cmicrohttpdshims_raise_open_file_limit(void) {
  struct rlimit limit;
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return 0;
  if (limit.rlim_cur < limit.rlim_max) {
    struct rlimit raised = limit;
    raised.rlim_cur = limit.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &raised) == 0) limit = raised;
  }
  return (uint64_t)limit.rlim_cur;
}

int cmicrohttpdshims_available_cpus(void) {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) {
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    return online > 0 ? (int)online : 1;
  }
  int count = CPU_COUNT(&set);
  return count > 0 ? count : 1;
}

int cmicrohttpdshims_lower_thread_priority(int niceness) {
  // gettid and a thread's own nice value are Linux's; setpriority with the thread's id sets
  // that thread's alone.
  pid_t thread = gettid();
  errno = 0;
  int current = getpriority(PRIO_PROCESS, (id_t)thread);
  if (current == -1 && errno != 0) return -1;
  return setpriority(PRIO_PROCESS, (id_t)thread, current + niceness);
}

int cmicrohttpdshims_limit_malloc_arenas(int arenas) { return mallopt(M_ARENA_MAX, arenas); }

int cmicrohttpdshims_release_free_memory(void) { return malloc_trim(0); }
