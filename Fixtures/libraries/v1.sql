BEGIN TRANSACTION;
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
INSERT INTO reviews VALUES(1,'31b70f81ab987500','Outer Wilds','A solar system caught in a time loop, explored by curiosity alone.',4,'game',0,'2025-06-15T15:06:40.000Z','2025-06-15T15:06:40.000Z');
INSERT INTO reviews VALUES(2,'cf3952d854f180a6','Grave of the Fireflies','Two children in wartime Japan. Quiet, and hard to watch.',5,'movie',1,'2025-06-15T15:08:20.000Z','2025-06-15T15:08:20.000Z');
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
CREATE TABLE settings (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
) WITHOUT ROWID;
PRAGMA writable_schema=ON;
INSERT INTO sqlite_schema(type,name,tbl_name,rootpage,sql)VALUES('table','reviews_fts','reviews_fts',0,'CREATE VIRTUAL TABLE reviews_fts USING fts5 (
  title, body, content = ''reviews'', content_rowid = ''seq'',
  tokenize = ''unicode61 remove_diacritics 2''
)');
CREATE TABLE IF NOT EXISTS 'reviews_fts_data'(id INTEGER PRIMARY KEY, block BLOB);
INSERT INTO reviews_fts_data VALUES(1,X'020616');
INSERT INTO reviews_fts_data VALUES(10,X'000000000102020002010101020101');
INSERT INTO reviews_fts_data VALUES(137438953473,X'0000009702306101080101020702046c6f6e65010601010d01026279010601010b0106636175676874010601010502087572696f73697479010601010c01086578706c6f726564010601010a0102696e010601010601046c6f6f70010601010901056f757465720102020105736f6c617201060101030205797374656d0106010104010474696d650106010108010577696c647301020304090b090d0f0f090b0a0c0c0b');
INSERT INTO reviews_fts_data VALUES(274877906945,X'000000990430616e64020601010801086368696c6472656e0206010103010966697265666c6965730202050105677261766502020201046861726402060101090102696e020601010401056a6170616e020601010601026f66020203010571756965740206010107010374686502020402016f020601010a0202776f0206010102010777617274696d6502060101050303746368020601010b040a0f0e0a0b090c070c0808090e');
CREATE TABLE IF NOT EXISTS 'reviews_fts_idx'(segid, term, pgno, PRIMARY KEY(segid, term)) WITHOUT ROWID;
INSERT INTO reviews_fts_idx VALUES(1,X'',2);
INSERT INTO reviews_fts_idx VALUES(2,X'',2);
CREATE TABLE IF NOT EXISTS 'reviews_fts_docsize'(id INTEGER PRIMARY KEY, sz BLOB);
INSERT INTO reviews_fts_docsize VALUES(1,X'020c');
INSERT INTO reviews_fts_docsize VALUES(2,X'040a');
CREATE TABLE IF NOT EXISTS 'reviews_fts_config'(k PRIMARY KEY, v) WITHOUT ROWID;
INSERT INTO reviews_fts_config VALUES('version',4);
CREATE INDEX reviews_title ON reviews (title COLLATE NOCASE);
CREATE INDEX reviews_rating ON reviews (rating);
CREATE INDEX reviews_created ON reviews (created);
CREATE INDEX reviews_updated ON reviews (updated);
CREATE INDEX reviews_category ON reviews (category);
CREATE INDEX review_images_image ON review_images (image);
CREATE UNIQUE INDEX review_images_one_cover ON review_images (review) WHERE cover = 1;
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
PRAGMA writable_schema=OFF;
COMMIT;
PRAGMA user_version = 1;
