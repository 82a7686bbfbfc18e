-- A track Discogs lists as `0:00` has no known length: the player has always treated it so, while
-- the album page showed 0:00 and summed it into its side. Sync now stores such a length as NULL;
-- this clears those stored before.
UPDATE track SET duration_ms = NULL WHERE duration_ms = 0;
