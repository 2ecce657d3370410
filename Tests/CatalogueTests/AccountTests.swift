@testable import Catalogue
import Foundation
import Testing
import TestSupport

/// A library whose password hashes cost the least a library accepts, so that tests that hash
/// stay quick (each hash still runs Argon2id over 19 MiB).
func accountsLibrary() throws -> TestLibrary {
  let test = try TestLibrary()
  try test.library.setPasswordCost(.minimum)
  return test
}

/// A fixed moment, so that session times are exact.
let signInTime = Date(timeIntervalSince1970: 1_800_000_000)

@Suite("Reviewers")
struct ReviewerTests {
  @Test func addListAndRemove() throws {
    let test = try accountsLibrary()
    let library = test.library
    try library.addReviewer("Alice", password: "correct horse", now: signInTime)
    try library.addReviewer("bob.smith-2", password: "battery staple", now: signInTime.addingTimeInterval(60))
    let reviewers = try library.reviewers(now: signInTime)
    #expect(reviewers.map(\.name) == ["Alice", "bob.smith-2"])
    #expect(reviewers[0].created == signInTime && reviewers[0].passwordChanged == signInTime)
    #expect(reviewers[0].sessions == 0 && reviewers[0].tokens == 0 && reviewers[0].lastSeen == nil)
    // The password is kept only as an Argon2id hash at the library's cost.
    let hash = try #require(try library.records.user(named: "alice")?.passwordHash)
    #expect(hash.hasPrefix("$argon2id$v=19$m=19456,t=2,p=1$"))
    #expect(!hash.contains("correct horse"))
    try library.removeReviewer("ALICE")
    #expect(try library.reviewers().map(\.name) == ["bob.smith-2"])
    #expect(throws: CatalogueError.reviewerNotFound("alice")) { try library.removeReviewer("alice") }
  }

  @Test func aNameTakenInAnotherCaseIsRefused() throws {
    let test = try accountsLibrary()
    try test.library.addReviewer("Alice", password: "correct horse")
    let error = #expect(throws: CatalogueError.reviewerExists("ALICE", existing: "Alice")) {
      try test.library.addReviewer("ALICE", password: "another one")
    }
    #expect(
      error?.description
        == "reviewer Alice exists already (names match in any case, so ALICE is taken): choose another name, "
        + "or `catalogue user passwd Alice` to change the password")
    #expect(try test.library.reviewers().count == 1)
  }

  @Test(arguments: [
    ("", "give 1 to 64 letters, digits, '.', '_' or '-'"),
    ("two words", "use only ASCII letters, digits, '.', '_' and '-'"),
    ("zoë", "use only ASCII letters, digits, '.', '_' and '-'"),
    ("-dash", "it must start with a letter or a digit"),
    (".hidden", "it must start with a letter or a digit"),
    ("a\u{0}b", "use only ASCII letters, digits, '.', '_' and '-'"),
    (String(repeating: "x", count: 65), "it is 65 characters long, over 64"),
  ])
  func badNamesAreRefused(name: String, problem: String) throws {
    let test = try accountsLibrary()
    #expect(throws: CatalogueError.badReviewerName(name, problem: problem)) {
      try test.library.addReviewer(name, password: "correct horse")
    }
    #expect(try test.library.reviewers().isEmpty)
  }

  @Test(arguments: [
    ("short", "it has 5 characters; give at least 8"),
    ("ünïcödé", "it has 7 characters; give at least 8"),
    (String(repeating: "p", count: 1025), "it is 1025 bytes long; give at most 1024"),
    ("pass\u{0}word", "it holds a NUL character"),
  ])
  func badPasswordsAreRefused(password: String, problem: String) throws {
    let test = try accountsLibrary()
    #expect(throws: CatalogueError.badPassword(problem: problem)) {
      try test.library.addReviewer("alice", password: password)
    }
    try test.library.addReviewer("alice", password: String(repeating: "é", count: 8))
    #expect(throws: CatalogueError.badPassword(problem: problem)) {
      try test.library.setPassword(of: "alice", to: password)
    }
  }

  @Test func removingAReviewerEndsTheirSessionsAndTokensAndKeepsTheirNameOnReviews() throws {
    let test = try accountsLibrary()
    let library = test.library
    try library.addReviewer("alice", password: "correct horse")
    try library.addReviewer("bob", password: "battery staple")
    let session = try library.startSession(for: "alice", now: signInTime)
    let token = try library.newToken(for: "alice", now: signInTime)
    let bobsToken = try library.newToken(for: "bob", now: signInTime)
    library.author = "alice"
    let review = try library.create(draft("Written by Alice"))
    library.author = nil
    try library.removeReviewer("alice")
    #expect(try library.session(secret: session.secret, now: signInTime) == nil)
    #expect(try library.reviewer(forToken: token, now: signInTime) == nil)
    #expect(try library.reviewer(forToken: bobsToken, now: signInTime) == "bob")
    #expect(try library.database.scalar("SELECT count(*) FROM sessions") == .integer(0))
    #expect(try library.database.scalar("SELECT count(*) FROM tokens") == .integer(1))
    let kept = try library.review(review.id)
    #expect(kept.createdBy == "alice" && kept.updatedBy == "alice")
    #expect(try library.check().isHealthy)
  }
}

