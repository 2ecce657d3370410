import CLibCrypto

/// SHA-256 through OpenSSL's libcrypto (`EVP_sha256`), which uses the CPU's SHA extensions.
public enum SHA256 {
  /// The lowercase hexadecimal digest of `bytes`.
  /// The corresponding C function is `EVP_Digest`.
  public static func hex(_ bytes: UnsafeRawBufferPointer) -> String {
    var digest = [UInt8](repeating: 0, count: 32)
    var length: UInt32 = 0
    let status = digest.withUnsafeMutableBufferPointer { output in
      EVP_Digest(bytes.baseAddress, bytes.count, output.baseAddress, &length, EVP_sha256(), nil)
    }
    // EVP_Digest fails only when OpenSSL cannot allocate a context: nothing to recover.
    precondition(status == 1 && length == 32, "libcrypto could not compute SHA-256")
    let digits: [UInt8] = Array("0123456789abcdef".utf8)
    var text = [UInt8]()
    text.reserveCapacity(64)
    for byte in digest {
      text.append(digits[Int(byte >> 4)])
      text.append(digits[Int(byte & 0x0F)])
    }
    return String(decoding: text, as: UTF8.self)
  }

  public static func hex(_ bytes: [UInt8]) -> String {
    bytes.withUnsafeBytes { hex($0) }
  }

  /// Whether `text` looks like a digest: 64 lowercase hexadecimal digits.
  public static func isDigest(_ text: some StringProtocol) -> Bool {
    text.utf8.count == 64 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
  }
}
