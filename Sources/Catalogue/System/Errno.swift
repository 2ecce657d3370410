import Glibc

/// What a system call said when it failed: an `errno` value.
///
/// The system-call room (this folder) is the one place in `Catalogue` that calls the C library
/// directly; everything else calls the Swift functions here, which retry interruptions, turn
/// each C status into a thrown `Errno` at once, and take Swift types.
struct Errno: Error, Equatable, Hashable, Sendable, CustomStringConvertible {
  let rawValue: Int32

  init(_ rawValue: Int32) { self.rawValue = rawValue }

  /// The calling thread's `errno` now.
  static var current: Errno { Errno(errno) }

  var description: String { Self.describe(rawValue) }

  /// The C library's text for `code`.
  static func describe(_ code: Int32) -> String { String(cString: strerror(code)) }

  static let noEntry = Errno(ENOENT)
  static let interrupted = Errno(EINTR)
  static let wouldBlock = Errno(EWOULDBLOCK)
  static let tooManySymbolicLinks = Errno(ELOOP)
  static let notDirectory = Errno(ENOTDIR)
  static let isDirectory = Errno(EISDIR)
  static let exists = Errno(EEXIST)
  static let notEmpty = Errno(ENOTEMPTY)
  static let noSpace = Errno(ENOSPC)
  static let ioError = Errno(EIO)
  static let accessDenied = Errno(EACCES)
}
