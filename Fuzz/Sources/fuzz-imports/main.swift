import Catalogue

/// Feeds libFuzzer's input to each service's CSV export reader, as `catalogue import` reads a
/// file: the CSV parser (quotes, line ends, a BOM, bytes that are not UTF-8), the row mappers
/// (ratings, dates) and the review-HTML converter. Every input must come through without a
/// crash, a leak or a hang; the counts must add up.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
  let bytes = start.map { Array(UnsafeRawBufferPointer(start: $0, count: count)) } ?? []
  for source in ImportSource.allCases {
    if case .success(let survey) = source.survey(csv: bytes, file: "export.csv"),
      survey.entries < 0 || survey.skipped < 0 || survey.malformed < 0
    {
      fatalError("negative counts for \(source)")
    }
  }
  return 0
}
