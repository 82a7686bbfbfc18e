#!/usr/bin/env python3
"""Generate a synthetic Discogs collection-export CSV for import benchmarks and tests.

Usage:
    python3 Tests/Benchmarks/gen-discogs-csv.py --rows N [--seed S] [--out FILE]

The output is shaped as real "Export collection" files from discogs.com are (collectors'
exports published on GitHub, which the tests also read): the default header plus one custom field
(`Collection Purchased At`), RFC 4180 quoting with LF line ends, UTF-8 without BOM,
whole artist credits with join strings and `(2)` suffixes, `Various`, several labels
and catalogue numbers joined by ", ", `none` catalogue numbers, `0` years, Goldmine
grades, multi-line notes, several copies of one release (same release_id, another
Date Added) and identical rows.

The same --rows and --seed always give byte-identical output. Rows are written one at
a time; memory does not grow with --rows beyond the artist and label pools
(about rows/8 and rows/25 short strings) and a small ring of recent releases.
Standard library only.
"""

from __future__ import annotations

import argparse
import collections
import csv
import datetime
import io
import os
import random
import sys

HEADER = [
    "Catalog#", "Artist", "Title", "Label", "Format", "Rating", "Released", "release_id",
    "CollectionFolder", "Date Added", "Collection Media Condition",
    "Collection Sleeve Condition", "Collection Notes", "Collection Purchased At",
]

# --- name material ---------------------------------------------------------------------

SYLLABLES = [
    "ka", "lo", "ven", "mar", "ti", "sa", "ro", "del", "an", "bel", "cor", "da", "fi", "gan",
    "har", "is", "jo", "kel", "li", "mo", "nor", "pe", "quin", "ra", "sol", "tor", "ul", "va",
    "wen", "ya", "zu", "ber", "cla", "dri", "ess", "fal", "gor", "hin", "ju", "lam", "mei",
    "nes", "ost", "pra", "rin", "ste", "tam", "ver", "wil", "xan",
]
UNICODE_SYLLABLES = [
    "bé", "lé", "ré", "nø", "bjø", "sø", "mü", "grü", "kü", "ñal", "ño", "ça", "ç", "ár",
    "ís", "ôn", "æ", "å", "ö", "ss",
]
KANA = [
    "カ", "キ", "ク", "ケ", "コ", "サ", "シ", "ス", "タ", "ト", "ナ", "ニ", "ミ", "マ", "ヤ",
    "ユ", "リ", "ル", "レ", "ロ", "ン", "あ", "い", "う", "か", "さ", "な", "は", "ま", "や",
    "ゆ", "ら", "り", "る", "ん",
]
BAND_WORDS = [
    "Sound", "System", "Orchestra", "Collective", "Dub", "Riddim", "Echoes", "Brothers",
    "Sisters", "Machines", "Wolves", "Horns", "Roots", "Radio", "Tapes", "Ghosts", "Kings",
    "Rockers", "Lions", "Satellites", "Strangers", "Aces", "Wailers", "Pilots", "Drifters",
    "Hi-Fi", "Quartet", "Trio", "Band", "Express", "Ensemble", "Crew",
]
ELEMENT_WORDS = [
    "Earth", "Wind", "Fire", "Sun", "Rain", "Smoke", "Salt", "Iron", "Stone", "Water",
    "Thunder", "Ash", "Dust", "Gold", "Silver", "Glass",
]
FIXED_ARTISTS = [
    "Augustus Pablo", "Chœur Des Moines", "Björk", "Sigur Rós", "Motörhead", "Mötley Crüe",
    "Beyoncé", "Jóhann Jóhannsson", "Måneskin", "Røyksopp", "Los Niños Del Barrio",
    "Café Tacvba", "Hüsker Dü", "坂本龍一", "細野晴臣", "山下達郎", "たま", "シュガー・ベイブ",
    "Александр Вертинский", "Ελένη Καραΐνδρου", "Sonic Boom (2)", "Casey (2)",
    "Crosby, Stills & Co", "Peters, Paul & Marie", "Earth, Wind & Fire Tribute Band",
    "Blood, Sweat & Dub", "The The", "!!!", "D'Angelo", "N.W.O.", "Mr. Scruff",
]

