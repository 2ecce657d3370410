#include "CArchiveShims.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

static pthread_once_t carchiveshims_once = PTHREAD_ONCE_INIT;
static int carchiveshims_status = -1;
static char carchiveshims_error[256] = "";

static __LA_MODE_T (*carchiveshims_p_entry_filetype)(struct archive_entry *a);
static void (*carchiveshims_p_entry_free)(struct archive_entry *a);
static const char *(*carchiveshims_p_entry_hardlink)(struct archive_entry *a);
static struct archive_entry *(*carchiveshims_p_entry_new)(void);
static const char *(*carchiveshims_p_entry_pathname)(struct archive_entry *a);
static const char *(*carchiveshims_p_entry_pathname_utf8)(struct archive_entry *a);
static void (*carchiveshims_p_entry_set_filetype)(struct archive_entry *a, unsigned int b);
static void (*carchiveshims_p_entry_set_gid)(struct archive_entry *a, la_int64_t b);
static void (*carchiveshims_p_entry_set_mtime)(struct archive_entry *a, time_t b, long c);
static void (*carchiveshims_p_entry_set_pathname_utf8)(struct archive_entry *a, const char *b);
static void (*carchiveshims_p_entry_set_perm)(struct archive_entry *a, __LA_MODE_T b);
static void (*carchiveshims_p_entry_set_size)(struct archive_entry *a, la_int64_t b);
static void (*carchiveshims_p_entry_set_uid)(struct archive_entry *a, la_int64_t b);
static la_int64_t (*carchiveshims_p_entry_size)(struct archive_entry *a);
static int (*carchiveshims_p_entry_size_is_set)(struct archive_entry *a);
static const char *(*carchiveshims_p_entry_symlink)(struct archive_entry *a);
static const char *(*carchiveshims_p_error_string)(struct archive *a);
static la_ssize_t (*carchiveshims_p_read_data)(struct archive *a, void *b, size_t c);
static int (*carchiveshims_p_read_free)(struct archive *a);
static struct archive *(*carchiveshims_p_read_new)(void);
static int (*carchiveshims_p_read_next_header)(struct archive *a, struct archive_entry **b);
static int (*carchiveshims_p_read_open_fd)(struct archive *a, int b, size_t c);
static int (*carchiveshims_p_read_support_filter_none)(struct archive *a);
static int (*carchiveshims_p_read_support_format_tar)(struct archive *a);
static int (*carchiveshims_p_read_support_format_zip)(struct archive *a);
static int (*carchiveshims_p_write_add_filter_none)(struct archive *a);
static int (*carchiveshims_p_write_close)(struct archive *a);
static la_ssize_t (*carchiveshims_p_write_data)(struct archive *a, const void *b, size_t c);
static int (*carchiveshims_p_write_free)(struct archive *a);
static int (*carchiveshims_p_write_header)(struct archive *a, struct archive_entry *b);
static struct archive *(*carchiveshims_p_write_new)(void);
static int (*carchiveshims_p_write_open_fd)(struct archive *a, int b);
static int (*carchiveshims_p_write_set_bytes_in_last_block)(struct archive *a, int b);
static int (*carchiveshims_p_write_set_format_pax_restricted)(struct archive *a);

static void *carchiveshims_find(void *library, const char *name) {
  void *symbol = dlsym(library, name);
  if (symbol == NULL && carchiveshims_error[0] == '\0') {
    snprintf(carchiveshims_error, sizeof carchiveshims_error, "libarchive has no %s", name);
  }
  return symbol;
}