@Suite("Signing in")
struct SignInTests {
  @Test func rightWrongAndUnknown() throws {
    let test = try accountsLibrary()
    try test.library.addReviewer("Alice", password: "correct horse")
    #expect(try test.library.verifyPassword(name: "alice", password: "correct horse") == "Alice")
    #expect(try test.library.verifyPassword(name: "ALICE", password: "correct horse") == "Alice")
    #expect(try test.library.verifyPassword(name: "alice", password: "correct horse ") == nil)
    #expect(try test.library.verifyPassword(name: "alice", password: "") == nil)
    #expect(try test.library.verifyPassword(name: "mallory", password: "correct horse") == nil)
    #expect(try test.library.verifyPassword(name: "not a name", password: "correct horse") == nil)
    #expect(try test.library.verifyPassword(name: "alice", password: String(repeating: "x", count: 5000)) == nil)
  }

  @Test func anUnknownNameIsCheckedAgainstADummyHashOfTheSameCost() throws {
    // The dummy is a well-formed Argon2id string at the library's cost: libsodium runs the
    // whole computation for it, as for a reviewer's own hash, and it matches no password.
    for cost in [PasswordCost.minimum, .standard, PasswordCost(operations: 3, memoryBytes: 32 * 1_048_576)] {
      let dummy = Library.dummyHash(cost)
      #expect(dummy.hasPrefix("$argon2id$v=19$m=\(cost.memoryBytes / 1024),t=\(cost.operations),p=1$"))
      #expect(!Sodium.needsRehash(dummy, operations: cost.operations, memoryBytes: cost.memoryBytes))
      #expect(Library.dummyHash(cost) == dummy)
    }
    #expect(!Sodium.verifyPassword(Array("correct horse".utf8), hash: Library.dummyHash(.minimum)))
  }

  @Test func aRaisedCostRehashesAtTheNextSignIn() throws {
    let test = try accountsLibrary()
    let library = test.library
    try library.addReviewer("alice", password: "correct horse", now: signInTime)
    let before = try #require(try library.records.user(named: "alice")?.passwordHash)
    // A wrong password changes nothing.
    try library.setPasswordCost(PasswordCost(operations: 3, memoryBytes: 20 * 1_048_576))
    #expect(try library.verifyPassword(name: "alice", password: "wrong horse") == nil)
    #expect(try library.records.user(named: "alice")?.passwordHash == before)
    // The right one is verified against the old hash, then stored again at the new cost.
    #expect(try library.verifyPassword(name: "alice", password: "correct horse") == "alice")
    let after = try #require(try library.records.user(named: "alice"))
    #expect(after.passwordHash != before)
    #expect(after.passwordHash.hasPrefix("$argon2id$v=19$m=20480,t=3,p=1$"))
    #expect(after.passwordChanged == DateText.format(signInTime))
    #expect(try library.verifyPassword(name: "alice", password: "correct horse") == "alice")
    #expect(try library.records.user(named: "alice")?.passwordHash == after.passwordHash)
    // Another instance of the library (the server beside the command line) follows the cost.
    let other = try Library(opening: test.path)
    #expect(other.passwordCost == PasswordCost(operations: 3, memoryBytes: 20 * 1_048_576))
  }

