public import Foundation
import Synchronization

/// A reviewer: someone who signs in to `catalogue serve` to write.
public struct Reviewer: Sendable, Equatable {
  /// The name as stored (names match in any ASCII case).
  public var name: String
  public var created: Date
  public var passwordChanged: Date
  /// Sessions that have not expired.
  public var sessions: Int
  public var tokens: Int
  /// The latest use of a session or a token, if any.
  public var lastSeen: Date?
  /// What the pages call them; `nil`: their name (see ``ReviewerProfile``).
  public var displayName: String?
  /// What they say of themselves, plain text; `nil` for nothing.
  public var bio: String?

  public init(
    name: String, created: Date, passwordChanged: Date, sessions: Int, tokens: Int, lastSeen: Date?,
    displayName: String? = nil, bio: String? = nil
  ) {
    self.name = name
    self.created = created
    self.passwordChanged = passwordChanged
    self.sessions = sessions
    self.tokens = tokens
    self.lastSeen = lastSeen
    self.displayName = displayName
    self.bio = bio
  }
}

/// A reviewer as their page shows them: who they are, what they say of themselves, and how
/// many reviews they wrote. A reviewer removed since (their reviews keep the name) has a
/// profile too, of the name alone.
public struct ReviewerProfile: Sendable, Equatable {
  /// The name as stored: the account's, or as the reviews keep it.
  public var name: String
  /// What the pages call them; `nil`: their name. 1 to 100 characters of one line
  /// (``Library/displayNameProblem(_:)``).
  public var displayName: String?
  /// What they say of themselves: plain text, blank lines between paragraphs, up to 1,000
  /// characters (``Library/bioProblem(_:)``); `nil` for nothing.
  public var bio: String?
  /// How many reviews they wrote (of those the asker may see: published ones for a reader).
  public var reviews: Int
  /// Whether they have an account; `false` for a reviewer removed since.
  public var hasAccount: Bool

  /// The name a page shows: the display name, else the name.
  public var shownName: String { displayName ?? name }

  public init(name: String, displayName: String? = nil, bio: String? = nil, reviews: Int, hasAccount: Bool) {
    self.name = name
    self.displayName = displayName
    self.bio = bio
    self.reviews = reviews
    self.hasAccount = hasAccount
  }
}

/// A signed-in browser session as the server sees it.
public struct SessionGrant: Sendable, Equatable {
  /// The cookie value: 256 random bits, base64url without padding (43 characters). The library
  /// keeps only its SHA-256.
  public var secret: String
  /// The reviewer's name as stored.
  public var reviewer: String
  /// When the session ends unless used again: the idle expiry, or the end of its absolute
  /// lifetime when that comes first.
  public var expires: Date

  public init(secret: String, reviewer: String, expires: Date) {
    self.secret = secret
    self.reviewer = reviewer
    self.expires = expires
  }
}

/// How long sessions live.
public struct SessionPolicy: Sendable, Equatable {
  /// A session unused for this long has expired.
  public var idle: TimeInterval
  /// A session this old has expired, however much it is used: a stolen cookie does not live
  /// for ever.
  public var lifetime: TimeInterval
  /// A session's last use and expiry are written at most this often (a page view is not a
  /// database write).
  public var renewAfter: TimeInterval

  /// 7 days idle, 30 days in all, renewed at most once an hour.
  public static let standard = SessionPolicy(idle: 7 * 86_400, lifetime: 30 * 86_400, renewAfter: 3_600)

  public init(idle: TimeInterval, lifetime: TimeInterval, renewAfter: TimeInterval) {
    self.idle = idle
    self.lifetime = lifetime
    self.renewAfter = renewAfter
  }
}

/// What Argon2id spends on one password hash: passes over memory, and the memory. A library
/// setting; the higher, the more a stolen database costs to attack, and the longer a sign-in
/// takes (about 0.1 s at the standard cost).
public struct PasswordCost: Sendable, Equatable {
  /// Passes over the memory (libsodium's `opslimit`).
  public var operations: Int
  /// The memory in bytes (libsodium's `memlimit`).
  public var memoryBytes: Int

