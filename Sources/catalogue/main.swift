// The `catalogue` command: parses arguments, calls the Catalogue library, prints for people
// or (with --json) for scripts. Exit status: 0 success, 1 the work failed, 2 bad usage.

import Catalogue
import Foundation

@preconcurrency import Glibc

let version = "0.1.0"

/// The commands, their summaries aligned after the longest name.
let commandList: String = {
  let width = (Commands.all.map(\.spec.name.count).max() ?? 0) + 2
  return Commands.all.map {
    "  " + $0.spec.name.padding(toLength: width, withPad: " ", startingAt: 0) + $0.spec.summary
  }.joined(separator: "\n")
}()

let overview = """
  catalogue — a catalogue of spoiler-free reviews with their pictures

  Usage: catalogue [--library PATH] [--json] COMMAND [ARGUMENTS]

  The library is the folder --library names, else $CATALOGUE_LIBRARY, else ./Library.

  Commands:
  \(commandList)

  `catalogue COMMAND --help` shows a command's options and examples.

  Exit status: 0 done; 1 the work could not be done (or check found problems); 2 the command
  line is wrong (an unknown option, a malformed or out-of-range value); 130 or 143 stopped by
  Ctrl-C or SIGTERM, with nothing changed.
  """

/// Runs the command line and returns the exit status; every error is mapped here, once.
func run(_ words: [String]) -> Int32 {
  var words = words[...]
  // Global options may come before the command.
  var leading: [String] = []
  while let word = words.first, word.hasPrefix("-") {
    words.removeFirst()
    if word == "--version" {
      Terminal.print("catalogue \(version)")
      return 0
    }
    if word == "--help" || word == "-h" {
      Terminal.print(overview)
      return 0
    }
    leading.append(word)
    if word == "--library" || word == "--database", let value = words.first {
      leading.append(value)
      words.removeFirst()
    }
  }
  guard let name = words.popFirst() else {
    Terminal.printError("error: no command given; `catalogue --help` lists them")
    return 2
  }
  if name == "help" {
    if let topic = words.first {
      guard let command = Commands.named(topic) else {
        Terminal.printError("error: no command \(topic); `catalogue --help` lists them")
        return 2
      }
      Terminal.print(command.spec.help)
    } else {
      Terminal.print(overview)
    }
    return 0
  }
  guard let command = Commands.named(name) else {
    Terminal.printError("error: no command \(name); `catalogue --help` lists them")
    return 2
  }
  var libraryPath = "Library"
  do {
    let arguments = try ArgumentParser.parse(leading + Array(words), spec: command.spec)
    if arguments.has("help") {
      Terminal.print(command.spec.help)
      return 0
    }
    if Signals.cleanStopCommands.contains(command.spec.name) { Signals.stopCleanly() }
    let environment = ProcessInfo.processInfo.environment["CATALOGUE_LIBRARY"]
    libraryPath = arguments.value("library") ?? (environment?.isEmpty == false ? environment! : "Library")
    let environmentDatabase = ProcessInfo.processInfo.environment["CATALOGUE_DATABASE"]
    let database = arguments.value("database") ?? (environmentDatabase?.isEmpty == false ? environmentDatabase : nil)
    if let database { _ = try ArgumentParser.databaseURL(database, command: command.spec.name) }
    return try command.run(
      Context(
        arguments: arguments, libraryPath: libraryPath,
        database: database,
        json: arguments.has("json")))
  } catch let error as UsageError {
    let hint = error.command.map { "; see `catalogue \($0) --help`" } ?? ""
    Terminal.printError("error: \(error.message)\(hint)")
    return 2
  } catch CatalogueError.interrupted {
    Terminal.printError("\(CatalogueError.interrupted)")
    return 128 + (Interruption.signal ?? SIGINT)
  } catch let error as CatalogueError {
    // A full or read-only disk met part-way is said of the library, as when it was opened.
    Terminal.printError("error: \(error.saidOfLibrary(libraryPath))")
    return error.isAboutTheCommandLine ? 2 : 1
  } catch {
    Terminal.printError("error: \(error)")
    return 1
  }
}

extension CatalogueError {
  /// Whether the error is about a value given on the command line (a rating of 6, an id of
  /// three digits, a search with no words): exit status 2, like any other usage error. What
  /// could not be done with well-formed values (no such review, a refused picture) is 1.
  var isAboutTheCommandLine: Bool {
    switch self {
    case .invalidReview, .invalidPictureText, .badReviewReference, .badImageReference, .invalidQuery, .unknownCategory,
      .badReviewerName, .badReviewerProfile,
      .badPassword:
      return true
    default: return false
    }
  }
}

// A closed pipe (`catalogue list | head`) must end the output quietly, not kill the process.
signal(SIGPIPE, SIG_IGN)
Signals.install()
// The words as the kernel has them: a file name that is not UTF-8 is carried exactly, not
// replaced by U+FFFD (which names no file).
let words = (1..<Int(CommandLine.argc)).map { index in
  PathName.decoding(
    UnsafeRawBufferPointer(start: CommandLine.unsafeArgv[index], count: strlen(CommandLine.unsafeArgv[index]!)))
}
exit(run(words))
