-- Full-text search over the catalogue: titles, artist names, labels, catalogue numbers, track titles.
-- One row per album, rowid = album.id, rebuilt for an album whenever import or sync changes it.
-- unicode61 with remove_diacritics folds "Déjà Vu" and "deja vu" together. Prefix indexes for two
-- and three characters make the first keystrokes of search-as-you-type ("co*", "col*") index
-- lookups; longer prefixes are term-range scans, fast without one. (A one-character index would
-- cost a quarter of the import's indexing time for queries nobody waits on.)
CREATE VIRTUAL TABLE album_search USING fts5(
    title,
    artists,
    labels,
    catalog_numbers,
    tracks,
    tokenize = 'unicode61 remove_diacritics 2',
    prefix = '2 3'
);