static void carchiveshims_open(void) {
  // RTLD_LOCAL: nothing of libarchive's becomes visible to the rest of the process.
  void *library = dlopen("libarchive.so.13", RTLD_NOW | RTLD_LOCAL);
  if (library == NULL) {
    const char *reason = dlerror();
    snprintf(carchiveshims_error, sizeof carchiveshims_error, "%s", reason ? reason : "libarchive.so.13 not found");
    return;
  }
  *(void **)&carchiveshims_p_entry_filetype = carchiveshims_find(library, "archive_entry_filetype");
  *(void **)&carchiveshims_p_entry_free = carchiveshims_find(library, "archive_entry_free");
  *(void **)&carchiveshims_p_entry_hardlink = carchiveshims_find(library, "archive_entry_hardlink");
  *(void **)&carchiveshims_p_entry_new = carchiveshims_find(library, "archive_entry_new");
  *(void **)&carchiveshims_p_entry_pathname = carchiveshims_find(library, "archive_entry_pathname");
  *(void **)&carchiveshims_p_entry_pathname_utf8 = carchiveshims_find(library, "archive_entry_pathname_utf8");
  *(void **)&carchiveshims_p_entry_set_filetype = carchiveshims_find(library, "archive_entry_set_filetype");
  *(void **)&carchiveshims_p_entry_set_gid = carchiveshims_find(library, "archive_entry_set_gid");
  *(void **)&carchiveshims_p_entry_set_mtime = carchiveshims_find(library, "archive_entry_set_mtime");
  *(void **)&carchiveshims_p_entry_set_pathname_utf8 = carchiveshims_find(library, "archive_entry_set_pathname_utf8");
  *(void **)&carchiveshims_p_entry_set_perm = carchiveshims_find(library, "archive_entry_set_perm");
  *(void **)&carchiveshims_p_entry_set_size = carchiveshims_find(library, "archive_entry_set_size");
  *(void **)&carchiveshims_p_entry_set_uid = carchiveshims_find(library, "archive_entry_set_uid");
  *(void **)&carchiveshims_p_entry_size = carchiveshims_find(library, "archive_entry_size");
  *(void **)&carchiveshims_p_entry_size_is_set = carchiveshims_find(library, "archive_entry_size_is_set");
  *(void **)&carchiveshims_p_entry_symlink = carchiveshims_find(library, "archive_entry_symlink");
  *(void **)&carchiveshims_p_error_string = carchiveshims_find(library, "archive_error_string");
  *(void **)&carchiveshims_p_read_data = carchiveshims_find(library, "archive_read_data");
  *(void **)&carchiveshims_p_read_free = carchiveshims_find(library, "archive_read_free");
  *(void **)&carchiveshims_p_read_new = carchiveshims_find(library, "archive_read_new");
  *(void **)&carchiveshims_p_read_next_header = carchiveshims_find(library, "archive_read_next_header");
  *(void **)&carchiveshims_p_read_open_fd = carchiveshims_find(library, "archive_read_open_fd");
  *(void **)&carchiveshims_p_read_support_filter_none = carchiveshims_find(library, "archive_read_support_filter_none");
  *(void **)&carchiveshims_p_read_support_format_tar = carchiveshims_find(library, "archive_read_support_format_tar");
  *(void **)&carchiveshims_p_read_support_format_zip = carchiveshims_find(library, "archive_read_support_format_zip");
  *(void **)&carchiveshims_p_write_add_filter_none = carchiveshims_find(library, "archive_write_add_filter_none");
  *(void **)&carchiveshims_p_write_close = carchiveshims_find(library, "archive_write_close");
  *(void **)&carchiveshims_p_write_data = carchiveshims_find(library, "archive_write_data");
  *(void **)&carchiveshims_p_write_free = carchiveshims_find(library, "archive_write_free");
  *(void **)&carchiveshims_p_write_header = carchiveshims_find(library, "archive_write_header");
  *(void **)&carchiveshims_p_write_new = carchiveshims_find(library, "archive_write_new");
  *(void **)&carchiveshims_p_write_open_fd = carchiveshims_find(library, "archive_write_open_fd");
  *(void **)&carchiveshims_p_write_set_bytes_in_last_block = carchiveshims_find(library, "archive_write_set_bytes_in_last_block");
  *(void **)&carchiveshims_p_write_set_format_pax_restricted = carchiveshims_find(library, "archive_write_set_format_pax_restricted");
  carchiveshims_status = carchiveshims_error[0] == '\0' ? 0 : -1;
}

int carchiveshims_load(void) {
  pthread_once(&carchiveshims_once, carchiveshims_open);
  return carchiveshims_status;
}

const char *carchiveshims_load_error(void) { return carchiveshims_error; }

