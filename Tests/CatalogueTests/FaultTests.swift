@testable import Catalogue
import Foundation
import Synchronization
import Glibc
import ImagePipeline
import Testing
import TestSupport

@Suite("Faults leave the old state or the new one, never a dangling record")
struct FaultTests {
  /// A library with one review holding one image, and two more pictures to attach.
  static func setUp() throws -> (TestLibrary, Review) {
    let test = try TestLibrary()
    let review = try test.library.create(draft())
    _ = try test.library.attach(files: [Fixture.image("baseline.jpg")], to: review.id)
    return (test, try test.library.review(review.id))
  }

  static let newFiles = [Fixture.image("progressive.jpg"), Fixture.image("rgb-8.png")]

  @Test(arguments: FileStep.allCases)
  func aFailedWriteStepLinksNothing(step: FileStep) throws {
    let (test, before) = try Self.setUp()
    let store = try #require(test.library.files as? LocalFileStore)
    let calls = Atomic<Int>(0)
    store.faultHook = { (current, path) throws(CatalogueError) in
      guard current == step else { return }
      // Fail the second time the step comes, so that some files are already written; a new
      // shard folder may be made only once, so that step fails the first time.
      if calls.add(1, ordering: .relaxed).newValue == (step == .createFolder ? 1 : 2) {
        throw .io(operation: .write, path: path, code: ENOSPC)
      }
    }
    let error = #expect(throws: CatalogueError.self) {
      _ = try test.library.attach(files: Self.newFiles, to: before.id)
    }
    #expect(error?.description.hasSuffix("No space left on device") == true, "\(String(describing: error))")
    #expect(try test.library.review(before.id) == before)
    store.faultHook = nil
    try expectNoDanglingRecords(test.library)
    // What the failed attach wrote went again.
    #expect(try test.library.check().isHealthy)
    // The error path removes its temporary file.
    let leftovers = try test.library.storedFiles().filter(Library.isTemporary)
    #expect(leftovers.isEmpty)
  }

  /// A rebuild stages every thumbnail, then publishes them as one group: a failure at any step
  /// of either half keeps the old spec and its thumbnails, and leaves no file behind.
  @Test(arguments: [FileStep.createTemporary, .write, .syncFile, .rename, .syncFolder])
  func aRebuildThatFailsKeepsTheOldThumbnails(step: FileStep) throws {
    let (test, review) = try Self.setUp()
    _ = try test.library.attach(files: Self.newFiles, to: review.id)
    let before = try snapshot(test.path)
    let store = try #require(test.library.files as? LocalFileStore)
    let calls = Atomic<Int>(0)
    store.faultHook = { (current, path) throws(CatalogueError) in
      guard current == step else { return }
      // The second time the step comes, so that some thumbnails are already staged or renamed;
      // the group's two syncs come once each.
      if calls.add(1, ordering: .relaxed).newValue == (step == .syncFile || step == .syncFolder ? 1 : 2) {
        throw .io(operation: .write, path: path, code: ENOSPC)
      }
    }
    let error = #expect(throws: CatalogueError.self) {
      _ = try test.library.rebuildThumbnails(spec: ThumbnailSpec(longestEdge: 64), jobs: 1)
    }
    store.faultHook = nil
    #expect(calls.load(ordering: .relaxed) >= 1, "the fault never happened")
    #expect(error?.description.hasSuffix("No space left on device") == true, "\(String(describing: error))")
    #expect(test.library.thumbnailSpec == .default)
    // Every file but the database's is as it was: no new thumbnail, no temporary file.
    let files = { (all: [String: Data]) in all.filter { !$0.key.hasPrefix(LibraryLayout.database) } }
    #expect(files(try snapshot(test.path)) == files(before))
    #expect(try test.library.check().isHealthy)
  }

  @Test func aFailureBeforeCommitLeavesNothingBehind() throws {
    let (test, before) = try Self.setUp()
    let path = test.path  // not `test`, which holds the library: no cycle through the hook
    test.library.beforeCommitHook = { () throws(CatalogueError) in
      throw .io(operation: .commit, path: path, code: EIO)
    }
    #expect(throws: CatalogueError.io(operation: .commit, path: test.path, code: EIO)) {
      try test.library.attach(files: Self.newFiles, to: before.id)
    }
    test.library.beforeCommitHook = nil
    #expect(try test.library.review(before.id) == before)
    try expectNoDanglingRecords(test.library)
    // Two originals and two thumbnails were written, and deleted again when the link failed.
    #expect(try test.library.unreferencedFiles().isEmpty)
    #expect(try test.library.check().isHealthy)
    // And the attach works when tried again.
    #expect(try test.library.attach(files: Self.newFiles, to: before.id).attached.count == 2)
    try expectNoDanglingRecords(test.library)
  }

  @Test func aReplaceThatFailsKeepsTheOldImage() throws {
    let (test, before) = try Self.setUp()
    let path = test.path  // not `test`, which holds the library: no cycle through the hook
    test.library.beforeCommitHook = { () throws(CatalogueError) in
      throw .io(operation: .commit, path: path, code: EIO)
    }
    #expect(throws: CatalogueError.io(operation: .commit, path: path, code: EIO)) {
      try test.library.replace(before.id, image: "1", with: Self.newFiles[0])
    }
    test.library.beforeCommitHook = nil
    #expect(try test.library.review(before.id) == before)
    try expectNoDanglingRecords(test.library)
    #expect(try test.library.check().isHealthy)
  }

  @Test func diskFullIsAClearError() {
    let error = CatalogueError.io(operation: .write, path: "/lib/originals/ab/x.jpg", code: ENOSPC)
    #expect(error.description == "cannot write /lib/originals/ab/x.jpg: No space left on device")
    // Said of the library, where the command line and the server name it.
    #expect(
      error.saidOfLibrary("/lib").description
        == "the disk holding /lib is full: free some space and try again (nothing was changed)")
    let denied = CatalogueError.io(operation: .create, path: "/lib/originals/ab/.tmp-x", code: EACCES)
    #expect(
      denied.description
        == "cannot create /lib/originals/ab/.tmp-x: the folder /lib/originals/ab may not be written by you "
        + "(another user's, or its permissions say so); nothing was changed")
    #expect(denied.saidOfLibrary("/lib") == denied)
  }
}

