/// The database schema, as a list of migrations: migration N takes a database from schema
/// version N−1 to N. `PRAGMA user_version` records the version a database is at.
///
/// A database at a version above `current` was written by a newer build and is refused
/// untouched. Migrations run in one transaction each, so a failed one leaves the old version.
enum Schema {
  struct Migration {
    let version: Int
    let sql: String
  }

  static var current: Int { migrations.last!.version }

  static let migrations: [Migration] = [
    Migration(
      version: 1,
      sql: """
        CREATE TABLE reviews (
          seq INTEGER PRIMARY KEY,
          id TEXT NOT NULL UNIQUE CHECK (length(id) = 16 AND id NOT GLOB '*[^0-9a-f]*'),
          title TEXT NOT NULL,
          body TEXT NOT NULL,
          rating INTEGER NOT NULL CHECK (rating BETWEEN 0 AND 5),
          category TEXT NOT NULL,
          favorite INTEGER NOT NULL DEFAULT 0 CHECK (favorite IN (0, 1)),
          created TEXT NOT NULL,
          updated TEXT NOT NULL
        );
        CREATE INDEX reviews_title ON reviews (title COLLATE NOCASE);
        CREATE INDEX reviews_rating ON reviews (rating);
        CREATE INDEX reviews_created ON reviews (created);
        CREATE INDEX reviews_updated ON reviews (updated);
        CREATE INDEX reviews_category ON reviews (category);

        CREATE TABLE images (
          sha256 TEXT PRIMARY KEY CHECK (length(sha256) = 64),
          format TEXT NOT NULL,
          width INTEGER NOT NULL,
          height INTEGER NOT NULL,
          orientation INTEGER NOT NULL,
          bytes INTEGER NOT NULL,
          thumbnail_format TEXT NOT NULL,
          thumbnail_width INTEGER NOT NULL,
          thumbnail_height INTEGER NOT NULL,
          imported TEXT NOT NULL
        ) WITHOUT ROWID;

        CREATE TABLE review_images (
          review TEXT NOT NULL REFERENCES reviews (id) ON DELETE CASCADE,
          position INTEGER NOT NULL CHECK (position >= 1),
          image TEXT NOT NULL REFERENCES images (sha256),
          cover INTEGER NOT NULL DEFAULT 0 CHECK (cover IN (0, 1)),
          PRIMARY KEY (review, position),
          UNIQUE (review, image)
        ) WITHOUT ROWID;
        CREATE INDEX review_images_image ON review_images (image);
        CREATE UNIQUE INDEX review_images_one_cover ON review_images (review) WHERE cover = 1;

        CREATE TABLE settings (
          key TEXT PRIMARY KEY,
          value TEXT NOT NULL
        ) WITHOUT ROWID;

        CREATE VIRTUAL TABLE reviews_fts USING fts5 (
          title, body, content = 'reviews', content_rowid = 'seq',
          tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3'
        );
        CREATE TRIGGER reviews_fts_insert AFTER INSERT ON reviews BEGIN
          INSERT INTO reviews_fts (rowid, title, body) VALUES (new.seq, new.title, new.body);
        END;
        CREATE TRIGGER reviews_fts_delete AFTER DELETE ON reviews BEGIN
          INSERT INTO reviews_fts (reviews_fts, rowid, title, body)
            VALUES ('delete', old.seq, old.title, old.body);
        END;
        CREATE TRIGGER reviews_fts_update AFTER UPDATE OF title, body ON reviews BEGIN
          INSERT INTO reviews_fts (reviews_fts, rowid, title, body)
            VALUES ('delete', old.seq, old.title, old.body);
          INSERT INTO reviews_fts (rowid, title, body) VALUES (new.seq, new.title, new.body);
        END;
        """),
    // The colour space of each original ("Display P3", "sRGB", "untagged"). Images recorded
    // before colour management have none: check names them and repair records it (and remakes
    // their thumbnails, which were made without the profile).
    Migration(version: 2, sql: "ALTER TABLE images ADD COLUMN color_space TEXT CHECK (length(color_space) > 0);"),
    // Reviewers who sign in to `catalogue serve`, their browser sessions and API tokens, and
    // who wrote each review. Session ids and tokens are kept only as SHA-256 digests (the
    // digest is the key: a lookup compares no secret). A name matches in any ASCII case, and
    // keeps the case it was given. Reviews name their authors as text, with no foreign key:
    // removing a reviewer keeps the name on what they wrote.
    Migration(
      version: 3,
      sql: """
        CREATE TABLE users (
          name TEXT PRIMARY KEY COLLATE NOCASE CHECK (length(name) BETWEEN 1 AND 64),
          password_hash TEXT NOT NULL,
          created TEXT NOT NULL,
          password_changed TEXT NOT NULL
        ) WITHOUT ROWID;

        CREATE TABLE sessions (
          id_hash TEXT PRIMARY KEY CHECK (length(id_hash) = 64),
          user TEXT NOT NULL COLLATE NOCASE REFERENCES users (name) ON DELETE CASCADE ON UPDATE CASCADE,
          created TEXT NOT NULL,
          last_seen TEXT NOT NULL,
          expires TEXT NOT NULL
        ) WITHOUT ROWID;
        CREATE INDEX sessions_user ON sessions (user);
        CREATE INDEX sessions_expires ON sessions (expires);

        CREATE TABLE tokens (
          id_hash TEXT PRIMARY KEY CHECK (length(id_hash) = 64),
          user TEXT NOT NULL COLLATE NOCASE REFERENCES users (name) ON DELETE CASCADE ON UPDATE CASCADE,
          created TEXT NOT NULL,
          last_used TEXT
        ) WITHOUT ROWID;
        CREATE INDEX tokens_user ON tokens (user);

        ALTER TABLE reviews ADD COLUMN created_by TEXT;
        ALTER TABLE reviews ADD COLUMN updated_by TEXT;

        -- Every order a page is asked in has an index that gives it whole, the rowid (seq)
        -- breaking ties, so that a page is read from an index in order and stopped at its
        -- end instead of every review it could match sorted: under a millisecond on 100,000
        -- reviews, not 20 to 36. The rating order's index runs as the order does (most stars
        -- first, then A to Z), so that it needs no sort either way. Within a category, the
        -- indexes carry the stars and the favourite mark too, so that those filters are
        -- tested in the index; the others stay narrow, so that a deep page walks few of them.
        -- The narrow favourite index is what a count of every review walks.
        DROP INDEX reviews_rating;
        DROP INDEX reviews_category;
        CREATE INDEX reviews_rating ON reviews (rating DESC, title COLLATE NOCASE);
        CREATE INDEX reviews_category_title ON reviews (category, title COLLATE NOCASE, seq, rating, favorite);
        CREATE INDEX reviews_category_rating ON reviews (category, rating DESC, title COLLATE NOCASE, seq, favorite);
        CREATE INDEX reviews_category_created ON reviews (category, created, seq, rating, favorite);
        CREATE INDEX reviews_category_updated ON reviews (category, updated, seq, rating, favorite);
        CREATE INDEX reviews_favorite ON reviews (favorite);
        """),
    // The addresses each reviewer signed in from lately (one row an address, its latest
    // success), so that a guesser elsewhere who holds the server's account-wide sign-in
    // throttle shut cannot keep the reviewer out. Kept in the library so that a restart does
    // not forget them while a guesser goes on; deleted with the reviewer, and a row older than
    // `Library.signInAddressMemory` at the next sign-in.
    Migration(
      version: 4,
      sql: """
        CREATE TABLE sign_in_addresses (
          user TEXT NOT NULL COLLATE NOCASE REFERENCES users (name) ON DELETE CASCADE ON UPDATE CASCADE,
          address TEXT NOT NULL CHECK (length(address) BETWEEN 1 AND 100),
          last_success TEXT NOT NULL,
          PRIMARY KEY (user, address)
        ) WITHOUT ROWID;
        CREATE INDEX sign_in_addresses_last_success ON sign_in_addresses (last_success);
        """),
    // The full-text index in every script, and fast to rank (``SearchIndex``, ``SearchText``):
    // it is given each review's title and body as `SearchText` normalises them
    // (through the view `reviews_search`, whose functions each connection defines), under a key
    // that holds the review's `seq` and its length; its words are letters, digits and marks
    // (marks no longer split words). The triggers that kept the old index in step called FTS5
    // alone; the new ones call Swift, so each connection creates its own (``connectionSQL``).
    // The index is rebuilt from the reviews in this transaction.
    Migration(
      version: 5,
      sql: """
        DROP TRIGGER reviews_fts_insert;
        DROP TRIGGER reviews_fts_delete;
        DROP TRIGGER reviews_fts_update;
        DROP TABLE reviews_fts;
        CREATE VIEW reviews_search AS
          SELECT catalogue_search_key(seq, title, body) AS key, seq,
            catalogue_search_text(title) AS title, catalogue_search_text(body) AS body
          FROM reviews;
        CREATE VIRTUAL TABLE reviews_fts USING fts5 (
          title, body, content = 'reviews_search', content_rowid = 'key',
          tokenize = "unicode61 remove_diacritics 2 categories 'L* N* Co M*'", prefix = '2 3'
        );
        INSERT INTO reviews_fts (reviews_fts) VALUES ('rebuild');
        """),
    // What a review says of each of its pictures: a description for whoever cannot see it
    // (alt text), a caption shown under it, and the file's name as the reviewer had it when
    // attaching (a download is named after it). They belong to the link, not to the image
    // record: a picture stored once can be shared by two reviews, each saying its own. NULL
    // is "none" (pictures linked before this version have no name); ``PictureText`` and
    // ``PictureName`` say what a value may be, and check verifies it.
    Migration(
      version: 6,
      sql: """
        ALTER TABLE review_images ADD COLUMN alt TEXT CHECK (length(alt) > 0);
        ALTER TABLE review_images ADD COLUMN caption TEXT CHECK (length(caption) > 0);
        ALTER TABLE review_images ADD COLUMN name TEXT CHECK (length(name) > 0);
        """),
    // What a card of the grid shows of a review's pictures (how many, the cover and its
    // description) from one index a review: its entries sit together, so that the count and
    // the cover are read from the same page. Without it a page of 50 cards looked each review
    // up three times more (the cover's index, then the link's row, then the count's index),
    // each a page of its own in a large library, and made half the cost of the page.
    Migration(
      version: 7,
      sql: """
        CREATE INDEX review_images_card ON review_images (review, cover, image, alt);
        """),
    // What a card shows of a review's pictures, kept on the review's own row by triggers on
    // its links (``cardTriggers``): a page of 50 cards reads its 50 rows and nothing more.
    // Schema 7's index still took two steps a card into entries ordered by the reviews' random
    // ids, each most often a page of its own that a large library's cache no longer held.
    Migration(
      version: 8,
      sql: """
        ALTER TABLE reviews ADD COLUMN image_count INTEGER NOT NULL DEFAULT 0 CHECK (image_count >= 0);
        ALTER TABLE reviews ADD COLUMN cover_image TEXT CHECK (length(cover_image) = 64);
        ALTER TABLE reviews ADD COLUMN cover_alt TEXT CHECK (length(cover_alt) > 0);
        \(cardTriggers)
        \(refreshCards(where: "1"));
        DROP INDEX review_images_card;
        """),
    // Spoilers and drafts. `contains_spoilers`: the whole review gives away what happens, and
    // a reader is asked before its body is shown. `draft`: readers never see the review. It is
    // a small number so that every index a reader's page is read from can carry it and test it
    // inside the index (a page stays read from its index alone, however deep), after `seq`, the
    // order's tie-break, so that the index still gives the whole order. `published`:
    // when a review that is not a draft was published; NULL reads as its created time (every
    // review before this version was published when it was created, and a rebuild of a damaged
    // older database has no such column), and a draft keeps none.
    //
    // The search index no longer holds the words of a body's spoilers (`||…||`, `::: spoiler`):
    // the view gives it each body as ``Markdown/searchable(_:)`` leaves it, and it is rebuilt.
    Migration(
      version: 9,
      sql: """
        ALTER TABLE reviews ADD COLUMN contains_spoilers INTEGER NOT NULL DEFAULT 0
          CHECK (contains_spoilers IN (0, 1));
        ALTER TABLE reviews ADD COLUMN draft INTEGER NOT NULL DEFAULT 0 CHECK (draft IN (0, 1));
        ALTER TABLE reviews ADD COLUMN published TEXT CHECK (length(published) > 0);
        UPDATE reviews SET published = created;

        DROP INDEX reviews_title;
        DROP INDEX reviews_rating;
        DROP INDEX reviews_created;
        DROP INDEX reviews_updated;
        DROP INDEX reviews_favorite;
        DROP INDEX reviews_category_title;
        DROP INDEX reviews_category_rating;
        DROP INDEX reviews_category_created;
        DROP INDEX reviews_category_updated;
        CREATE INDEX reviews_title ON reviews (title COLLATE NOCASE, seq, draft);
        CREATE INDEX reviews_rating ON reviews (rating DESC, title COLLATE NOCASE, seq, draft);
        CREATE INDEX reviews_created ON reviews (created, seq, draft);
        CREATE INDEX reviews_updated ON reviews (updated, seq, draft);
        CREATE INDEX reviews_favorite ON reviews (favorite, draft);
        CREATE INDEX reviews_category_title ON reviews (category, title COLLATE NOCASE, seq, rating, favorite, draft);
        CREATE INDEX reviews_category_rating
          ON reviews (category, rating DESC, title COLLATE NOCASE, seq, favorite, draft);
        CREATE INDEX reviews_category_created ON reviews (category, created, seq, rating, favorite, draft);
        CREATE INDEX reviews_category_updated ON reviews (category, updated, seq, rating, favorite, draft);
        CREATE INDEX reviews_draft ON reviews (draft, category);

        DROP VIEW reviews_search;
        \(searchView)
        INSERT INTO reviews_fts (reviews_fts) VALUES ('rebuild');
        """),
    // Reviewers' pages. `display_name`: what the pages call a reviewer, NULL for their name;
    // `bio`: a few lines they say of themselves, NULL for none. Their rules are
    // ``Library/displayNameProblem(_:)`` and ``Library/bioProblem(_:)``; the checks here bound
    // them as SQLite counts characters (code points), as the rules count them too.
    //
    // `reviews_created_by` gives one reviewer's reviews newest first from the index alone:
    // `created_by` compared in any ASCII case, as reviewers' names match, and `draft` after
    // `seq`, so that a reader's page tests it inside the index (as the indexes of schema 9 do)
    // and a count of a reviewer's published reviews reads nothing else.
    Migration(
      version: 10,
      sql: """
        ALTER TABLE users ADD COLUMN display_name TEXT CHECK (length(display_name) BETWEEN 1 AND 100);
        ALTER TABLE users ADD COLUMN bio TEXT CHECK (length(bio) BETWEEN 1 AND 1000);
        CREATE INDEX reviews_created_by ON reviews (created_by COLLATE NOCASE, created, seq, draft);
        """),
    // Feeds list reviews newest published first: a draft written last month and published
    // today is news today. `published` is NULL for a review published when it was made (its
    // created time), so the order is `coalesce(published, created)`, which this index gives
    // (an expression index: a query must write the expression as it is written here).
    Migration(
      version: 11,
      sql: """
        CREATE INDEX reviews_published ON reviews (coalesce(published, created), seq, draft);
        """),
    // Where an imported review came from (`catalogue import`): the service, its id for the
    // entry (a Letterboxd URI, a Goodreads Book Id, an IMDb Const, a StoryGraph ISBN/UID), the
    // rating as the service wrote it (the review keeps it rounded to whole stars), a
    // fingerprint of what the import made of the entry (a newer export changed it when this
    // differs) and the review's version when the import last wrote it (the review was edited
    // here since when that differs). One review per entry: a second import finds it.
    Migration(
      version: 12,
      sql: """
        CREATE TABLE review_sources (
          source TEXT NOT NULL CHECK (length(source) BETWEEN 1 AND 40),
          source_id TEXT NOT NULL CHECK (length(source_id) BETWEEN 1 AND 500),
          review TEXT NOT NULL REFERENCES reviews (id) ON DELETE CASCADE,
          rating TEXT,
          fingerprint TEXT NOT NULL,
          version TEXT NOT NULL,
          imported TEXT NOT NULL,
          PRIMARY KEY (source, source_id)
        ) WITHOUT ROWID;
        CREATE INDEX review_sources_review ON review_sources (review);
        """),
  ]

