public import Foundation
public import ImagePipeline

/// A picture in the library's store: the original's facts and where its files are.
public struct StoredImage: Sendable, Equatable {
  /// SHA-256 of the original's bytes, which also names its file.
  public var sha256: String
  public var format: ImageFormat
  /// Upright width and height (EXIF orientation applied).
  public var width: Int
  public var height: Int
  public var orientation: Orientation
  /// The original's size in bytes.
  public var bytes: Int
  public var thumbnailFormat: ImageFormat
  public var thumbnailWidth: Int
  public var thumbnailHeight: Int
  public var imported: Date
  /// The original's colour space ("Display P3", "sRGB", "untagged"; see
  /// `ImageHeader.colorSpace`), `nil` when it was recorded before the library knew colour.
  public var colorSpace: String?
  /// The original's path, relative to the library folder.
  public var original: String
  /// The thumbnail's path for the library's current spec, relative to the library folder.
  public var thumbnail: String
  /// The 2× thumbnail's path (the spec's longest edge doubled, never larger than the
  /// original), in the thumbnail's format, and its size.
  public var highDensityThumbnail: String
  public var highDensityThumbnailWidth: Int
  public var highDensityThumbnailHeight: Int
}
