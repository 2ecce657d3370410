import Foundation

extension Pages {
  /// The stars as a radio group (the W3C APG's rating pattern, built from radio inputs so that
  /// it works without script): Tab reaches the chosen one, arrow keys move and choose, and each
  /// is announced as "N of 5 stars", 0 included. The stars up to the chosen one are drawn
  /// filled, the rest empty (the style sheet). When the rating is `faulty` the group is marked
  /// invalid and points to the problems; with `focus` its chosen star (else the first) takes the
  /// focus when the page opens.
  static func ratingControl(_ rating: String, faulty: Bool = false, focus: Bool = false) -> String {
    let chosen = rating.trimmingCharacters(in: .whitespaces)
    let focused = (0...5).contains(Int(chosen) ?? -1) ? chosen : "0"
    var choices: [String] = []
    for stars in 0...5 {
      let checked = chosen == String(stars) ? " checked" : ""
      let autofocus = focus && focused == String(stars) ? " autofocus" : ""
      let name = "\(stars) of 5 stars"
      let shown =
        stars == 0
        ? #"0<span class="visually-hidden"> of 5 stars</span>"#
        : #"<span class="glyph" aria-hidden="true"></span><span class="visually-hidden">\#(name)</span>"#
      choices.append(
        #"<input type="radio" name="rating" value="\#(stars)" id="rating-\#(stars)" required\#(checked)\#(autofocus)>"#
          + #"<label for="rating-\#(stars)"\#(stars == 0 ? #" class="none""# : "")>\#(shown)</label>"#)
    }
    let state = faulty ? #" aria-invalid="true" aria-describedby="problems""# : ""
    return #"<fieldset class="rating" role="radiogroup" aria-labelledby="rating-legend"\#(state)>"#
      + #"<legend id="rating-legend">Stars</legend><div class="choices">\#(choices.joined())</div></fieldset>"#
  }
}