TITLE_WORDS = [
    "Love", "Night", "Dub", "Version", "Sessions", "Dreams", "City", "Light", "Fire", "Rain",
    "Heart", "Roots", "Culture", "Blue", "Midnight", "Summer", "Winter", "Echo", "Chamber",
    "Stone", "River", "Mountain", "Babylon", "Zion", "Rockers", "Jazz", "Soul", "Electric",
    "Lady", "Days", "Salad", "Teen", "Dream", "Wave", "Nostalgia", "Machine", "Ghost",
    "Sound", "Clash", "Power", "Mission", "Underwater", "Cities", "Golden", "Hour", "Time",
    "Return", "Of", "The", "In", "And", "To", "From", "Without", "Me", "You", "All",
    "Ça", "Plane", "Pour", "Moi", "Été", "Noël", "Fröhliche", "Grüße", "Søndag", "Mañana",
    "Corazón", "Niño", "Sci\u200b-\u200bFi", "夜", "東京", "シティ・ポップ", "さよなら",
]
TITLE_SUFFIXES = [
    ", Vol. {n}", " (Remastered)", ' (12" Version)', " EP", " E.P.", ", Part {n}",
    " / {t}", " (Live)", ' + 7"', " (Deluxe Edition)", ", Vol. {n} & {m}",
]

LABEL_WORDS = [
    "Records", "Music", "Recordings", "Sound", "Productions", "Label", "Disques", "Schallplatten",
    "Tapes", "Audio", "Editions", "Ltd.", "Entertainment", "Discos",
]
FIXED_LABELS = [
    ("17 North Parade", "VP"), ("Ariwa", "ARILP "), ("CBS", "CBS "), ("Anti-", "8729"),
    ("4AD", "CAD"), ("Bella Union", "BELLAV"), ("Captured Tracks", "CT-"),
    ("Akashic Records (23)", "AR-"), ("Because Music", "BEC"), ("Warp Records", "WARPLP"),
    ("Blue Note", "BST "), ("Trojan Records", "TRLS "), ("Studio One", "SOL "),
    ("Not On Label", ""), ("Alfa", "ALR-"), ("Disques Vogue", "LD "), ("Ōkina Oto", "OKN-"),
]

FORMATS = [
    ("LP, Album", 30), ("LP, Album, RE", 10), ("2xLP, Album, RE", 6), ("2xLP, Album", 6),
    ('12"', 6), ('12", 33 ⅓ RPM', 4), ('12", EP', 4), ('12", Single', 3), ('7", Single', 8),
    ('7", 45 RPM, Single', 3), ('7", RE', 2), ("LP, Album + CD", 3), ("Cass, Album", 3),
    ("LP, Comp", 3), ("2xLP, Comp", 2), ("LP, Album, Ltd, RE, RM", 2), ("LP, Album, Gat", 3),
    ("CD, Album", 4), ("LP, Album, RE, 180", 2), ('10", EP', 1), ("LP", 2),
    ("2xLP, Album, RP + CD, Album, RP + RE, Gat", 1), ("LP, S/Sided, Etch", 1),
    ('3x12", Album, Ltd', 1), ("Box, Comp + 4xLP, Comp", 1),
]

FOLDERS = [
    ("Uncategorized", 60), ("Jazz", 6), ("Dub & Reggae", 6), ("Sell, maybe", 3), ("Soul", 4),
    ("Electronic", 5), ("Rock", 5), ("Japanese", 2), ("7\" singles", 3), ("Wishlist-ish", 1),
    ("Kids' records", 1), ("Ökologie / Field Recordings", 1),
]

MEDIA_GRADES = [
    ("", 45), ("Mint (M)", 8), ("Near Mint (NM or M-)", 20), ("Very Good Plus (VG+)", 14),
    ("Very Good (VG)", 7), ("Good Plus (G+)", 3), ("Good (G)", 1), ("Fair (F)", 1),
    ("Poor (P)", 1),
]
SLEEVE_GRADES = [
    ("", 50), ("Mint (M)", 6), ("Near Mint (NM or M-)", 14), ("Very Good Plus (VG+)", 12),
    ("Very Good (VG)", 7), ("Good Plus (G+)", 3), ("Good (G)", 1), ("Fair (F)", 1),
    ("Poor (P)", 1), ("Generic", 4), ("No Cover", 1),
]

