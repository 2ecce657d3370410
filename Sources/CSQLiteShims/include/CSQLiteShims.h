// The catalogue's relevance ranking, an FTS5 auxiliary function, for the Catalogue module.
//
// FTS5 is extended through tables of C function pointers (`fts5_api`, `Fts5ExtensionApi`)
// whose functions call back once a matching row; the function below and its callbacks are C,
// like the API. Every symbol carries the module's prefix. The header names no SQLite type, so
// that Swift sees the connection as the opaque pointer its SQLite module gives it.
#ifndef CSQLITESHIMS_H
#define CSQLITESHIMS_H

#ifdef __cplusplus
extern "C" {
#endif

struct sqlite3;

/// The low bits of a full-text row's id that hold the number of words the row indexes (at most
/// 65,535); the review's `seq` is the bits above them. A row's length is then known without
/// reading FTS5's `docsize` table, a lookup that would cost more than the rest of its score.
#define CSQLITESHIMS_LENGTH_BITS 16

/// The most reviews `catalogue_rank` counts of one phrase to weigh it (its inverse document
/// frequency); past them it estimates the count from how far into the reviews they reached.
#define CSQLITESHIMS_COUNT_CAP 1000

/// Registers the FTS5 auxiliary function `catalogue_rank(table, first, last)` on the
/// connection `db`: Okapi BM25 as FTS5's own `bm25(table)` computes it (k1 =
/// 1.2, b = 0.75, every column weighing 1, lower is better), except that a row's length is
/// read from its id (`CSQLITESHIMS_LENGTH_BITS`), and that a phrase in more than
/// `CSQLITESHIMS_COUNT_CAP` rows has its count estimated from the `seq` its
/// `CSQLITESHIMS_COUNT_CAP`th row has, between `first` and `last`, the lowest and highest `seq`
/// of the reviews: FTS5's `bm25` reads every row a phrase is in before it scores the first,
/// which on a common word costs more than scoring thousands. Returns SQLite's status.
int csqliteshims_register_rank(struct sqlite3 *db);

#ifdef __cplusplus
}
#endif

#endif