__LA_MODE_T carchiveshims_entry_filetype(struct archive_entry *a) { return carchiveshims_p_entry_filetype(a); }
void carchiveshims_entry_free(struct archive_entry *a) { carchiveshims_p_entry_free(a); }
const char *carchiveshims_entry_hardlink(struct archive_entry *a) { return carchiveshims_p_entry_hardlink(a); }
struct archive_entry *carchiveshims_entry_new(void) { return carchiveshims_p_entry_new(); }
const char *carchiveshims_entry_pathname(struct archive_entry *a) { return carchiveshims_p_entry_pathname(a); }
const char *carchiveshims_entry_pathname_utf8(struct archive_entry *a) { return carchiveshims_p_entry_pathname_utf8(a); }
void carchiveshims_entry_set_filetype(struct archive_entry *a, unsigned int b) { carchiveshims_p_entry_set_filetype(a, b); }
void carchiveshims_entry_set_gid(struct archive_entry *a, la_int64_t b) { carchiveshims_p_entry_set_gid(a, b); }
void carchiveshims_entry_set_mtime(struct archive_entry *a, time_t b, long c) { carchiveshims_p_entry_set_mtime(a, b, c); }
void carchiveshims_entry_set_pathname_utf8(struct archive_entry *a, const char *b) { carchiveshims_p_entry_set_pathname_utf8(a, b); }
void carchiveshims_entry_set_perm(struct archive_entry *a, __LA_MODE_T b) { carchiveshims_p_entry_set_perm(a, b); }
void carchiveshims_entry_set_size(struct archive_entry *a, la_int64_t b) { carchiveshims_p_entry_set_size(a, b); }
void carchiveshims_entry_set_uid(struct archive_entry *a, la_int64_t b) { carchiveshims_p_entry_set_uid(a, b); }
la_int64_t carchiveshims_entry_size(struct archive_entry *a) { return carchiveshims_p_entry_size(a); }
int carchiveshims_entry_size_is_set(struct archive_entry *a) { return carchiveshims_p_entry_size_is_set(a); }
const char *carchiveshims_entry_symlink(struct archive_entry *a) { return carchiveshims_p_entry_symlink(a); }
const char *carchiveshims_error_string(struct archive *a) { return carchiveshims_p_error_string(a); }
la_ssize_t carchiveshims_read_data(struct archive *a, void *b, size_t c) { return carchiveshims_p_read_data(a, b, c); }
int carchiveshims_read_free(struct archive *a) { return carchiveshims_p_read_free(a); }
struct archive *carchiveshims_read_new(void) { return carchiveshims_p_read_new(); }
int carchiveshims_read_next_header(struct archive *a, struct archive_entry **b) { return carchiveshims_p_read_next_header(a, b); }
int carchiveshims_read_open_fd(struct archive *a, int b, size_t c) { return carchiveshims_p_read_open_fd(a, b, c); }
int carchiveshims_read_support_filter_none(struct archive *a) { return carchiveshims_p_read_support_filter_none(a); }
int carchiveshims_read_support_format_tar(struct archive *a) { return carchiveshims_p_read_support_format_tar(a); }
int carchiveshims_read_support_format_zip(struct archive *a) { return carchiveshims_p_read_support_format_zip(a); }
int carchiveshims_write_add_filter_none(struct archive *a) { return carchiveshims_p_write_add_filter_none(a); }
int carchiveshims_write_close(struct archive *a) { return carchiveshims_p_write_close(a); }
la_ssize_t carchiveshims_write_data(struct archive *a, const void *b, size_t c) { return carchiveshims_p_write_data(a, b, c); }
int carchiveshims_write_free(struct archive *a) { return carchiveshims_p_write_free(a); }
int carchiveshims_write_header(struct archive *a, struct archive_entry *b) { return carchiveshims_p_write_header(a, b); }
struct archive *carchiveshims_write_new(void) { return carchiveshims_p_write_new(); }
int carchiveshims_write_open_fd(struct archive *a, int b) { return carchiveshims_p_write_open_fd(a, b); }
int carchiveshims_write_set_bytes_in_last_block(struct archive *a, int b) { return carchiveshims_p_write_set_bytes_in_last_block(a, b); }
int carchiveshims_write_set_format_pax_restricted(struct archive *a) { return carchiveshims_p_write_set_format_pax_restricted(a); }
