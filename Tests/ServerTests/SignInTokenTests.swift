import Foundation
import Testing

@testable import Server

@Suite("Sign-in form tokens")
struct SignInTokenTests {
  let start = Date(timeIntervalSince1970: 1_800_000_000)

  @Test func aTokenIsTakenOnceWithinTheHour() {
    let tokens = SignInTokens()
    let token = tokens.make(now: start)
    #expect(tokens.take(token, now: start.addingTimeInterval(10)) == .taken)
    #expect(tokens.take(token, now: start.addingTimeInterval(20)) == .usedAlready)
    let late = tokens.make(now: start)
    #expect(tokens.take(late, now: start.addingTimeInterval(3601)) == .invalid)
    #expect(tokens.take(tokens.make(now: start.addingTimeInterval(3600)), now: start) == .invalid, "from the future")
  }

  @Test func onlyTheServersOwnTokensAreTaken() {
    let tokens = SignInTokens()
    let token = tokens.make(now: start)
    let pieces = token.split(separator: ".").map(String.init)
    #expect(pieces.count == 3)
    // Another time, another nonce, another server's key, or nothing like a token at all.
    let forged = [
      "\(Int(start.timeIntervalSince1970) + 5).\(pieces[1]).\(pieces[2])",
      "\(pieces[0]).\(String(pieces[1].reversed())).\(pieces[2])",
      SignInTokens().make(now: start), "", "made-up", "1.2.3", token + ".",
    ]
    for candidate in forged { #expect(tokens.take(candidate, now: start) == .invalid, "\(candidate)") }
    #expect(tokens.take(token, now: start) == .taken)
  }

  @Test func theTokensTakenStayWithinTheCapacity() {
    let tokens = SignInTokens(capacity: 100)
    let made = (0..<300).map { tokens.make(now: start.addingTimeInterval(Double($0))) }
    for token in made { #expect(tokens.take(token, now: start.addingTimeInterval(300)) == .taken) }
    #expect(tokens.count <= 100)
    // The newest are those still remembered.
    #expect(tokens.take(made[299], now: start.addingTimeInterval(300)) == .usedAlready)
    // Those expired are forgotten first, and refused all the same.
    #expect(tokens.take(made[0], now: start.addingTimeInterval(4000)) == .invalid)
  }
}