  public init(operations: Int, memoryBytes: Int) {
    self.operations = operations
    self.memoryBytes = memoryBytes
  }

  /// libsodium's interactive preset: 2 passes over 64 MiB.
  public static let standard: PasswordCost = {
    let preset = Sodium.interactiveCost
    return PasswordCost(operations: preset.operations, memoryBytes: preset.memoryBytes)
  }()

  /// The least a library accepts: OWASP's Argon2id minimum, 2 passes over 19 MiB.
  public static let minimum = PasswordCost(operations: 2, memoryBytes: 19 * 1_048_576)

  /// The most memory a library setting may ask for: every sign-in needs it at once.
  static let maximumMemoryBytes = 4_096 * 1_048_576

  /// Problems with the cost, empty when it is usable.
  public var problems: [String] {
    var problems: [String] = []
    if !(Self.minimum.operations...1_000).contains(operations) {
      problems.append("password hashing passes \(operations) are outside \(Self.minimum.operations)–1000")
    }
    if !(Self.minimum.memoryBytes...Self.maximumMemoryBytes).contains(memoryBytes) {
      problems.append(
        "password hashing memory \(memoryBytes) bytes is outside 19 MiB–\(Self.maximumMemoryBytes / 1_048_576) MiB")
    }
    return problems
  }
}

/// Random secrets for the server (CSRF tokens, say) and the one way to compare them.
public enum Secrets {
  /// 256 random bits, base64url without padding: 43 characters safe in a cookie, a form or a
  /// URL.
  public static func make() -> String { Sodium.base64(Sodium.randomBytes(32), .urlSafe) }

  /// Whether two secrets are the same, in a time that does not depend on where they differ
  /// (`==` stops at the first difference, which an attacker can time).
  public static func equal(_ a: String, _ b: String) -> Bool {
    Sodium.constantTimeEqual(Array(a.utf8), Array(b.utf8))
  }
}

/// A key for signing what the server hands out and takes back later (the sign-in form's
/// tokens), so that it need not remember what it gave: 256 random bits, in memory only.
public struct SigningKey: Sendable {
  private let bytes: [UInt8]

  public init() { bytes = Sodium.randomBytes(Sodium.authenticationKeyBytes) }

  /// The tag of `message` under this key (HMAC-SHA-512-256), base64url: 43 characters.
  public func tag(_ message: String) -> String {
    Sodium.base64(Sodium.authenticate(Array(message.utf8), key: bytes), .urlSafe)
  }

  /// Whether `tag` is `message`'s under this key, compared in constant time.
  public func verify(_ tag: String, of message: String) -> Bool {
    Secrets.equal(self.tag(message), tag)
  }
}

extension Library {
  /// The fewest characters a password may have.
  public static let minimumPasswordCharacters = 8
  /// The most bytes (UTF-8) a password may have.
  public static let maximumPasswordBytes = 1024
  /// The most characters a reviewer's name may have.
  public static let maximumNameLength = 64
  /// What starts every API token.
  public static let tokenPrefix = "cat_"
  /// A token's use is written at most this often.
  static let tokenUseInterval: TimeInterval = 60
  /// How long the address of a successful sign-in is remembered: 60 days, twice a session's
  /// longest life, so that a reviewer who signs in only when their session has run out is
  /// still known at the next sign-in.
  public static let signInAddressMemory: TimeInterval = 60 * 86_400

  // MARK: Reviewers

  /// Adds a reviewer with a password (hashed with Argon2id at the library's
  /// ``passwordCost``; the password itself is kept nowhere). A name taken in any case is
  /// refused.
  public func addReviewer(_ name: String, password: String, now: Date = Date()) throws(CatalogueError) {
    try Self.checkName(name)
    let hash = try hashPassword(password)
    try write { () throws(CatalogueError) in
      guard try records.insertUser(name: name, passwordHash: hash, created: now) else {
        throw .reviewerExists(name, existing: try records.user(named: name)?.name ?? name)
      }
    }
  }

