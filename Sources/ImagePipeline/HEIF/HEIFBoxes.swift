/// The few facts of a HEIF file's boxes that libheif 1.15 does not tell: whether the `meta` box
/// is all there, and how many pixels the tiles of a grid declare.
///
/// Box sizes come from the file, so every read is checked against the data's end; anything
/// malformed is left for libheif to refuse with its own message.
enum HEIFBoxes {
  /// What the walk found.
  struct Summary {
    /// Whether a whole top-level `meta` box is within the data.
    var hasWholeMeta = false
    /// Whether the data ends inside a box, or before any `meta` box, with every box up to
    /// there well-formed: a file cut short rather than a damaged one.
    var endsEarly = false
    /// For a primary image derived from others (a `grid` or `iovl`): the sum of the `ispe`
    /// pixels its `dimg` references declare, each reference counted, and how many there are.
    var tiles: (count: Int, pixels: Int, width: Int, height: Int)?
    /// Whether the primary image is derived, through `dimg` references, from itself: libheif
    /// 1.15 then recurses, a thread for each tile, and takes minutes.
    var derivationLoops = false
  }

  private struct Box {
    var type: String
    /// Where its contents start and end.
    var body: Range<Int>
  }

  static func read(_ bytes: UnsafeRawBufferPointer) -> Summary {
    var summary = Summary()
    var offset = 0
    while offset < bytes.count {
      guard let box = box(in: bytes, at: offset, end: bytes.count) else {
        // A cut-off header or a box running past the end: cut short if it looks like a box.
        summary.endsEarly = plausibleType(bytes, at: offset + 4) || bytes.count - offset < 8
        return summary
      }
      if box.type == "meta" {
        summary.hasWholeMeta = true
        summary.tiles = tiles(inMeta: bytes, box.body, loops: &summary.derivationLoops)
        return summary
      }
      offset = box.body.upperBound
    }
    summary.endsEarly = true
    return summary
  }

