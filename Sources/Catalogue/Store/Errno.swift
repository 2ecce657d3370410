import Glibc

/// Text for `errno` values.
enum Errno {
  static func describe(_ code: Int32) -> String { String(cString: strerror(code)) }
}
