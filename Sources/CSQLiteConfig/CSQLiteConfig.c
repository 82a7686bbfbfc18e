#include <sqlite3.h>
#include "CSQLiteConfig.h"

int crated_sqlite3_disable_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