@Suite("Two writers at once")
struct ConcurrencyTests {
  @Test func twoConnectionsWritingAtOnceLoseNothing() throws {
    let test = try TestLibrary()
    let path = test.path
    let pictures = ["baseline.jpg", "progressive.jpg", "rgb-8.png", "grayscale.jpg"].map(Fixture.image)
    let failures = Mutex<[String]>([])
    DispatchQueue.concurrentPerform(iterations: 2) { writer in
      do {
        let library = try Library(opening: path)
        for index in 0..<15 {
          let review = try library.create(draft("Writer \(writer) review \(index)"))
          let report = try library.attach(
            files: [pictures[(writer * 2 + index) % pictures.count]], to: review.id, jobs: 1)
          if report.attached.count != 1 { failures.withLock { $0.append("\(report.failures)") } }
        }
      } catch {
        failures.withLock { $0.append("writer \(writer): \(error)") }
      }
    }
    #expect(failures.withLock { $0 } == [])
    let page = try test.library.list(ReviewQuery(limit: 100))
    #expect(page.total == 30)
    #expect(Set(page.reviews.map(\.title)).count == 30)
    #expect(page.reviews.allSatisfy { $0.imageCount == 1 })
    try expectNoDanglingRecords(test.library)
    #expect(try test.library.unreferencedFiles().isEmpty)
  }
}

@Suite("The library lock")
struct LockTests {
  @Test func aThreadHoldingTheLockSharedCannotWaitForItselfExclusively() throws {
    let test = try TestLibrary()
    do {
      let shared = try LibraryLock(folder: test.path, mode: .shared)
      #expect(
        throws: CatalogueError.internalFailure(
          "the library lock of \(test.path) was asked for exclusive while this process holds it shared")
      ) { try LibraryLock(folder: test.path, mode: .exclusive) }
      withExtendedLifetime(shared) {}
    }
    // Released, the exclusive lock is there to take.
    let exclusive = try LibraryLock(folder: test.path, mode: .exclusive)
    withExtendedLifetime(exclusive) {}
  }
}