  /// Gives a reviewer a new password, and ends their sessions (a browser signed in with the
  /// old one must sign in again). Their API tokens stay.
  public func setPassword(of name: String, to password: String, now: Date = Date()) throws(CatalogueError) {
    guard let user = try records.user(named: name) else { throw .reviewerNotFound(name) }
    let hash = try hashPassword(password)
    try write { () throws(CatalogueError) in
      guard try records.setPasswordHash(of: user.name, hash, changed: now) else { throw .reviewerNotFound(name) }
      _ = try records.deleteSessions(ofUser: user.name)
    }
  }

  /// Removes the reviewer with their sessions and tokens; reviews keep the name in their
  /// `created_by` and `updated_by`.
  public func removeReviewer(_ name: String) throws(CatalogueError) {
    try write { () throws(CatalogueError) in
      guard try records.deleteUser(name: name) else { throw .reviewerNotFound(name) }
    }
  }

  /// Every reviewer, by name, with their live sessions and tokens.
  public func reviewers(now: Date = Date()) throws(CatalogueError) -> [Reviewer] {
    var result: [Reviewer] = []
    for row in try records.reviewerRows(now: now) {
      result.append(
        Reviewer(
          name: row.name, created: try Self.time(row.created, "created", of: row.name),
          passwordChanged: try Self.time(row.passwordChanged, "password change", of: row.name),
          sessions: row.sessions, tokens: row.tokens,
          lastSeen: try row.lastSeen.map { (text) throws(CatalogueError) in
            try Self.time(text, "last use", of: row.name)
          }, displayName: row.displayName, bio: row.bio
        ))
    }
    return result
  }

  /// The reviewer `name` names (in any case), or `nil`.
  public func reviewer(named name: String, now: Date = Date()) throws(CatalogueError) -> Reviewer? {
    guard let user = try records.user(named: name) else { return nil }
    return try reviewers(now: now).first { $0.name == user.name }
  }

  // MARK: Profiles

  /// The profile of the reviewer `name` names (in any case), as someone who may see drafts
  /// (`publishedOnly` false) or a reader sees it: their account's display name and bio, and
  /// how many reviews they wrote; for a name no account has, but which reviews keep as their
  /// author (a reviewer removed since), the name as the reviews keep it. `nil` when it is
  /// neither, and for a reader when none of theirs is published: a reader learns no name
  /// from a profile that they could not learn from a review.
  public func reviewerProfile(named name: String, publishedOnly: Bool = true) throws(CatalogueError)
    -> ReviewerProfile?
  {
    // No review can keep a name no reviewer can have.
    guard Self.nameProblem(name) == nil else { return nil }
    return try read { () throws(CatalogueError) -> ReviewerProfile? in
      let user = try records.user(named: name)
      let written = try records.author(matching: user?.name ?? name, publishedOnly: publishedOnly)
      if publishedOnly && written.reviews == 0 { return nil }
      if let user {
        return ReviewerProfile(
          name: user.name, displayName: user.displayName, bio: user.bio, reviews: written.reviews, hasAccount: true)
      }
      guard let kept = written.name else { return nil }
      return ReviewerProfile(name: kept, reviews: written.reviews, hasAccount: false)
    }
  }

  /// The profile of everyone who has published a review (or written any, unless
  /// `publishedOnly`), reviewers removed since included, by name: what the sitemap lists.
  public func reviewerProfiles(publishedOnly: Bool = true) throws(CatalogueError) -> [ReviewerProfile] {
    try read { () throws(CatalogueError) -> [ReviewerProfile] in
      var profiles: [ReviewerProfile] = []
      for name in try records.authorNames() {
        if let profile = try reviewerProfile(named: name, publishedOnly: publishedOnly) { profiles.append(profile) }
      }
      return profiles
    }
  }

