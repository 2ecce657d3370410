import Foundation
import Synchronization

@preconcurrency import Glibc

/// Standard streams and what kind of thing they are.
enum Terminal {
  static var standardErrorIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }
  static var standardInputIsTerminal: Bool { isatty(STDIN_FILENO) == 1 }

  /// Writes `text` and a newline to standard output.
  static func print(_ text: String) {
    FileHandle.standardOutput.write(Data((text + "\n").utf8))
  }

  /// Writes `text` and a newline to standard error.
  static func printError(_ text: String) {
    Progress.shared.clear()
    FileHandle.standardError.write(Data((text + "\n").utf8))
  }

  /// The terminal's width in columns, or `nil` when standard output is not a terminal.
  static var width: Int? {
    guard isatty(STDOUT_FILENO) == 1 else { return nil }
    var size = winsize()
    guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
    return Int(size.ws_col)
  }

  /// Asks a yes/no question on the terminal; `false` unless the answer starts with y.
  static func confirm(_ question: String) -> Bool {
    FileHandle.standardError.write(Data("\(question) [y/N] ".utf8))
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
    if let line { FileHandle.standardError.write(Data("\r\u{1B}[K\(line)".utf8)) }
  }

  /// Removes the line, before other output or at the end.
  func clear() {
    guard enabled else { return }
    let visible = state.withLock { state in
      defer { state.visible = false }
      return state.visible
    }
    if visible { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
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
