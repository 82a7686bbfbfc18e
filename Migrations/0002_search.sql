-- Full-text search over the catalogue: titles, artist names, labels, catalogue numbers, track titles.
-- One row per album, rowid = album.id, rebuilt for an album whenever import or sync changes it.
-- unicode61 with remove_diacritics folds "Déjà Vu" and "deja vu" together; prefix indexes make
-- search-as-you-type prefix queries ("coltr*") index lookups.
CREATE VIRTUAL TABLE album_search USING fts5(
    title,
    artists,
    labels,
    catalog_numbers,
    tracks,
    tokenize = 'unicode61 remove_diacritics 2',
    prefix = '1 2 3'
);
