@testable import Catalogue
import Dispatch
import Foundation
import Testing
import TestSupport

/// Commands clean up after themselves: what a failed, interrupted or racing command wrote goes
/// again, and readers wait for a busy writer instead of failing.
@Suite("Commands leave nothing behind", .serialized)
struct CleanupTests {
  @Test func anAttachThatLosesItsReviewToARemoveDeletesWhatItWrote() throws {
    let test = try TestLibrary()
    let review = try test.library.create(draft())
    let path = test.path
    let remover = DispatchGroup()
    let removed = LockedFlag()
    // While the attach has prepared its pictures (their files written, the shared lock held),
    // another connection deletes the review; its own cleanup waits for the lock.
    let report = Result { () throws(CatalogueError) -> AttachReport in
      try test.library.attach(
        files: ["baseline.jpg", "progressive.jpg", "rgb-8.png"].map(Fixture.image), to: review.id,
        jobs: 1,
        progress: { progress in
          guard progress.done == 3 else { return }
          DispatchQueue.global().async(group: remover) {
            do {
              _ = try Library(opening: path).delete(review.id)
              removed.set()
            } catch {
              Issue.record("the delete failed: \(error)")
            }
          }
          // The delete commits at once; only its file cleanup waits for the attach's lock.
          while (try? test.library.review(review.id)) != nil { usleep(1000) }
        })
    }
    #expect(throws: CatalogueError.reviewNotFound(review.id)) { try report.get() }
    remover.wait()
    #expect(removed.value)
    #expect(try test.library.unreferencedFiles() == [])
    #expect(try test.library.check().isHealthy)
  }

  @Test func checkWaitsForAWriterInsteadOfFailing() throws {
    let test = try TestLibrary()
    _ = try test.library.create(draft())
    let path = test.path
    // Another command holds the write lock and commits a change half a second later, while
    // the check has begun.
    let started = DispatchSemaphore(value: 0)
    let committed = DispatchSemaphore(value: 0)
    DispatchQueue.global().async {
      do {
        let writer = try Library(opening: path)
        try writer.database.execute("BEGIN IMMEDIATE")
        try writer.database.run("UPDATE reviews SET title = 'Changed while checking'")
        started.signal()
        usleep(500_000)
        try writer.database.execute("COMMIT")
      } catch {
        Issue.record("writer: \(error)")
        started.signal()
      }
      committed.signal()
    }
    started.wait()
    let report = try Library(opening: path).check()
    committed.wait()
    #expect(report.isHealthy, "\(report.findings)")
  }

  @Test func anInterruptedAttachRollsBackAndDeletesItsFiles() throws {
    let test = try TestLibrary()
    let review = try test.library.create(draft())
    let before = try snapshot(test.path + "/originals")
    defer { Interruption.request(signal: 0) }
    #expect(throws: CatalogueError.interrupted) {
      _ = try test.library.attach(
        files: ["baseline.jpg", "progressive.jpg", "rgb-8.png"].map(Fixture.image), to: review.id, jobs: 1,
        progress: { progress in if progress.done == 2 { Interruption.request(signal: SIGINT) } })
    }
    Interruption.request(signal: 0)
    #expect(try snapshot(test.path + "/originals") == before)
    #expect(try test.library.review(review.id).images.isEmpty)
    #expect(try test.library.check().isHealthy)
  }
}

/// A flag set on one thread and read on another.
final class LockedFlag: @unchecked Sendable {
  private let lock = NSLock()
  private var flag = false
  func set() { lock.withLock { flag = true } }
  var value: Bool { lock.withLock { flag } }
}
