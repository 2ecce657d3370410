// One file over libmicrohttpd and nothing else: the yardstick serve-bench.sh sets beside
// `catalogue serve`'s thumbnail figures. Daemon flags and limits as the server sets them (one
// epoll thread, "turbo", 32 KiB a connection, 30 s timeout); per request the work any static
// file server does: open the file, fstat, a response from the descriptor (sendfile) with the
// same headers the catalogue sends for a thumbnail, and one log line written to standard error.
//
//   cc -O2 -o static-file static-file.c $(pkg-config --cflags --libs libmicrohttpd)
//   taskset -c 0 ./static-file FILE 2>requests.log    (prints "Serving on PORT", a free port)
#include <arpa/inet.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *path;

static enum MHD_Result answer(void *context, struct MHD_Connection *connection, const char *url,
                              const char *method, const char *version, const char *upload,
                              size_t *upload_size, void **request) {
  static int started;
  (void)context;
  (void)version;
  (void)upload;
  (void)upload_size;
  if (*request == NULL) {  // the head is in; answer on the next call, as the catalogue does
    *request = &started;
    return MHD_YES;
  }
  struct timespec begun;
  clock_gettime(CLOCK_MONOTONIC, &begun);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  struct stat status;
  if (fd < 0 || fstat(fd, &status) != 0) return MHD_NO;
  struct MHD_Response *response = MHD_create_response_from_fd((size_t)status.st_size, fd);
  MHD_add_response_header(response, "Content-Type", "image/jpeg");
  MHD_add_response_header(response, "ETag", "\"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef-256-fit-q85\"");
  MHD_add_response_header(response, "Cache-Control", "public, max-age=31536000, immutable");
  MHD_add_response_header(response, "Content-Security-Policy", "default-src 'none'; sandbox");
  MHD_add_response_header(response, "X-Content-Type-Options", "nosniff");
  MHD_add_response_header(response, "Accept-Ranges", "bytes");
  enum MHD_Result queued = MHD_queue_response(connection, MHD_HTTP_OK, response);
  MHD_destroy_response(response);
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  char line[2300];
  struct timespec done;
  clock_gettime(CLOCK_MONOTONIC, &done);
  long nanoseconds = (done.tv_sec - begun.tv_sec) * 1000000000L + (done.tv_nsec - begun.tv_nsec);
  int length = snprintf(line, sizeof line, "%ld.%03ld 127.0.0.1 %s %.2000s 200 %lld %.3fms\n", (long)now.tv_sec,
                        now.tv_nsec / 1000000, method, url, (long long)status.st_size, nanoseconds / 1e6);
  if (length > 0 && write(STDERR_FILENO, line, (size_t)length) < 0) return MHD_NO;
  return queued;
}

int main(int count, char **arguments) {
  if (count != 2) {
    fprintf(stderr, "usage: static-file FILE\n");
    return 2;
  }
  path = arguments[1];
  signal(SIGPIPE, SIG_IGN);
  struct sockaddr_in loopback = {.sin_family = AF_INET, .sin_port = 0, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  struct MHD_Daemon *daemon = MHD_start_daemon(
      MHD_USE_EPOLL_INTERNAL_THREAD | MHD_USE_TURBO | MHD_USE_ERROR_LOG, 0, NULL, NULL, answer, NULL,
      MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)30, MHD_OPTION_CONNECTION_LIMIT, (unsigned int)4096,
      MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned int)128, MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)32768,
      MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&loopback, MHD_OPTION_END);
  if (daemon == NULL) {
    fprintf(stderr, "static-file: cannot start libmicrohttpd\n");
    return 1;
  }
  const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
  printf("Serving on %u\n", (unsigned)info->port);
  fflush(stdout);
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGTERM);
  sigaddset(&stop, SIGINT);
  sigprocmask(SIG_BLOCK, &stop, NULL);
  int received;
  sigwait(&stop, &received);
  MHD_stop_daemon(daemon);
  return 0;
}