  /// Changes what the pages say of the reviewer `name` (in any case): `displayName` and
  /// `bio` replace the stored ones, `nil` keeps one as it is, and empty text (or only white
  /// space) clears it, so that the pages call them by their name again. Both are checked
  /// before anything changes, every problem said at once (``CatalogueError/badReviewerProfile(_:problems:)``).
  /// Returns the profile as it is now, drafts counted.
  @discardableResult
  public func editReviewer(_ name: String, displayName: String?, bio: String?) throws(CatalogueError)
    -> ReviewerProfile
  {
    let shown = displayName.map { Self.normalized($0, multiline: false) }
    let said = bio.map { Self.normalized($0, multiline: true) }
    var problems: [String] = []
    if let shown = shown ?? nil, let problem = Self.displayNameProblem(shown) { problems.append(problem) }
    if let said = said ?? nil, let problem = Self.bioProblem(said) { problems.append(problem) }
    guard let user = try records.user(named: name) else { throw .reviewerNotFound(name) }
    if !problems.isEmpty { throw .badReviewerProfile(user.name, problems: problems) }
    try write { () throws(CatalogueError) in
      // As stored inside the transaction: a change made meanwhile to the other field stays.
      guard let now = try records.user(named: user.name),
        try records.setProfile(
          of: now.name, displayName: shown ?? now.displayName, bio: said ?? now.bio)
      else { throw .reviewerNotFound(name) }
    }
    guard let profile = try reviewerProfile(named: user.name, publishedOnly: false) else {
      throw .reviewerNotFound(name)
    }
    return profile
  }

  // MARK: Tokens

  /// A new API token for `name`, for scripts (`Authorization: Bearer …`): returned once,
  /// stored only as its SHA-256. "cat_" and 43 base64url characters (256 random bits).
  public func newToken(for name: String, now: Date = Date()) throws(CatalogueError) -> String {
    let token = Self.tokenPrefix + Sodium.base64(Sodium.randomBytes(32), .urlSafe)
    try write { () throws(CatalogueError) in
      guard let user = try records.user(named: name) else { throw .reviewerNotFound(name) }
      try records.insertToken(idHash: Self.digest(token), user: user.name, created: now)
    }
    return token
  }

  /// Revokes every token of `name`; how many there were.
  public func revokeTokens(of name: String) throws(CatalogueError) -> Int {
    try write { () throws(CatalogueError) -> Int in
      guard let user = try records.user(named: name) else { throw .reviewerNotFound(name) }
      return try records.deleteTokens(ofUser: user.name)
    }
  }

  /// The reviewer a bearer token names, or `nil` (a malformed token is simply none). Records
  /// its use, at most once a minute.
  public func reviewer(forToken token: String, now: Date = Date()) throws(CatalogueError) -> String? {
    guard Self.isToken(token) else { return nil }
    // The digest is the key: the lookup compares no secret.
    let digest = Self.digest(token)
    guard let row = try records.token(idHash: digest) else { return nil }
    let lastUsed = row.lastUsed.flatMap(DateText.parse)
    if lastUsed.map({ abs(now.timeIntervalSince($0)) >= Self.tokenUseInterval }) ?? true {
      try write(interruptible: false) { () throws(CatalogueError) in
        try records.markTokenUsed(idHash: digest, at: now)
      }
    }
    return row.user
  }

  // MARK: Signing in

