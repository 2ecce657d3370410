import CArchiveShims
import Foundation

/// Tar archives through libarchive: the only file that calls libarchive's C API. Every status
/// is converted at the first Swift call, in ``TarStatus/check(_:_:)``.
enum TarStatus {
  /// Throws libarchive's message unless `status` is `ARCHIVE_OK`. Warnings count as failures:
  /// the archives this program reads are untrusted, and those it writes hold plain ASCII names.
  static func check(_ status: Int32, _ handle: OpaquePointer) throws(TarFailure) {
    guard status != ARCHIVE_OK else { return }
    throw TarFailure(message: message(handle))
  }

  /// Opens libarchive, the first time an archive is read or written (see `CArchiveShims`).
  static func load(operation: String, path: String) throws(CatalogueError) {
    guard carchiveshims_load() != 0 else { return }
    throw .archive(
      operation: operation, path: path,
      message: "libarchive cannot be loaded (\(String(cString: carchiveshims_load_error()))): "
        + "install Debian's libarchive13")
  }

  /// The corresponding C function is `archive_error_string`.
  static func message(_ handle: OpaquePointer) -> String {
    carchiveshims_error_string(handle).map { String(cString: $0) } ?? "libarchive failed (status unknown)"
  }
}

/// libarchive's message for a failure.
struct TarFailure: Error {
  var message: String
}

/// A tar archive being written (POSIX pax, restricted to ustar where it can be) to a file the
/// caller opened; the caller syncs and closes it after ``finish()``.
///
/// Entries are made the same way every time (owner 0, modes 0644 and 0755, the given time), so
/// the same content makes the same archive.
final class TarWriter {
  private let handle: OpaquePointer
  /// The archive's path, for messages.
  let path: String

  /// The corresponding C functions are `archive_write_new`, `archive_write_set_format_pax_restricted`
  /// and `archive_write_open_fd`.
  init(descriptor: FileDescriptor, path: String) throws(CatalogueError) {
    try TarStatus.load(operation: "write", path: path)
    guard let handle = carchiveshims_write_new() else {
      throw .archive(
        operation: "write", path: path, message: "libarchive could not allocate a writer")
    }
    self.handle = handle
    self.path = path
    do {
      try TarStatus.check(carchiveshims_write_set_format_pax_restricted(handle), handle)
      try TarStatus.check(carchiveshims_write_add_filter_none(handle), handle)
      // No padding of the last block beyond the format's own: the archive is a file.
      try TarStatus.check(carchiveshims_write_set_bytes_in_last_block(handle, 1), handle)
      try TarStatus.check(carchiveshims_write_open_fd(handle, descriptor.rawValue), handle)
    } catch {
      throw .archive(operation: "write", path: path, message: error.message)
    }
  }

  deinit { carchiveshims_write_free(handle) }

  func addFolder(_ name: String, modified: Date) throws(CatalogueError) {
    try add(
      name, type: carchiveshims_type_directory(), permissions: 0o755, bytes: [], modified: modified)
  }

  func addFile(_ name: String, bytes: [UInt8], modified: Date) throws(CatalogueError) {
    try add(
      name, type: carchiveshims_type_regular(), permissions: 0o644, bytes: bytes, modified: modified)
  }

  /// The corresponding C functions are `archive_write_header` and `archive_write_data`.
  private func add(
    _ name: String, type: UInt32, permissions: mode_t, bytes: [UInt8], modified: Date
  )
    throws(CatalogueError)
  {
    guard let entry = carchiveshims_entry_new() else {
      throw .archive(
        operation: "write", path: path, message: "libarchive could not allocate an entry")
    }
    defer { carchiveshims_entry_free(entry) }
    carchiveshims_entry_set_pathname_utf8(entry, name)
    carchiveshims_entry_set_filetype(entry, type)
    carchiveshims_entry_set_perm(entry, permissions)
    carchiveshims_entry_set_size(entry, Int64(bytes.count))
    carchiveshims_entry_set_uid(entry, 0)
    carchiveshims_entry_set_gid(entry, 0)
    carchiveshims_entry_set_mtime(entry, time_t(modified.timeIntervalSince1970.rounded(.down)), 0)
    do throws(TarFailure) {
      try TarStatus.check(carchiveshims_write_header(handle, entry), handle)
      var done = 0
      while done < bytes.count {
        let wrote = bytes.withUnsafeBytes {
          carchiveshims_write_data(handle, $0.baseAddress! + done, $0.count - done)
        }
        guard wrote > 0 else { throw TarFailure(message: TarStatus.message(handle)) }
        done += wrote
      }
    } catch {
      throw .archive(operation: "write \(name) into", path: path, message: error.message)
    }
  }

