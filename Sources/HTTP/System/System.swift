import Glibc

/// The system calls the HTTP module makes, retried when interrupted, in one room.
enum System {
  /// Runs `call` until it is not interrupted by a signal: its result, or -1 with `errno` set.
  @inline(__always)
  static func retrying<T: FixedWidthInteger>(_ call: () -> T) -> T {
    while true {
      let result = call()
      if result != -1 || errno != EINTR { return result }
    }
  }

  /// The monotonic clock in nanoseconds: for durations and deadlines.
  static func monotonicNanoseconds() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
  }

  /// The wall clock: seconds and milliseconds since 1970, for log lines.
  static func wallClock() -> (seconds: Int64, milliseconds: Int) {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    return (Int64(now.tv_sec), Int(now.tv_nsec / 1_000_000))
  }

  /// Writes all of `bytes` to `descriptor`, in one `write` when the descriptor takes it whole
  /// (a pipe does up to PIPE_BUF bytes atomically). Gives up quietly on an error: a log that
  /// cannot be written must not stop the server.
  static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) {
    var offset = 0
    while offset < bytes.count {
      let written = retrying { write(descriptor, bytes.baseAddress! + offset, bytes.count - offset) }
      if written <= 0 { return }
      offset += written
    }
  }

  /// Blocks SIGPIPE in the calling thread, so that a write to a closed pipe or socket fails with
  /// EPIPE instead of ending the process. libmicrohttpd does the same in its own threads.
  static func blockBrokenPipeSignal() {
    var set = sigset_t()
    sigemptyset(&set)
    sigaddset(&set, SIGPIPE)
    pthread_sigmask(SIG_BLOCK, &set, nil)
  }

  /// The C library's text for an `errno` value.
  static func describe(_ code: Int32) -> String { String(cString: strerror(code)) }
}
