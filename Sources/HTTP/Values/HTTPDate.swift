/// HTTP's dates (RFC 9110 section 5.6.7): IMF-fixdate written, all three forms read.
enum HTTPDate {
  private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
  private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

  /// "Sun, 06 Nov 1994 08:49:37 GMT" for `seconds` since 1970.
  static func format(_ seconds: Int64) -> String {
    let civil = Civil(seconds: seconds)
    let weekday = Int((seconds.floorDivided(by: 86_400) + 4).modulo(7))
    return "\(days[weekday]), \(two(civil.day)) \(months[civil.month - 1]) \(civil.year) "
      + "\(two(civil.hour)):\(two(civil.minute)):\(two(civil.second)) GMT"
  }

  /// Seconds since 1970 of an IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT"), an RFC 850 date
  /// ("Sunday, 06-Nov-94 08:49:37 GMT") or an asctime date ("Sun Nov  6 08:49:37 1994"); nil for
  /// anything else.
  static func parse(_ text: String) -> Int64? {
    let words = text.split(separator: " ", omittingEmptySubsequences: true)
    let date: (day: Int, month: Int, year: Int, time: Substring)
    if words.count == 6, words[0].hasSuffix(","), words[5] == "GMT" {
      guard let day = Int(words[1]), let month = month(words[2]), let year = Int(words[3]), words[3].count == 4
      else { return nil }
      date = (day, month, year, words[4])
    } else if words.count == 4, words[0].hasSuffix(","), words[3] == "GMT" {
      let parts = words[1].split(separator: "-")
      guard parts.count == 3, let day = Int(parts[0]), let month = month(parts[1]), let short = Int(parts[2]),
        parts[2].count == 2
      else { return nil }
      // RFC 9110: a two-digit year more than 50 years in the future is in the past century.
      date = (day, month, short < 70 ? 2000 + short : 1900 + short, words[2])
    } else if words.count == 5 {
      guard let month = month(words[1]), let day = Int(words[2]), let year = Int(words[4]), words[4].count == 4
      else { return nil }
      date = (day, month, year, words[3])
    } else {
      return nil
    }
    let clock = date.time.split(separator: ":")
    guard clock.count == 3, let hour = Int(clock[0]), let minute = Int(clock[1]), let second = Int(clock[2]),
      (1...31).contains(date.day), (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second),
      (1...9999).contains(date.year)
    else { return nil }
    return Civil.daysFromCivil(year: date.year, month: date.month, day: date.day) * 86_400
      + Int64(hour * 3600 + minute * 60 + second)
  }

  private static func month(_ name: Substring) -> Int? {
    months.firstIndex { $0 == name }.map { $0 + 1 }
  }

  private static func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
}

/// A UTC calendar date and time from seconds since 1970, by Howard Hinnant's civil-from-days
/// algorithm: integer arithmetic only, no time zone database, no locale.
struct Civil {
  var year: Int
  var month: Int
  var day: Int
  var hour: Int
  var minute: Int
  var second: Int

  init(seconds: Int64) {
    let days = seconds.floorDivided(by: 86_400)
    let rest = Int(seconds - days * 86_400)
    hour = rest / 3600
    minute = rest / 60 % 60
    second = rest % 60
    let z = days + 719_468
    let era = z.floorDivided(by: 146_097)
    let dayOfEra = z - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let shiftedMonth = (5 * dayOfYear + 2) / 153
    day = Int(dayOfYear - (153 * shiftedMonth + 2) / 5 + 1)
    month = Int(shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9)
    year = Int(yearOfEra + era * 400) + (month <= 2 ? 1 : 0)
  }

  /// Days since 1970-01-01 of a date of the proleptic Gregorian calendar.
  static func daysFromCivil(year: Int, month: Int, day: Int) -> Int64 {
    let y = Int64(month <= 2 ? year - 1 : year)
    let era = y.floorDivided(by: 400)
    let yearOfEra = y - era * 400
    let shiftedMonth = Int64(month > 2 ? month - 3 : month + 9)
    let dayOfYear = (153 * shiftedMonth + 2) / 5 + Int64(day) - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    return era * 146_097 + dayOfEra - 719_468
  }
}

extension Int64 {
  /// Division rounding towards minus infinity.
  func floorDivided(by divisor: Int64) -> Int64 {
    let quotient = self / divisor
    return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
  }

  /// The remainder of ``floorDivided(by:)``, never negative for a positive divisor.
  func modulo(_ divisor: Int64) -> Int64 { self - floorDivided(by: divisor) * divisor }
}
