-- A copy's fields (rating, conditions, notes, custom fields) as Discogs last gave them through an
-- import or a collection sync, kept only once the user has changed some of them in crated: a later
-- import or sync then takes Discogs' value only for the fields the user left as Discogs gave them,
-- so an edit made in the app is not undone. JSON; NULL while the copy's own fields are Discogs'.
ALTER TABLE collection_item ADD COLUMN discogs_fields TEXT;
