import Foundation
@testable import ImagePipeline
import Testing
import TestSupport

/// The inputs the fuzzers found (Fixtures/fuzz/TARGET/, see Fixtures/README.md): each goes
/// through the whole pipeline and ends in a result or an `ImageError`, never a crash. Run the
/// suite under AddressSanitizer (README) to see memory errors as well as crashes.
@Suite("Inputs the fuzzers found")
struct FuzzRegressionTests {
  static let inputs: [String] = {
    let root = Fixture.root.appendingPathComponent("fuzz")
    let targets = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
    return targets.sorted().flatMap { target in
      ((try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(target).path)) ?? [])
        .sorted().map { "\(target)/\($0)" }
    }
  }()

  @Test func thereAreSome() {
    #expect(Self.inputs.contains("heif/tile-thread-after-free.avif"))
  }

  @Test(arguments: inputs)
  func anInputTheFuzzerFoundEndsCleanly(input: String) throws {
    let bytes = [UInt8](try Data(contentsOf: Fixture.root.appendingPathComponent("fuzz/\(input)")))
    let options = DecodeOptions(pixelBudget: 4_000_000)
    _ = try? ImagePipeline.readHeader(bytes)
    _ = try? ImagePipeline.decode(bytes, options: options)
    _ = try? ImagePipeline.thumbnail(bytes, spec: ThumbnailSpec(longestEdge: 32), options: options)
  }
}
