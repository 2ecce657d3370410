import CLibCrypto

/// SHA-256 through OpenSSL's libcrypto, which uses the CPU's SHA extensions: its SHA-256
/// functions, not EVP, whose first use costs every process about 2 MiB of memory (see the
/// module's `shim.h`).
public enum SHA256 {
  /// The lowercase hexadecimal digest of `bytes`.
  public static func hex(_ bytes: UnsafeRawBufferPointer) -> String {
    let hasher = Hasher()
    hasher.update(bytes)
    return hasher.finish()
  }

  private static func hex(digest: [UInt8]) -> String {
    let digits: [UInt8] = Array("0123456789abcdef".utf8)
    var text = [UInt8]()
    text.reserveCapacity(64)
    for byte in digest {
      text.append(digits[Int(byte >> 4)])
      text.append(digits[Int(byte & 0x0F)])
    }
    return String(decoding: text, as: UTF8.self)
  }

  /// A digest computed piece by piece, as a file is read. Not `Sendable`: one file, one thread.
  /// The corresponding C functions are `SHA256_Init`, `SHA256_Update` and `SHA256_Final`.
  final class Hasher {
    private let context = UnsafeMutablePointer<SHA256_CTX>.allocate(capacity: 1)

    init() {
      // They cannot fail on a context in memory; they return 1.
      precondition(SHA256_Init(context) == 1, "libcrypto could not start SHA-256")
    }

    deinit { context.deallocate() }

    func update(_ bytes: UnsafeRawBufferPointer) {
      guard !bytes.isEmpty else { return }
      precondition(SHA256_Update(context, bytes.baseAddress, bytes.count) == 1, "libcrypto could not hash")
    }

    /// The lowercase hexadecimal digest of every byte given.
    func finish() -> String {
      var digest = [UInt8](repeating: 0, count: 32)
      let status = digest.withUnsafeMutableBufferPointer { SHA256_Final($0.baseAddress, context) }
      precondition(status == 1, "libcrypto could not compute SHA-256")
      return SHA256.hex(digest: digest)
    }
  }

  public static func hex(_ bytes: [UInt8]) -> String {
    bytes.withUnsafeBytes { hex($0) }
  }

  /// Whether `text` looks like a digest: 64 lowercase hexadecimal digits.
  public static func isDigest(_ text: some StringProtocol) -> Bool {
    text.utf8.count == 64 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
  }
}
