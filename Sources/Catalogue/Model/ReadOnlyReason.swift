/// Why a library can be read but not written now.
public enum ReadOnlyReason: Sendable, Equatable {
  /// It is on a disk mounted read-only (read-only media, a read-only mount).
  case readOnlyDisk
  /// Its folder or its database may not be written by this user (another user's library).
  case notWritable
  /// The disk holding it has no space left.
  case diskFull
  /// The disk holding it has no inodes (file entries) left.
  case noFreeInodes
}
