/// The few facts of a HEIF file's boxes that libheif 1.15 does not tell: whether the `meta` box
/// is all there, how many pixels the tiles of a grid declare, and whether each image's declared
/// size (`ispe`) is the size its coded data gives.
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
    /// The first image (the primary first) whose `ispe` disagrees with the size its coded
    /// data gives. libheif 1.15 decodes the coded size whatever `ispe` says, so the size the
    /// header reports and the pixel budget was checked against would not be the picture's.
    var sizeMismatch: SizeMismatch?
    /// Whether the primary image's `ispe` was found equal to the size its coded data gives
    /// (its HEVC parameters, or its grid's output size). A stored thumbnail may stand in for
    /// the picture only then: the picture itself is not decoded, so nothing else would show
    /// that the size the header reports is the picture's.
    var primarySizeConfirmed = false
    /// The primary image's item ID (`pitm`).
    var primary: Int?
    /// The size the primary image's `ispe` declares: its coded size, before the file's
    /// transforms. A clean aperture can show a small part of a large coded picture, and libheif
    /// decodes all of it first, so the pixel budget covers this size too.
    var primaryDeclaredSize: (width: Int, height: Int)?
    /// Each image's transforms (`clap`, `irot`, `imir`), in the order `ipma` lists them, which
    /// is the order libheif applies them; an image without any has none listed.
    var transforms: [Int: [Transform]] = [:]

    /// Whether image `item` (a stored thumbnail) shows the primary image's picture once libheif
    /// has applied each one's own transforms: the same turns and mirrorings in the same order,
    /// and the same part of the picture kept, within 1 % of each side (a thumbnail's aperture
    /// is rounded to its own, coarser pixels).
    func transformsMatchThePrimary(_ item: Int) -> Bool {
      guard let primary else { return false }
      let mine = (transforms[item] ?? []).filter { !$0.changesNothing }
      let theirs = (transforms[primary] ?? []).filter { !$0.changesNothing }
      return mine.count == theirs.count && zip(mine, theirs).allSatisfy { $0.matches($1) }
    }
  }

  /// One transformative property of an image.
  enum Transform {
    /// `clap`: the part of the image kept, as fractions of its width and height at that step
    /// (libheif's rounding aside).
    case crop(left: Double, top: Double, width: Double, height: Double)
    /// `irot`: quarter turns anticlockwise.
    case rotation(Int)
    /// `imir`: the axis bit, as stored (libheif 1.15 mirrors top to bottom for 0).
    case mirror(Int)
    /// A property too short to read, or an aperture with a zero denominator: nothing matches
    /// it, not even itself.
    case unreadable

    /// Whether `other` has the same effect: crops within 1 % of each side.
    func matches(_ other: Transform) -> Bool {
      switch (self, other) {
      case (.crop(let l1, let t1, let w1, let h1), .crop(let l2, let t2, let w2, let h2)):
        return abs(l1 - l2) <= 0.01 && abs(t1 - t2) <= 0.01 && abs(w1 - w2) <= 0.01 && abs(h1 - h2) <= 0.01
      case (.rotation(let x), .rotation(let y)), (.mirror(let x), .mirror(let y)): return x == y
      default: return false
      }
    }

    /// A turn of 0°, or a crop that keeps the whole image as far as ``matches(_:)`` tells (all
    /// but an encoder's padding to whole blocks).
    var changesNothing: Bool {
      matches(.rotation(0)) || matches(.crop(left: 0, top: 0, width: 1, height: 1))
    }
  }

  /// An image whose declared size is not its coded size (both before the file's transforms).
  struct SizeMismatch: Equatable {
    var item: Int
    var isPrimary: Bool
    var declared: (width: Int, height: Int)
    var coded: (width: Int, height: Int)

    static func == (a: Self, b: Self) -> Bool {
      a.item == b.item && a.isPrimary == b.isPrimary && a.declared == b.declared && a.coded == b.coded
    }

    /// "the picture's size box (ispe) says 240×160 but its coded picture is 120×80".
    var detail: String {
      let whose = isPrimary ? "the picture's size box (ispe)" : "the size box (ispe) of its image item \(item)"
      return "\(whose) says \(declared.width)×\(declared.height) but its coded picture is "
        + "\(coded.width)×\(coded.height)"
    }
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
        if let meta = Meta(bytes, box.body) {
          summary.tiles = meta.tiles(loops: &summary.derivationLoops)
          (summary.sizeMismatch, summary.primarySizeConfirmed) = meta.checkSizes()
          summary.primary = meta.primary
          summary.primaryDeclaredSize = meta.declaredSize(of: meta.primary)
          summary.transforms = meta.transforms()
        }
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

  /// The boxes of `meta` that say which images the file holds and how each is made.
  private struct Meta {
    let bytes: UnsafeRawBufferPointer
    let boxes: [Box]
    let primary: Int
    /// For each image derived from others (`dimg`), the images it is made of, each reference.
    let derived: [Int: [Int]]
    /// Each item's properties, as `ipma` associates them with the boxes of `ipco`.
    let properties: [Int: [Box]]
    /// Each item's type (`hvc1`, `av01`, `grid`, …), from `iinf`.
    let types: [Int: String]

    init?(_ bytes: UnsafeRawBufferPointer, _ meta: Range<Int>) {
      guard meta.count >= 4 else { return nil }
      self.bytes = bytes
      boxes = children(bytes, (meta.lowerBound + 4)..<meta.upperBound)  // meta is a FullBox
      guard let pitm = boxes.first(where: { $0.type == "pitm" }), let primary = itemID(bytes, fullBox: pitm.body)
      else { return nil }
      self.primary = primary
      derived = boxes.first(where: { $0.type == "iref" }).map { references(bytes, $0.body) } ?? [:]
      properties = boxes.first(where: { $0.type == "iprp" }).map { itemProperties(bytes, $0.body) } ?? [:]
      types = boxes.first(where: { $0.type == "iinf" }).map { itemTypes(bytes, $0.body) } ?? [:]
    }

    /// The tiles of a derived primary image (see ``Summary/tiles``); `nil` for a coded one.
    func tiles(loops: inout Bool) -> (count: Int, pixels: Int, width: Int, height: Int)? {
      let tileIDs = derived[primary] ?? []
      guard !tileIDs.isEmpty, boxes.contains(where: { $0.type == "iprp" }) else { return nil }
      loops = derivesFromItself(primary, derived)
      var pixels = 0
      var widest = 0
      var tallest = 0
      for id in tileIDs {
        guard let size = declaredSize(of: id) else { continue }
        let (area, overflow) = size.width.multipliedReportingOverflow(by: size.height)
        pixels = overflow ? Int.max : pixels.addingReportingOverflow(area).overflow ? Int.max : pixels + area
        widest = max(widest, size.width)
        tallest = max(tallest, size.height)
      }
      return (tileIDs.count, pixels, widest, tallest)
    }

    /// Compares every image's `ispe` with the size its coded data gives, where the boxes tell
    /// it: the first disagreement (the primary image's before any other), and whether the
    /// primary image's size was confirmed.
    func checkSizes() -> (mismatch: SizeMismatch?, primaryConfirmed: Bool) {
      var mismatch: SizeMismatch?
      var confirmed = false
      for item in properties.keys.sorted() {
        guard let declared = declaredSize(of: item), let coded = codedSize(of: item) else { continue }
        if declared == coded {
          if item == primary { confirmed = true }
        } else if mismatch == nil || item == primary {
          mismatch = SizeMismatch(item: item, isPrimary: item == primary, declared: declared, coded: coded)
        }
      }
      return (mismatch, confirmed)
    }

    /// Each item's transforms, in the order its `ipma` entry lists them. A crop is measured
    /// against the size at its step: `ispe`, its sides exchanged by each quarter turn before.
    func transforms() -> [Int: [Transform]] {
      var all: [Int: [Transform]] = [:]
      for (item, boxes) in properties {
        guard var size = declaredSize(of: item) else { continue }
        var list: [Transform] = []
        for property in boxes {
          let body = property.body
          switch property.type {
          case "clap":
            guard body.count >= 32, size.width > 0, size.height > 0 else {
              list.append(.unreadable)
              continue
            }
            func fraction(_ at: Int, signed: Bool) -> Double? {
              let denominator = u32(bytes, body.lowerBound + at + 4)
              guard denominator != 0 else { return nil }
              let raw = u32(bytes, body.lowerBound + at)
              let numerator = signed ? Int(Int32(truncatingIfNeeded: raw)) : raw
              return Double(numerator) / Double(denominator)
            }
            guard let width = fraction(0, signed: false), let height = fraction(8, signed: false),
              let horizontal = fraction(16, signed: true), let vertical = fraction(24, signed: true)
            else {
              list.append(.unreadable)
              continue
            }
            // ISO/IEC 14496-12: the aperture's centre is the offset from the image's centre.
            let left = horizontal + Double(size.width - 1) / 2 - (width - 1) / 2
            let top = vertical + Double(size.height - 1) / 2 - (height - 1) / 2
            list.append(
              .crop(
                left: left / Double(size.width), top: top / Double(size.height), width: width / Double(size.width),
                height: height / Double(size.height)))
            size = (max(Int(width.rounded()), 1), max(Int(height.rounded()), 1))
          case "irot":
            guard !body.isEmpty else {
              list.append(.unreadable)
              continue
            }
            let turns = Int(bytes[body.lowerBound] & 3)
            list.append(.rotation(turns))
            if turns % 2 == 1 { size = (size.height, size.width) }
          case "imir":
            guard !body.isEmpty else {
              list.append(.unreadable)
              continue
            }
            list.append(.mirror(Int(bytes[body.lowerBound] & 1)))
          default:
            continue
          }
        }
        if !list.isEmpty { all[item] = list }
      }
      return all
    }

    /// What the item's `ispe` says.
    func declaredSize(of item: Int) -> (width: Int, height: Int)? {
      guard let ispe = properties[item]?.first(where: { $0.type == "ispe" }), ispe.body.count >= 12 else { return nil }
      return (u32(bytes, ispe.body.lowerBound + 4), u32(bytes, ispe.body.lowerBound + 8))
    }

    /// The size the item decodes to before the file's transforms, when the boxes tell it: an
    /// HEVC image's from its sequence parameter set (in `hvcC`), a grid's from its descriptor.
    /// An AV1 image's would need the sequence header, which `av1C` may leave out (avifenc
    /// does): only decoding tells it.
    private func codedSize(of item: Int) -> (width: Int, height: Int)? {
      if let hvcC = properties[item]?.first(where: { $0.type == "hvcC" }) {
        return hevcSize(bytes, hvcC.body)
      }
      if types[item] == "grid", let data = data(of: item), data.count >= 8 {
        // ImageGrid: version 0, flags (bit 0: 32-bit sizes), rows - 1, columns - 1, width, height.
        guard bytes[data.lowerBound] == 0 else { return nil }
        let at = data.lowerBound + 4
        if bytes[data.lowerBound + 1] & 1 == 0 { return (u16(bytes, at), u16(bytes, at + 2)) }
        guard data.count >= 12 else { return nil }
        return (u32(bytes, at), u32(bytes, at + 4))
      }
      return nil
    }

    /// The first extent of the item's data, as far as it lies within the bytes, when it is in
    /// this file or in the `idat` box (construction methods 0 and 1 of `iloc`).
    private func data(of item: Int) -> Range<Int>? {
      guard let iloc = boxes.first(where: { $0.type == "iloc" }) else { return nil }
      var reader = Reader(bytes: bytes, at: iloc.body.lowerBound, end: iloc.body.upperBound)
      guard let version = reader.read(1), reader.read(3) != nil, let sizes = reader.read(2) else { return nil }
      let (offsetSize, lengthSize) = (sizes >> 12, sizes >> 8 & 15)
      let (baseOffsetSize, indexSize) = (sizes >> 4 & 15, version >= 1 ? sizes & 15 : 0)
      guard let items = reader.read(version < 2 ? 2 : 4) else { return nil }
      for _ in 0..<items {
        guard let id = reader.read(version < 2 ? 2 : 4) else { return nil }
        var method = 0
        if version >= 1 {
          guard let field = reader.read(2) else { return nil }
          method = field & 15
        }
        guard let reference = reader.read(2), let base = reader.read(baseOffsetSize), let extents = reader.read(2)
        else { return nil }
        var first: (offset: Int, length: Int)?
        for _ in 0..<extents {
          guard reader.read(indexSize) != nil, let offset = reader.read(offsetSize),
            let length = reader.read(lengthSize)
          else { return nil }
          if first == nil { first = (offset, length) }
        }
        guard id == item else { continue }
        guard reference == 0, let first else { return nil }
        let start: Int
        switch method {
        case 0: start = 0
        case 1:
          guard let idat = boxes.first(where: { $0.type == "idat" }) else { return nil }
          start = idat.body.lowerBound
        default: return nil
        }
        let (at, overflow) = start.addingReportingOverflow(base)
        let (from, overflow2) = at.addingReportingOverflow(first.offset)
        guard !overflow, !overflow2, from >= 0, from <= bytes.count else { return nil }
        return from..<(from + min(first.length, bytes.count - from))
      }
      return nil
    }
  }

  /// Reads big-endian fields of 0 to 8 bytes within a range; `nil` past its end or for a
  /// value that does not fit an `Int`.
  private struct Reader {
    let bytes: UnsafeRawBufferPointer
    var at: Int
    let end: Int

    mutating func read(_ size: Int) -> Int? {
      guard size >= 0, size <= 8, end - at >= size else { return nil }
      var value: UInt64 = 0
      for index in 0..<size { value = value << 8 | UInt64(bytes[at + index]) }
      at += size
      return value <= UInt64(Int.max) ? Int(value) : nil
    }
  }

  /// Each `dimg` reference of an `iref` box: the derived item and the items it is made of.
  private static func references(_ bytes: UnsafeRawBufferPointer, _ iref: Range<Int>) -> [Int: [Int]] {
    guard iref.count >= 4 else { return [:] }
    // iref: a FullBox whose version says whether item IDs take 16 or 32 bits.
    let wide = bytes[iref.lowerBound] != 0
    let idSize = wide ? 4 : 2
    var derived: [Int: [Int]] = [:]
    for reference in children(bytes, (iref.lowerBound + 4)..<iref.upperBound) where reference.type == "dimg" {
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
    return derived
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

  /// The properties of each item, from `ipco` (the properties) and `ipma` (which item has which).
  private static func itemProperties(_ bytes: UnsafeRawBufferPointer, _ iprp: Range<Int>) -> [Int: [Box]] {
    let boxes = children(bytes, iprp)
    guard let ipco = boxes.first(where: { $0.type == "ipco" }) else { return [:] }
    let properties = children(bytes, ipco.body)
    var associated: [Int: [Box]] = [:]
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
          associated[item, default: []].append(properties[index - 1])
        }
      }
    }
    return associated
  }

  /// The type of each item that an `infe` box of version 2 or 3 describes.
  private static func itemTypes(_ bytes: UnsafeRawBufferPointer, _ iinf: Range<Int>) -> [Int: String] {
    guard iinf.count >= 6 else { return [:] }
    // iinf: a FullBox whose version says whether the count takes 16 or 32 bits.
    let first = iinf.lowerBound + 4 + (bytes[iinf.lowerBound] == 0 ? 2 : 4)
    guard first <= iinf.upperBound else { return [:] }
    var types: [Int: String] = [:]
    for infe in children(bytes, first..<iinf.upperBound) where infe.type == "infe" {
      let body = infe.body
      guard body.count >= 4 else { continue }
      let version = bytes[body.lowerBound]
      let idSize = version == 2 ? 2 : 4
      guard version == 2 || version == 3, body.count >= 4 + idSize + 2 + 4 else { continue }
      let id = version == 2 ? u16(bytes, body.lowerBound + 4) : u32(bytes, body.lowerBound + 4)
      let type = body.lowerBound + 4 + idSize + 2
      types[id] = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[type..<(type + 4)]), as: UTF8.self)
    }
    return types
  }

  /// The size an HEVC image decodes to, from the sequence parameter set in its `hvcC` box:
  /// the coded size less the conformance window, as libde265 crops it.
  private static func hevcSize(_ bytes: UnsafeRawBufferPointer, _ hvcC: Range<Int>) -> (width: Int, height: Int)? {
    // HEVCDecoderConfigurationRecord: 22 bytes of fields, then arrays of NAL units by type.
    guard hvcC.count >= 23 else { return nil }
    var at = hvcC.lowerBound + 22
    let end = hvcC.upperBound
    let arrays = Int(bytes[at])
    at += 1
    for _ in 0..<arrays {
      guard end - at >= 3 else { return nil }
      let type = bytes[at] & 0x3F
      let count = u16(bytes, at + 1)
      at += 3
      for _ in 0..<count {
        guard end - at >= 2 else { return nil }
        let length = u16(bytes, at)
        at += 2
        guard end - at >= length else { return nil }
        if type == 33 { return spsSize(UnsafeRawBufferPointer(rebasing: bytes[at..<(at + length)])) }
        at += length
      }
    }
    return nil
  }

  /// The cropped picture size of an HEVC sequence parameter set (H.265 7.3.2.2), NAL header
  /// included.
  private static func spsSize(_ nal: UnsafeRawBufferPointer) -> (width: Int, height: Int)? {
    guard nal.count > 2 else { return nil }
    // The payload without its emulation prevention bytes (0x03 after two zeros).
    var payload: [UInt8] = []
    payload.reserveCapacity(nal.count)
    var zeros = 0
    for byte in nal.dropFirst(2) {
      if zeros >= 2 && byte == 3 {
        zeros = 0
        continue
      }
      payload.append(byte)
      zeros = byte == 0 ? zeros + 1 : 0
    }
    var bits = Bits(bytes: payload)
    // Video parameter set id, then the number of sub-layers, then the temporal nesting flag.
    guard bits.skip(4), let subLayers = bits.read(3), bits.skip(1),
      bits.skip(96)  // profile_tier_level's general part
    else { return nil }
    var present: [(profile: Bool, level: Bool)] = []
    for _ in 0..<subLayers {
      guard let profile = bits.read(1), let level = bits.read(1) else { return nil }
      present.append((profile == 1, level == 1))
    }
    if subLayers > 0 && !bits.skip(2 * (8 - subLayers)) { return nil }
    for layer in present {
      if layer.profile && !bits.skip(88) { return nil }
      if layer.level && !bits.skip(8) { return nil }
    }
    guard bits.golomb() != nil, let chroma = bits.golomb() else { return nil }
    var separatePlanes = false
    if chroma == 3 {
      guard let flag = bits.read(1) else { return nil }
      separatePlanes = flag == 1
    }
    guard let codedWidth = bits.golomb(), let codedHeight = bits.golomb(), let window = bits.read(1) else {
      return nil
    }
    var (width, height) = (codedWidth, codedHeight)
    if window == 1 {
      guard let left = bits.golomb(), let right = bits.golomb(), let top = bits.golomb(), let bottom = bits.golomb()
      else { return nil }
      // Offsets count chroma samples: two luma samples each where chroma is halved.
      let unitX = (chroma == 1 || chroma == 2) && !separatePlanes ? 2 : 1
      let unitY = chroma == 1 && !separatePlanes ? 2 : 1
      width -= unitX * (left + right)
      height -= unitY * (top + bottom)
    }
    guard width > 0, height > 0 else { return nil }
    return (width, height)
  }

  /// Reads bits, most significant first; `nil` past the end.
  private struct Bits {
    let bytes: [UInt8]
    var position = 0

    mutating func read(_ count: Int) -> Int? {
      guard count <= 32, position + count <= bytes.count * 8 else { return nil }
      var value = 0
      for _ in 0..<count {
        value = value << 1 | Int(bytes[position >> 3] >> (7 - UInt8(position & 7)) & 1)
        position += 1
      }
      return value
    }

    mutating func skip(_ count: Int) -> Bool {
      guard position + count <= bytes.count * 8 else { return false }
      position += count
      return true
    }

    /// An unsigned Exp-Golomb code, ue(v).
    mutating func golomb() -> Int? {
      var zeros = 0
      while true {
        guard let bit = read(1) else { return nil }
        if bit == 1 { break }
        zeros += 1
        guard zeros < 32 else { return nil }
      }
      guard let rest = read(zeros) else { return nil }
      return (1 << zeros) - 1 + rest
    }
  }

  private static func u16(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> Int {
    Int(bytes[offset]) << 8 | Int(bytes[offset + 1])
  }

  private static func u32(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> Int {
    Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
  }
}