NOTES_PLAIN = [
    "Signed by the artist", "Bought at the record fair", "Gift from Mum", "Small seam split",
    "Hype sticker", "Test pressing", "Promo stamp on back", "Ring wear", "Skips on B2",
    "Numbered 123/500", "Japanese pressing with obi", "Côté B légèrement rayé",
]
NOTES_COMMA = [
    "Bought in Berlin, 2019", "Obi, insert, poster", "Clean, plays fine, sleeve worn",
    "Light scuffs, no skips", "Red vinyl, numbered, hype sticker",
]
NOTES_QUOTE = [
    'Sticker says "Limited Edition"', 'Has the "12"" mix on side B', '"Promo" stamp, top right',
    'Seller wrote "NM", it is VG at best', 'Hand-written "DJ copy"',
]
NOTES_MULTI = [
    "Side A: NM\nSide B: VG+",
    "Bought at Amoeba, Berkeley.\nSleeve has a small tear, \"repaired\" with tape.",
    "Tracklist differs from Discogs:\nA1 is a dub version\nB2 missing",
    "Line one\r\nline two (CRLF inside the field)",
]
SHOPS = [
    "Amoeba", "Rough Trade", "Rough Trade, London", "Discogs", "Green Apple Books",
    "Record fair", "Dusty Groove", "HMV Shibuya", "Disk Union, Shinjuku", "Flohmarkt",
    "eBay", 'Shop "Vinyl Heaven"', "Honest Jon's",
]

ARTIST_JOINS = [(" & ", 40), (", ", 25), (" Feat. ", 20), (" vs ", 8), (" / ", 7)]


def weighted(pairs):
    values = [v for v, _ in pairs]
    cum, total = [], 0
    for _, w in pairs:
        total += w
        cum.append(total)
    return values, cum