  /// The view the full-text index reads its content from (``SearchIndex``), as of schema 9:
  /// each review's title and the words of its body a reader sees without revealing a spoiler.
  static let searchView = """
    CREATE VIEW reviews_search AS
      SELECT catalogue_search_key(seq, title, catalogue_searchable(body)) AS key, seq,
        catalogue_search_text(title) AS title, catalogue_search_text(catalogue_searchable(body)) AS body
      FROM reviews;
    """

  /// The version that keeps each review's card on its row (``cardTriggers``).
  static let cardVersion = 8

  /// Each card column of `reviews` with what its links say it must hold: how many pictures,
  /// the cover's hash and its description.
  ///
  /// Migration 8 writes these (in ``cardTriggers`` and ``refreshCards(where:)``) into the
  /// file as they are when it runs: a later change to the card must come with a migration of
  /// its own that makes the triggers again, and must leave migration 8 able to run on a
  /// schema-7 library.
  static let cardColumns: KeyValuePairs<String, String> = [
    "image_count": "(SELECT count(*) FROM review_images l WHERE l.review = reviews.id)",
    "cover_image": "(SELECT l.image FROM review_images l WHERE l.review = reviews.id AND l.cover = 1)",
    "cover_alt": "(SELECT l.alt FROM review_images l WHERE l.review = reviews.id AND l.cover = 1)",
  ]

