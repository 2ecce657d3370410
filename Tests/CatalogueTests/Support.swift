@testable import Catalogue
import Foundation
import Testing
import TestSupport

extension Library {
  /// The SQLite connection under the records, for tests that edit a library by hand.
  var database: Database { (records as! SQLiteRecords).database }
}

/// A library in a fresh temporary folder.
struct TestLibrary {
  let folder = TemporaryFolder()
  let library: Library

  init() throws {
    library = try Library.create(at: "\(folder.path)/Library")
  }

  var path: String { library.path }
}

/// Every file below `folder` with its bytes, to show that nothing changed.
func snapshot(_ folder: String) throws -> [String: Data] { try fileSnapshot(folder) }

func draft(
  _ title: String = "A title", rating: Int = 4, category: String = "movie", body: String = "Body text.",
  favorite: Bool = false
) -> ReviewDraft {
  ReviewDraft(title: title, body: body, rating: rating, category: category, favorite: favorite)
}

/// Every record's files exist with the recorded size: the promise the write protocol keeps.
func expectNoDanglingRecords(_ library: Library, sourceLocation: SourceLocation = #_sourceLocation) throws {
  let page = try library.list(ReviewQuery(limit: ReviewQuery.maximumLimit))
  for summary in page.reviews {
    for image in try library.review(summary.id).images {
      #expect(
        library.files.size(of: image.image.original) == image.image.bytes, "\(image.image.original) missing",
        sourceLocation: sourceLocation)
      #expect(
        library.files.size(of: image.image.thumbnail) != nil, "\(image.image.thumbnail) missing",
        sourceLocation: sourceLocation)
    }
  }
}
