// Times the catalogue's record operations on a large library (Benchmarks/README.md):
// opening a library and listing a page, full-text searches, and attaching an image that is
// decoded already, against the cost of the fsyncs it must make. With --covers, every review
// gets a cover picture, so that the library is one `catalogue serve` can be measured on
// (Benchmarks/serve-bench.sh); --make-only then skips the timings.
//
// With --other-scripts, one review in twenty is written in Chinese and one in twenty in Arabic
// (half of those with their vowel marks), so that searches in those scripts can be measured.
//
//   catalogue-bench [--reviews 100000] [--library PATH] [--covers N] [--make-only] [--image FILE]
//                   [--runs 20] [--other-scripts] [--database URL]
//
// With --database URL, the library's records are in that PostgreSQL database (empty, or the
// one an earlier run filled), and the lists and searches are timed on the open library, as a
// server asks them, with the 99th percentile (Benchmarks/postgresql-bench.sh).
//
// With --card FILE (or --card none), it times share cards instead: the first drawn in the
// process (Pango, Cairo and fontconfig start with it), then --runs more, over FILE as the cover
// (Benchmarks/card-bench.sh runs it on one core).
//
//   catalogue-bench --card FILE|none [--runs 20]

import Catalogue
import Foundation
import ImagePipeline

import Glibc

func fail(_ message: String) -> Never {
  FileHandle.standardError.write(Data("catalogue-bench: \(message)\n".utf8))
  exit(2)
}

func seconds() -> Double {
  var now = timespec()
  clock_gettime(CLOCK_MONOTONIC, &now)
  return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

/// Median, 99th percentile and worst of `runs` timings of `body`, in milliseconds.
func measure(_ runs: Int, _ body: () throws -> Void) rethrows -> (median: Double, p99: Double, worst: Double) {
  var times: [Double] = []
  for _ in 0..<runs {
    let start = seconds()
    try body()
    times.append((seconds() - start) * 1000)
  }
  times.sort()
  return (
    times[times.count / 2], times[min(times.count - 1, Int((Double(times.count) * 0.99).rounded(.up)) - 1)], times.last!
  )
}

func report(_ name: String, _ time: (median: Double, p99: Double, worst: Double)) {
  let rounded = { (value: Double) in (value * 100).rounded() / 100 }
  print(
    "\(name.padding(toLength: 52, withPad: " ", startingAt: 0)) median \(rounded(time.median)) ms, "
      + "p99 \(rounded(time.p99)) ms, worst \(rounded(time.worst)) ms")
}

var reviewCount = 100_000
var libraryPath: String?
var imagePath: String?
var runs = 20
var covers = 0
var makeOnly = false
var otherScripts = false
var cardCover: String?
var database: String?
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
  func value() -> String {
    guard let value = arguments.popFirst() else { fail("\(argument) needs a value") }
    return value
  }
  func number() -> Int {
    guard let number = Int(value()) else { fail("\(argument) takes a whole number") }
    return number
  }
  switch argument {
  case "--reviews": reviewCount = number()
  case "--library": libraryPath = value()
  case "--image": imagePath = value()
  case "--runs": runs = number()
  case "--covers": covers = number()
  case "--make-only": makeOnly = true
  case "--other-scripts": otherScripts = true
  case "--card": cardCover = value()
  case "--database": database = value()
  default: fail("unknown argument \(argument)")
  }
}

