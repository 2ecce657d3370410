/// One line per finished request, written to the log's descriptor in one `write`.
///
/// Text: `2026-12-02T14:29:38.123Z 127.0.0.1 GET /path?query 200 5123 1.4ms` (`0.042ms` under a
/// millisecond), with ` aborted`
/// at the end when the connection closed before the response was sent whole. JSON:
/// `{"time":"…","remote":"…","method":"…","target":"…","status":200,"bytes":5123,"ms":1.412}`
/// with `"aborted":true` likewise. Every byte of the method and the target outside printable
/// ASCII, the space included, is written as %XX, so that a request cannot forge a line or a
/// field; JSON escapes `"` and `\` besides. `bytes` counts the body bytes of the response (0
/// for HEAD, 204, 304); for an aborted request, those the response held. A response's
/// ``HTTPResponse/logNote`` (why the server failed) ends the line: text ` failure="…"`, JSON
/// `"failure":"…"`, its control characters, `"` and `%` as %XX (JSON: as JSON escapes them),
/// cut after 4 KiB.
///
/// Credentials in the query are written as `REDACTED` (`/?access_token=REDACTED&page=2`): the
/// value of every parameter named as one in ``credentialParameters``, and every value that
/// starts with one of `secretPrefixes`, whatever its name. A log is kept longer and read by
/// more people than the secrets it would otherwise hold.
struct RequestLog: Sendable {
  let format: HTTPServerConfiguration.LogFormat
  let sink: Int32
  /// See ``HTTPServerConfiguration/logSecretPrefixes``.
  var secretPrefixes: [String] = []

  /// Query parameters whose values are credentials, lowercased: compared without regard to
  /// case, once percent-decoded.
  static let credentialParameters: Set<String> = ["token", "access_token", "api_key", "key", "session", "password"]

  /// The longest target written; the rest is cut, marked with "...".
  static let maximumTargetBytes = 2048

  struct Entry {
    var remote: String
    var method: String
    var target: String
    var status: Int
    var bytes: Int
    var nanoseconds: Int64
    var aborted: Bool
    var note: String? = nil
  }

