import CSodium

/// libsodium, for what signing in needs: Argon2id password hashes, random secrets, and
/// comparisons that take the same time whatever the bytes. The only file that calls libsodium.
enum Sodium {
  /// `sodium_init` once per process, whichever thread asks first (a global's initialiser runs
  /// once, under a lock). It fails only when the system has no randomness to give, and then
  /// nothing here can be made safely.
  /// The corresponding C function is `sodium_init`.
  private static let initialized: Bool = sodium_init() >= 0

  private static func ready() {
    precondition(initialized, "libsodium could not be initialised (no system randomness?)")
  }

  /// The most bytes an Argon2id hash string takes, its NUL included.
  /// The corresponding C function is `crypto_pwhash_strbytes`.
  private static var hashStringBytes: Int { crypto_pwhash_strbytes() }

  /// libsodium's interactive preset: 2 passes over 64 MiB.
  /// The corresponding C functions are `crypto_pwhash_opslimit_interactive` and
  /// `crypto_pwhash_memlimit_interactive`.
  static var interactiveCost: (operations: Int, memoryBytes: Int) {
    (Int(crypto_pwhash_opslimit_interactive()), crypto_pwhash_memlimit_interactive())
  }

  /// The Argon2id hash string of `password` (salt and parameters included, e.g.
  /// `$argon2id$v=19$m=65536,t=2,p=1$…`), or `nil` when libsodium cannot have the memory.
  /// The corresponding C function is `crypto_pwhash_str`.
  static func hashPassword(_ password: [UInt8], operations: Int, memoryBytes: Int) -> String? {
    ready()
    var output = [CChar](repeating: 0, count: hashStringBytes)
    let status = withText(password) { text, count in
      crypto_pwhash_str(&output, text, UInt64(count), UInt64(operations), memoryBytes)
    }
    guard status == 0 else { return nil }
    return output.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
  }

  /// Whether `password` is the one `hash` was made from. A hash string that does not parse is
  /// no match. Takes as long as the hash's parameters say, whatever the answer.
  /// The corresponding C function is `crypto_pwhash_str_verify`.
  static func verifyPassword(_ password: [UInt8], hash: String) -> Bool {
    ready()
    guard hash.utf8.count < hashStringBytes else { return false }
    return withText(password) { text, count in crypto_pwhash_str_verify(hash, text, UInt64(count)) == 0 }
  }

  /// Whether `hash` was made with other parameters (or another algorithm) than these: then a
  /// sign-in that verified it stores a new one. A hash string that does not parse needs one too.
  /// The corresponding C function is `crypto_pwhash_str_needs_rehash`.
  static func needsRehash(_ hash: String, operations: Int, memoryBytes: Int) -> Bool {
    ready()
    guard hash.utf8.count < hashStringBytes else { return true }
    return crypto_pwhash_str_needs_rehash(hash, UInt64(operations), memoryBytes) != 0
  }

  /// `count` bytes from libsodium's generator (the kernel's `getrandom`).
  /// The corresponding C function is `randombytes_buf`.
  static func randomBytes(_ count: Int) -> [UInt8] {
    ready()
    var bytes = [UInt8](repeating: 0, count: count)
    bytes.withUnsafeMutableBytes { buffer in
      if let start = buffer.baseAddress { randombytes_buf(start, buffer.count) }
    }
    return bytes
  }

  /// Whether `a` and `b` hold the same bytes, in a time that depends only on their length.
  /// The corresponding C function is `sodium_memcmp`.
  static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    ready()
    guard a.count == b.count else { return false }
    guard !a.isEmpty else { return true }
    return a.withUnsafeBytes { left in
      b.withUnsafeBytes { right in sodium_memcmp(left.baseAddress, right.baseAddress, left.count) == 0 }
    }
  }

  /// The bytes of a key for ``authenticate(_:key:)``.
  /// The corresponding C function is `crypto_auth_keybytes`.
  static var authenticationKeyBytes: Int { crypto_auth_keybytes() }

  /// The tag of `message` under `key` (HMAC-SHA-512-256): 32 bytes that no one without the key
  /// can make for another message.
  /// The corresponding C function is `crypto_auth`.
  static func authenticate(_ message: [UInt8], key: [UInt8]) -> [UInt8] {
    ready()
    precondition(key.count == authenticationKeyBytes, "a key of \(key.count) bytes for crypto_auth")
    var tag = [UInt8](repeating: 0, count: crypto_auth_bytes())
    // The pointer is valid even for an empty message, which crypto_auth's parameter needs.
    withText(message) { text, count in
      text.withMemoryRebound(to: UInt8.self, capacity: count + 1) { input in
        key.withUnsafeBufferPointer { key in
          // crypto_auth cannot fail: HMAC over memory the caller owns.
          _ = crypto_auth(&tag, input, UInt64(count), key.baseAddress!)
        }
      }
    }
    return tag
  }

  /// The alphabets `base64` writes.
  enum Base64Variant {
    /// `A–Z a–z 0–9 + /`, no padding: what Argon2 hash strings use.
    case original
    /// `A–Z a–z 0–9 - _`, no padding: safe in cookies and URLs.
    case urlSafe

    var code: Int32 {
      switch self {
      case .original: return sodium_base64_VARIANT_ORIGINAL_NO_PADDING
      case .urlSafe: return sodium_base64_VARIANT_URLSAFE_NO_PADDING
      }
    }
  }

  /// Calls `body` with `bytes` as C text and their count; the pointer is valid (NUL-ended) even
  /// for no bytes, which libsodium's non-null parameters need.
  private static func withText<T>(_ bytes: [UInt8], _ body: (UnsafePointer<CChar>, Int) -> T) -> T {
    let terminated = bytes + [0]
    return terminated.withUnsafeBufferPointer { buffer in
      buffer.withMemoryRebound(to: CChar.self) { body($0.baseAddress!, bytes.count) }
    }
  }

  /// `bytes` in base64 without padding, in constant time.
  /// The corresponding C function is `sodium_bin2base64`.
  static func base64(_ bytes: [UInt8], _ variant: Base64Variant) -> String {
    ready()
    let length = sodium_base64_encoded_len(bytes.count, variant.code)
    var output = [CChar](repeating: 0, count: length)
    bytes.withUnsafeBufferPointer { input in
      _ = sodium_bin2base64(&output, length, input.baseAddress, input.count, variant.code)
    }
    return output.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
  }
}