if let cardCover {
  let cover = cardCover == "none" ? nil : Array(FileManager.default.contents(atPath: cardCover) ?? Data())
  if let cover, cover.isEmpty { fail("cannot read \(cardCover)") }
  let content = ShareCard.Content(
    title: "The Grand Budapest Hotel: a card benchmark", rating: 4, category: "Movie",
    cover: cover == nil ? nil : "cover")
  let name = cardCover == "none" ? "no cover" : (cardCover as NSString).lastPathComponent
  // The time on the clock and the processor time this process used: on a machine shared with
  // other work, the second is what the card costs, the first what a request may wait.
  func cpuSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
  }
  // A library draws a large cover's card over its display rendition, which the review's page
  // has made already (Library.shareCard(for:)); when nothing is made yet, the rendition first.
  let rendition = try cover.map { try ImagePipeline.thumbnail($0, spec: Library.displaySpec).thumbnail.bytes }
  func timed(_ what: String, _ count: Int, makingRendition: Bool = false) throws {
    var wall: [Double] = []
    var cpu: [Double] = []
    for _ in 0..<count {
      let (start, startCPU) = (seconds(), cpuSeconds())
      let source =
        try makingRendition
        ? cover.map { try ImagePipeline.thumbnail($0, spec: Library.displaySpec).thumbnail.bytes } : rendition
      _ = try ShareCard.draw(content, cover: source)
      wall.append((seconds() - start) * 1000)
      cpu.append((cpuSeconds() - startCPU) * 1000)
    }
    let rounded = { (value: Double) in (value * 10).rounded() / 10 }
    print(
      "\(what.padding(toLength: 44, withPad: " ", startingAt: 0)) median \(rounded(wall.sorted()[count / 2])) ms"
        + " (processor \(rounded(cpu.sorted()[count / 2])) ms), worst \(rounded(wall.max()!)) ms")
  }
  do {
    try timed("card, first in the process (\(name))", 1)
    try timed("card, warm, \(runs) runs (\(name))", runs)
    if cover != nil {
      try timed("rendition and card, \(max(runs / 4, 3)) runs (\(name))", max(runs / 4, 3), makingRendition: true)
    }
  } catch {
    fail("\(error)")
  }
  exit(0)
}

let folder = libraryPath ?? "\(NSTemporaryDirectory())/catalogue-bench-\(reviewCount)"
/// Review text with the word frequencies of real prose: 20,000 made-up words drawn with a
/// Zipf distribution (the most common word is in most reviews, most words in few), so that
/// searches meet realistic posting lists.
struct Prose {
  let words: [String]
  let cumulative: [Double]

  init(
    vocabulary: Int = 20_000,
    syllables: [String] = [
      "ka", "lo", "mi", "ren", "tu", "sa", "vel", "or", "ni", "que", "dra", "fen", "ga", "hu", "ix", "jo",
    ]
  ) {
    var words: [String] = []
    var seen = Set<String>()
    var number = 0
    while words.count < vocabulary {
      var word = ""
      var value = number
      repeat {
        word += syllables[value % syllables.count]
        value /= syllables.count
      } while value > 0
      number += 1
      if seen.insert(word).inserted { words.append(word) }
    }
    self.words = words
    var total = 0.0
    cumulative = (1...vocabulary).map { rank in
      total += 1 / pow(Double(rank), 1.07)
      return total
    }
  }

  func word(using generator: inout some RandomNumberGenerator) -> String {
    let target = Double.random(in: 0..<cumulative.last!, using: &generator)
    var low = 0
    var high = cumulative.count - 1
    while low < high {
      let middle = (low + high) / 2
      if cumulative[middle] < target { low = middle + 1 } else { high = middle }
    }
    return words[low]
  }
}

let prose = Prose()

/// Chinese-looking prose: words of one and two characters from 464 common ones, written
/// without spaces as Chinese is, a comma or a full stop every few words. Its two-character
/// words are what a search for a word inside unsegmented text looks for.
let chinese = Prose(
  vocabulary: 8_000,
  syllables: """
    的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年
    得就那要下以生会自着去之过家学对可里后小么心多天而能好都然没
    日于起还发成事只作当想看文无开手十用主行方又如前所本见经头面
    公同三已老从动两长知民样现分将外但身些与高意进把法此实回二理
    美点月明其种声全工己话儿者向情部正名定女问力机给等几很业最间
    新什打便位因重被走电四第门相次东政海口使教西再平真听世气信北
    少关并内加化由却代军产入先山五太水万市眼体别处总才场师书比住
    员九笑性通目华报立马命张活难神数件安表原车白应路期叫死常提感
    金何更反合放做系计或司利受光王果亲界及今京务制解各任至清物台
    象记边共风战干接它许八特觉望直服毛林题建南度统色字请交爱让认
    算论百吃义科怎元社术结六功指思非流每青管夫连远资队跟带花快条
    院变联言权往展该领传近留红治决周保达办运武半候七必城父强步完
    革深区即求品士转量空甚众技轻程告江语英基派满式李息写呢识极令
    黄德收脸钱党倒未持取设始版双历越史商千片容研像找友孩站广改议
    形委早房音火际则首单据导影失拿网香似斯专石若兵弟谁校读志飞观
    争究包组造落视济喜离虽坏兴切
    """.filter { !$0.isNewline }.map(String.init)
)