  /// Sets the card columns of the reviews matching `condition` (on `reviews`) from their links.
  static func refreshCards(where condition: String) -> String {
    "UPDATE reviews SET " + cardColumns.map { "\($0.key) = \($0.value)" }.joined(separator: ", ")
      + " WHERE \(condition)"
  }

  /// The ids of the reviews whose card columns disagree with their links, in order.
  static let cardsOutOfStep =
    "SELECT id FROM reviews WHERE " + cardColumns.map { "\($0.key) IS NOT \($0.value)" }.joined(separator: " OR ")
    + " ORDER BY id"

  /// The triggers that keep each review's card columns in step with its links, whatever
  /// writes them (the catalogue, a repair, the sqlite3 shell). Only those columns change: the
  /// search index's triggers, on the title and the body, do not run.
  static let cardTriggers = """
    CREATE TRIGGER review_images_card_insert AFTER INSERT ON review_images BEGIN
      \(refreshCards(where: "id = new.review"));
    END;
    CREATE TRIGGER review_images_card_delete AFTER DELETE ON review_images BEGIN
      \(refreshCards(where: "id = old.review"));
    END;
    CREATE TRIGGER review_images_card_update AFTER UPDATE ON review_images BEGIN
      \(refreshCards(where: "id IN (old.review, new.review)"));
    END;
    """