  /// Checks a sign-in. An unknown name costs the same time as a wrong password: a dummy hash
  /// with the library's parameters is verified instead. On success, when the stored hash was
  /// made with other parameters than the library's ``passwordCost`` (it was raised, say), a
  /// new hash is stored. Returns the reviewer's stored name, or `nil` for a wrong name or
  /// password.
  ///
  /// Slow on purpose (Argon2id, about 0.1 s at the standard cost): callers run it off
  /// latency-sensitive threads.
  public func verifyPassword(name: String, password: String, now: Date = Date()) throws(CatalogueError) -> String? {
    let bytes = Array(password.utf8)
    // No stored password is longer, whoever asks: refused before any work.
    guard bytes.count <= Self.maximumPasswordBytes else { return nil }
    let cost = passwordCost
    // A name that cannot be stored is as unknown as any other.
    let user = Self.nameProblem(name) == nil ? try records.user(named: name) : nil
    guard let user else {
      _ = Sodium.verifyPassword(bytes, hash: Self.dummyHash(cost))
      return nil
    }
    guard Sodium.verifyPassword(bytes, hash: user.passwordHash) else { return nil }
    if Sodium.needsRehash(user.passwordHash, operations: cost.operations, memoryBytes: cost.memoryBytes),
      let fresh = Sodium.hashPassword(bytes, operations: cost.operations, memoryBytes: cost.memoryBytes)
    {
      try write(interruptible: false) { () throws(CatalogueError) in
        // Only if the password was not changed since it was read.
        _ = try records.replacePasswordHash(of: user.name, user.passwordHash, with: fresh)
      }
    }
    return user.name
  }

  /// Starts a session for `reviewer` with a new random secret (a sign-in never reuses an
  /// id), and deletes the expired sessions of every reviewer while at it. With `address`, the
  /// client's address, remembers that the reviewer signed in from it (see
  /// ``signedInLately(_:from:now:)``); an address of more than 100 bytes is not kept.
  public func startSession(
    for reviewer: String, policy: SessionPolicy = .standard, from address: String? = nil, now: Date = Date()
  ) throws(CatalogueError) -> SessionGrant {
    let secret = Secrets.make()
    let expires = Self.stored(now.addingTimeInterval(min(policy.idle, policy.lifetime)))
    let name = try write(interruptible: false) { () throws(CatalogueError) -> String in
      guard let user = try records.user(named: reviewer) else { throw .reviewerNotFound(reviewer) }
      try records.deleteExpiredSessions(now: now, startedBefore: now.addingTimeInterval(-policy.lifetime))
      try records.insertSession(idHash: Self.digest(secret), user: user.name, created: now, expires: expires)
      if let address, (1...100).contains(address.utf8.count) {
        try records.deleteSignInAddresses(before: now.addingTimeInterval(-Self.signInAddressMemory))
        try records.recordSignIn(user: user.name, address: address, at: now)
      }
      return user.name
    }
    return SessionGrant(secret: secret, reviewer: name, expires: expires)
  }

  /// Whether the reviewer `name` (in any case) signed in from `address` within
  /// ``signInAddressMemory`` before `now`: the server lets such an address past the
  /// account-wide sign-in throttle, so that a guesser elsewhere cannot keep the reviewer out.
  public func signedInLately(_ name: String, from address: String, now: Date = Date()) throws(CatalogueError)
    -> Bool
  {
    try records.signedIn(user: name, address: address, since: now.addingTimeInterval(-Self.signInAddressMemory))
  }

