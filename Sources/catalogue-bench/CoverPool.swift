import Catalogue
import Dispatch
import ImagePipeline
import Synchronization

/// Distinct pictures for the reviews of a benchmark library, drawn here rather than copied from
/// anywhere: a gradient under a few hundred rectangles and discs, with a little grain, so that
/// each thumbnail has edges and texture to encode (about the bytes of a photograph's) and no
/// two pictures share a hash. Picture `n` is the same in every run.
enum CoverPool {
  static let width = 960
  static let height = 640

  /// Pictures `0..<count`, each read, hashed and thumbnailed as an import would, made on every
  /// core.
  static func prepare(count: Int, library: Library) throws(CatalogueError) -> [PreparedImage] {
    let spec = library.thumbnailSpec
    let options = library.decodeOptions
    let made = Mutex<[Int: Result<PreparedImage, CatalogueError>]>([:])
    DispatchQueue.concurrentPerform(iterations: count) { index in
      let result = Result { () throws(CatalogueError) -> PreparedImage in
        let name = "cover-\(index).jpg"
        let bytes: [UInt8]
        do throws(ImageError) {
          bytes = try ImagePipeline.encodeJPEG(picture(index), quality: 88)
        } catch {
          throw .imageRejected(file: name, reason: error)
        }
        return try PreparedImage.make(bytes: bytes, source: name, spec: spec, options: options)
      }
      made.withLock { $0[index] = result }
    }
    let results = made.withLock { $0 }
    var pictures: [PreparedImage] = []
    for index in 0..<count {
      pictures.append(try results[index]!.get())
    }
    return pictures
  }

  /// The pixels of picture `index`.
  static func picture(_ index: Int) -> PixelBuffer {
    var random = SplitMix64(seed: UInt64(index) &* 0x9E37_79B9_7F4A_7C15 &+ 1)
    var pixels = [UInt8](repeating: 0, count: width * height * 3)
    let top = (0..<3).map { _ in Int(random.next() % 256) }
    let bottom = (0..<3).map { _ in Int(random.next() % 256) }
    pixels.withUnsafeMutableBufferPointer { buffer in
      for y in 0..<height {
        for channel in 0..<3 {
          let value = UInt8((top[channel] * (height - 1 - y) + bottom[channel] * y) / (height - 1))
          var offset = y * width * 3 + channel
          for _ in 0..<width {
            buffer[offset] = value
            offset += 3
          }
        }
      }
      // A few large shapes, then many small ones: detail at the thumbnail's scale too.
      for shape in 0..<300 {
        let colour = (0..<3).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        let size = shape < 30 ? 40 + Int(random.next() % 140) : 3 + Int(random.next() % 24)
        let centreX = Int(random.next() % UInt64(width))
        let centreY = Int(random.next() % UInt64(height))
        let disc = shape % 2 == 0
        for y in max(0, centreY - size)..<min(height, centreY + size) {
          for x in max(0, centreX - size)..<min(width, centreX + size) {
            let dx = x - centreX
            let dy = y - centreY
            if disc && dx * dx + dy * dy > size * size { continue }
            let offset = (y * width + x) * 3
            buffer[offset] = colour[0]
            buffer[offset + 1] = colour[1]
            buffer[offset + 2] = colour[2]
          }
        }
      }
      // Grain: a sensor's noise, a few levels either way.
      var offset = 0
      while offset < buffer.count {
        let noise = random.next()
        for lane in 0..<8 where offset + lane < buffer.count {
          let delta = Int((noise >> (lane * 8)) & 0x0F) - 8
          buffer[offset + lane] = UInt8(clamping: Int(buffer[offset + lane]) + delta)
        }
        offset += 8
      }
    }
    return PixelBuffer(width: width, height: height, channels: 3, pixels: pixels)
  }
}

/// A small, fast generator whose sequence depends on its seed alone (Steele, Lea and Flood's
/// SplitMix64), so that picture `n` comes out the same on every machine.
struct SplitMix64: RandomNumberGenerator {
  var state: UInt64

  init(seed: UInt64) { state = seed }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var value = state
    value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
    value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
    return value ^ (value >> 31)
  }
}

/// The library's own file store, except that a file already there whole is not written again.
/// Files are named by their content, so one of the right size is that content: a picture that
/// a thousand reviews share costs its durable writes once, and each later review only its
/// links (one transaction).
final class LinkingFileStore: FileStore {
  private let local: LocalFileStore

  init(root: String) {
    local = LocalFileStore(root: root)
  }

  func write(_ bytes: [UInt8], to path: String) throws(CatalogueError) {
    if local.size(of: path) == bytes.count { return }
    try local.write(bytes, to: path)
  }

  func stage(_ bytes: [UInt8], for path: String) throws(CatalogueError) -> StagedFile {
    try local.stage(bytes, for: path)
  }

  func publish(_ files: [StagedFile]) throws(CatalogueError) { try local.publish(files) }
  func discard(_ files: [StagedFile]) { local.discard(files) }
  func size(of path: String) -> Int? { local.size(of: path) }
  func read(_ path: String) throws(CatalogueError) -> [UInt8] { try local.read(path) }
  func digest(of path: String) throws(CatalogueError) -> String { try local.digest(of: path) }
  func incoming() throws(CatalogueError) -> IncomingFile { try local.incoming() }
  func place(_ file: IncomingFile, at path: String) throws(CatalogueError) { try local.place(file, at: path) }
  func move(_ path: String, to destination: String) throws(CatalogueError) { try local.move(path, to: destination) }
  func remove(_ path: String) throws(CatalogueError) { try local.remove(path) }
  func removeFolderIfEmpty(_ path: String) throws(CatalogueError) { try local.removeFolderIfEmpty(path) }
  func names(in folder: String) throws(CatalogueError) -> [String] { try local.names(in: folder) }
  func makeEmptyRoot() throws(CatalogueError) { try local.makeEmptyRoot() }
  func files(under folder: String) throws(CatalogueError) -> [String] { try local.files(under: folder) }
  func location(of path: String) -> String { local.location(of: path) }
}
