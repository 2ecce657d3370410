import Foundation

extension SQLiteRecords {
  /// The database's own findings, and whether its file is damaged: SQLite's integrity check,
  /// the foreign keys, the schema's version and the full-text index.
  func storeFindings(quick: Bool) -> (findings: [Finding], damaged: Bool) {
    var findings: [Finding] = []
    let damage = self.damage(quick: quick)
    // integrity_check also reports rows that break CHECK and NOT NULL constraints: those are
    // the record checks' to report, as invalid records, not a damaged file.
    let problems = damage.problems.filter {
      !$0.hasPrefix("CHECK constraint failed") && !$0.hasPrefix("NULL value in")
    }
    if !problems.isEmpty {
      let shown = problems.prefix(3).joined(separator: "; ") + (problems.count > 3 ? "; …" : "")
      findings.append(
        Finding(
          kind: .databaseCorrupt, target: LibraryLayout.database,
          problem: "the database file is damaged (SQLite's integrity check: \(shown)).",
          remedy:
            "repair keeps a copy of it in lost+found/, then rebuilds its indexes, or the whole database "
            + "from what still reads (stop `catalogue serve` first); or restore catalogue.sqlite from a backup",
          repairable: true))
    }
    if let searchIndex = damage.searchIndex {
      findings.append(
        Finding(
          kind: .searchIndexOutOfStep, target: "reviews_fts",
          problem: "the full-text index is damaged (\(searchIndex))",
          remedy: "repair rebuilds the index from the reviews", repairable: true))
    }
    guard problems.isEmpty else { return (findings, true) }
    do {
      let violations = try foreignKeyViolations().map { ($0.table, $0.parent) }
      for table in Set(violations.map { "\($0.0) → \($0.1)" }).sorted() {
        let access = Library.accessTables.contains { table.hasPrefix($0 + " ") }
        let addresses = table.hasPrefix("sign_in_addresses ")
        findings.append(
          Finding(
            kind: .foreignKeyViolation, target: table,
            problem: access
              ? "\(addresses ? "sign-in addresses" : "sessions or tokens") belong to reviewers that do not exist (\(table))"
              : "links point at records that do not exist (\(table))",
            remedy: access
              ? "repair deletes those \(addresses ? "addresses" : "sessions and tokens")"
              : "repair records the pictures again from their originals where they are in the store, "
                + "and removes the links that are still broken",
            repairable: true))
      }
      let version = try schemaVersion()
      if version != Schema.current {
        findings.append(
          Finding(
            kind: .schemaVersion, target: LibraryLayout.database,
            problem: "schema version \(version), expected \(Schema.current)",
            remedy: "open the library with a catalogue that knows schema \(version)", repairable: false))
      }
      if damage.searchIndex == nil, !(try searchIndexInStep()) {
        findings.append(
          Finding(
            kind: .searchIndexOutOfStep, target: "reviews_fts",
            problem: "the full-text index does not match the reviews",
            remedy: "repair rebuilds the index from the reviews", repairable: true))
      }
    } catch {
      // The integrity check passed but the file still fails to read: damaged all the same.
      findings.append(
        Finding(
          kind: .databaseCorrupt, target: LibraryLayout.database,
          problem: "the database file cannot be read whole (\(error)).",
          remedy:
            "repair keeps a copy of it in lost+found/, then rebuilds it from what still reads "
            + "(stop `catalogue serve` first); or restore catalogue.sqlite from a backup",
          repairable: true))
      return (findings, true)
    }
    return (findings, false)
  }
}
