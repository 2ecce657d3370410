import Catalogue
import Foundation
import Synchronization

@preconcurrency import Glibc

/// Standard streams and what kind of thing they are.
enum Terminal {
  static var standardErrorIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }
  static var standardInputIsTerminal: Bool { isatty(STDIN_FILENO) == 1 }
  static let standardOutputIsTerminal = isatty(STDOUT_FILENO) == 1

  /// Writes `text` and a newline to standard output.
  ///
  /// A reader that stops early (`catalogue list | head -1`) closes the pipe: the output ends
  /// there, quietly, with exit status 0 — the work was done and the reader has what it wanted.
  /// Any other failure (a full disk, an I/O error) is one line on standard error and exit
  /// status 1. Output comes after a command's work is committed, so exiting here loses nothing.
  ///
  /// On a terminal, control characters in the text (a review's body may hold an escape
  /// sequence from before they were refused) are shown as `\x1B`, never sent raw.
  static func print(_ text: String) {
    let shown = standardOutputIsTerminal ? Shown.terminal(text) : text
    guard let code = write(STDOUT_FILENO, shown + "\n") else { return }
    if code == EPIPE { exit(0) }
    _ = write(STDERR_FILENO, "error: cannot write to standard output: \(String(cString: strerror(code)))\n")
    exit(1)
  }

  /// Writes `bytes` (a picture) to standard output, ending as ``print(_:)`` does when the
  /// reader has gone or the write fails.
  static func writeOutput(_ bytes: [UInt8]) {
    var done = 0
    while done < bytes.count {
      let wrote = bytes.withUnsafeBufferPointer { Glibc.write(STDOUT_FILENO, $0.baseAddress! + done, $0.count - done) }
      if wrote < 0 {
        let code = errno
        if code == EINTR { continue }
        if code == EPIPE { exit(0) }
        _ = write(STDERR_FILENO, "error: cannot write to standard output: \(String(cString: strerror(code)))\n")
        exit(1)
      }
      done += wrote
    }
  }

  /// Writes `text` and a newline to standard error. A failure to write there is ignored: there
  /// is nowhere left to report it.
  ///
  /// Messages name files and values a user gave: what in them would act on a terminal (a
  /// newline inside a name, an escape, a right-to-left override) is written out.
  static func printError(_ text: String) {
    Progress.shared.clear()
    _ = write(STDERR_FILENO, Shown.lines(text) + "\n")
  }

  /// Writes all of `text` to `descriptor`, retrying short writes and interruptions; the
  /// `errno` of a failure, or `nil`. (`FileHandle.write` traps on EPIPE and ENOSPC instead.)
  static func write(_ descriptor: Int32, _ text: String) -> Int32? {
    var text = text
    return text.withUTF8 { bytes -> Int32? in
      var done = 0
      while done < bytes.count {
        let wrote = Glibc.write(descriptor, bytes.baseAddress! + done, bytes.count - done)
        if wrote < 0 {
          if errno == EINTR { continue }
          return errno
        }
        done += wrote
      }
      return nil
    }
  }

  /// The terminal's width in columns, or `nil` when standard output is not a terminal.
  static var width: Int? {
    guard isatty(STDOUT_FILENO) == 1 else { return nil }
    var size = winsize()
    guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
    return Int(size.ws_col)
  }

  /// Asks for a secret on the terminal (standard input) without echoing it: echo is turned
  /// off for the answer and put back on every way out, Ctrl-C included. `nil` at the end of
  /// input, or when standard input is not a terminal.
  static func readSecret(_ prompt: String) -> String? {
    var original = termios()
    guard tcgetattr(STDIN_FILENO, &original) == 0 else { return nil }
    let saved = original
    var silent = original
    // No echo, but the newline that ends the answer still shows.
    silent.c_lflag &= ~tcflag_t(ECHO)
    silent.c_lflag |= tcflag_t(ECHONL)
    let restore: @Sendable () -> Void = {
      var settings = saved
      _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, &settings)
    }
    return Signals.whileWaiting(undo: restore) {
      guard tcsetattr(STDIN_FILENO, TCSAFLUSH, &silent) == 0 else { return nil }
      defer { restore() }
      _ = write(STDERR_FILENO, prompt)
      return readLine(strippingNewline: true)
    }
  }

  /// Asks a yes/no question on the terminal; `false` unless the answer starts with y.
  static func confirm(_ question: String) -> Bool {
    _ = write(STDERR_FILENO, "\(question) [y/N] ")
    guard let answer = readLine() else { return false }
    return answer.trimmingCharacters(in: .whitespaces).lowercased().hasPrefix("y")
  }
}

/// The progress line for long work: count, rate and time left, redrawn in place on standard
/// error when it is a terminal, and nothing at all otherwise.
final class Progress: Sendable {
  static let shared = Progress()

  private struct State {
    var label = ""
    var start = 0.0
    var lastDrawn = 0.0
    var visible = false
  }

  private let state = Mutex(State())
  private let enabled = Terminal.standardErrorIsTerminal

  func start(_ label: String) {
    state.withLock {
      $0.label = label
      $0.start = Self.now()
      $0.lastDrawn = 0
    }
  }

  func update(done: Int, total: Int) {
    guard enabled else { return }
    let now = Self.now()
    let line: String? = state.withLock { state in
      guard done == total || now - state.lastDrawn >= 0.1 else { return nil }
      state.lastDrawn = now
      state.visible = true
      let elapsed = max(now - state.start, 0.001)
      let rate = Double(done) / elapsed
      var text = "\(state.label) \(done)/\(total)"
      if done > 0 {
        text += String(format: ", %.1f/s", rate)
        let left = Double(total - done) / rate
        if done < total { text += ", " + Self.duration(left) + " left" }
      }
      return text
    }
    if let line { _ = Terminal.write(STDERR_FILENO, "\r\u{1B}[K\(Self.fitted(line, columns: Self.columns()))") }
  }

  /// The width of the terminal on standard error, asked each time (a window may be resized).
  private static func columns() -> Int {
    var size = winsize()
    guard ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
    return Int(size.ws_col)
  }

  /// `line` cut to fit in one row short of the last column: a line that wraps cannot be
  /// redrawn in place, and each redraw would leave a row behind.
  static func fitted(_ line: String, columns: Int) -> String {
    let room = max(columns - 1, 1)
    guard line.count > room else { return line }
    return room > 1 ? String(line.prefix(room - 1)) + "…" : String(line.prefix(room))
  }

  /// Removes the line, before other output or at the end.
  func clear() {
    guard enabled else { return }
    let visible = state.withLock { state in
      defer { state.visible = false }
      return state.visible
    }
    if visible { _ = Terminal.write(STDERR_FILENO, "\r\u{1B}[K") }
  }

  private static func now() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
  }

  private static func duration(_ seconds: Double) -> String {
    let whole = Int(seconds.rounded(.up))
    return whole >= 60 ? "\(whole / 60)m\(String(format: "%02d", whole % 60))s" : "\(whole)s"
  }
}
