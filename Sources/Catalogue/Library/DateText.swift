public import Foundation

/// Times as the catalogue stores and prints them: UTC, ISO 8601, to the millisecond
/// ("2026-11-30T04:19:07.123Z"), which also sorts as text.
public enum DateText {
  public static func format(_ date: Date) -> String {
    let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
    let seconds = milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000
    let fraction = Int(milliseconds - seconds * 1000)
    let parts = UTCCalendar.parts(of: Int(seconds))
    func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
    let millis = fraction < 10 ? "00\(fraction)" : fraction < 100 ? "0\(fraction)" : "\(fraction)"
    return "\(parts.year)-\(two(parts.month))-\(two(parts.day))T"
      + "\(two(parts.hour)):\(two(parts.minute)):\(two(parts.second)).\(millis)Z"
  }

  /// `date` as a folder's name: the stored form with dashes for colons (`lost+found/<stamp>/`).
  static func fileStamp(_ date: Date) -> String {
    format(date).replacingOccurrences(of: ":", with: "-")
  }

  /// The date `text` stands for, or `nil` when it is not in the stored form (seconds, with or
  /// without milliseconds, and a `Z`).
  public static func parse(_ text: String) -> Date? {
    // On the bytes in place where the string keeps them together: a page reads three times a
    // review.
    if let date = text.utf8.withContiguousStorageIfAvailable({ parse(bytes: $0) }) { return date }
    return Array(text.utf8).withUnsafeBufferPointer { parse(bytes: $0) }
  }

  private static func parse(bytes: UnsafeBufferPointer<UInt8>) -> Date? {
    guard bytes.count == 20 || bytes.count == 24, bytes.last == UInt8(ascii: "Z") else { return nil }
    func number(_ range: Range<Int>) -> Int32? {
      var value: Int32 = 0
      for index in range {
        guard (48...57).contains(bytes[index]) else { return nil }
        value = value * 10 + Int32(bytes[index] - 48)
      }
      return value
    }
    guard bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
      bytes[10] == UInt8(ascii: "T"), bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
      let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
      let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
      (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day), hour < 24, minute < 60,
      second < 61
    else { return nil }
    var milliseconds: Int32 = 0
    if bytes.count == 24 {
      guard bytes[19] == UInt8(ascii: "."), let value = number(20..<23) else { return nil }
      milliseconds = value
    }
    let seconds = UTCCalendar.seconds(
      of: UTCCalendar.Parts(year: year, month: month, day: day, hour: hour, minute: minute, second: second))
    return Date(timeIntervalSince1970: Double(seconds) + Double(milliseconds) / 1000)
  }

  /// The days of `month` (1–12) in `year` of the Gregorian calendar: 2026-02-31 is no date.
  static func daysIn(month: Int32, year: Int32) -> Int32 {
    switch month {
    case 2:
      let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
      return leap ? 29 : 28
    case 4, 6, 9, 11: return 30
    default: return 31
    }
  }
}
