#define _GNU_SOURCE
#include "CMicroHTTPDShims.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
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
  // MHD_OPTION_STRICT_FOR_CLIENT stays 0: at 1, 0.9.75 drops a connection whose target holds a
  // space without an answer, and answers a head without Host with a page of its own rather
  // than the service's. The HTTP module checks heads itself (RequestHeadCheck).
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

// MARK: - Request heads

// The walk over a head as libmicrohttpd 0.9.75 left it in its read buffer. Positions are
// compared as integers: a key that folding moved lies elsewhere in the pool, and comparing
// pointers into different objects is undefined in C.
typedef struct {
  const char *head;  // the request's method: where the head begins
  uintptr_t start;   // the same, as a number
  uintptr_t end;     // just after the head's final empty line; never read
  uintptr_t line;    // where the terminator of the line walked last begins
  bool after_value;  // whether that line is a field line (else the request line)
  size_t field;      // header fields seen
  cmicrohttpdshims_head_finding finding;
  size_t finding_field;
} cmicrohttpdshims_head_walk;

static char cmicrohttpdshims_head_byte(const cmicrohttpdshims_head_walk *walk, uintptr_t at) {
  return walk->head[at - walk->start];
}

// What the bytes [from, to) say, which follow a line's content: a well-formed head has a CRLF
// there (two NULs), and when `last`, the final empty line's CRLF too (four NULs). A value that
// held a NUL byte shows as a NUL followed by the rest of the value or by more NULs.
static cmicrohttpdshims_head_finding cmicrohttpdshims_classify_gap(
    const cmicrohttpdshims_head_walk *walk, uintptr_t from, uintptr_t to, bool last) {
  size_t length = to - from;
  size_t wanted = last ? 4 : 2;
  if (length == 0 || cmicrohttpdshims_head_byte(walk, from) != '\0' ||
      cmicrohttpdshims_head_byte(walk, to - 1) != '\0') {
    return CMICROHTTPDSHIMS_HEAD_UNRECOGNISED;
  }
  bool zeros = true;
  for (uintptr_t at = from; at < to && zeros; at++) {
    zeros = cmicrohttpdshims_head_byte(walk, at) == '\0';
  }
  if (zeros && length == wanted) return CMICROHTTPDSHIMS_HEAD_WELL_FORMED;
  // Fewer NULs than CRLFs leave: a line ended with a single LF (at the end of the head, "\n\n",
  // "\r\n\n" or "\n\r\n").
  if (zeros && length < wanted) {
    return length >= wanted / 2 ? CMICROHTTPDSHIMS_HEAD_BARE_LF : CMICROHTTPDSHIMS_HEAD_UNRECOGNISED;
  }
  // More than the terminators account for. (Not after the request line: libmicrohttpd takes a
  // version of exactly "HTTP/x.y" and nothing after it.)
  if (!walk->after_value) return CMICROHTTPDSHIMS_HEAD_UNRECOGNISED;
  if (last && !zeros) {
    // A line that starts with its colon has it replaced by a NUL, and 0.9.75 then takes it for
    // the empty line: so the head ends with one terminator after it, which follows the
    // previous line's own. (A NUL and then bytes in the last value leave the value's
    // terminator and the empty line's after them instead.)
    size_t leading = 0, trailing = 0;
    while (cmicrohttpdshims_head_byte(walk, from + leading) == '\0') leading++;
    while (cmicrohttpdshims_head_byte(walk, to - 1 - trailing) == '\0') trailing++;
    if (leading >= 2 && trailing <= 2) return CMICROHTTPDSHIMS_HEAD_NO_NAME;
  }
  // A value went on past a NUL: the rest of it (or more NULs) before its terminator.
  return CMICROHTTPDSHIMS_HEAD_NUL_IN_VALUE;
}

// Whether the bytes after a value at `from` (a NUL) are a line terminator and then a line that
// starts with SP or HTAB, maybe after the rest of a value cut at a NUL: the continuation that
// made libmicrohttpd move the field's name out of the buffer.
static bool cmicrohttpdshims_continues(const cmicrohttpdshims_head_walk *walk, uintptr_t from) {
  uintptr_t at = from;
  for (int pass = 0; pass < 2; pass++) {
    while (at < walk->end && cmicrohttpdshims_head_byte(walk, at) == '\0') at++;
    if (at == walk->end) return false;
    char c = cmicrohttpdshims_head_byte(walk, at);
    if (c == ' ' || c == '\t') return true;
    while (at < walk->end && cmicrohttpdshims_head_byte(walk, at) != '\0') at++;
  }
  return false;
}

