#include "CSQLiteShims.h"

#include <math.h>
#include <sqlite3.h>
#include <string.h>

/// What a query's scores share, computed at its first row: the average row length and each
/// phrase's weight.
typedef struct {
  int phrases;
  double average_length;
  double weights[];
} csqliteshims_query;

/// A count of a phrase's rows, stopped at `CSQLITESHIMS_COUNT_CAP`.
typedef struct {
  sqlite3_int64 rows;
  sqlite3_int64 last_id;
} csqliteshims_count;

static int csqliteshims_count_row(const Fts5ExtensionApi *api, Fts5Context *fts, void *context) {
  csqliteshims_count *count = context;
  count->rows += 1;
  if (count->rows < CSQLITESHIMS_COUNT_CAP) return SQLITE_OK;
  count->last_id = api->xRowid(fts);
  return SQLITE_DONE;
}

/// The weights of the query's phrases (BM25's inverse document frequency), as FTS5's `bm25`
/// computes them, with the count of a phrase past the cap estimated: its rows are read in
/// increasing `seq`, so the capth is about as far into the reviews as the cap is into the
/// phrase's rows.
static csqliteshims_query *csqliteshims_prepare(const Fts5ExtensionApi *api, Fts5Context *fts,
                                                sqlite3_int64 first, sqlite3_int64 last, int *status) {
  int phrases = api->xPhraseCount(fts);
  csqliteshims_query *query = sqlite3_malloc64(sizeof(csqliteshims_query) + sizeof(double) * (size_t)phrases);
  if (query == NULL) {
    *status = SQLITE_NOMEM;
    return NULL;
  }
  query->phrases = phrases;
  sqlite3_int64 rows = 0, words = 0;
  *status = api->xRowCount(fts, &rows);
  if (*status == SQLITE_OK) *status = api->xColumnTotalSize(fts, -1, &words);
  query->average_length = rows > 0 ? (double)words / (double)rows : 1.0;
  for (int phrase = 0; phrase < phrases && *status == SQLITE_OK; phrase++) {
    csqliteshims_count count = {0, 0};
    *status = api->xQueryPhrase(fts, phrase, &count, csqliteshims_count_row);
    double hits = (double)count.rows;
    if (count.last_id > 0 && last >= first) {
      sqlite3_int64 reached = (count.last_id >> CSQLITESHIMS_LENGTH_BITS) - first + 1;
      if (reached > 0) hits = hits * (double)(last - first + 1) / (double)reached;
    }
    if (hits > (double)rows) hits = (double)rows;
    double weight = log(((double)rows - hits + 0.5) / (hits + 0.5));
    // As FTS5's bm25: a phrase in more than half the rows still counts, a little.
    query->weights[phrase] = weight > 0.0 ? weight : 1e-6;
  }
  if (*status != SQLITE_OK) {
    sqlite3_free(query);
    return NULL;
  }
  return query;
}

static void csqliteshims_rank(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *context, int count,
                              sqlite3_value **arguments) {
  if (count != 2) {
    sqlite3_result_error(context, "catalogue_rank takes the table, then the first and last seq of the reviews", -1);
    return;
  }
  int status = SQLITE_OK;
  csqliteshims_query *query = api->xGetAuxdata(fts, 0);
  if (query == NULL) {
    query = csqliteshims_prepare(api, fts, sqlite3_value_int64(arguments[0]), sqlite3_value_int64(arguments[1]),
                                 &status);
    if (query == NULL) {
      sqlite3_result_error_code(context, status);
      return;
    }
    status = api->xSetAuxdata(fts, query, sqlite3_free);
    if (status != SQLITE_OK) {
      sqlite3_result_error_code(context, status);
      return;
    }
  }
  const double k1 = 1.2, b = 0.75;
  double length = (double)(api->xRowid(fts) & ((1 << CSQLITESHIMS_LENGTH_BITS) - 1));
  double score = 0.0;
  for (int phrase = 0; phrase < query->phrases; phrase++) {
    Fts5PhraseIter iterator;
    int column = 0, offset = 0;
    double frequency = 0.0;
    status = api->xPhraseFirst(fts, phrase, &iterator, &column, &offset);
    if (status != SQLITE_OK) break;
    for (; column >= 0; api->xPhraseNext(fts, &iterator, &column, &offset)) frequency += 1.0;
    // In the order of operations of FTS5's `bm25`, so that both put the same rows in the same order.
    score += query->weights[phrase] *
             ((frequency * (k1 + 1.0)) / (frequency + k1 * (1 - b + b * length / query->average_length)));
  }
  if (status != SQLITE_OK) {
    sqlite3_result_error_code(context, status);
    return;
  }
  sqlite3_result_double(context, -score);
}

int csqliteshims_register_rank(struct sqlite3 *db) {
  fts5_api *fts5 = NULL;
  sqlite3_stmt *statement = NULL;
  int status = sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &statement, NULL);
  if (status != SQLITE_OK) return status;
  sqlite3_bind_pointer(statement, 1, (void *)&fts5, "fts5_api_ptr", NULL);
  sqlite3_step(statement);
  status = sqlite3_finalize(statement);
  if (status != SQLITE_OK) return status;
  if (fts5 == NULL || fts5->iVersion < 2) return SQLITE_ERROR;
  return fts5->xCreateFunction(fts5, "catalogue_rank", NULL, csqliteshims_rank, NULL);
}
