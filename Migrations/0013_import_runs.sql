-- One row per import that committed (issue 18). `crated import` runs in a process of its own, so the
-- daemon learns what was imported from this table: GET /metrics reads the rows' total when scraped
-- (crated_import_rows_total). A dry run or a refused file rolls back and leaves no row.
CREATE TABLE import_run (
    id           INTEGER PRIMARY KEY,
    -- Kept when the user goes, so that the total never shrinks.
    user_id      INTEGER REFERENCES user(id) ON DELETE SET NULL,
    -- The export's file name, without its directory.
    file_name    TEXT NOT NULL,
    rows_read    INTEGER NOT NULL CHECK (rows_read >= 0),
    imported_at  TEXT NOT NULL
);