  /// The session a cookie's secret names, if it is live. When `renewAfter` has passed since it
  /// was last written, its last use and expiry are written again (sliding: an idle expiry from
  /// now, within its lifetime) and `renewed` is `true`: the caller sends the cookie again with
  /// the new expiry. A malformed secret is simply no session; an expired one is deleted when
  /// met.
  public func session(secret: String, policy: SessionPolicy = .standard, now: Date = Date())
    throws(CatalogueError) -> (grant: SessionGrant, renewed: Bool)?
  {
    guard Self.isSecret(secret) else { return nil }
    // The digest is the key: the lookup compares no secret.
    let digest = Self.digest(secret)
    guard let row = try records.session(idHash: digest) else { return nil }
    guard let created = DateText.parse(row.created), let lastSeen = DateText.parse(row.lastSeen),
      let expires = DateText.parse(row.expires)
    else {
      // A record no build writes is no session.
      try write(interruptible: false) { () throws(CatalogueError) in try records.deleteSession(idHash: digest) }
      return nil
    }
    let end = created.addingTimeInterval(policy.lifetime)
    guard now < expires && now < end else {
      try write(interruptible: false) { () throws(CatalogueError) in try records.deleteSession(idHash: digest) }
      return nil
    }
    guard now.timeIntervalSince(lastSeen) >= policy.renewAfter else {
      return (SessionGrant(secret: secret, reviewer: row.user, expires: min(expires, end)), false)
    }
    let renewed = Self.stored(min(now.addingTimeInterval(policy.idle), end))
    try write(interruptible: false) { () throws(CatalogueError) in
      try records.renewSession(idHash: digest, lastSeen: now, expires: renewed)
    }
    return (SessionGrant(secret: secret, reviewer: row.user, expires: renewed), true)
  }

  /// Ends the session a cookie's secret names (signing out); nothing when there is none.
  public func endSession(secret: String) throws(CatalogueError) {
    guard Self.isSecret(secret) else { return }
    try write(interruptible: false) { () throws(CatalogueError) in
      try records.deleteSession(idHash: Self.digest(secret))
    }
  }

  // MARK: Rules

