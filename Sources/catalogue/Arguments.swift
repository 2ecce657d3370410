import Catalogue
import Foundation

/// A command's options and positional arguments, as its help describes them.
struct CommandSpec: Sendable {
  struct Option: Sendable {
    /// The long name without dashes ("min-rating").
    let name: String
    /// A one-letter alias ("y"), if any.
    let short: Character?
    /// What the value is called in help ("N"), or `nil` for a flag.
    let value: String?
    let help: String
    let repeatable: Bool

    init(_ name: String, short: Character? = nil, value: String? = nil, repeatable: Bool = false, help: String) {
      self.name = name
      self.short = short
      self.value = value
      self.help = help
      self.repeatable = repeatable
    }
  }

  /// One of the things a command with actions does (`user add`, `user list`): the first
  /// positional names it.
  struct Action: Sendable {
    let name: String
    /// The synopsis after "catalogue COMMAND NAME", e.g. "NAME [--password-stdin]".
    let synopsis: String
    let summary: String
    /// The positionals after the action's name.
    let positionals: ClosedRange<Int>
    /// The command's options this action takes (the global ones go with every action).
    let options: [String]

    init(_ name: String, synopsis: String = "", summary: String, positionals: ClosedRange<Int>, options: [String] = [])
    {
      self.name = name
      self.synopsis = synopsis
      self.summary = summary
      self.positionals = positionals
      self.options = options
    }
  }

  let name: String
  let summary: String
  /// The synopsis after "catalogue NAME", e.g. "REVIEW FILE|FOLDER...".
  let synopsis: String
  let details: String?
  let options: [Option]
  let positionals: ClosedRange<Int>
  let examples: [String]
  /// The actions of a command that has them; empty for the others.
  let actions: [Action]

  init(
    _ name: String, summary: String, synopsis: String = "", details: String? = nil,
    options: [Option] = [], positionals: ClosedRange<Int> = 0...0, examples: [String] = [], actions: [Action] = []
  ) {
    self.name = name
    self.summary = summary
    self.synopsis = synopsis
    self.details = details
    self.options = options
    self.positionals = actions.isEmpty ? positionals : 0...Int.max
    self.examples = examples
    self.actions = actions
  }

  /// The action names as a list for messages: "add, passwd, remove, list or token".
  var actionNames: String {
    let names = actions.map(\.name)
    guard names.count > 1 else { return names.first ?? "" }
    return names.dropLast().joined(separator: ", ") + " or " + names.last!
  }

  /// The options every command takes.
  static let global: [Option] = [
    Option("library", value: "PATH", help: "the library folder (default: $CATALOGUE_LIBRARY, else ./Library)"),
    Option(
      "database", value: "URL",
      help: "the library's PostgreSQL database, postgresql://USER@HOST/DB (default: $CATALOGUE_DATABASE, "
        + "else the one its folder names, else its own SQLite file)"),
    Option("json", help: "print records as JSON for scripts"),
    Option("help", short: "h", help: "show this help"),
  ]

  var help: String {
    var lines = [
      "catalogue \(name) — \(summary)", "",
      "Usage: catalogue [--library PATH] \(name)\(synopsis.isEmpty ? "" : " " + synopsis)",
    ]
    if !actions.isEmpty {
      lines += ["", "Actions:"]
      let labels = actions.map { $0.name + ($0.synopsis.isEmpty ? "" : " " + $0.synopsis) }
      let width = (labels.map(\.count).max() ?? 0) + 2
      for (label, action) in zip(labels, actions) {
        lines.append("  " + label.padding(toLength: width, withPad: " ", startingAt: 0) + action.summary)
      }
    }
    if let details { lines += ["", details] }
    let all = options + Self.global
    lines += ["", "Options:"]
    let labels = all.map { option -> String in
      var label = "--\(option.name)" + (option.value.map { " \($0)" } ?? "")
      if let short = option.short { label = "-\(short), " + label }
      return label
    }
    let width = (labels.map(\.count).max() ?? 0) + 2
    for (label, option) in zip(labels, all) {
      lines.append("  " + label.padding(toLength: width, withPad: " ", startingAt: 0) + option.help)
    }
    if !examples.isEmpty {
      lines += ["", "Examples:"]
      lines += examples.map { "  \($0)" }
    }
    return lines.joined(separator: "\n")
  }
}

/// Arguments after parsing: option values by long name, and the positionals in order.
struct ParsedArguments: Sendable {
  var values: [String: [String]] = [:]
  var positionals: [String] = []

  func has(_ name: String) -> Bool { values[name] != nil }
  func value(_ name: String) -> String? { values[name]?.last }
  func all(_ name: String) -> [String] { values[name] ?? [] }
}

/// A mistake in how the command was called: exit status 2.
struct UsageError: Error {
  let message: String
  let command: String?
}