  @Test func aCostBelowTheMinimumIsRefused() throws {
    let test = try TestLibrary()
    #expect(test.library.passwordCost == .standard)
    #expect(PasswordCost.standard == PasswordCost(operations: 2, memoryBytes: 64 * 1_048_576))
    #expect(throws: CatalogueError.self) {
      try test.library.setPasswordCost(PasswordCost(operations: 1, memoryBytes: 64 * 1_048_576))
    }
    #expect(throws: CatalogueError.self) {
      try test.library.setPasswordCost(PasswordCost(operations: 2, memoryBytes: 8 * 1_048_576))
    }
    try test.library.database.execute("INSERT INTO settings (key, value) VALUES ('password_memory', '1024')")
    #expect(throws: CatalogueError.badSetting(key: "password_memory", value: "1024")) {
      try Library(opening: test.path)
    }
  }

  @Test func aNewPasswordEndsSessionsAndKeepsTokens() throws {
    let test = try accountsLibrary()
    let library = test.library
    try library.addReviewer("alice", password: "correct horse", now: signInTime)
    let session = try library.startSession(for: "alice", now: signInTime)
    let token = try library.newToken(for: "alice")
    let later = signInTime.addingTimeInterval(120)
    try library.setPassword(of: "ALICE", to: "battery staple", now: later)
    #expect(try library.session(secret: session.secret, now: later) == nil)
    #expect(try library.reviewer(forToken: token) == "alice")
    #expect(try library.verifyPassword(name: "alice", password: "correct horse") == nil)
    #expect(try library.verifyPassword(name: "alice", password: "battery staple") == "alice")
    #expect(try library.reviewers(now: later).first?.passwordChanged == later)
    #expect(throws: CatalogueError.reviewerNotFound("bob")) {
      try library.setPassword(of: "bob", to: "battery staple")
    }
  }
}

@Suite("Sessions")
struct SessionTests {
  static let policy = SessionPolicy(idle: 3_600, lifetime: 4 * 3_600, renewAfter: 600)

  @Test func eachSignInGetsANewSecret() throws {
    let test = try accountsLibrary()
    try test.library.addReviewer("Alice", password: "correct horse")
    let first = try test.library.startSession(for: "alice", policy: Self.policy, now: signInTime)
    let second = try test.library.startSession(for: "alice", policy: Self.policy, now: signInTime)
    #expect(first.secret != second.secret)
    for grant in [first, second] {
      #expect(grant.secret.utf8.count == 43)
      #expect(grant.secret.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
      #expect(grant.reviewer == "Alice")
      #expect(grant.expires == signInTime.addingTimeInterval(3_600))
    }
    // Only the SHA-256 of each secret is stored.
    let stored = try test.library.database.query("SELECT id_hash FROM sessions ORDER BY id_hash") { $0.text(0) }
    #expect(stored == [first.secret, second.secret].map { SHA256.hex(Array($0.utf8)) }.sorted())
    #expect(try test.library.reviewers(now: signInTime).first?.sessions == 2)
    #expect(throws: CatalogueError.reviewerNotFound("bob")) { try test.library.startSession(for: "bob") }
  }

