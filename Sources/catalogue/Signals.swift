import Catalogue
import Dispatch
import Foundation
import Synchronization

@preconcurrency import Glibc

/// What Ctrl-C (SIGINT) and SIGTERM do.
///
/// A command that only reads stops at once. A command that writes asks the library to stop at
/// its next safe point (between pictures, before a commit): it rolls back, deletes the files it
/// wrote, and says "interrupted: nothing was changed", with exit status 128 + the signal (130
/// for Ctrl-C). A second signal stops it at once, as a crash would: the database is still
/// consistent, and `catalogue check` names any file left behind.
enum Signals {
  /// Commands that stop cleanly; the others stop at once. (`check` stops cleanly once its
  /// repair begins.)
  static let cleanStopCommands: Set<String> = [
    "init", "add", "edit", "remove", "attach", "replace", "detach", "cover", "move", "describe", "thumbnails",
    "import-bundle", "import", "upgrade", "user", "migrate",
  ]

  private static let clean = Atomic<Bool>(false)
  /// What must be undone before the process stops at once, whatever the command: a terminal
  /// left without echo while a password is typed, say. Set only while nothing is written yet.
  private static let undoBeforeStop = Mutex<(@Sendable () -> Void)?>(nil)

  /// Runs `body` with `undo` to be run first if a signal stops the process meanwhile: then the
  /// process stops at once, nothing having been changed, even for a command that stops
  /// cleanly (`body` is waiting for the user, not writing).
  static func whileWaiting<T>(undo: @escaping @Sendable () -> Void, _ body: () throws -> T) rethrows -> T {
    undoBeforeStop.withLock { $0 = undo }
    defer { undoBeforeStop.withLock { $0 = nil } }
    return try body()
  }

  /// What a first signal does instead of stopping, for a command that stops on its own terms
  /// (`serve`: stop taking requests, finish those under way). It runs on a thread of its own,
  /// so that a second signal is still seen, and stops the process at once.
  private static let firstSignal = Mutex<(@Sendable (Int32) -> Void)?>(nil)
  private static let stopping = Atomic<Bool>(false)

  /// From now on, a first signal runs `stop` (on its own thread); a second stops at once.
  static func onFirstSignal(_ stop: @escaping @Sendable (Int32) -> Void) {
    firstSignal.withLock { $0 = stop }
  }

  nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []
  /// A queue of its own: the global queue's threads may all be busy decoding pictures, and a
  /// signal must be seen at once.
  private static let queue = DispatchQueue(label: "catalogue.signals")

  /// From now on, a first signal asks for a clean stop.
  static func stopCleanly() { clean.store(true, ordering: .sequentiallyConsistent) }

  /// Handles SIGINT and SIGTERM on a dispatch queue (no work in a signal handler's context).
  static func install() {
    for number in [SIGINT, SIGTERM] {
      signal(number, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
      source.setEventHandler {
        if let undo = undoBeforeStop.withLock({ $0 }) {
          undo()
          _ = Terminal.write(STDERR_FILENO, "\ninterrupted: nothing was changed\n")
          _exit(128 + number)
        }
        if let stop = firstSignal.withLock({ $0 }) {
          if stopping.exchange(true, ordering: .sequentiallyConsistent) {
            _ = Terminal.write(STDERR_FILENO, "interrupted again: stopped at once\n")
            _exit(128 + number)
          }
          Thread.detachNewThread { stop(number) }
          return
        }
        if clean.load(ordering: .sequentiallyConsistent) && Interruption.signal == nil {
          Interruption.request(signal: number)
          return
        }
        Progress.shared.clear()
        let message =
          Interruption.signal == nil
          ? "interrupted: nothing was changed\n"
          : "interrupted again: stopped at once; `catalogue check` names anything left behind\n"
        _ = Terminal.write(STDERR_FILENO, message)
        _exit(128 + number)
      }
      source.resume()
      sources.append(source)
    }
  }
}
