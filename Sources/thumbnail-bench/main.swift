// Thumbnails files as fast as it can, for Benchmarks/thumbnail-bench.sh to time against
// vipsthumbnail. Plain Glibc file I/O and Dispatch, so that peak memory is the pipeline's.
//
//   thumbnail-bench [--jobs N] [--size 256] [--quality 85] [--square] [--progressive]
//                   [--lossless] [--chroma 444|420|auto] [--pair] --out DIR FILE...
//
// --pair makes what an import makes: the thumbnail and its 2× twin from one decode, the 2×
// one written as NAME@2x.EXT beside the other.

import Dispatch
import ImagePipeline
import Synchronization

@preconcurrency import Glibc

func fail(_ message: String) -> Never {
  fputs("thumbnail-bench: \(message)\n", stderr)
  exit(2)
}

func readFile(_ path: String) -> Result<[UInt8], FileError> {
  let descriptor = open(path, O_RDONLY | O_CLOEXEC)
  guard descriptor >= 0 else { return .failure(FileError(path: path, code: errno)) }
  defer { close(descriptor) }
  var status = stat()
  guard fstat(descriptor, &status) == 0 else { return .failure(FileError(path: path, code: errno)) }
  let size = Int(status.st_size)
  var failure: Int32 = 0
  let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
    var done = 0
    while done < size {
      let got = read(descriptor, buffer.baseAddress! + done, size - done)
      if got < 0 && errno == EINTR { continue }
      if got <= 0 {
        failure = got < 0 ? errno : EIO
        break
      }
      done += got
    }
    count = done
  }
  return failure == 0 ? .success(bytes) : .failure(FileError(path: path, code: failure))
}

func writeFile(_ path: String, _ bytes: [UInt8]) -> FileError? {
  let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
  guard descriptor >= 0 else { return FileError(path: path, code: errno) }
  defer { close(descriptor) }
  var done = 0
  while done < bytes.count {
    let wrote = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + done, bytes.count - done) }
    if wrote < 0 && errno == EINTR { continue }
    if wrote <= 0 { return FileError(path: path, code: errno) }
    done += wrote
  }
  return nil
}

struct FileError: Error, CustomStringConvertible {
  var path: String
  var code: Int32
  var description: String { "\(path): \(String(cString: strerror(code)))" }
}

func monotonicSeconds() -> Double {
  var now = timespec()
  clock_gettime(CLOCK_MONOTONIC, &now)
  return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

var jobs = sysconf(Int32(_SC_NPROCESSORS_ONLN))
var spec = ThumbnailSpec.default
var outputFolder: String?
var lossless = false  // PNG thumbnails: scores the resampling alone, without JPEG's loss
var chroma: Bool? = nil  // --chroma 444 or 420 overrides the pipeline's choice, to measure both
var pair = false  // --pair: the 1× and 2× thumbnails, as a library makes them
var files: [String] = []
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
  func value() -> String {
    guard let value = arguments.popFirst() else { fail("\(argument) needs a value") }
    return value
  }
  func number() -> Int {
    guard let number = Int(value()) else { fail("\(argument) takes a whole number") }
    return number
  }
  switch argument {
  case "--jobs": jobs = number()
  case "--size": spec.longestEdge = number()
  case "--quality": spec.quality = number()
  case "--square": spec.mode = .square
  case "--progressive": spec.progressive = true
  case "--lossless": lossless = true
  case "--pair": pair = true
  case "--chroma":
    switch value() {
    case "444": chroma = true
    case "420": chroma = false
    case "auto": chroma = nil
    default: fail("--chroma takes 444, 420 or auto")
    }
  case "--out": outputFolder = value()
  default:
    if argument.hasPrefix("--") { fail("unknown option \(argument)") }
    files.append(argument)
  }
}
guard let outputFolder else { fail("usage: thumbnail-bench [--jobs N] [--size N] --out DIR FILE...") }
guard spec.problems.isEmpty else { fail(spec.problems.joined(separator: "; ")) }
guard jobs >= 1 else { fail("--jobs must be at least 1") }
if mkdir(outputFolder, 0o755) != 0 && errno != EEXIST {
  fail("cannot create \(outputFolder): \(String(cString: strerror(errno)))")
}

struct Totals {
  var images = 0
  var megapixels = 0.0
  var failures: [String] = []
}

let next = Atomic<Int>(0)
let totals = Mutex(Totals())
let allFiles = files
let thumbnailSpec = spec
let losslessOutput = lossless
let fullChroma = chroma
let makesPair = pair
let start = monotonicSeconds()
let group = DispatchGroup()
for _ in 0..<jobs {
  DispatchQueue.global().async(group: group) {
    while true {
      let index = next.add(1, ordering: .relaxed).oldValue
      guard index < allFiles.count else { return }
      let path = allFiles[index]
      let outcome: Result<(Int, String), any Error> = Result {
        let bytes = try readFile(path).get()
        let header: ImageHeader
        let encoded: [UInt8]
        let format: ImageFormat
        var highDensity: [UInt8]?
        if makesPair {
          let made = try ImagePipeline.thumbnails(bytes, spec: thumbnailSpec)
          (header, encoded, format) = (made.header, made.thumbnail.bytes, made.thumbnail.format)
          highDensity = made.highDensity.bytes
        } else if losslessOutput {
          let image = try ImagePipeline.thumbnailPixels(bytes, spec: thumbnailSpec)
          (header, encoded, format) = (image.header, try ImagePipeline.encodePNG(image.pixels), .png)
        } else if let fullChroma {
          let image = try ImagePipeline.thumbnailPixels(bytes, spec: thumbnailSpec)
          let jpeg = try ImagePipeline.encodeJPEG(
            image.pixels, quality: thumbnailSpec.quality, progressive: thumbnailSpec.progressive,
            fullChroma: fullChroma)
          (header, encoded, format) = (image.header, jpeg, .jpeg)
        } else {
          let processed = try ImagePipeline.thumbnail(bytes, spec: thumbnailSpec)
          (header, encoded, format) = (processed.header, processed.thumbnail.bytes, processed.thumbnail.format)
        }
        let name = path.split(separator: "/").last.map(String.init) ?? path
        let stem = name.split(separator: ".", omittingEmptySubsequences: false).dropLast().joined(separator: ".")
        let target = "\(outputFolder)/\(stem.isEmpty ? name : stem).\(format.fileExtension)"
        if let error = writeFile(target, encoded) { throw error }
        if let highDensity {
          let twin = "\(outputFolder)/\(stem.isEmpty ? name : stem)@2x.\(format.fileExtension)"
          if let error = writeFile(twin, highDensity) { throw error }
        }
        return (header.width * header.height, target)
      }
      totals.withLock { totals in
        switch outcome {
        case .success(let (pixels, _)):
          totals.images += 1
          totals.megapixels += Double(pixels) / 1e6
        case .failure(let error):
          totals.failures.append("\(path): \(error)")
        }
      }
    }
  }
}
group.wait()
let seconds = monotonicSeconds() - start
let result = totals.withLock { $0 }
for failure in result.failures { fputs("thumbnail-bench: \(failure)\n", stderr) }
func rounded(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }
print(
  "images=\(result.images) megapixels=\(rounded(result.megapixels)) seconds=\(rounded(seconds)) "
    + "jobs=\(jobs) images_per_s=\(rounded(Double(result.images) / seconds)) "
    + "megapixels_per_s=\(rounded(result.megapixels / seconds))")
exit(result.failures.isEmpty ? 0 : 1)
