// swift-tools-version: 6.1
// libFuzzer harnesses for the parsers that read untrusted bytes. Built and run only by
// Fuzz/run.sh (with --sanitize=fuzzer and address), never by the main package's build: each
// harness has no main of its own, libFuzzer provides it.
import PackageDescription

let package = Package(
  name: "catalogue-fuzz",
  dependencies: [.package(name: "catalogue", path: "..")],
  targets: [
    .executableTarget(
      name: "fuzz-jpeg", dependencies: [.product(name: "ImagePipeline", package: "catalogue")]),
    .executableTarget(
      name: "fuzz-png", dependencies: [.product(name: "ImagePipeline", package: "catalogue")]),
    .executableTarget(
      name: "fuzz-webp", dependencies: [.product(name: "ImagePipeline", package: "catalogue")]),
    .executableTarget(
      name: "fuzz-icc", dependencies: [.product(name: "ImagePipeline", package: "catalogue")]),
    .executableTarget(
      name: "fuzz-heif", dependencies: [.product(name: "ImagePipeline", package: "catalogue")]),
    .executableTarget(
      name: "fuzz-exif", dependencies: [.product(name: "ImagePipeline", package: "catalogue")]),
    .executableTarget(
      name: "fuzz-bundle", dependencies: [.product(name: "Catalogue", package: "catalogue")]),
    .executableTarget(
      name: "fuzz-markdown", dependencies: [.product(name: "Catalogue", package: "catalogue")]),
    .executableTarget(
      name: "fuzz-imports", dependencies: [.product(name: "Catalogue", package: "catalogue")]),
  ]
)
