// C entry points around libmicrohttpd for the HTTP module.
//
// Swift cannot call C's variadic functions, and libmicrohttpd takes its settings
// (`MHD_start_daemon`) and answers questions about a connection (`MHD_get_connection_info`)
// through them. The functions below give those calls fixed signatures, create the listening
// socket (so that a failure to bind reports its errno), and route libmicrohttpd's own error
// messages to standard error as single lines. Every symbol carries the module's prefix.
#ifndef CMICROHTTPDSHIMS_H
#define CMICROHTTPDSHIMS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The longest text of an IP address `cmicrohttpdshims_client_address` writes, with its NUL.
#define CMICROHTTPDSHIMS_ADDRESS_LENGTH 64

/// What `cmicrohttpdshims_listen` returns when `address` is not an IPv4 or IPv6 literal.
#define CMICROHTTPDSHIMS_NOT_AN_ADDRESS (-1)

/// libmicrohttpd's callback for the raw request target, before it is parsed
/// (`MHD_OPTION_URI_LOG_CALLBACK`): its result becomes the request's context pointer.
typedef void *(*cmicrohttpdshims_uri_callback)(void *cls, const char *uri,
                                               struct MHD_Connection *connection);

/// Everything `cmicrohttpdshims_start` passes to `MHD_start_daemon`.
typedef struct {
  /// A bound, listening socket (from `cmicrohttpdshims_listen`); the daemon does not close it
  /// once quiesced.
  int listen_fd;
  /// Threads of libmicrohttpd's internal polling pool (1: a single polling thread).
  unsigned int threads;
  /// Seconds without activity before a connection is closed (`MHD_OPTION_CONNECTION_TIMEOUT`).
  unsigned int connection_timeout;
  /// `MHD_OPTION_CONNECTION_LIMIT`.
  unsigned int connection_limit;
  /// `MHD_OPTION_PER_IP_CONNECTION_LIMIT`.
  unsigned int per_address_limit;
  /// `MHD_OPTION_CONNECTION_MEMORY_LIMIT`, in bytes.
  size_t memory_limit;
  MHD_AccessHandlerCallback access_handler;
  MHD_RequestCompletedCallback request_completed;
  MHD_NotifyConnectionCallback connection_notification;
  cmicrohttpdshims_uri_callback uri_callback;
  /// The closure every callback receives.
  void *context;
} cmicrohttpdshims_settings;

/// Creates a TCP socket bound to `address` (an IPv4 or IPv6 literal) and `port` (0: any free
/// port) with address reuse (`SO_REUSEADDR`), close-on-exec and non-blocking, and listening.
/// Returns 0 with the socket and the port bound, `CMICROHTTPDSHIMS_NOT_AN_ADDRESS`, or the
/// `errno` of the call that failed.
int cmicrohttpdshims_listen(const char *address, int port, int *socket_out, int *port_out);

/// Starts the daemon: epoll in internal polling threads, suspend and resume allowed, the
/// opportunistic reads and writes of `MHD_USE_TURBO`, libmicrohttpd's messages routed to
/// standard error. NULL when libmicrohttpd refuses (it then logs why).
struct MHD_Daemon *cmicrohttpdshims_start(const cmicrohttpdshims_settings *settings);

/// The connection's socket (`MHD_CONNECTION_INFO_CONNECTION_FD`), or -1.
int cmicrohttpdshims_connection_socket(struct MHD_Connection *connection);

/// Writes the client's IP address as text into `buffer` (IPv4-mapped IPv6 addresses as plain
/// IPv4). Returns its length, 0 when it cannot be had.
size_t cmicrohttpdshims_client_address(struct MHD_Connection *connection, char *buffer,
                                       size_t size);

/// The pointer the connection notification stored in the connection's socket context
/// (`MHD_CONNECTION_INFO_SOCKET_CONTEXT`), or NULL.
void *cmicrohttpdshims_socket_context(struct MHD_Connection *connection);

/// The status of the response queued on the connection (`MHD_CONNECTION_INFO_HTTP_STATUS`): the
/// application's or one libmicrohttpd made itself (400, 413, 431…); 0 when there is none.
unsigned int cmicrohttpdshims_response_status(struct MHD_Connection *connection);

/// What `cmicrohttpdshims_check_head` found in a request head.
typedef enum {
  /// Laid out as libmicrohttpd 0.9.75 lays out a well-formed head.
  CMICROHTTPDSHIMS_HEAD_WELL_FORMED = 0,
  /// Not looked at: the library is not 0.9.75, whose parsing the walk relies on.
  CMICROHTTPDSHIMS_HEAD_NOT_CHECKED,
  /// A line (the request line, a field line or the empty line) ends with a bare LF.
  CMICROHTTPDSHIMS_HEAD_BARE_LF,
  /// A field value holds a NUL byte (libmicrohttpd gives the value cut short at it).
  CMICROHTTPDSHIMS_HEAD_NUL_IN_VALUE,
  /// A field line is continued on a line that starts with SP or HTAB (obs-fold).
  CMICROHTTPDSHIMS_HEAD_OBS_FOLD,
  /// A field line after the first starts with its colon: libmicrohttpd took it for the empty
  /// line that ends the head, and drops it.
  CMICROHTTPDSHIMS_HEAD_NO_NAME,
  /// Laid out in a way that none of the malformations above explains: let through, since the
  /// walk may have misread the buffer.
  CMICROHTTPDSHIMS_HEAD_UNRECOGNISED,
} cmicrohttpdshims_head_finding;

/// Looks for what libmicrohttpd 0.9.75 takes silently in a request head: bare LFs, NUL bytes
/// in field values, folded field lines. Called from the access handler's first call only, with
/// its `method` and `version` arguments.
///
/// libmicrohttpd gives no raw head, but 0.9.75 parses it in place in its read buffer, which is
/// still intact then: CRLF becomes two NULs, a bare LF one, the colon after a field name one,
/// and each header record points into that buffer. The walk checks that the bytes between the
/// records are exactly what a well-formed head leaves, reading nothing outside the head
/// (`method` to `method` + `MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE`). With another version of
/// the library it returns `CMICROHTTPDSHIMS_HEAD_NOT_CHECKED` at once (later versions parse
/// strictly themselves). `field_out` receives the position, among the request's header
/// fields, of the field whose value holds a NUL. Field names and the characters of values are
/// not checked here: the caller sees them in the parsed fields.
///
/// A NUL, or a line of a lone colon, just before a bare LF leaves the very bytes a CRLF does
/// ("v\0\n" and "v\r\n" both become "v\0\0"): those few heads pass unseen. The first reads as
/// the same fields either way; the second ends the head early for libmicrohttpd.
cmicrohttpdshims_head_finding cmicrohttpdshims_check_head(struct MHD_Connection *connection,
                                                          const char *method,
                                                          const char *version,
                                                          size_t *field_out);

#ifdef __cplusplus
}
#endif

#endif
