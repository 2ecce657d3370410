/// The first 100 bytes of an SQLite database file (sqlite.org/fileformat.html, section 1.3),
/// and what can be set right in them when they are damaged.
///
/// Most of the header holds constants, or values a well-formed file allows only a few of: the
/// "SQLite format 3" string, the format versions, the payload fractions, the reserved bytes, the
/// text encoding and the schema format. Those are restored as SQLite writes them. A page size
/// that is not one is worked out from the file: the size in pages the header still gives, else
/// the sizes the file's length allows whose second page starts like a page of a b-tree; each
/// candidate is tried on a copy before one is written. What the header counts (changes, pages,
/// free pages, the schema cookie) is left alone: SQLite checks those itself.
enum DatabaseHeader {
  static let size = 100
  static let magic = Array("SQLite format 3\0".utf8)

  /// A header with its fixed fields restored, with what was wrong, or nil when nothing is.
  struct Repair {
    var header: [UInt8]
    var fixes: [String]
    /// The page sizes to try, most likely first (empty when the header's own is sound).
    var pageSizes: [Int]
  }

  /// What a repair of `header` (the first 100 bytes of a file of `fileSize` bytes) would set
  /// right; `pageStart(offset)` gives the first byte at `offset` in the file, for working out a
  /// lost page size. Nil when the header is sound, or too short to be one.
  static func repair(_ header: [UInt8], fileSize: Int, pageStart: (Int) -> UInt8?) -> Repair? {
    // An SQLite file is whole pages, and its first page is the schema's b-tree, whose header
    // follows the file's: a file that is not even that is another kind of file, not a damaged
    // header.
    guard header.count == size, fileSize % 512 == 0, let type = pageStart(size), [0x05, 0x0D].contains(type)
    else { return nil }
    var fixed = header
    var fixes: [String] = []
    func restore(_ range: Range<Int>, to bytes: [UInt8], _ what: String) {
      guard Array(fixed[range]) != bytes else { return }
      fixed.replaceSubrange(range, with: bytes)
      fixes.append(what)
    }
    restore(0..<16, to: magic, "the \"SQLite format 3\" string")
    if ![1, 2].contains(fixed[18]) || ![1, 2].contains(fixed[19]) || fixed[18] != fixed[19] {
      // Write-ahead logging is what every catalogue library uses.
      restore(18..<20, to: [2, 2], "the file format versions")
    }
    restore(21..<24, to: [64, 32, 32], "the payload fractions")
    restore(72..<92, to: Array(repeating: 0, count: 20), "the reserved bytes")
    if !(1...3).contains(bigEndian(fixed, 56)) { restore(56..<60, to: [0, 0, 0, 1], "the text encoding") }
    if !(1...4).contains(bigEndian(fixed, 44)) { restore(44..<48, to: [0, 0, 0, 4], "the schema format") }
    var pageSizes: [Int] = []
    if !isPageSize(pageSize(of: fixed)) || fileSize % pageSize(of: fixed) != 0 {
      pageSizes = candidatePageSizes(fixed, fileSize: fileSize, pageStart: pageStart)
      fixes.append("the page size")
    }
    guard !fixes.isEmpty else { return nil }
    return Repair(header: fixed, fixes: fixes, pageSizes: pageSizes)
  }

  /// `header` with its page size set to `pageSize`.
  static func setting(pageSize: Int, in header: [UInt8]) -> [UInt8] {
    var header = header
    let stored = pageSize == 65536 ? 1 : pageSize
    header[16] = UInt8(stored >> 8)
    header[17] = UInt8(stored & 0xFF)
    return header
  }

  /// The page size the header gives (bytes 16–17; 1 stands for 65,536).
  static func pageSize(of header: [UInt8]) -> Int {
    let value = Int(header[16]) << 8 | Int(header[17])
    return value == 1 ? 65536 : value
  }

  private static func isPageSize(_ value: Int) -> Bool {
    value >= 512 && value <= 65536 && value & (value - 1) == 0
  }

  /// Page sizes the file allows, most likely first: the one that makes the header's page count
  /// the file's length, then those whose second page begins with a b-tree page's type byte.
  private static func candidatePageSizes(_ header: [UInt8], fileSize: Int, pageStart: (Int) -> UInt8?) -> [Int] {
    let all = (9...16).map { 1 << $0 }.filter { fileSize % $0 == 0 && fileSize >= $0 }
    let pages = bigEndian(header, 28)
    let counted = all.filter { pages > 0 && pages * $0 == fileSize }
    let shaped = all.filter { size in
      guard fileSize > size, let type = pageStart(size) else { return false }
      return [0x02, 0x05, 0x0A, 0x0D].contains(type)
    }
    var ordered: [Int] = []
    for size in counted + shaped + all where !ordered.contains(size) { ordered.append(size) }
    return ordered
  }

  private static func bigEndian(_ bytes: [UInt8], _ offset: Int) -> Int {
    (offset..<offset + 4).reduce(0) { $0 << 8 | Int(bytes[$1]) }
  }
}
