import HTTP
import Synchronization

/// The pages readers were given, kept until the library changes: a grid page of 50 reviews
/// costs a millisecond or more to make from a library of 100,000, and readers ask for the same
/// few pages again and again.
///
/// Each page is kept with the library's *generation* when it was made, and given only while
/// the generation is still the same. The generation moves on whenever anything may have
/// changed: when a connection of the pool sees that another connection or process has
/// committed (the records' change token, SQLite's `data_version`, looked at by every
/// request), when the pool opens a new connection (which cannot tell what changed before it),
/// and after every write the server makes itself. So a page never outlives a change by more than the request that notices it:
/// the command line's change shows at the next request.
///
/// Only what anyone may see is kept: pages for readers without credentials. Bounded in bytes,
/// the page used longest ago goes first.
final class PageCache: Sendable {
  private struct Entry {
    var generation: UInt64
    var response: HTTPResponse
    var bytes: Int
    var used: UInt64
  }

  private struct State {
    var generation: UInt64 = 0
    var entries: [String: Entry] = [:]
    var bytes = 0
    var clock: UInt64 = 0
  }

  private let state = Mutex(State())
  let maximumBytes: Int

  init(maximumBytes: Int) {
    self.maximumBytes = maximumBytes
  }

  /// The library's generation now.
  var generation: UInt64 { state.withLock { $0.generation } }

  /// Something may have changed: every page kept so far is stale.
  func invalidate() {
    state.withLock { state in
      state.generation &+= 1
      state.entries.removeAll(keepingCapacity: true)
      state.bytes = 0
    }
  }

  /// The page kept for `key` if it was made at `generation`.
  func page(_ key: String, generation: UInt64) -> HTTPResponse? {
    state.withLock { state in
      guard var entry = state.entries[key], entry.generation == generation else { return nil }
      state.clock &+= 1
      entry.used = state.clock
      state.entries[key] = entry
      return entry.response
    }
  }

  /// Keeps `response` for `key`, made at `generation` (dropped if the library has moved on
  /// since).
  func keep(_ response: HTTPResponse, for key: String, generation: UInt64) {
    guard case .bytes(let body) = response.body else { return }
    let size = body.count + key.utf8.count + 256
    guard size <= maximumBytes / 8 else { return }
    state.withLock { state in
      guard state.generation == generation else { return }
      if let old = state.entries[key] { state.bytes -= old.bytes }
      state.clock &+= 1
      state.entries[key] = Entry(generation: generation, response: response, bytes: size, used: state.clock)
      state.bytes += size
      while state.bytes > maximumBytes, let oldest = state.entries.min(by: { $0.value.used < $1.value.used }) {
        state.bytes -= oldest.value.bytes
        state.entries[oldest.key] = nil
      }
    }
  }

  /// How many pages are kept.
  var count: Int { state.withLock { $0.entries.count } }
}