  @Test func anIdleSessionExpires() throws {
    let test = try accountsLibrary()
    try test.library.addReviewer("alice", password: "correct horse")
    let grant = try test.library.startSession(for: "alice", policy: Self.policy, now: signInTime)
    let justBefore = signInTime.addingTimeInterval(3_599)
    #expect(
      try test.library.session(secret: grant.secret, policy: Self.policy, now: justBefore)?.grant.reviewer == "alice")
    // Used at 3,599 s it was renewed: idle for an hour from then.
    let idle = justBefore.addingTimeInterval(3_600)
    #expect(try test.library.session(secret: grant.secret, policy: Self.policy, now: idle) == nil)
    // Met expired, it was deleted.
    #expect(try test.library.database.scalar("SELECT count(*) FROM sessions") == .integer(0))
  }

  @Test func aSessionEndsAtItsLifetimeHoweverMuchItIsUsed() throws {
    let test = try accountsLibrary()
    try test.library.addReviewer("alice", password: "correct horse")
    let grant = try test.library.startSession(for: "alice", policy: Self.policy, now: signInTime)
    var now = signInTime
    // Used every 30 minutes: never idle, renewed each time, but never past 4 hours.
    while now < signInTime.addingTimeInterval(4 * 3_600 - 1_800) {
      now = now.addingTimeInterval(1_800)
      let found = try #require(try test.library.session(secret: grant.secret, policy: Self.policy, now: now))
      #expect(found.renewed)
      #expect(found.grant.expires == min(now.addingTimeInterval(3_600), signInTime.addingTimeInterval(4 * 3_600)))
    }
    let end = signInTime.addingTimeInterval(4 * 3_600)
    #expect(try test.library.session(secret: grant.secret, policy: Self.policy, now: end) == nil)
  }

  @Test func renewalWritesAtMostOncePerInterval() throws {
    let test = try accountsLibrary()
    try test.library.addReviewer("alice", password: "correct horse")
    let grant = try test.library.startSession(for: "alice", policy: Self.policy, now: signInTime)
    func stored() throws -> [String] {
      try test.library.database.query("SELECT last_seen, expires FROM sessions") { [$0.text(0), $0.text(1)] }[0]
    }
    let written = try stored()
    // Within renewAfter (600 s): found, not renewed, nothing written.
    for seconds in [1.0, 60, 599] {
      let found = try #require(
        try test.library.session(secret: grant.secret, policy: Self.policy, now: signInTime.addingTimeInterval(seconds))
      )
      #expect(!found.renewed)
      #expect(found.grant.expires == signInTime.addingTimeInterval(3_600))
      #expect(try stored() == written)
    }
    let renewal = signInTime.addingTimeInterval(600)
    let renewed = try #require(try test.library.session(secret: grant.secret, policy: Self.policy, now: renewal))
    #expect(renewed.renewed && renewed.grant.expires == renewal.addingTimeInterval(3_600))
    #expect(try stored() == [DateText.format(renewal), DateText.format(renewal.addingTimeInterval(3_600))])
    let again = try #require(
      try test.library.session(secret: grant.secret, policy: Self.policy, now: renewal.addingTimeInterval(300)))
    #expect(!again.renewed)
    #expect(try test.library.reviewers(now: renewal).first?.lastSeen == renewal)
  }

  @Test func signingOutAndMalformedSecrets() throws {
    let test = try accountsLibrary()
    try test.library.addReviewer("alice", password: "correct horse")
    let grant = try test.library.startSession(for: "alice", now: signInTime)
    for malformed in [
      "", "x", String(grant.secret.dropLast()), grant.secret + "A", grant.secret.uppercased() + "!",
      "'; DROP TABLE sessions; --", String(repeating: "=", count: 43), SHA256.hex(Array(grant.secret.utf8)),
    ] {
      #expect(try test.library.session(secret: malformed, now: signInTime) == nil)
      try test.library.endSession(secret: malformed)
    }
    // A well-formed secret that is not one of the library's.
    #expect(try test.library.session(secret: Secrets.make(), now: signInTime) == nil)
    #expect(try test.library.session(secret: grant.secret, now: signInTime) != nil)
    try test.library.endSession(secret: grant.secret)
    #expect(try test.library.session(secret: grant.secret, now: signInTime) == nil)
  }

  @Test func startingASessionDeletesExpiredOnes() throws {
    let test = try accountsLibrary()
    try test.library.addReviewer("alice", password: "correct horse")
    try test.library.addReviewer("bob", password: "battery staple")
    _ = try test.library.startSession(for: "bob", policy: Self.policy, now: signInTime)
    _ = try test.library.startSession(for: "alice", policy: Self.policy, now: signInTime.addingTimeInterval(3_600))
    #expect(try test.library.database.scalar("SELECT count(*) FROM sessions") == .integer(1))
  }
}