enum ArgumentParser {
  /// Parses `arguments` (the words after the command name, global options included anywhere)
  /// against `spec`.
  static func parse(_ arguments: [String], spec: CommandSpec) throws(UsageError) -> ParsedArguments {
    var parsed = ParsedArguments()
    let options = spec.options + CommandSpec.global
    var rest = arguments[...]
    var onlyPositionals = false
    while let word = rest.popFirst() {
      if onlyPositionals || word == "-" || !word.hasPrefix("-") {
        // No argument means anything when empty: not an id, an image, a file or a folder.
        if word.isEmpty {
          throw UsageError(
            message: "an empty argument: give a value (an id, a position, a file or a folder)", command: spec.name)
        }
        parsed.positionals.append(word)
        continue
      }
      if word == "--" {
        onlyPositionals = true
        continue
      }
      var name: String
      var inlineValue: String?
      if word.hasPrefix("--") {
        name = String(word.dropFirst(2))
        if let equals = name.firstIndex(of: "=") {
          inlineValue = String(name[name.index(after: equals)...])
          name = String(name[..<equals])
        }
      } else {
        guard word.count == 2, let option = options.first(where: { $0.short == word.last }) else {
          throw UsageError(message: "unknown option \(word)", command: spec.name)
        }
        name = option.name
      }
      guard let option = options.first(where: { $0.name == name }) else {
        throw UsageError(message: "unknown option --\(name)", command: spec.name)
      }
      if option.value != nil {
        guard let value = inlineValue ?? rest.popFirst() else {
          throw UsageError(message: "--\(name) needs a value (\(option.value!))", command: spec.name)
        }
        // An empty path would mean the working folder, or the file system's root, by accident.
        if value.isEmpty && ["PATH", "FILE", "DIR", "FOLDER"].contains(option.value) {
          let what = option.value == "FILE" ? "a file" : "a folder"
          throw UsageError(message: "--\(name) needs \(what), not an empty path", command: spec.name)
        }
        if !option.repeatable && parsed.values[name] != nil {
          throw UsageError(message: "--\(name) is given twice", command: spec.name)
        }
        parsed.values[name, default: []].append(value)
      } else {
        if inlineValue != nil {
          throw UsageError(message: "--\(name) takes no value", command: spec.name)
        }
        parsed.values[name] = []
      }
    }
    if parsed.has("help") { return parsed }
    if !spec.actions.isEmpty { return try checkAction(parsed, spec: spec) }
    let count = parsed.positionals.count
    if count < spec.positionals.lowerBound {
      // Name only what is missing: the synopsis's required words after those given.
      let required = spec.synopsis.split(separator: " ").filter { $0.first != "[" && $0.first != "-" }
      let missing = required.dropFirst(count).joined(separator: " ")
      throw UsageError(message: "missing \(missing.isEmpty ? "arguments" : missing)", command: spec.name)
    }
    if count > spec.positionals.upperBound {
      let extra = parsed.positionals[spec.positionals.upperBound]
      throw UsageError(message: "unexpected argument \(extra)", command: spec.name)
    }
    return parsed
  }

  /// Checks the action a command with actions was given: a known one, with as many
  /// positionals as it takes and only the options it takes.
  private static func checkAction(_ parsed: ParsedArguments, spec: CommandSpec) throws(UsageError) -> ParsedArguments {
    guard let word = parsed.positionals.first else {
      throw UsageError(message: "\(spec.name) needs an action: \(spec.actionNames)", command: spec.name)
    }
    guard let action = spec.actions.first(where: { $0.name == word }) else {
      throw UsageError(message: "unknown action \(word) of \(spec.name): give \(spec.actionNames)", command: spec.name)
    }
    let global = Set(CommandSpec.global.map(\.name))
    for name in parsed.values.keys.sorted() where !global.contains(name) && !action.options.contains(name) {
      throw UsageError(message: "--\(name) does not go with \(spec.name) \(action.name)", command: spec.name)
    }
    let count = parsed.positionals.count - 1
    if count < action.positionals.lowerBound {
      let missing = action.synopsis.split(separator: " ").filter { $0.first != "[" && $0.first != "-" }
        .dropFirst(count).joined(separator: " ")
      throw UsageError(
        message: "\(spec.name) \(action.name) needs \(missing.isEmpty ? "more arguments" : missing)", command: spec.name
      )
    }
    if count > action.positionals.upperBound {
      throw UsageError(
        message: "unexpected argument \(parsed.positionals[action.positionals.upperBound + 1])", command: spec.name)
    }
    return parsed
  }

  /// A whole number option within `range`.
  static func integer(_ parsed: ParsedArguments, _ name: String, in range: ClosedRange<Int>, command: String)
    throws(UsageError) -> Int?
  {
    guard let text = parsed.value(name) else { return nil }
    guard let number = Int(text), range.contains(number) else {
      throw UsageError(
        message: "--\(name) takes a whole number from \(range.lowerBound) to \(range.upperBound), not \(text)",
        command: command)
    }
    return number
  }

  /// A PostgreSQL database's URL as given (`--database`, `migrate --to`), or the mistake, never
  /// repeating the value (it may hold a password).
  static func databaseURL(_ text: String, command: String) throws(UsageError) -> String {
    do {
      return try DatabaseURL(text).text
    } catch {
      throw UsageError(message: "\(error)", command: command)
    }
  }
}
