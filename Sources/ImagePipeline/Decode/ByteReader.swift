/// Where a picture's bytes come from when they are not all in memory: a file read once, from
/// its first byte to its last, as the decoder asks for them.
///
/// The pipeline reads each byte once, in order, and never asks for one again: a source can hand
/// every chunk it reads to whatever else needs the same bytes (a hash, a copy) on the way.
public protocol PictureSource: AnyObject {
  /// Copies the next bytes of the picture into `buffer`: how many, at most `buffer.count` and at
  /// least one unless the picture has ended. 0: the end.
  ///
  /// A source that cannot go on (a read failed, the file grew past a limit) returns 0 and keeps
  /// why for its owner to say: to the pipeline, the picture ends there.
  func read(into buffer: UnsafeMutableRawBufferPointer) -> Int

  /// How many bytes the picture has, when known: a decoder that needs all of them in memory at
  /// once (WebP, HEIF) then takes them in one allocation of the right size.
  var size: Int? { get }
}

extension PictureSource {
  public var size: Int? { nil }
}

/// A picture's bytes as a decoder reads them: from memory, or from a ``PictureSource`` a chunk
/// at a time, read ahead only as far as a decoder asks.
///
/// Decoders take bytes with ``next(upTo:)`` (in place, no copy) or ``read(into:)``; a decoder
/// that must look ahead before it starts (a PNG's chunks before its image data) prefetches, and
/// the bytes prefetched are read again from memory. Observers (``observe(_:)``) see every byte
/// once, in order, as it arrives: a walk of the file's structure that needs what the decoder
/// skips (a JPEG's APP segments, a PNG's chunks after its image data) runs beside the decoder
/// instead of over a copy of the file. Not `Sendable`: one decode, one thread.
final class ByteReader {
  /// How much is asked of a source at a time: below glibc's threshold for a mapping of its
  /// own, so that the buffer comes from the heap and its pages are reused.
  static let chunkSize = 64 * 1024

  private let source: (any PictureSource)?
  /// The bytes read and not yet taken are `storage[start..<end]`; owned when there is a source,
  /// the caller's memory otherwise.
  private var storage: UnsafeMutableRawPointer?
  private var capacity: Int
  private var start = 0
  private var end: Int
  /// Whether the source has nothing more: every byte of the picture has been read.
  private(set) var atEnd: Bool
  /// How many bytes were taken (handed to a decoder) so far.
  private(set) var taken = 0
  private var observers: [(UnsafeRawBufferPointer) -> Void] = []

  /// The picture in memory, which must stay valid as long as the reader is used.
  init(memory: UnsafeRawBufferPointer) {
    source = nil
    storage = UnsafeMutableRawPointer(mutating: memory.baseAddress)
    capacity = memory.count
    end = memory.count
    atEnd = true
  }

  /// The picture as `source` gives it.
  init(source: any PictureSource) {
    self.source = source
    storage = nil
    capacity = 0
    end = 0
    atEnd = false
  }

  deinit {
    if source != nil { storage?.deallocate() }
  }

  /// The bytes read ahead and not yet taken.
  var available: UnsafeRawBufferPointer {
    UnsafeRawBufferPointer(start: storage.map { $0 + start }, count: end - start)
  }

  /// Calls `observer` with every byte of the picture, in order, each once: at once with those
  /// read so far, then with each chunk as it is read. Only before any byte is taken, so that
  /// the observer misses none.
  func observe(_ observer: @escaping (UnsafeRawBufferPointer) -> Void) {
    precondition(taken == 0, "an observer must see the picture from its first byte")
    if end > 0 { observer(UnsafeRawBufferPointer(start: storage, count: end)) }
    observers.append(observer)
  }

  /// Reads ahead until at least `count` bytes are available, or the picture has ended.
  func prefetch(atLeast count: Int) {
    while end - start < count && fetch() {}
  }

  /// Reads ahead while `more` says so and the picture has not ended, keeping every byte read
  /// (memory grows with them): for a decoder that must see what lies ahead before it starts.
  func prefetch(while more: () -> Bool) {
    while more() && fetch() {}
  }

  /// The next bytes, at most `limit`, in place: valid until the reader is next used. `nil` at
  /// the end of the picture.
  func next(upTo limit: Int) -> UnsafeRawBufferPointer? {
    if start == end && !fetch() { return nil }
    let count = min(limit, end - start)
    let piece = UnsafeRawBufferPointer(start: storage.map { $0 + start }, count: count)
    start += count
    taken += count
    return piece
  }

  /// Copies the next bytes into `buffer`: as many as it holds unless the picture ends first.
  func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
    var copied = 0
    while copied < buffer.count, let piece = next(upTo: buffer.count - copied) {
      buffer.baseAddress!.advanced(by: copied).copyMemory(from: piece.baseAddress!, byteCount: piece.count)
      copied += piece.count
    }
    return copied
  }

  /// Passes over the next `count` bytes (observers see them); how many there were.
  @discardableResult
  func skip(_ count: Int) -> Int {
    var skipped = 0
    while skipped < count, let piece = next(upTo: count - skipped) { skipped += piece.count }
    return skipped
  }

  /// Every byte not yet taken, read to the end of the picture and held in memory (no copy when
  /// the picture is in memory already): for the decoders that need the whole file at once.
  /// Valid until the reader is next used.
  func readAll() -> UnsafeRawBufferPointer {
    if let size = source?.size {
      // Room for the rest in one allocation, and one byte more to find the end.
      makeRoom(max(size - taken - (end - start), 0) + 1)
    }
    while fetch() {}
    return next(upTo: Int.max) ?? UnsafeRawBufferPointer(start: nil, count: 0)
  }

  /// Reads to the end of the picture, keeping nothing, so that observers see every byte.
  func drain() {
    while next(upTo: Int.max) != nil {}
  }

  /// Reads one more chunk from the source; `false` at the end.
  private func fetch() -> Bool {
    guard let source, !atEnd else { return false }
    if start == end {
      // Nothing is waiting to be taken: the buffer starts again from its beginning.
      start = 0
      end = 0
    }
    if end == capacity { makeRoom(Self.chunkSize) }
    let room = UnsafeMutableRawBufferPointer(start: storage! + end, count: min(capacity - end, Self.chunkSize))
    let got = source.read(into: room)
    guard got > 0 else {
      atEnd = true
      return false
    }
    let fresh = UnsafeRawBufferPointer(start: storage! + end, count: got)
    for observer in observers { observer(fresh) }
    end += got
    return true
  }

  /// Makes room for at least `count` more bytes after those waiting to be taken.
  private func makeRoom(_ count: Int) {
    let waiting = end - start
    guard capacity - end < count else { return }
    if let storage, capacity - waiting >= count {
      // The regions may overlap: copyMemory moves.
      storage.copyMemory(from: storage + start, byteCount: waiting)
    } else {
      let size = max(capacity * 2, waiting + count)
      let grown = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
      if let storage {
        grown.copyMemory(from: storage + start, byteCount: waiting)
        storage.deallocate()
      }
      storage = grown
      capacity = size
    }
    start = 0
    end = waiting
  }
}
