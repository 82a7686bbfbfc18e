#ifndef CSQLITECONFIG_H
#define CSQLITECONFIG_H

/// Turns off SQLite's memory statistics for the whole process (SQLITE_CONFIG_MEMSTATUS). Effective only
/// before SQLite is initialized, that is before the process opens its first connection; returns the
/// SQLite result code (SQLITE_MISUSE once SQLite is initialized). A function of its own because
/// sqlite3_config is variadic, which Swift cannot call.
int crated_sqlite3_disable_memory_statistics(void);

#endif