  /// Writes the end of the archive. The corresponding C function is `archive_write_close`.
  func finish() throws(CatalogueError) {
    do {
      try TarStatus.check(carchiveshims_write_close(handle), handle)
    } catch {
      throw .archive(operation: "finish", path: path, message: error.message)
    }
  }
}

/// A tar archive being read, entry by entry. Only tar is recognised (no compression, no other
/// format); what the entries hold is for the caller to judge.
final class TarReader {
  struct Entry {
    enum Kind: Equatable {
      case file
      case folder
      case symbolicLink
      case hardLink
      /// A device, a FIFO, a socket.
      case other
    }

    /// The entry's name as stored (UTF-8), or `nil` when it is not valid UTF-8.
    var name: String?
    /// The name's bytes as stored, for messages when it is not UTF-8.
    var rawName: String
    var kind: Kind
    var size: Int
  }

  private let handle: OpaquePointer
  private let descriptor: FileDescriptor
  /// The archive's path, for messages.
  let path: String

  /// Opens the archive at `path`: a tar, or with `zip` a ZIP (another service's export). The
  /// corresponding C functions are `archive_read_new`, `archive_read_support_format_tar` (or
  /// `_zip`) and `archive_read_open_fd`.
  init(path: String, zip: Bool = false) throws(CatalogueError) {
    let descriptor: FileDescriptor
    do {
      descriptor = try FileDescriptor.open(path, .readOnly)
    } catch {
      throw .io(operation: .read, path: path, code: error.rawValue)
    }
    do throws(CatalogueError) {
      try TarStatus.load(operation: "read", path: path)
    } catch {
      descriptor.close()
      throw error
    }
    guard let handle = carchiveshims_read_new() else {
      descriptor.close()
      throw .archive(
        operation: "read", path: path, message: "libarchive could not allocate a reader")
    }
    self.handle = handle
    self.descriptor = descriptor
    self.path = path
    do {
      try TarStatus.check(
        zip ? carchiveshims_read_support_format_zip(handle) : carchiveshims_read_support_format_tar(handle), handle)
      try TarStatus.check(carchiveshims_read_support_filter_none(handle), handle)
      try TarStatus.check(carchiveshims_read_open_fd(handle, descriptor.rawValue, 65536), handle)
    } catch {
      throw .badBundle(source: path, problem: .unreadableArchive(error.message))
    }
  }

  deinit {
    carchiveshims_read_free(handle)
    descriptor.close()
  }

  /// The next entry's header, or `nil` at the end. The corresponding C function is
  /// `archive_read_next_header`.
  func next() throws(CatalogueError) -> Entry? {
    var entry: OpaquePointer?
    let status = carchiveshims_read_next_header(handle, &entry)
    if status == ARCHIVE_EOF { return nil }
    guard status == ARCHIVE_OK, let entry else {
      throw .badBundle(source: path, problem: .unreadableArchive(TarStatus.message(handle)))
    }
    let raw = carchiveshims_entry_pathname(entry).map { String(cString: $0) } ?? ""
    let name = carchiveshims_entry_pathname_utf8(entry).flatMap { pointer in
      String(validatingCString: pointer)
    }
    let type = carchiveshims_entry_filetype(entry)
    let kind: Entry.Kind
    if carchiveshims_entry_hardlink(entry) != nil {
      kind = .hardLink
    } else if carchiveshims_entry_symlink(entry) != nil {
      kind = .symbolicLink
    } else if type == carchiveshims_type_regular() {
      kind = .file
    } else if type == carchiveshims_type_directory() {
      kind = .folder
    } else {
      kind = .other
    }
    let size = carchiveshims_entry_size_is_set(entry) != 0 ? Int(carchiveshims_entry_size(entry)) : 0
    return Entry(name: name, rawName: raw, kind: kind, size: max(0, size))
  }

  /// The current entry's data, refused past `limit` bytes (`name` for the message). The
  /// corresponding C function is `archive_read_data`.
  func data(limit: Int, name: String) throws(CatalogueError) -> [UInt8] {
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
      let got = chunk.withUnsafeMutableBytes {
        carchiveshims_read_data(handle, $0.baseAddress!, $0.count)
      }
      if got == 0 { return bytes }
      guard got > 0 else {
        throw .badBundle(source: path, problem: .unreadableArchive(TarStatus.message(handle)))
      }
      guard bytes.count + got <= limit else {
        throw .badBundle(
          source: path, problem: .tooLarge(name, bytes: bytes.count + got, limit: limit))
      }
      bytes.append(contentsOf: chunk[0..<got])
    }
  }
}
