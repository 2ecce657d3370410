import CCardShims
public import ImagePipeline

/// A review's share card: the 1200 × 630 picture a link to it shows in a chat or a feed (the
/// page's `og:image`). The cover fills it, cropped at the centre and darkened where the text
/// goes; over it the title (bold, up to three lines, ellipsized), the stars, the category and
/// the site's name. A review without a picture gets a card in the site's colours.
///
/// A card is derived, like a thumbnail: its file is named by the SHA-256 of everything drawn
/// on it (``key(for:)``), so a changed title, rating, category or cover gives a new name, and
/// the old file becomes unreferenced (check and repair delete it). Text is set by Pango
/// (HarfBuzz shapes Arabic and Hebrew right to left, Chinese and Japanese, colour emoji) and
/// drawn by Cairo, both opened only when a card is first drawn (`CCardShims`).
public enum ShareCard {
  /// The card's size: what OpenGraph and the large Twitter card expect.
  public static let width = 1200
  public static let height = 630

  /// The drawing's version: raise it when the layout, the fonts asked for or the encoding
  /// change, so that every card is named anew and made again.
  static let rendererVersion = 2

  /// The site's name, drawn small at the top.
  static let site = "Reviews"

  /// JPEG quality; chroma is halved (4:2:0): a photograph under text.
  static let quality = 85

  /// The site's dark look (``HTML/darkColours``): light text over a darkened cover, and the
  /// colours of a card without one.
  static let colours = Colours(HTML.darkColours)

  /// What a card shows: everything its name is made from.
  public struct Content: Sendable, Equatable {
    public var title: String
    /// Stars, 0 to 5.
    public var rating: Int
    /// The category as it reads ("Movie", "TV").
    public var category: String
    /// The SHA-256 of the cover's original, or `nil` for a card without a picture.
    public var cover: String?

    public init(title: String, rating: Int, category: String, cover: String?) {
      self.title = title
      self.rating = rating
      self.category = category
      self.cover = cover
    }

    /// What `review`'s card shows: its title, rating, category and cover.
    public init(_ review: Review) {
      self.init(
        title: review.title, rating: review.rating, category: review.category.displayName,
        cover: review.cover?.image.sha256)
    }
  }

  /// The card's key: the SHA-256 of the drawing's version (with the spec of the display
  /// rendition a card may be drawn from), the cover's hash (or none), the
  /// title, rating and category, the site's name and the colours, each field ended by a NUL
  /// (which none may hold), in hexadecimal. Pure: no file is read.
  public static func key(for content: Content) -> String {
    var fields = [
      "share-card \(rendererVersion) \(width)x\(height) q\(quality) over \(Library.displaySpec.name)",
      content.cover ?? "none", content.title,
      String(content.rating), content.category, site,
    ]
    fields += colours.all.map { String($0, radix: 16) }
    var bytes: [UInt8] = []
    for field in fields {
      bytes += field.utf8
      bytes.append(0)
    }
    return SHA256.hex(bytes)
  }

  /// ``key(for:)`` of what `review`'s card shows.
  public static func key(for review: Review) -> String { key(for: Content(review)) }

  /// Where `review`'s card is kept, relative to the library: `cards/ab/<key>.jpg`. Pure: no
  /// file is read or written (the server names a card's address from it).
  public static func name(for review: Review) -> String { LibraryLayout.shareCard(key: key(for: review)) }

  /// What drawing a card came to: the card, and how its title was laid out.
  public struct Drawn: Sendable {
    /// The JPEG.
    public var bytes: [UInt8]
    /// The pixels encoded, `width` × `height` RGB.
    public var pixels: PixelBuffer
    /// The title's lines (1 to 3), and whether its end was cut for an ellipsis.
    public var titleLines: Int
    public var titleEllipsized: Bool
    /// Whether the title runs right to left, and the whole card aligns right.
    public var rightToLeft: Bool
    /// Characters no installed font has, drawn as boxes.
    public var missingGlyphs: Int
  }