@Suite("Sign-in addresses")
struct SignInAddressTests {
  @Test func anAddressIsRememberedForSixtyDaysInAnyCaseOfTheName() throws {
    let test = try accountsLibrary()
    let library = test.library
    try library.addReviewer("Alice", password: "correct horse")
    try library.addReviewer("bob", password: "battery staple")
    _ = try library.startSession(for: "alice", from: "192.0.2.1", now: signInTime)
    #expect(try library.signedInLately("ALICE", from: "192.0.2.1", now: signInTime))
    #expect(!(try library.signedInLately("alice", from: "192.0.2.2", now: signInTime)))
    #expect(!(try library.signedInLately("bob", from: "192.0.2.1", now: signInTime)))
    #expect(!(try library.signedInLately("nobody", from: "192.0.2.1", now: signInTime)))
    let day: TimeInterval = 86_400
    #expect(try library.signedInLately("alice", from: "192.0.2.1", now: signInTime.addingTimeInterval(60 * day)))
    #expect(!(try library.signedInLately("alice", from: "192.0.2.1", now: signInTime.addingTimeInterval(61 * day))))
    // Signing in again keeps it; an address too long for any is not kept; a stale one goes at
    // the next sign-in of anyone.
    _ = try library.startSession(for: "alice", from: "192.0.2.1", now: signInTime.addingTimeInterval(50 * day))
    #expect(try library.signedInLately("alice", from: "192.0.2.1", now: signInTime.addingTimeInterval(100 * day)))
    _ = try library.startSession(for: "bob", from: String(repeating: "9", count: 101), now: signInTime)
    _ = try library.startSession(for: "bob", from: "198.51.100.1", now: signInTime)
    _ = try library.startSession(for: "bob", now: signInTime.addingTimeInterval(200 * day))
    #expect(try library.database.scalar("SELECT count(*) FROM sign_in_addresses") == .integer(2))
    _ = try library.startSession(for: "bob", from: "198.51.100.2", now: signInTime.addingTimeInterval(200 * day))
    #expect(try library.database.query("SELECT address FROM sign_in_addresses") { $0.text(0) } == ["198.51.100.2"])
    // A new password keeps them (the reviewer is locked out no more than before); removal does not.
    try library.setPassword(of: "bob", to: "a new password")
    #expect(try library.database.scalar("SELECT count(*) FROM sign_in_addresses") == .integer(1))
    try library.removeReviewer("bob")
    #expect(try library.database.scalar("SELECT count(*) FROM sign_in_addresses") == .integer(0))
    #expect(try library.check().isHealthy)
  }
}

@Suite("API tokens")
struct TokenTests {
  @Test func aTokenNamesItsReviewerUntilRevoked() throws {
    let test = try accountsLibrary()
    try test.library.addReviewer("Alice", password: "correct horse")
    let first = try test.library.newToken(for: "alice", now: signInTime)
    let second = try test.library.newToken(for: "alice", now: signInTime)
    #expect(first != second)
    for token in [first, second] {
      #expect(token.hasPrefix("cat_") && token.utf8.count == 47)
      #expect(token.dropFirst(4).allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
      #expect(try test.library.reviewer(forToken: token, now: signInTime) == "Alice")
    }
    // Stored only as SHA-256.
    let stored = try test.library.database.query("SELECT id_hash FROM tokens") { $0.text(0) }
    #expect(Set(stored) == Set([first, second].map { SHA256.hex(Array($0.utf8)) }))
    for wrong in ["", "cat_", String(first.dropFirst(4)), "Bearer " + first, first + "x", "cat_" + Secrets.make()] {
      #expect(try test.library.reviewer(forToken: wrong, now: signInTime) == nil)
    }
    #expect(try test.library.revokeTokens(of: "ALICE") == 2)
    #expect(try test.library.reviewer(forToken: first, now: signInTime) == nil)
    #expect(try test.library.revokeTokens(of: "alice") == 0)
    #expect(throws: CatalogueError.reviewerNotFound("bob")) { try test.library.newToken(for: "bob") }
    #expect(throws: CatalogueError.reviewerNotFound("bob")) { try test.library.revokeTokens(of: "bob") }
  }

