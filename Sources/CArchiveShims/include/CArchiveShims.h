// libarchive, opened the first time a bundle archive is read or written rather than when the
// process starts: Debian's libarchive brings libxml2, ICU, nettle, lzma, zstd, lz4, bzip2 and
// acl with it, whose loading costs every command and the server about 1.3 MiB of memory
// whether it touches an archive or not. Each function below is libarchive's of the same name
// (archive_…) with this prefix instead, called through a pointer dlsym found; call
// carchiveshims_load() first. Types and constants are libarchive's own, from its headers.
#ifndef CARCHIVESHIMS_H
#define CARCHIVESHIMS_H

#include <archive.h>
#include <archive_entry.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Opens libarchive (libarchive.so.13) and finds its functions, once for the process; safe
/// from any thread. Returns 0, or -1 when the library or one of its functions is missing
/// (carchiveshims_load_error() says which).
int carchiveshims_load(void);

/// What went wrong in carchiveshims_load(), or "" when nothing did.
const char *carchiveshims_load_error(void);

// The file-type constants are cast macros, which do not import into Swift.
static inline unsigned int carchiveshims_type_mask(void) { return AE_IFMT; }
static inline unsigned int carchiveshims_type_regular(void) { return AE_IFREG; }
static inline unsigned int carchiveshims_type_directory(void) { return AE_IFDIR; }

__LA_MODE_T carchiveshims_entry_filetype(struct archive_entry *a);
void carchiveshims_entry_free(struct archive_entry *a);
const char *carchiveshims_entry_hardlink(struct archive_entry *a);
struct archive_entry *carchiveshims_entry_new(void);
const char *carchiveshims_entry_pathname(struct archive_entry *a);
const char *carchiveshims_entry_pathname_utf8(struct archive_entry *a);
void carchiveshims_entry_set_filetype(struct archive_entry *a, unsigned int b);
void carchiveshims_entry_set_gid(struct archive_entry *a, la_int64_t b);
void carchiveshims_entry_set_mtime(struct archive_entry *a, time_t b, long c);
void carchiveshims_entry_set_pathname_utf8(struct archive_entry *a, const char *b);
void carchiveshims_entry_set_perm(struct archive_entry *a, __LA_MODE_T b);
void carchiveshims_entry_set_size(struct archive_entry *a, la_int64_t b);
void carchiveshims_entry_set_uid(struct archive_entry *a, la_int64_t b);
la_int64_t carchiveshims_entry_size(struct archive_entry *a);
int carchiveshims_entry_size_is_set(struct archive_entry *a);
const char *carchiveshims_entry_symlink(struct archive_entry *a);
const char *carchiveshims_error_string(struct archive *a);
la_ssize_t carchiveshims_read_data(struct archive *a, void *b, size_t c);
int carchiveshims_read_free(struct archive *a);
struct archive *carchiveshims_read_new(void);
int carchiveshims_read_next_header(struct archive *a, struct archive_entry **b);
int carchiveshims_read_open_fd(struct archive *a, int b, size_t c);
int carchiveshims_read_support_filter_none(struct archive *a);
int carchiveshims_read_support_format_tar(struct archive *a);
int carchiveshims_read_support_format_zip(struct archive *a);
int carchiveshims_write_add_filter_none(struct archive *a);
int carchiveshims_write_close(struct archive *a);
la_ssize_t carchiveshims_write_data(struct archive *a, const void *b, size_t c);
int carchiveshims_write_free(struct archive *a);
int carchiveshims_write_header(struct archive *a, struct archive_entry *b);
struct archive *carchiveshims_write_new(void);
int carchiveshims_write_open_fd(struct archive *a, int b);
int carchiveshims_write_set_bytes_in_last_block(struct archive *a, int b);
int carchiveshims_write_set_format_pax_restricted(struct archive *a);

#ifdef __cplusplus
}
#endif

#endif
