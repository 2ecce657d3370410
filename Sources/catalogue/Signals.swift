import Catalogue
import Dispatch
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
    "init", "add", "edit", "remove", "attach", "replace", "detach", "cover", "move", "thumbnails",
    "import-bundle", "upgrade",
  ]

  private static let clean = Atomic<Bool>(false)
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
