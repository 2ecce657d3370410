// swift-tools-version: 6.1
import PackageDescription

let swiftSettings: [SwiftSetting] = [
  .enableUpcomingFeature("ExistentialAny"),
  .enableUpcomingFeature("InternalImportsByDefault"),
  .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
  name: "catalogue",
  products: [
    .library(name: "ImagePipeline", targets: ["ImagePipeline"]),
    .library(name: "Catalogue", targets: ["Catalogue"]),
    .library(name: "HTTP", targets: ["HTTP"]),
    .library(name: "Server", targets: ["Server"]),
    .executable(name: "catalogue", targets: ["catalogue"]),
  ],
  targets: [
    // System libraries: one C module each, found through pkg-config.
    .systemLibrary(name: "CLibJPEG", pkgConfig: "libjpeg", providers: [.apt(["libjpeg-dev"])]),
    .systemLibrary(name: "CLibPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
    .systemLibrary(name: "CSQLite3", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
    .systemLibrary(name: "CLibCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
    .systemLibrary(name: "CCMark", pkgConfig: "libcmark", providers: [.apt(["libcmark-dev"])]),
    .systemLibrary(name: "CLibWebP", pkgConfig: "libwebpdemux", providers: [.apt(["libwebp-dev"])]),
    .systemLibrary(name: "CLCMS2", pkgConfig: "lcms2", providers: [.apt(["liblcms2-dev"])]),
    .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
    .systemLibrary(
      name: "CLibMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
    .systemLibrary(name: "CSodium", pkgConfig: "libsodium", providers: [.apt(["libsodium-dev"])]),
    .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),

    // libjpeg reports fatal errors by longjmp: the setjmp lives in these C entry points.
    .target(name: "CJPEGShims", dependencies: ["CLibJPEG"]),
    // libpng, too: its row API, with the chunk limits set before any chunk is read.
    .target(name: "CPNGShims", dependencies: ["CLibPNG"]),
    // libheif, opened with dlopen the first time a HEIF is met: its codecs cost every process
    // about 5 ms and 5 MiB at start-up otherwise.
    .target(name: "CHeifShims"),
    .target(name: "CArchiveShims"),
    // Pango and Cairo, opened with dlopen the first time a share card is drawn: with them come
    // GLib, HarfBuzz, fontconfig and FreeType, which no other command needs.
    .target(name: "CCardShims"),
    // System calls glibc declares only for _GNU_SOURCE (syncfs), for the system-call room.
    .target(name: "CSystemShims"),
    // libmicrohttpd's variadic calls (MHD_start_daemon, MHD_get_connection_info) and its
    // callbacks, behind fixed C signatures.
    .target(name: "CMicroHTTPDShims", dependencies: ["CLibMicroHTTPD"]),
    // The relevance ranking of searches: an FTS5 auxiliary function, which SQLite calls back
    // through C function pointers for every row it scores.
    .target(name: "CSQLiteShims", dependencies: ["CSQLite3"]),

    .target(
      name: "ImagePipeline",
      dependencies: ["CJPEGShims", "CLibJPEG", "CPNGShims", "CLibPNG", "CLibWebP", "CHeifShims", "CLCMS2", "CZlib"],
      // Optimised in debug builds too: its loops over every pixel run a hundred times slower
      // unoptimised, and the tests decode and thumbnail hundreds of pictures.
      swiftSettings: swiftSettings + [.unsafeFlags(["-O"], .when(configuration: .debug))]
    ),

    .target(
      name: "Catalogue",
      dependencies: [
        "ImagePipeline", "CSQLite3", "CSQLiteShims", "CLibCrypto", "CCMark", "CArchiveShims", "CSystemShims", "CSodium",
        "CCardShims", "CLibPQ",
      ],
      swiftSettings: swiftSettings
    ),

    // HTTP on libmicrohttpd: requests and responses as values, routing, uploads streamed to
    // files, limits, logging and a clean stop. Knows nothing of reviews.
    .target(
      name: "HTTP",
      dependencies: ["CMicroHTTPDShims", "CLibMicroHTTPD", "CSystemShims"],
      swiftSettings: swiftSettings
    ),

    // The catalogue in a browser and a JSON API: pages, sign-in, handlers over the library.
    // Knows HTTP only as the HTTP module's values, never libmicrohttpd.
    .target(
      name: "Server",
      dependencies: ["HTTP", "Catalogue", "ImagePipeline"],
      swiftSettings: swiftSettings
    ),

    // The command line: argument parsing and output only.
    .executableTarget(
      name: "catalogue",
      dependencies: ["Catalogue", "ImagePipeline", "HTTP", "Server"],
      swiftSettings: swiftSettings
    ),

    // Thumbnail throughput benchmark (see Benchmarks/README.md); not part of the tests.
    .executableTarget(
      name: "thumbnail-bench",
      dependencies: ["ImagePipeline"],
      swiftSettings: swiftSettings
    ),

    // Record operations on a large library (see Benchmarks/README.md); not part of the tests.
    .executableTarget(
      name: "catalogue-bench",
      dependencies: ["Catalogue", "ImagePipeline"],
      swiftSettings: swiftSettings
    ),

    .testTarget(
      name: "ImagePipelineTests",
      dependencies: ["ImagePipeline", "TestSupport"],
      swiftSettings: swiftSettings
    ),
    // What the Catalogue and CLI tests share: temporary folders and the committed fixtures.
    .target(
      name: "TestSupport",
      path: "Tests/TestSupport",
      swiftSettings: swiftSettings
    ),
    .testTarget(
      name: "CLITests",
      dependencies: ["catalogue", "TestSupport", "ImagePipeline"],
      swiftSettings: swiftSettings
    ),
    // A client over sockets that the HTTP layer's tests and the server's share.
    .target(
      name: "HTTPTestSupport",
      dependencies: ["HTTP"],
      path: "Tests/HTTPTestSupport",
      swiftSettings: swiftSettings
    ),
    .testTarget(
      name: "HTTPTests",
      dependencies: ["HTTP", "HTTPTestSupport", "TestSupport"],
      swiftSettings: swiftSettings
    ),
    .testTarget(
      name: "ServerTests",
      dependencies: ["catalogue", "Server", "HTTP", "Catalogue", "ImagePipeline", "TestSupport", "HTTPTestSupport"],
      swiftSettings: swiftSettings
    ),
    .testTarget(
      name: "CatalogueTests",
      dependencies: ["Catalogue", "ImagePipeline", "TestSupport", "catalogue"],
      swiftSettings: swiftSettings
    ),
  ]
)
