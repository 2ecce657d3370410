import CSystemShims
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

  // MARK: The process

  /// Raises the soft limit of open files to the hard limit, so that a server's connection
  /// limit can be reached. Returns the limit now in force.
  @discardableResult
  static func raiseOpenFileLimit() -> UInt64 { csystemshims_raise_open_file_limit() }

  /// How many CPUs this process may run on (its affinity mask), at least 1.
  static func availableCPUs() -> Int { Int(csystemshims_available_cpus()) }

  /// Lets malloc keep at most `arenas` arenas, shared by every thread. glibc makes up to eight a
  /// core, one per thread that allocates at once, and each keeps the memory it once held: with
  /// connection, worker and libdispatch threads that is memory no request is using.
  static func limitMallocArenas(_ arenas: Int) {
    if arenas > 0 { _ = csystemshims_limit_malloc_arenas(Int32(arenas)) }
  }

  /// Gives what malloc holds free back to the system (see ``MemoryTrim``).
  static func releaseFreeMemory() { _ = csystemshims_release_free_memory() }

  /// Makes the calling thread `niceness` nicer than it is.
  static func lowerThreadPriority(by niceness: Int32) { _ = csystemshims_lower_thread_priority(niceness) }

  // MARK: Files

  /// Opens `path` with open(2)'s `flags` (and `mode` when it creates): the descriptor, or -1
  /// with `errno` set.
  static func openFile(_ path: String, _ flags: Int32, mode: mode_t = 0) -> Int32 {
    retrying { Glibc.open(path, flags, mode) }
  }

  /// Opens `name` inside the folder open as `folder` (`openat`).
  static func openFile(_ name: String, in folder: Int32, _ flags: Int32) -> Int32 {
    retrying { openat(folder, name, flags) }
  }

  /// Opens `path` beneath the folder open as `folder`, following no link on the way
  /// (`openat2` with `RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH`); -1 with ENOSYS on a kernel
  /// without it.
  static func openFileBeneath(_ path: String, in folder: Int32, _ flags: Int32) -> Int32 {
    retrying { csystemshims_openat_beneath(folder, path, flags) }
  }

  /// Closes `descriptor`: 0, or -1 with `errno` set (not retried: Linux frees the descriptor
  /// however close ends).
  @discardableResult
  static func closeFile(_ descriptor: Int32) -> Int32 { Glibc.close(descriptor) }

  /// The size and modification time of the regular file open as `descriptor`; nil when it is
  /// not a regular file or cannot be looked at.
  static func regularFileStatus(_ descriptor: Int32) -> (size: Int, seconds: Int64, nanoseconds: Int)? {
    var status = stat()
    guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
    return (Int(status.st_size), Int64(status.st_mtim.tv_sec), Int(status.st_mtim.tv_nsec))
  }

  /// A new descriptor of what `descriptor` is open on, closed on exec; -1 when none can be had.
  static func duplicateFile(_ descriptor: Int32) -> Int32 { fcntl(descriptor, F_DUPFD_CLOEXEC, 0) }

  /// Writes what it can of `count` bytes at `bytes`: how many, or -1 with `errno` set.
  static func writeSome(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    retrying { write(descriptor, bytes, count) }
  }

  /// Removes the file at `path`; a failure leaves it (the caller has nothing better to do).
  static func removeFile(_ path: String) { _ = unlink(path) }

  /// Makes the folder `path` with `mode`: 0, or -1 with `errno` set (EEXIST when it is there).
  static func makeFolder(_ path: String, mode: mode_t) -> Int32 { mkdir(path, mode) }

  /// Sleeps the calling thread for `microseconds`.
  static func sleep(microseconds: UInt32) { _ = usleep(microseconds) }

  // MARK: Folders and processes

  /// Whether `path` is a folder (a link to one counts).
  static func isFolder(_ path: String) -> Bool {
    var status = stat()
    return stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR
  }

  /// Whether `path` is a folder itself (not a link) that belongs to this process's user.
  static func isOwnFolder(_ path: String) -> Bool {
    var status = stat()
    return lstat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR && status.st_uid == getuid()
  }

  /// Makes a new folder of mode 0700 whose name is `template` with its trailing `XXXXXX`
  /// made unique (`mkdtemp`): its path, or the `errno` of the failure.
  static func makePrivateFolder(named template: String) -> Result<String, SystemError> {
    var bytes = Array(template.utf8CString)
    guard let made = bytes.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
      return .failure(SystemError(code: errno))
    }
    return .success(String(cString: made))
  }

  /// A failed call's `errno`.
  struct SystemError: Error {
    let code: Int32
  }

  /// Removes `path` if it is an empty folder; a failure leaves it.
  static func removeEmptyFolder(_ path: String) { _ = rmdir(path) }

  static func processID() -> Int32 { getpid() }

  /// Whether a process `pid` exists (whoever's it is).
  static func processExists(_ pid: Int32) -> Bool { kill(pid, 0) == 0 || errno != ESRCH }

  // MARK: Clocks and output

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