class Generator:
    def __init__(self, rows: int, seed: int) -> None:
        self.rows = rows
        self.rng = random.Random(seed)
        self.formats = weighted(FORMATS)
        self.folders = weighted(FOLDERS)
        self.media = weighted(MEDIA_GRADES)
        self.sleeve = weighted(SLEEVE_GRADES)
        self.joins = weighted(ARTIST_JOINS)
        self.artists = self._artist_pool(max(50, rows // 8))
        self.labels = self._label_pool(max(30, rows // 25))
        # Recent releases that may be copied (several copies of one release).
        self.recent: collections.deque = collections.deque(maxlen=2000)
        # Date Added: starts 2010-01-01, rises by a random step per row so that the
        # expected last date is about 2024-12-31 (at least 1 s per row on average).
        self.t0 = datetime.datetime(2010, 1, 1, 9, 0, 0)
        span = (datetime.datetime(2024, 12, 31) - self.t0).total_seconds()
        self.mean_step = max(1.0, span / max(1, rows))
        self.t = 0
        # release_id: a fixed permutation of 1..M keeps ids unique without a set.
        self.id_mod = 39_999_983  # prime
        self.id_mul = 7_368_787
        self.id_off = 1_234_567 + (seed % 1000) * 3_001

    # -- helpers ----------------------------------------------------------------------

    def pick(self, table):
        values, cum = table
        return values[self._bisect(cum, self.rng.random() * cum[-1])]

    @staticmethod
    def _bisect(cum, x):
        lo, hi = 0, len(cum)
        while lo < hi:
            mid = (lo + hi) // 2
            if cum[mid] <= x:
                lo = mid + 1
            else:
                hi = mid
        return lo

    def skewed(self, seq):
        """Pick with a bias to the front: a few artists/labels are much more common."""
        return seq[int(len(seq) * self.rng.random() ** 2)]

    def word(self, lo=2, hi=3, unicode_p=0.0):
        rng = self.rng
        parts = []
        for _ in range(rng.randint(lo, hi)):
            if unicode_p and rng.random() < unicode_p:
                parts.append(rng.choice(UNICODE_SYLLABLES))
            else:
                parts.append(rng.choice(SYLLABLES))
        return "".join(parts).capitalize()

    # -- pools ------------------------------------------------------------------------

    def _artist_name(self):
        rng = self.rng
        r = rng.random()
        if r < 0.30:
            name = f"{self.word()} {self.word(2, 4)}"
        elif r < 0.42:
            name = f"The {self.word()} {rng.choice(BAND_WORDS)}"
        elif r < 0.50:
            name = f"The {self.word(2, 3)}s"
        elif r < 0.58:
            name = self.word(2, 4)
        elif r < 0.70:
            name = f"{self.word(1, 3, 0.5)} {self.word(2, 3, 0.5)}"
        elif r < 0.76:
            name = "".join(rng.choice(KANA) for _ in range(rng.randint(2, 5)))
        elif r < 0.80:
            a, b, c = rng.sample(ELEMENT_WORDS, 3)
            name = f"{a}, {b} & {c}"
        elif r < 0.83:
            name = f"{self.word()}, {self.word()} & {rng.choice(['Co', self.word(), 'Friends'])}"
        elif r < 0.88:
            name = f"{rng.choice(['DJ', 'MC', 'Lord', 'King', 'Dr.'])} {self.word()}"
        elif r < 0.93:
            name = f"{self.word()} {rng.choice(BAND_WORDS)}"
        else:
            name = f"{self.word(1, 2)} {self.word(1, 2)} {self.word(2, 3)}"
        if rng.random() < 0.12:
            name = f"{name} ({rng.randint(2, 40)})"
        return name

    def _artist_pool(self, n):
        pool = list(FIXED_ARTISTS)
        while len(pool) < n:
            pool.append(self._artist_name())
        self.rng.shuffle(pool)
        return pool

    def _label_pool(self, n):
        rng = self.rng
        pool = list(FIXED_LABELS)
        while len(pool) < n:
            name = f"{self.word(1, 3, 0.1)} {rng.choice(LABEL_WORDS)}"
            if rng.random() < 0.07:
                name = f"{name} ({rng.randint(2, 30)})"
            prefix = "".join(c for c in name.upper() if c.isascii() and c.isalpha())[:rng.randint(2, 4)]
            prefix += rng.choice(["", "", "-", " ", "LP"])
            pool.append((name, prefix))
        rng.shuffle(pool)
        return pool

    # -- fields -----------------------------------------------------------------------

    def artist_credit(self):
        rng = self.rng
        r = rng.random()
        if r < 0.07:
            return "Various"
        first = self.skewed(self.artists)
        if r < 0.85:
            return first
        second = self.skewed(self.artists)
        if rng.random() < 0.15:
            third = self.skewed(self.artists)
            return f"{first}, {second} & {third}"
        return f"{first}{self.pick(self.joins)}{second}"

    def title(self):
        rng = self.rng
        r = rng.random()
        if r < 0.05:
            t = '"' + " ".join(rng.choice(TITLE_WORDS) for _ in range(rng.randint(1, 2))) + '"'
        else:
            t = " ".join(rng.choice(TITLE_WORDS) for _ in range(rng.randint(1, 5)))
        if r > 0.98:  # long comma-laden titles ("The Worse Things Get, The Harder I Fight, ...")
            t = "The " + t + ", The " + rng.choice(TITLE_WORDS) + ", The Harder " + rng.choice(TITLE_WORDS)
        if rng.random() < 0.22:
            t += rng.choice(TITLE_SUFFIXES).format(
                n=rng.randint(1, 9), m=rng.randint(10, 12),
                t=" ".join(rng.choice(TITLE_WORDS) for _ in range(rng.randint(1, 3))))
        x = rng.random()
        if x < 0.02:
            t += " "
        elif x < 0.025:
            t = " " + t
        return t

    def catalog_number(self, prefix):
        rng = self.rng
        r = rng.random()
        if r < 0.06:
            return "none"
        num = rng.randint(1, 99999)
        if r < 0.15:
            return f"{num}-{rng.randint(1, 2)}"
        if r < 0.20:
            return f"{prefix}{num:03d}".lower()
        return f"{prefix}{num:03d}"

    def labels_and_catalogs(self):
        rng = self.rng
        first = self.skewed(self.labels)
        entries = [first]
        if rng.random() < 0.14:
            # Second label: often the same one again (as Discogs writes "CBS, CBS").
            entries.append(first if rng.random() < 0.4 else self.skewed(self.labels))
        labels = ", ".join(name for name, _ in entries)
        cats = [self.catalog_number(prefix) for _, prefix in entries]
        if len(cats) == 2 and cats[0] != "none" and rng.random() < 0.5:
            cats[1] = cats[0].split(" ")[-1]  # "CBS 86005, 86005"
        if rng.random() < 0.01:
            labels += " "  # values may carry trailing spaces
        return ", ".join(cats), labels

    def rating(self):
        r = self.rng.random()
        return "" if r < 0.7 else str(self.rng.randint(1, 5))

    def released(self):
        rng = self.rng
        if rng.random() < 0.05:
            return "0"
        # Bias toward 1965..2024 with a tail back to 1950.
        return str(max(1950, min(2024, int(2024 - abs(rng.gauss(0, 22))))))

    def next_date(self):
        rng = self.rng
        if rng.random() < 0.15:
            step = 0  # several records added in the same second (batch adds)
        else:
            step = int(rng.random() * 2.35 * self.mean_step) + 1
        self.t += step
        return self.t

    def fmt_date(self, t):
        return (self.t0 + datetime.timedelta(seconds=t)).strftime("%Y-%m-%d %H:%M:%S")

    def notes(self):
        rng = self.rng
        r = rng.random()
        if r < 0.85:
            return ""
        if r < 0.91:
            return rng.choice(NOTES_PLAIN)
        if r < 0.95:
            return rng.choice(NOTES_COMMA)
        if r < 0.99:
            return rng.choice(NOTES_QUOTE)
        return rng.choice(NOTES_MULTI)

    def purchased_at(self):
        return "" if self.rng.random() < 0.75 else self.rng.choice(SHOPS)

    def release_id(self, i):
        return (i * self.id_mul + self.id_off) % self.id_mod + 1

    # -- rows -------------------------------------------------------------------------

    def rows_iter(self):
        rng = self.rng
        prev = None
        for i in range(self.rows):
            if prev is not None and rng.random() < 0.005:
                yield prev  # identical row: another copy, told apart by order
                continue
            t = self.next_date()
            if self.recent and rng.random() < 0.03:
                release, t_orig = self.recent[rng.randrange(len(self.recent))]
                if t == t_orig:
                    t = self.t = self.t + 1  # a copy has its own Date Added
            else:
                cat, label = self.labels_and_catalogs()
                release = (
                    cat, self.artist_credit(), self.title(), label, self.pick(self.formats),
                    self.rating(), self.released(), str(self.release_id(i)),
                )
                self.recent.append((release, t))
            row = list(release)
            row += [
                self.pick(self.folders), self.fmt_date(t), self.pick(self.media),
                self.pick(self.sleeve), self.notes(), self.purchased_at(),
            ]
            prev = row
            yield row


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="Generate a synthetic Discogs collection export CSV.")
    ap.add_argument("--rows", type=int, required=True, help="number of data rows (after the header)")
    ap.add_argument("--seed", type=int, default=1, help="random seed (default 1); same seed, same bytes")
    ap.add_argument("--out", metavar="FILE", help="output file (default: stdout)")
    args = ap.parse_args(argv)
    if args.rows < 0:
        ap.error("--rows must be >= 0")

    if args.out:
        out = open(args.out, "w", encoding="utf-8", newline="")
    else:
        out = io.TextIOWrapper(sys.stdout.buffer, encoding="utf-8", newline="")
    try:
        writer = csv.writer(out, lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
        writer.writerow(HEADER)
        for row in Generator(args.rows, args.seed).rows_iter():
            writer.writerow(row)
        out.flush()
    except BrokenPipeError:
        # e.g. `... | head`: stop quietly; point stdout at /dev/null so the final
        # flush at exit does not raise again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    finally:
        if args.out:
            out.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
