import Glibc

/// Threads of the server's own (the connection reaper, the worker pool), started detached.
enum Threads {
  private final class Body {
    let run: @Sendable () -> Void
    init(_ run: @escaping @Sendable () -> Void) { self.run = run }
  }

  /// Runs `body` on a new thread with SIGPIPE blocked; false when no thread can be made.
  static func detach(_ body: @escaping @Sendable () -> Void) -> Bool {
    let box = Unmanaged.passRetained(Body(body)).toOpaque()
    var thread = pthread_t()
    let result = pthread_create(
      &thread, nil,
      { raw in
        guard let raw else { return nil }
        System.blockBrokenPipeSignal()
        Unmanaged<Body>.fromOpaque(raw).takeRetainedValue().run()
        return nil
      }, box)
    guard result == 0 else {
      Unmanaged<Body>.fromOpaque(box).release()
      return false
    }
    pthread_detach(thread)
    return true
  }
}
