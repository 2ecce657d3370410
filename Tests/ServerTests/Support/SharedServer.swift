import Testing

/// One server for all the tests of a suite that only read: started before the first test on a
/// library `prepare` fills, stopped after the last. Each suite that has the trait gets a
/// server (and a library) of its own.
struct SharedServer: SuiteTrait, TestScoping {
  /// The server of the suite being run.
  @TaskLocal static var current: ServeProcess?

  let arguments: [String]
  let prepare: @Sendable (TestLibrary) throws -> Void

  var isRecursive: Bool { false }

  func provideScope(
    for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
  ) async throws {
    let server = try ServeProcess(arguments: arguments, prepare: prepare)
    defer { server.stop() }
    try await Self.$current.withValue(server) { try await function() }
  }

  /// The suite's server; a test run outside its suite's scope fails here.
  static var server: ServeProcess {
    get throws { try #require(current, "the suite has no shared server") }
  }
}

extension Trait where Self == SharedServer {
  /// A server shared by the suite's tests, on a library `prepare` fills.
  static func sharedServer(
    arguments: [String] = [], prepare: @escaping @Sendable (TestLibrary) throws -> Void
  ) -> Self {
    SharedServer(arguments: arguments, prepare: prepare)
  }
}
