-- Formats an import stored under the export's abbreviations take the API's names, as the import now
-- writes them (`DiscogsText.apiFormatName`): `LP` and sizes (`12"`) become the first description of
-- `Vinyl`, an All Media format's first description (`Album`, `RE`) stops being its name, and `Cass`
-- and `Box` are `Cassette` and `Box Set`. Formats from sync have the API's names already and are left
-- as they are. The format filter's answers change, so listings computed before are stale.
UPDATE album_format
SET name = crated_format_name(name), descriptions = crated_format_descriptions(name, descriptions)
WHERE name IS NOT crated_format_name(name);
UPDATE listing_generation SET value = value + 1;
