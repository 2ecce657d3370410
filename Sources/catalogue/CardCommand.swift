import Catalogue

extension Commands {
  static let card = Command(
    spec: CommandSpec(
      "card", summary: "write a review's share card (a 1200×630 JPEG)", synopsis: "REVIEW -o FILE",
      details: """
        REVIEW is an id or a unique prefix of one (at least 4 digits). The card is the picture a link to the \
        review shows in a chat or a feed: the cover, darkened at the bottom, with the title, the stars and the \
        category over it, or the site's colours when the review has no picture. It is the one the server \
        serves at /cards/ID.jpg: made once and kept in the library's cards/ folder, and made again when the \
        title, rating, category or cover changes. An existing FILE is replaced whole; -o - writes the JPEG to \
        standard output, unless that is a terminal.
        """,
      options: [.init("output", short: "o", value: "FILE", help: "where to write the JPEG (- for standard output)")],
      positionals: 1...1,
      examples: ["catalogue card 3f2a -o card.jpg", "catalogue card 3f2a -o - | wc -c"])
  ) { context in
    guard let output = context.arguments.value("output"), !output.isEmpty else {
      throw UsageError(message: "say where to write the card: -o FILE, or -o - for standard output", command: "card")
    }
    if output == "-" && Terminal.standardOutputIsTerminal {
      throw UsageError(
        message: "standard output is a terminal, which cannot show a JPEG: give -o FILE, or pipe the output",
        command: "card")
    }
    let library = try context.openLibraryToRead()
    let review = try library.review(context.arguments.positionals[0])
    // Kept in the library when it can be written, so the server need not draw it again.
    if library.readOnlyReason == nil { _ = try library.shareCard(for: review) }
    let bytes = try library.derivedShareCard(for: review)
    if output == "-" {
      Terminal.writeOutput(bytes)
    } else {
      try ShareCard.write(bytes, to: output)
    }
    return 0
  }
}
