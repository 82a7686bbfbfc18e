#!/usr/bin/env python3
"""Gives every album of a crated database sides A and B (tracks A1, A2, B1; B1 credited to artists
of its own, as a compilation's track is) and credits (a producer crated knows as an artist, a
remixer on B1), for runs against a live daemon without a Discogs sync, where tracklists and credits
come from: without tracks every play is a 422.

Usage: add-tracklists.py DATABASE [--track-ms N] [--first-track-ms N]
"""
import argparse
import sqlite3

parser = argparse.ArgumentParser()
parser.add_argument("database")
parser.add_argument("--track-ms", type=int, default=240000, help="each track's length")
parser.add_argument("--first-track-ms", type=int, help="A1's length, when it should differ")
args = parser.parse_args()
first = args.first_track_ms if args.first_track_ms is not None else args.track_ms

db = sqlite3.connect(args.database)
# The guest's artist row, as sync keeps a track's own artists (Migrations/0027_track_artist_rows.sql).
db.execute("INSERT OR IGNORE INTO artist (name, discogs_name, sort_name) VALUES ('A Guest', 'A Guest', 'a guest')")
(guest,) = db.execute("SELECT id FROM artist WHERE discogs_name = 'A Guest' AND discogs_id IS NULL").fetchone()
# The producer is an artist row too, as if an album of theirs had synced: the credit links to it
# (Migrations/0030_album_credits.sql).
db.execute("INSERT OR IGNORE INTO artist (name, discogs_name, discogs_id, sort_name) VALUES ('A Producer', 'A Producer', 9001, 'a producer')")
for (album_id,) in db.execute("SELECT id FROM album").fetchall():
    db.executemany(
        "INSERT INTO track (album_id, position, side, sort_order, title, duration_ms, kind, artist_credit) "
        "VALUES (?, ?, ?, ?, ?, ?, 'track', ?)",
        [(album_id, "A1", "A", 0, "One", first, None), (album_id, "A2", "A", 1, "Two", args.track_ms, None),
         (album_id, "B1", "B", 2, "Three", args.track_ms, "A Guest")])
    db.execute("INSERT INTO track_artist (track_id, position, artist_id, join_phrase) "
               "SELECT id, 0, ?, '' FROM track WHERE album_id = ? AND position = 'B1'", (guest, album_id))
    db.execute("INSERT INTO album_credit (album_id, position, name, discogs_name, discogs_id, role) "
               "VALUES (?, 0, 'A Producer', 'A Producer', 9001, 'Producer')", (album_id,))
    db.execute("INSERT INTO album_credit (album_id, position, track_id, name, discogs_name, role) "
               "SELECT album_id, 1, id, 'A Remixer', 'A Remixer', 'Remix' FROM track WHERE album_id = ? AND position = 'B1'", (album_id,))
db.commit()
