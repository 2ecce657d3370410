#include <archive.h>
#include <archive_entry.h>

// The file-type constants are cast macros, which do not import into Swift.
static inline unsigned int clibarchive_type_mask(void) { return AE_IFMT; }
static inline unsigned int clibarchive_type_regular(void) { return AE_IFREG; }
static inline unsigned int clibarchive_type_directory(void) { return AE_IFDIR; }