  /// The version whose index ``connectionSQL`` keeps in step.
  static let searchIndexVersion = 5

  /// What each connection creates for itself once the schema is at ``searchIndexVersion``:
  /// the triggers that keep the full-text index in step with the reviews. They are TEMP (they
  /// live as long as the connection) because they call functions only the catalogue defines:
  /// in the file, they would make every edit of a review fail in the sqlite3 shell. A review's
  /// row in the index is read from the view, before a change (its old words, which FTS5 needs
  /// to remove them) and after it.
  static let connectionSQL = """
    CREATE TEMP TRIGGER IF NOT EXISTS reviews_search_insert AFTER INSERT ON main.reviews BEGIN
      INSERT INTO reviews_fts (rowid, title, body)
        SELECT key, title, body FROM reviews_search WHERE seq = new.seq;
    END;
    CREATE TEMP TRIGGER IF NOT EXISTS reviews_search_delete BEFORE DELETE ON main.reviews BEGIN
      INSERT INTO reviews_fts (reviews_fts, rowid, title, body)
        SELECT 'delete', key, title, body FROM reviews_search WHERE seq = old.seq;
    END;
    CREATE TEMP TRIGGER IF NOT EXISTS reviews_search_update_old BEFORE UPDATE OF seq, title, body
    ON main.reviews BEGIN
      INSERT INTO reviews_fts (reviews_fts, rowid, title, body)
        SELECT 'delete', key, title, body FROM reviews_search WHERE seq = old.seq;
    END;
    CREATE TEMP TRIGGER IF NOT EXISTS reviews_search_update_new AFTER UPDATE OF seq, title, body
    ON main.reviews BEGIN
      INSERT INTO reviews_fts (rowid, title, body)
        SELECT key, title, body FROM reviews_search WHERE seq = new.seq;
    END;
    """