  /// The box at `offset`, when its header and contents lie within `end`.
  private static func box(in bytes: UnsafeRawBufferPointer, at offset: Int, end: Int) -> Box? {
    guard offset >= 0, end - offset >= 8 else { return nil }
    var size = u32(bytes, offset)
    var header = 8
    if size == 1 {
      guard end - offset >= 16 else { return nil }
      let large = UInt64(u32(bytes, offset + 8)) << 32 | UInt64(u32(bytes, offset + 12))
      guard large <= UInt64(Int.max) else { return nil }
      size = Int(large)
      header = 16
    } else if size == 0 {
      size = end - offset
    }
    guard size >= header, size <= end - offset else { return nil }
    let type = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[(offset + 4)..<(offset + 8)]), as: UTF8.self)
    return Box(type: type, body: (offset + header)..<(offset + size))
  }

  private static func plausibleType(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> Bool {
    guard offset + 4 <= bytes.count else { return false }
    return (offset..<offset + 4).allSatisfy { (0x20...0x7E).contains(bytes[$0]) }
  }

  private static func children(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> [Box] {
    var boxes: [Box] = []
    var offset = range.lowerBound
    while let box = box(in: bytes, at: offset, end: range.upperBound) {
      boxes.append(box)
      offset = box.body.upperBound
    }
    return boxes
  }

  /// The tiles of a derived primary image (see ``Summary/tiles``); `nil` for a coded one.
  private static func tiles(inMeta bytes: UnsafeRawBufferPointer, _ meta: Range<Int>, loops: inout Bool) -> (
    count: Int, pixels: Int, width: Int, height: Int
  )? {
    guard meta.count >= 4 else { return nil }
    let boxes = children(bytes, (meta.lowerBound + 4)..<meta.upperBound)  // meta is a FullBox
    guard let pitm = boxes.first(where: { $0.type == "pitm" }), let primary = itemID(bytes, fullBox: pitm.body),
      let iref = boxes.first(where: { $0.type == "iref" }), iref.body.count >= 4
    else { return nil }
    // iref: a FullBox whose version says whether item IDs take 16 or 32 bits.
    let wide = bytes[iref.body.lowerBound] != 0
    let idSize = wide ? 4 : 2
    var derived: [Int: [Int]] = [:]
    for reference in children(bytes, (iref.body.lowerBound + 4)..<iref.body.upperBound) where reference.type == "dimg" {
      var at = reference.body.lowerBound
      let end = reference.body.upperBound
      guard end - at >= idSize + 2 else { continue }
      let from = wide ? u32(bytes, at) : u16(bytes, at)
      at += idSize
      let count = u16(bytes, at)
      at += 2
      guard end - at >= count * idSize else { continue }
      for index in 0..<count {
        derived[from, default: []].append(wide ? u32(bytes, at + index * 4) : u16(bytes, at + index * 2))
      }
    }
    let tileIDs = derived[primary] ?? []
    guard !tileIDs.isEmpty, let iprp = boxes.first(where: { $0.type == "iprp" }) else { return nil }
    loops = derivesFromItself(primary, derived)
    let sizes = ispeSizes(bytes, iprp.body)
    var pixels = 0
    var widest = 0
    var tallest = 0
    for id in tileIDs {
      guard let size = sizes[id] else { continue }
      let (area, overflow) = size.width.multipliedReportingOverflow(by: size.height)
      pixels = overflow ? Int.max : pixels.addingReportingOverflow(area).overflow ? Int.max : pixels + area
      widest = max(widest, size.width)
      tallest = max(tallest, size.height)
    }
    return (tileIDs.count, pixels, widest, tallest)
  }

  /// Whether following `dimg` references from `item` comes back to an item already on the path.
  private static func derivesFromItself(_ item: Int, _ derived: [Int: [Int]]) -> Bool {
    var onPath: Set<Int> = []
    var done: Set<Int> = []
    func visit(_ item: Int) -> Bool {
      if onPath.contains(item) { return true }
      if done.contains(item) { return false }
      onPath.insert(item)
      defer {
        onPath.remove(item)
        done.insert(item)
      }
      return (derived[item] ?? []).contains { visit($0) }
    }
    return visit(item)
  }

  /// The item ID of a `pitm` box's contents.
  private static func itemID(_ bytes: UnsafeRawBufferPointer, fullBox body: Range<Int>) -> Int? {
    guard body.count >= 6 else { return nil }
    if bytes[body.lowerBound] == 0 { return u16(bytes, body.lowerBound + 4) }
    guard body.count >= 8 else { return nil }
    return u32(bytes, body.lowerBound + 4)
  }

  /// The `ispe` size of each item, from `ipco` (the properties) and `ipma` (which item has which).
  private static func ispeSizes(_ bytes: UnsafeRawBufferPointer, _ iprp: Range<Int>) -> [Int: (width: Int, height: Int)]
  {
    let boxes = children(bytes, iprp)
    guard let ipco = boxes.first(where: { $0.type == "ipco" }) else { return [:] }
    let properties = children(bytes, ipco.body)
    var sizes: [Int: (width: Int, height: Int)] = [:]
    for ipma in boxes where ipma.type == "ipma" && ipma.body.count >= 8 {
      let version = bytes[ipma.body.lowerBound]
      let wideIndex = bytes[ipma.body.lowerBound + 3] & 1 == 1
      var at = ipma.body.lowerBound + 4
      let end = ipma.body.upperBound
      let entries = u32(bytes, at)
      at += 4
      for _ in 0..<entries {
        let idSize = version < 1 ? 2 : 4
        guard end - at >= idSize + 1 else { break }
        let item = version < 1 ? u16(bytes, at) : u32(bytes, at)
        at += idSize
        let count = Int(bytes[at])
        at += 1
        let indexSize = wideIndex ? 2 : 1
        guard end - at >= count * indexSize else { break }
        for _ in 0..<count {
          let index = wideIndex ? u16(bytes, at) & 0x7FFF : Int(bytes[at] & 0x7F)
          at += indexSize
          guard index >= 1, index <= properties.count else { continue }
          let property = properties[index - 1]
          if property.type == "ispe", property.body.count >= 12 {
            sizes[item] = (u32(bytes, property.body.lowerBound + 4), u32(bytes, property.body.lowerBound + 8))
          }
        }
      }
    }
    return sizes
  }

  private static func u16(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> Int {
    Int(bytes[offset]) << 8 | Int(bytes[offset + 1])
  }

  private static func u32(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> Int {
    Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
  }
}