static enum MHD_Result cmicrohttpdshims_walk_field(void *cls, enum MHD_ValueKind kind,
                                                   const char *key, size_t key_size,
                                                   const char *value, size_t value_size) {
  (void)kind;
  cmicrohttpdshims_head_walk *walk = cls;
  size_t field = walk->field++;
  uintptr_t name = (uintptr_t)key;
  uintptr_t text = (uintptr_t)value;
  // The value and the NUL after it (where its line's CR or LF was) lie in the head.
  bool value_inside = value != NULL && text >= walk->line && text < walk->end &&
                      value_size < walk->end - text &&
                      cmicrohttpdshims_head_byte(walk, text + value_size) == '\0';
  if (key == NULL || name < walk->start || name >= walk->end) {
    // Only a folded line makes 0.9.75 reallocate a name (process_broken_line); its value stays.
    bool folded = value_inside && cmicrohttpdshims_continues(walk, text + value_size);
    walk->finding = folded ? CMICROHTTPDSHIMS_HEAD_OBS_FOLD : CMICROHTTPDSHIMS_HEAD_UNRECOGNISED;
    return MHD_NO;
  }
  // The previous line's terminator, then this line's name, exactly where it begins.
  if (name < walk->line) {
    walk->finding = CMICROHTTPDSHIMS_HEAD_UNRECOGNISED;
    return MHD_NO;
  }
  cmicrohttpdshims_head_finding gap = cmicrohttpdshims_classify_gap(walk, walk->line, name, false);
  if (gap != CMICROHTTPDSHIMS_HEAD_WELL_FORMED) {
    walk->finding = gap;
    if (field > 0) walk->finding_field = field - 1;
    return MHD_NO;
  }
  // The name, the NUL that was its colon, SP or HTAB up to the value, the value, a NUL.
  uintptr_t colon = name + key_size;
  if (key_size >= walk->end - name || cmicrohttpdshims_head_byte(walk, colon) != '\0' ||
      !value_inside || text <= colon) {
    walk->finding = CMICROHTTPDSHIMS_HEAD_UNRECOGNISED;
    return MHD_NO;
  }
  for (uintptr_t at = colon + 1; at < text; at++) {
    char c = cmicrohttpdshims_head_byte(walk, at);
    if (c != ' ' && c != '\t') {
      walk->finding = CMICROHTTPDSHIMS_HEAD_UNRECOGNISED;
      return MHD_NO;
    }
  }
  walk->line = text + value_size;
  walk->after_value = true;
  return MHD_YES;
}

cmicrohttpdshims_head_finding cmicrohttpdshims_check_head(struct MHD_Connection *connection,
                                                          const char *method,
                                                          const char *version,
                                                          size_t *field_out) {
  *field_out = 0;
  // The walk knows how 0.9.75 lays a head out in its buffer and nothing else; later versions
  // refuse these heads themselves (their parser is strict).
  const char *library = MHD_get_version();
  if (library == NULL || strcmp(library, "0.9.75") != 0) return CMICROHTTPDSHIMS_HEAD_NOT_CHECKED;
  const union MHD_ConnectionInfo *info =
      MHD_get_connection_info(connection, MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE);
  if (info == NULL || method == NULL || version == NULL) return CMICROHTTPDSHIMS_HEAD_UNRECOGNISED;
  cmicrohttpdshims_head_walk walk = {
      .head = method,
      .start = (uintptr_t)method,
      .end = (uintptr_t)method + info->header_size,
      .finding = CMICROHTTPDSHIMS_HEAD_WELL_FORMED,
  };
  uintptr_t at = (uintptr_t)version;
  if (info->header_size == 0 || walk.end < walk.start || at <= walk.start || at >= walk.end) {
    return CMICROHTTPDSHIMS_HEAD_UNRECOGNISED;
  }
  // The version ends the request line; its terminator follows.
  while (at < walk.end && cmicrohttpdshims_head_byte(&walk, at) != '\0') at++;
  if (at == walk.end) return CMICROHTTPDSHIMS_HEAD_UNRECOGNISED;
  walk.line = at;
  MHD_get_connection_values_n(connection, MHD_HEADER_KIND, cmicrohttpdshims_walk_field, &walk);
  if (walk.finding == CMICROHTTPDSHIMS_HEAD_WELL_FORMED) {
    // The last line's terminator and the empty line, which ends where the head ends.
    walk.finding = cmicrohttpdshims_classify_gap(&walk, walk.line, walk.end, true);
    if (walk.field > 0) walk.finding_field = walk.field - 1;
  }
  if (walk.finding == CMICROHTTPDSHIMS_HEAD_NUL_IN_VALUE) *field_out = walk.finding_field;
  return walk.finding;
}

// MARK: - The process