/// Arabic prose: words made of Arabic syllables, as ``prose``'s are of Latin ones.
let arabic = Prose(syllables: [
  "كا", "لو", "مي", "رن", "تو", "سا", "فل", "ور", "ني", "قي", "درا", "فن", "غا", "هو", "بك", "جو",
])

/// `word` with a vowel mark (fatha, kasra, damma or sukun) after each letter, the same marks
/// for the same word every time, as a vowelled text writes it.
func vowelled(_ word: String) -> String {
  let marks: [Character] = ["\u{064E}", "\u{0650}", "\u{064F}", "\u{0652}"]
  var result = ""
  for (index, letter) in word.enumerated() {
    result.append(letter)
    result.append(marks[(index + Int(letter.unicodeScalars.first!.value)) % marks.count])
  }
  return result
}

/// The title and body of review `index`: Latin prose, or with `otherScripts` one in twenty
/// Chinese and one in twenty Arabic (every other one of those vowelled).
func reviewText(_ index: Int, otherScripts: Bool, using generator: inout some RandomNumberGenerator) -> (
  title: String, body: String
) {
  let count = Int.random(in: 40...300, using: &generator)
  if otherScripts && index % 20 == 7 {
    let words = (0..<count).map { _ in chinese.word(using: &generator) }
    var body = ""
    for (number, word) in words.enumerated() {
      body += word
      if number % 9 == 8 { body += number % 27 == 26 ? "。" : "，" }
    }
    return ("评论 \(index)：" + words.prefix(4).joined(), body + "。")
  }
  if otherScripts && index % 20 == 17 {
    var words = (0..<count).map { _ in arabic.word(using: &generator) }
    if index % 40 == 17 { words = words.map(vowelled) }
    return ("مراجعة \(index): " + words.prefix(4).joined(separator: " "), words.joined(separator: " "))
  }
  let words = (0..<count).map { _ in prose.word(using: &generator) }
  return ("Review \(index): \(words.prefix(4).joined(separator: " "))", words.joined(separator: " "))
}

/// Gives every review without pictures a cover: review `n` (in the order they were made) gets
/// picture `n % pool` of ``CoverPool``. The first review of each picture writes its files;
/// the others link the same picture, so this costs one transaction a review, not a decode and
/// two durable writes. A run that was stopped is taken up where it stopped.
func giveCovers(folder: String, pool: Int) throws(CatalogueError) {
  let library = try Library(opening: folder, fileStore: LinkingFileStore(root: folder))
  var bare: [(index: Int, id: String)] = []
  var offset = 0
  while true {
    let page = try library.list(ReviewQuery(sort: .created, reversed: true, limit: 500, offset: offset))
    for (number, review) in page.reviews.enumerated() where review.imageCount == 0 {
      bare.append((offset + number, review.id))
    }
    offset += page.reviews.count
    if page.reviews.isEmpty || offset >= page.total { break }
  }
  guard !bare.isEmpty else { return }
  let start = seconds()
  let pictures = try CoverPool.prepare(count: min(pool, offset), library: library)
  print("drew \(pictures.count) cover pictures in \(((seconds() - start) * 10).rounded() / 10) s")
  for (done, review) in bare.enumerated() {
    _ = try library.attach(prepared: [pictures[review.index % pictures.count]], to: review.id)
    if (done + 1) % 10_000 == 0 { print("  \(done + 1) of \(bare.count) reviews have a cover") }
  }
  print("gave \(bare.count) reviews a cover in \(((seconds() - start) * 10).rounded() / 10) s")
}