  func write(_ entry: Entry) {
    guard format != .off else { return }
    let target = Self.redacted(entry.target, secretPrefixes: secretPrefixes)
    var line = [UInt8]()
    line.reserveCapacity(160 + min(target.utf8.count * 3, Self.maximumTargetBytes))
    let clock = System.wallClock()
    switch format {
    case .text:
      Self.appendTime(clock, to: &line)
      line.append(0x20)
      line.append(contentsOf: entry.remote.utf8)
      line.append(0x20)
      Self.appendEscaped(entry.method.isEmpty ? "-" : entry.method, json: false, to: &line)
      line.append(0x20)
      Self.appendEscaped(target, json: false, to: &line)
      line.append(contentsOf: " \(entry.status) \(entry.bytes) ".utf8)
      // One decimal from a millisecond up, as people read it; three below, where one would say 0.0.
      Self.appendMilliseconds(entry.nanoseconds, decimals: entry.nanoseconds >= 1_000_000 ? 1 : 3, to: &line)
      line.append(contentsOf: "ms".utf8)
      if entry.aborted { line.append(contentsOf: " aborted".utf8) }
      if let note = entry.note {
        line.append(contentsOf: #" failure=""#.utf8)
        Self.appendNote(note, json: false, to: &line)
        line.append(UInt8(ascii: "\""))
      }
    case .json:
      line.append(contentsOf: #"{"time":""#.utf8)
      Self.appendTime(clock, to: &line)
      line.append(contentsOf: #"","remote":""#.utf8)
      Self.appendEscaped(entry.remote, json: true, to: &line)
      line.append(contentsOf: #"","method":""#.utf8)
      Self.appendEscaped(entry.method, json: true, to: &line)
      line.append(contentsOf: #"","target":""#.utf8)
      Self.appendEscaped(target, json: true, to: &line)
      line.append(contentsOf: #"","status":\#(entry.status),"bytes":\#(entry.bytes),"ms":"#.utf8)
      Self.appendMilliseconds(entry.nanoseconds, decimals: 3, to: &line)
      if entry.aborted { line.append(contentsOf: #","aborted":true"#.utf8) }
      if let note = entry.note {
        line.append(contentsOf: #","failure":""#.utf8)
        Self.appendNote(note, json: true, to: &line)
        line.append(UInt8(ascii: "\""))
      }
      line.append(UInt8(ascii: "}"))
    case .off:
      return
    }
    line.append(0x0A)
    line.withUnsafeBytes { System.writeAll(sink, $0) }
  }

  /// `target` with the value of each query parameter that carries a credential replaced by
  /// `REDACTED` (a piece without '=' replaced whole); the rest as it was sent.
  static func redacted(_ target: String, secretPrefixes: [String]) -> String {
    guard let question = target.firstIndex(of: "?") else { return target }
    let query = target[target.index(after: question)...]
    var pieces: [Substring] = []
    var changed = false
    for piece in query.split(separator: "&", omittingEmptySubsequences: false) {
      guard let equals = piece.firstIndex(of: "=") else {
        let secret = isSecret(piece, prefixes: secretPrefixes)
        pieces.append(secret ? "REDACTED" : piece)
        changed = changed || secret
        continue
      }
      let value = piece[piece.index(after: equals)...]
      let name = PercentEncoding.decodeForm(piece[..<equals]).lowercased()
      if !value.isEmpty && (credentialParameters.contains(name) || isSecret(value, prefixes: secretPrefixes)) {
        pieces.append(piece[...equals] + "REDACTED")
        changed = true
      } else {
        pieces.append(piece)
      }
    }
    guard changed else { return target }
    return target[...question] + pieces.joined(separator: "&")
  }

  /// Whether `text`, percent-decoded, holds a secret: one of `prefixes` at its start or after a
  /// character that is neither a letter nor a digit (a token inside a URL given as a value),
  /// but not inside a word ("concat_").
  private static func isSecret(_ text: Substring, prefixes: [String]) -> Bool {
    guard !prefixes.isEmpty else { return false }
    let decoded = Array(PercentEncoding.decodeForm(text).utf8)
    for prefix in prefixes where !prefix.isEmpty {
      let wanted = Array(prefix.utf8)
      guard decoded.count >= wanted.count else { continue }
      for start in 0...(decoded.count - wanted.count)
      where decoded[start..<(start + wanted.count)].elementsEqual(wanted) {
        if start == 0 || !isAlphanumeric(decoded[start - 1]) { return true }
      }
    }
    return false
  }

  private static func isAlphanumeric(_ byte: UInt8) -> Bool {
    (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
  }

  /// `2026-12-02T14:29:38.123Z`.
  static func appendTime(_ clock: (seconds: Int64, milliseconds: Int), to line: inout [UInt8]) {
    let civil = Civil(seconds: clock.seconds)
    appendDigits(civil.year, width: 4, to: &line)
    line.append(UInt8(ascii: "-"))
    appendDigits(civil.month, width: 2, to: &line)
    line.append(UInt8(ascii: "-"))
    appendDigits(civil.day, width: 2, to: &line)
    line.append(UInt8(ascii: "T"))
    appendDigits(civil.hour, width: 2, to: &line)
    line.append(UInt8(ascii: ":"))
    appendDigits(civil.minute, width: 2, to: &line)
    line.append(UInt8(ascii: ":"))
    appendDigits(civil.second, width: 2, to: &line)
    line.append(UInt8(ascii: "."))
    appendDigits(clock.milliseconds, width: 3, to: &line)
    line.append(UInt8(ascii: "Z"))
  }

  private static func appendDigits(_ value: Int, width: Int, to line: inout [UInt8]) {
    var divisor = 1
    for _ in 1..<width { divisor *= 10 }
    var rest = max(0, value)
    if rest >= divisor * 10 {
      line.append(contentsOf: String(rest).utf8)
      return
    }
    while divisor > 0 {
      line.append(UInt8(ascii: "0") + UInt8(rest / divisor))
      rest %= divisor
      divisor /= 10
    }
  }

  /// Milliseconds with `decimals` places, rounded.
  private static func appendMilliseconds(_ nanoseconds: Int64, decimals: Int, to line: inout [UInt8]) {
    var scale: Int64 = 1
    for _ in 0..<decimals { scale *= 10 }
    let units = (max(0, nanoseconds) * scale + 500_000) / 1_000_000
    line.append(contentsOf: String(units / scale).utf8)
    line.append(UInt8(ascii: "."))
    appendDigits(Int(units % scale), width: decimals, to: &line)
  }

  /// A note as one field: printable text kept (spaces too), control characters (and `"`, `%`
  /// in text) as %XX, JSON's escapes for JSON; at most 4 KiB.
  static func appendNote(_ note: String, json: Bool, to line: inout [UInt8]) {
    let hex = Array("0123456789ABCDEF".utf8)
    var written = 0
    for scalar in note.unicodeScalars {
      let bytes = Array(String(scalar).utf8)
      written += bytes.count
      if written > 4096 {
        line.append(contentsOf: "...".utf8)
        return
      }
      guard scalar.isASCII, let byte = bytes.first else {
        line.append(contentsOf: bytes)
        continue
      }
      let control = byte < 0x20 || byte == 0x7F
      if json && (byte == 0x22 || byte == 0x5C) {
        line.append(contentsOf: [UInt8(ascii: "\\"), byte])
      } else if json && control {
        line.append(contentsOf: Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 15)]])
      } else if !json && (control || byte == 0x22 || byte == 0x25) {
        line.append(contentsOf: [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]])
      } else {
        line.append(byte)
      }
    }
  }

  /// `text` with every byte outside printable ASCII, the space included, as %XX; for JSON, `"`
  /// and `\` escaped besides.
  static func appendEscaped(_ text: String, json: Bool, to line: inout [UInt8]) {
    var written = 0
    for byte in text.utf8 {
      if written >= maximumTargetBytes {
        line.append(contentsOf: "...".utf8)
        return
      }
      if byte <= 0x20 || byte >= 0x7F {
        line.append(UInt8(ascii: "%"))
        line.append(ASCII.hexDigits[Int(byte >> 4)])
        line.append(ASCII.hexDigits[Int(byte & 0x0F)])
        written += 3
      } else if json && (byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")) {
        line.append(UInt8(ascii: "\\"))
        line.append(byte)
        written += 2
      } else {
        line.append(byte)
        written += 1
      }
    }
  }
}