  @Test func aTokensUseIsRecordedAtMostOnceAMinute() throws {
    let test = try accountsLibrary()
    try test.library.addReviewer("alice", password: "correct horse")
    let token = try test.library.newToken(for: "alice", now: signInTime)
    func lastUsed() throws -> SQLValue? { try test.library.database.scalar("SELECT last_used FROM tokens") }
    #expect(try lastUsed() == .null)
    _ = try test.library.reviewer(forToken: token, now: signInTime)
    #expect(try lastUsed() == .text(DateText.format(signInTime)))
    _ = try test.library.reviewer(forToken: token, now: signInTime.addingTimeInterval(59))
    #expect(try lastUsed() == .text(DateText.format(signInTime)))
    _ = try test.library.reviewer(forToken: token, now: signInTime.addingTimeInterval(60))
    #expect(try lastUsed() == .text(DateText.format(signInTime.addingTimeInterval(60))))
    let listed = try #require(try test.library.reviewers(now: signInTime).first)
    #expect(listed.tokens == 1 && listed.lastSeen == signInTime.addingTimeInterval(60))
  }
}

@Suite("Secrets")
struct SecretTests {
  @Test func secretsAreRandomAndComparedWhole() {
    let secrets = (0..<100).map { _ in Secrets.make() }
    #expect(Set(secrets).count == 100)
    #expect(secrets.allSatisfy { Library.isSecret($0) })
    #expect(Secrets.equal(secrets[0], secrets[0]))
    #expect(!Secrets.equal(secrets[0], secrets[1]))
    #expect(!Secrets.equal(secrets[0], String(secrets[0].dropLast())))
    #expect(Secrets.equal("", ""))
  }
}

@Suite("Reviewers in check and repair")
struct ReviewerCheckTests {
  @Test func sessionsOfAReviewerWhoIsGoneAreFoundAndDeleted() throws {
    let test = try accountsLibrary()
    try test.library.addReviewer("alice", password: "correct horse")
    let grant = try test.library.startSession(for: "alice", from: "192.0.2.1")
    _ = try test.library.newToken(for: "alice")
    // Removed by hand with the foreign keys off: the sessions, tokens and addresses stay behind.
    try test.library.database.execute("PRAGMA foreign_keys = OFF; DELETE FROM users; PRAGMA foreign_keys = ON")
    let report = try test.library.check()
    #expect(report.findings.map(\.kind) == [.foreignKeyViolation, .foreignKeyViolation, .foreignKeyViolation])
    #expect(report.findings.map(\.target) == ["sessions → users", "sign_in_addresses → users", "tokens → users"])
    #expect(report.findings.first?.remedy == "repair deletes those sessions and tokens")
    #expect(report.findings[1].remedy == "repair deletes those addresses")
    let repair = try test.library.repair(report)
    #expect(
      repair.actions.first?.action
        == "deleted 3 sessions, tokens or sign-in addresses of reviewers that do not exist")
    #expect(try test.library.check().isHealthy)
    #expect(try test.library.session(secret: grant.secret) == nil)
  }

  @Test func aReviewerRecordNoBuildWritesIsNamed() throws {
    let test = try accountsLibrary()
    try test.library.addReviewer("alice", password: "correct horse")
    try test.library.database.execute("UPDATE users SET password_hash = 'plain text'")
    let report = try test.library.check()
    #expect(report.findings.map(\.kind) == [.invalidReviewer])
    #expect(report.findings.first?.target == "alice" && report.findings.first?.repairable == false)
    #expect(report.findings.first?.problem == "the password hash is not an Argon2id hash")
    #expect(report.findings.first?.remedy == "give a new password with `catalogue user passwd alice`")
    // Such a record signs nobody in; a new password puts it right.
    #expect(try test.library.verifyPassword(name: "alice", password: "plain text") == nil)
    try test.library.setPassword(of: "alice", to: "battery staple")
    #expect(try test.library.check().isHealthy)
  }
}