do {
  let library: Library
  if FileManager.default.fileExists(atPath: "\(folder)/\(LibraryLayout.database)")
    || FileManager.default.fileExists(atPath: "\(folder)/\(LibraryLayout.databaseLocation)")
  {
    library = try Library(opening: folder)
  } else {
    library = try Library.create(at: folder, database: database)
  }
  // A server keeps its connections: on PostgreSQL, every timing is of the open library.
  func opened() throws -> Library { database == nil ? try Library(opening: folder) : library }
  var generator = SystemRandomNumberGenerator()
  let existing = try library.list(ReviewQuery(limit: 0)).total
  if existing < reviewCount {
    let start = seconds()
    var made = existing
    let categories = Category.known.map(\.rawValue)
    while made < reviewCount {
      let batch = (made..<min(made + 5_000, reviewCount)).map { index -> ReviewDraft in
        let text = reviewText(index, otherScripts: otherScripts, using: &generator)
        return ReviewDraft(
          title: text.title, body: text.body, rating: Int.random(in: 0...5, using: &generator),
          category: categories.randomElement(using: &generator)!,
          favorite: Int.random(in: 0..<10, using: &generator) == 0)
      }
      try library.create(batch)
      made += batch.count
    }
    print("made \(reviewCount - existing) reviews in \(((seconds() - start) * 10).rounded() / 10) s")
  }
  if covers > 0 { try giveCovers(folder: folder, pool: covers) }
  print("library: \(folder), \(try library.list(ReviewQuery(limit: 0)).total) reviews")
  // The timings (skipped with --make-only, which only makes the library).
  if !makeOnly {
    report(
      "open + list a page of 50 (newest first)",
      try measure(runs) {
        let fresh = try opened()
        _ = try fresh.list(ReviewQuery(limit: 50))
      })
    report(
      "open + list a page of 50 by title, page 1000",
      try measure(runs) {
        let fresh = try opened()
        _ = try fresh.list(ReviewQuery(sort: .title, limit: 50, offset: 50_000 % max(reviewCount, 1)))
      })
    report(
      "open + list movies rated 4+, favourites",
      try measure(runs) {
        let fresh = try opened()
        _ = try fresh.list(ReviewQuery(category: .movie, minimumRating: 4, favoritesOnly: true))
      })
    // The most common word (in most reviews), one of rank 100, one of rank 2,000, two words,
    // a phrase of two common words, and a prefix.
    let common = prose.words[0]
    let searches = [
      prose.words[99], prose.words[1999], "\(prose.words[99]) \(prose.words[499])",
      "\"\(prose.words[0]) \(prose.words[1])\"", "\(prose.words[99].prefix(3))*", common,
    ]
    for search in searches {
      var total = 0
      report(
        "open + search \(search) (page of 50)",
        try measure(runs) {
          let fresh = try opened()
          total = try fresh.list(ReviewQuery(search: search, limit: 50)).total
        })
      print("  (\(total) matches)")
    }

    // Attaching a picture decoded already: the work left is its three file writes (the
    // original, the 1× and 2× thumbnails, each with its fsyncs) and one transaction. Compared
    // with the same writes alone.
    if let imagePath {
      let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: imagePath)))
      let prepared = try PreparedImage.make(
        bytes: bytes, source: imagePath, spec: library.thumbnailSpec, options: library.decodeOptions)
      let target = try library.create(ReviewDraft(title: "Attach target", rating: 3, category: "other"))
      report(
        "attach one decoded image (write, fsync, link)",
        try measure(runs) {
          _ = try library.attach(prepared: [prepared], to: target.id)
          _ = try library.detach(target.id, image: "1")
        })
      let scratch = LocalFileStore(root: "\(folder)-scratch")
      try FileManager.default.createDirectory(atPath: scratch.root, withIntermediateDirectories: true)
      report(
        "  for comparison: the three durable file writes",
        try measure(runs) {
          try scratch.write(bytes, to: "bench/original")
          try scratch.write(prepared.processed.thumbnail.bytes, to: "bench/thumbnail")
          try scratch.write(prepared.processed.highDensity.bytes, to: "bench/thumbnail@2x")
        })
      try FileManager.default.removeItem(atPath: scratch.root)
      try library.delete(target.id)
      try library.removeUnreferencedFiles()
    }
  }
} catch {
  fail("\(error)")
}