  /// Why `name` cannot be a reviewer's name, or `nil` when it can: 1 to 64 ASCII letters,
  /// digits, `.`, `_` and `-`, starting with a letter or digit. ASCII only, because names
  /// match in any case and SQLite folds the case of ASCII letters alone.
  public static func nameProblem(_ name: String) -> String? {
    let bytes = Array(name.utf8)
    func isAlphanumeric(_ byte: UInt8) -> Bool {
      (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte)
    }
    if bytes.isEmpty { return "give 1 to \(maximumNameLength) letters, digits, '.', '_' or '-'" }
    if bytes.count > maximumNameLength { return "it is \(bytes.count) characters long, over \(maximumNameLength)" }
    guard
      bytes.allSatisfy({
        isAlphanumeric($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-")
      })
    else { return "use only ASCII letters, digits, '.', '_' and '-'" }
    guard isAlphanumeric(bytes[0]) else { return "it must start with a letter or a digit" }
    return nil
  }

  /// The most characters a display name may have.
  public static let maximumDisplayNameLength = 100
  /// The most characters a bio may have.
  public static let maximumBioLength = 1_000

  /// Why `text` (trimmed) cannot be a display name, or `nil` when it can: 1 to 100
  /// characters, counted as Unicode code points (as SQLite counts them), of one line, without
  /// control characters or direction marks (which could make a name read as another's).
  public static func displayNameProblem(_ text: String) -> String? {
    let length = text.unicodeScalars.count
    if length == 0 { return "the display name is empty: give 1 to \(maximumDisplayNameLength) characters" }
    if length > maximumDisplayNameLength {
      return "the display name is \(length) characters long, over \(maximumDisplayNameLength): give a shorter one"
    }
    if let problem = ReviewDraft.controlCharacter(in: text, field: "the display name", allowed: []) {
      return problem
    }
    if let mark = text.unicodeScalars.first(where: Shown.isHidden) {
      let code = String(mark.value, radix: 16, uppercase: true)
      return "the display name has a direction mark U+\(code): only printable characters are allowed"
    }
    return nil
  }

  /// Why `text` (trimmed, its line ends LF) cannot be a bio, or `nil` when it can: 1 to
  /// 1,000 characters (code points, as SQLite counts them) of plain text, lines and blank
  /// lines between paragraphs, without other control characters.
  public static func bioProblem(_ text: String) -> String? {
    let length = text.unicodeScalars.count
    if length == 0 { return "the bio is empty: give 1 to \(maximumBioLength) characters" }
    if length > maximumBioLength {
      return "the bio is \(length) characters long, over \(maximumBioLength): give a shorter one"
    }
    return ReviewDraft.controlCharacter(in: text, field: "the bio", allowed: ["\t", "\n"])
  }

  /// `text` trimmed (a bio's CRLF pairs made LF), `nil` when nothing is left: empty text
  /// clears a display name or a bio.
  static func normalized(_ text: String, multiline: Bool) -> String? {
    let trimmed = (multiline ? text.replacingCRLF() : text).trimmingWhitespace()
    return trimmed.isEmpty ? nil : trimmed
  }

  static func checkName(_ name: String) throws(CatalogueError) {
    if let problem = nameProblem(name) { throw .badReviewerName(name, problem: problem) }
  }

  /// Why `password` cannot be used, or `nil` when it can: at least 8 characters, at most 1024
  /// bytes, no NUL (which C would take for its end).
  public static func passwordProblem(_ password: String) -> String? {
    let bytes = password.utf8
    if bytes.contains(0) { return "it holds a NUL character" }
    let characters = password.count
    if characters < minimumPasswordCharacters {
      return "it has \(characters) character\(characters == 1 ? "" : "s"); give at least \(minimumPasswordCharacters)"
    }
    if bytes.count > maximumPasswordBytes {
      return "it is \(bytes.count) bytes long; give at most \(maximumPasswordBytes)"
    }
    return nil
  }

  /// The Argon2id hash of a new password, at the library's cost; the password is checked
  /// first.
  private func hashPassword(_ password: String) throws(CatalogueError) -> String {
    if let problem = Self.passwordProblem(password) { throw .badPassword(problem: problem) }
    let cost = passwordCost
    guard
      let hash = Sodium.hashPassword(Array(password.utf8), operations: cost.operations, memoryBytes: cost.memoryBytes)
    else { throw .passwordHashFailed(memoryBytes: cost.memoryBytes) }
    return hash
  }

  /// Dummy hashes by cost: well-formed Argon2id strings with random salt and output, which
  /// verify no password but cost as much to try. Made without hashing (nothing to wait for).
  private static let dummyHashes = Mutex<[PasswordCost: String]>([:])

  /// The dummy hash that an unknown name's password is verified against.
  static func dummyHash(_ cost: PasswordCost) -> String {
    dummyHashes.withLock { cache in
      if let hash = cache[cost] { return hash }
      let hash =
        "$argon2id$v=19$m=\(cost.memoryBytes / 1024),t=\(cost.operations),p=1$"
        + Sodium.base64(Sodium.randomBytes(16), .original) + "$" + Sodium.base64(Sodium.randomBytes(32), .original)
      cache[cost] = hash
      return hash
    }
  }

  /// The SHA-256 a session secret or token is stored as.
  static func digest(_ secret: String) -> String { SHA256.hex(Array(secret.utf8)) }

  /// Whether `text` has the shape of a session secret: 43 base64url characters.
  static func isSecret(_ text: some StringProtocol) -> Bool {
    text.utf8.count == 43 && text.utf8.allSatisfy(isBase64URL)
  }

  /// Whether `text` has the shape of an API token: "cat_" and 43 base64url characters.
  static func isToken(_ text: String) -> Bool {
    text.hasPrefix(tokenPrefix) && isSecret(text.dropFirst(tokenPrefix.count))
  }

  private static func isBase64URL(_ byte: UInt8) -> Bool {
    (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte) || byte == UInt8(ascii: "-")
      || byte == UInt8(ascii: "_")
  }

  /// `date` as the records keep it (to the millisecond).
  private static func stored(_ date: Date) -> Date { DateText.parse(DateText.format(date)) ?? date }

  private static func time(_ text: String, _ field: String, of name: String) throws(CatalogueError) -> Date {
    guard let date = DateText.parse(text) else {
      throw .damagedRecord("reviewer \(name)", problem: "\(field) time \"\(text)\" is not a time")
    }
    return date
  }
}

extension PasswordCost: Hashable {}