  /// Brings `database` to the current version, one transaction a migration, and prepares the
  /// connection for it: the full-text index's functions (``SearchIndex/prepare(_:)``) and
  /// triggers (``connectionSQL``).
  static func migrate(_ database: Database, path: String, migrations: [Migration] = migrations)
    throws(CatalogueError)
  {
    do {
      try SearchIndex.prepare(database)
    } catch {
      throw CatalogueError(error)
    }
    let known = migrations.last?.version ?? 0
    let found = try version(of: database)
    if found > known { throw .newerSchema(path: path, found: found, known: known) }
    for migration in migrations where migration.version > found {
      try database.writeTransaction { () throws(CatalogueError) in
        // Another process may have migrated while this one waited for the lock.
        guard try version(of: database) < migration.version else { return }
        do throws(DatabaseError) {
          try database.execute(migration.sql)
          try database.execute("PRAGMA user_version = \(migration.version)")
        } catch {
          throw CatalogueError(error)
        }
      }
    }
    guard try version(of: database) >= searchIndexVersion else { return }
    do {
      try database.execute(connectionSQL)
    } catch {
      throw CatalogueError(error)
    }
  }

  /// Puts the database in WAL mode if it is not (a library made before WAL was the default,
  /// upgraded since): readers then go on while one process writes. Another process that has
  /// the file open in its old mode makes SQLite keep that mode; the next open switches it.
  static func useWriteAheadLog(_ database: Database) throws(CatalogueError) {
    do {
      guard case .text(let mode) = try database.scalar("PRAGMA journal_mode"), mode.lowercased() != "wal" else {
        return
      }
      _ = try database.scalar("PRAGMA journal_mode = WAL")
    } catch {
      // Busy: another connection holds the file in its old mode; it stays as it was.
      if error.isBusy { return }
      throw CatalogueError(error)
    }
  }

  static func version(of database: Database) throws(CatalogueError) -> Int {
    do {
      guard case .integer(let version) = try database.scalar("PRAGMA user_version") else { return 0 }
      return Int(version)
    } catch {
      throw CatalogueError(error)
    }
  }
}