  /// Draws the card of `content` over `cover` (the cover's original file, any format the
  /// pipeline decodes; `nil` for a card in the site's colours), deterministically: the same
  /// content, cover and fonts give the same bytes.
  ///
  /// The cover is decoded at the cheapest size that still fills the card (a JPEG shrunk on
  /// load at 1/2, 1/4 or 1/8), turned upright, converted to sRGB, cropped at the centre to the
  /// card's shape and resized. A cover that does not decode is ``CatalogueError/imageRejected(file:reason:)``
  /// with `coverName`; Pango or Cairo missing or failing is
  /// ``CatalogueError/cardNotDrawn(review:reason:)``.
  public static func draw(
    _ content: Content, cover: [UInt8]?, coverName: String = "the cover", review: String = "",
    options: DecodeOptions = DecodeOptions()
  ) throws(CatalogueError) -> Drawn {
    var pixels: PixelBuffer?
    if let cover {
      do {
        pixels = try filling(cover, options: options)
      } catch {
        throw .imageRejected(file: coverName, reason: error)
      }
    }
    var output = [UInt8](repeating: 0, count: width * height * 3)
    var result = ccardshims_result()
    var message = [CChar](repeating: 0, count: 256)
    let messageSize = message.count
    let status = content.title.withCString { title in
      content.category.withCString { category in
        site.withCString { site in
          (pixels?.pixels ?? []).withUnsafeBufferPointer { coverBytes in
            var card = ccardshims_card(
              width: Int32(width), height: Int32(height),
              cover: pixels == nil ? nil : coverBytes.baseAddress, cover_channels: Int32(pixels?.channels ?? 3),
              title: title, category: category, site: site, rating: Int32(clamping: content.rating),
              background: colours.background, foreground: colours.foreground, muted: colours.muted,
              star: colours.star, accent: colours.accent)
            return output.withUnsafeMutableBufferPointer { out in
              ccardshims_render(&card, out.baseAddress, &result, &message, messageSize)
            }
          }
        }
      }
    }
    guard status == 0 else {
      let reason = message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
      throw .cardNotDrawn(review: review, reason: reason)
    }
    let drawn = PixelBuffer(width: width, height: height, channels: 3, pixels: output)
    let bytes: [UInt8]
    do {
      bytes = try ImagePipeline.encodeJPEG(drawn, quality: quality, fullChroma: false)
    } catch {
      throw .cardNotDrawn(review: review, reason: "\(error)")
    }
    return Drawn(
      bytes: bytes, pixels: drawn, titleLines: Int(result.title_lines), titleEllipsized: result.title_ellipsized != 0,
      rightToLeft: result.title_right_to_left != 0, missingGlyphs: Int(result.unknown_glyphs))
  }

  /// The cover decoded, upright and sRGB, cropped at the centre to the card's shape and
  /// resized to its size; RGBA only when some pixel is not opaque.
  static func filling(_ bytes: [UInt8], options: DecodeOptions) throws(ImageError) -> PixelBuffer {
    let header = try ImagePipeline.readHeader(bytes)
    let upright = (width: max(header.uprightWidth, 1), height: max(header.uprightHeight, 1))
    // The scale at which the picture covers the card: the decode need be no larger.
    let scale = max(Double(width) / Double(upright.width), Double(height) / Double(upright.height))
    let needed = (
      width: min(upright.width, Int((Double(upright.width) * scale).rounded(.up))),
      height: min(upright.height, Int((Double(upright.height) * scale).rounded(.up)))
    )
    let stored = header.orientation.swapsAxes ? (needed.height, needed.width) : needed
    let decoded = try ImagePipeline.decode(bytes, minimumSize: stored, options: options)
    var pixels = decoded.pixels.oriented(header.orientation)
    if pixels.channels == 4 && !pixels.hasTransparency { pixels = pixels.droppingAlpha() }
    // The largest part of the card's shape at the centre.
    let fit = min(Double(pixels.width) / Double(width), Double(pixels.height) / Double(height))
    let crop = (
      width: min(pixels.width, max(1, Int((Double(width) * fit).rounded()))),
      height: min(pixels.height, max(1, Int((Double(height) * fit).rounded())))
    )
    pixels = pixels.cropped(
      x: (pixels.width - crop.width) / 2, y: (pixels.height - crop.height) / 2, width: crop.width,
      height: crop.height)
    return Resizer.resize(pixels, width: width, height: height)
  }
}

extension ShareCard {
  /// The colours a card is drawn in, as 0xRRGGBB.
  struct Colours {
    var background: UInt32
    var foreground: UInt32
    var muted: UInt32
    var star: UInt32
    var accent: UInt32

    var all: [UInt32] { [background, foreground, muted, star, accent] }

    init(_ look: KeyValuePairs<String, String>) {
      func colour(_ name: String) -> UInt32 {
        guard let value = look.first(where: { $0.key == name })?.value else { return 0 }
        var hex = value.dropFirst()
        // #abc is #aabbcc.
        if hex.count == 3 { hex = Substring(hex.map { "\($0)\($0)" }.joined()) }
        return UInt32(hex, radix: 16) ?? 0
      }
      background = colour("bg")
      foreground = colour("fg")
      muted = colour("muted")
      star = colour("star")
      accent = colour("accent")
    }
  }
}

extension ShareCard {
  /// Writes a card to `path` (a file of the user's, outside the library) by the durable write
  /// protocol: a temporary file beside it, synced and renamed over it, so that an existing
  /// file is replaced whole or left as it was.
  public static func write(_ bytes: [UInt8], to path: String) throws(CatalogueError) {
    try OutputFile.write(bytes, to: path, what: "the card")
  }

}
