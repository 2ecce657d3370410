#!/usr/bin/env python3
"""Writes the import fixtures: exports in the shapes Letterboxd, Goodreads, IMDb and StoryGraph
give their users, and broken files named by their defect. See Fixtures/README.md.

    make-imports.py                          # rewrites everything beside this script
    make-imports.py --letterboxd-bench N DIR # a Letterboxd export folder of N reviews, for a benchmark

Standard library only, deterministic: no clock, no randomness but a seeded generator of its own,
and the ZIP's entries carry fixed times and permissions.
"""

import io
import os
import sys
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
BOM = b"\xef\xbb\xbf"


def field(text):
    """A CSV field as the services write one: quoted when it holds a comma, a quote, a line
    break or spaces at either end, its quotes doubled."""
    if any(c in text for c in ',"\r\n') or text != text.strip(" "):
        return '"' + text.replace('"', '""') + '"'
    return text


def csv_bytes(header, rows, newline="\n", bom=False):
    """The bytes of a CSV file: the header, then each row (a list of as many strings)."""
    lines = []
    for row in [header] + rows:
        assert len(row) == len(header), row
        lines.append(",".join(field(value) for value in row) + newline)
    return (BOM if bom else b"") + "".join(lines).encode("utf-8")


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as file:
        file.write(data)


# MARK: Letterboxd

LETTERBOXD_REVIEWS = ["Date", "Name", "Year", "Letterboxd URI", "Rating", "Rewatch", "Review", "Tags", "Watched Date"]
LETTERBOXD_DIARY = ["Date", "Name", "Year", "Letterboxd URI", "Rating", "Rewatch", "Tags", "Watched Date"]
LETTERBOXD_RATINGS = ["Date", "Name", "Year", "Letterboxd URI", "Rating"]
LETTERBOXD_WATCHED = ["Date", "Name", "Year", "Letterboxd URI"]
LETTERBOXD_PROFILE = [
    "Date Joined", "Username", "Given Name", "Family Name", "Email Address", "Location", "Website", "Bio",
    "Pronoun", "Favorite Films",
]

# Films: name, year, the film's short link (ratings, watched), in the order first watched.
FILMS = {
    "amelie": ("Amélie", "2001", "https://boxd.it/fm01"),
    "spirited": ("千と千尋の神隠し", "2001", "https://boxd.it/fm02"),
    "ca": ("Ça", "2017", "https://boxd.it/fm03"),
    "paddington": ("Paddington 2", "2017", "https://boxd.it/fm04"),
    "thing": ("The Thing", "1982", "https://boxd.it/fm05"),
    "cats": ("Cats", "2019", "https://boxd.it/fm06"),
    "furyroad": ("Mad Max: Fury Road", "2015", "https://boxd.it/fm07"),
    "heat": ("Heat", "1995", "https://boxd.it/fm08"),
    "stalker": ("Stalker", "1979", "https://boxd.it/fm09"),
}

# Diary entries with reviews: film, logged, the entry's link, rating, rewatch, review, tags, watched.
LETTERBOXD_ENTRIES = [
    ("paddington", "2018-01-20", "https://boxd.it/abc4", "5", "", "Marmalade diplomacy.", "", "2018-01-19"),
    (
        "amelie", "2023-02-14", "https://boxd.it/abc1", "4.5", "",
        "Paris as a music box, wound up and left to play. Audrey Tautou's \"Amélie\" is <i>all</i> small "
        "pleasures:\ncracking crème brûlée, skipping stones, the Canal Saint-Martin.\n\nIt's twee, and I don't care.",
        "paris, valentine", "2023-02-14",
    ),
    (
        "spirited", "2023-03-05", "https://boxd.it/abc2", "5", "",
        "Seen in Japanese with subtitles.<br /><br />No-Face at the <b>bathhouse</b> feast is the scariest & saddest "
        "thing Miyazaki drew. 5/5, \"no notes\".",
        "", "2023-03-04",
    ),
    (
        "ca", "2023-10-31", "https://boxd.it/abc3", "3", "",
        "The French title on my ticket: \"Ça\". Pennywise works; the kids work better, *especially* Beverly.",
        "horror", "2023-10-30",
    ),
    (
        "paddington", "2023-12-24", "https://boxd.it/abc5", "5", "Yes",
        "Still perfect on a rewatch.\nHugh Grant, \"the\" villain of the decade.", "christmas, rewatch",
        "2023-12-24",
    ),
    (
        "thing", "2024-01-06", "https://boxd.it/abc6", "", "",
        "<b>Trust no one.</b> Not even the dog.\n\nThe blood test scene, though:<br />pure tension.", "",
        "2024-01-05",
    ),
    ("cats", "2024-02-02", "https://boxd.it/abc7", "0.5", "", "No.", "", "2024-02-01"),
    ("furyroad", "2024-03-10", "https://boxd.it/abc8", "4.5", "", "What a lovely day!", "", "2024-03-09"),
]

# Rated, never logged nor reviewed; and watched, never rated.
LETTERBOXD_ONLY_RATED = [("heat", "2024-03-01", "4")]
LETTERBOXD_ONLY_WATCHED = [("stalker", "2024-03-02")]


def letterboxd_files():
    """Each file of the export, by its path in the ZIP."""
    reviews, diary = [], []
    for film, logged, uri, rating, rewatch, review, tags, watched in LETTERBOXD_ENTRIES:
        name, year, _ = FILMS[film]
        reviews.append([logged, name, year, uri, rating, rewatch, review, tags, watched])
        diary.append([logged, name, year, uri, rating, rewatch, tags, watched])
    # ratings.csv and watched.csv: each film once, with its latest rating, in the order first seen.
    ratings, watched, seen = [], [], {}
    for film, logged, _, rating, *_ in LETTERBOXD_ENTRIES:
        seen[film] = (seen.get(film, (logged,))[0], rating)
    for film, (first, rating) in seen.items():
        name, year, link = FILMS[film]
        watched.append([first, name, year, link])
        if rating:
            ratings.append([first, name, year, link, rating])
    for film, date, rating in LETTERBOXD_ONLY_RATED:
        name, year, link = FILMS[film]
        ratings.append([date, name, year, link, rating])
    for film, date in LETTERBOXD_ONLY_WATCHED:
        name, year, link = FILMS[film]
        watched.append([date, name, year, link])
    profile = [[
        "2017-06-01", "marmalade", "Ada", "Example", "ada@example.com", "Lyon", "", "Films, mostly; \"no notes\".",
        "", "Amélie, Paddington 2",
    ]]
    return {
        # Letterboxd writes LF without a BOM; diary.csv is CRLF and ratings.csv has a BOM here,
        # so that both are read.
        "reviews.csv": csv_bytes(LETTERBOXD_REVIEWS, reviews),
        "diary.csv": csv_bytes(LETTERBOXD_DIARY, diary, newline="\r\n"),
        "ratings.csv": csv_bytes(LETTERBOXD_RATINGS, ratings, bom=True),
        "watched.csv": csv_bytes(LETTERBOXD_WATCHED, watched),
        "watchlist.csv": csv_bytes(LETTERBOXD_WATCHED, [["2024-02-20", "Seven Samurai", "1954", "https://boxd.it/fm10"]]),
        "profile.csv": csv_bytes(LETTERBOXD_PROFILE, profile),
        "likes/films.csv": csv_bytes(LETTERBOXD_WATCHED, [["2023-02-14", "Amélie", "2001", "https://boxd.it/fm01"]]),
    }


def zip_bytes(files):
    """A ZIP of `files` that is the same bytes on every run: entries in name order, fixed times
    and permissions, deflated (with the same zlib, the same bytes)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name in sorted(files):
            info = zipfile.ZipInfo(name, date_time=(2024, 3, 10, 12, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.create_system = 3
            info.external_attr = 0o100644 << 16
            archive.writestr(info, files[name], compresslevel=9)
    return buffer.getvalue()


def write_letterboxd(folder):
    files = letterboxd_files()
    for name, data in files.items():
        write(os.path.join(folder, name), data)
    return files


# MARK: Goodreads

GOODREADS = [
    "Book Id", "Title", "Author", "Author l-f", "Additional Authors", "ISBN", "ISBN13", "My Rating",
    "Average Rating", "Publisher", "Binding", "Number of Pages", "Year Published", "Original Publication Year",
    "Date Read", "Date Added", "Bookshelves", "Bookshelves with positions", "Exclusive Shelf", "My Review",
    "Spoiler", "Private Notes", "Read Count", "Owned Copies",
]


def goodreads_row(book_id, title, author, author_lf, additional, isbn, isbn13, rating, average, publisher, binding,
                  pages, year, original_year, read, added, shelves, positions, exclusive, review, spoiler, notes,
                  read_count, owned):
    # Goodreads writes ISBNs as spreadsheet formulas, so that their leading zeros survive.
    return [book_id, title, author, author_lf, additional, f'="{isbn}"', f'="{isbn13}"', rating, average,
            publisher, binding, pages, year, original_year, read, added, shelves, positions, exclusive, review,
            spoiler, notes, read_count, owned]


def goodreads_rows():
    return [
        goodreads_row(
            "234225", "Dune (Dune, #1)", "Frank Herbert", "Herbert, Frank", "", "0441013597", "9780441013593", "5",
            "4.27", "Ace Books", "Mass Market Paperback", "896", "1990", "1965", "2023/01/15", "2022/12/01",
            "favorites, sci-fi", "favorites (#3), sci-fi (#12)", "read",
            "The spice must flow.<br/><br/>Herbert writes ecology like a thriller: <i>\"Fear is the mind-killer,\"</i>"
            " and then, somehow, a chapter on water discipline.<br/>Dense, but worth it.",
            "false", "", "2", "1"),
        goodreads_row(
            "24280", "Les Misérables", "Victor Hugo", "Hugo, Victor", "Lee Fahnestock, Norman MacAfee", "0451419439",
            "9780451419439", "4", "4.20", "Signet Classics", "Paperback", "1463", "1987", "1862", "2022/08/30",
            "2022/01/10", "classics", "classics (#1)", "read",
            # A line break as the file's own: CRLF, inside the quoted field.
            "Long, and the Waterloo chapter is a detour.<br/><br/><spoiler>Javert's last walk to the bridge"
            "</spoiler> stayed with me for weeks.\r\nThe sewers &amp; the barricade: unforgettable.",
            "true", "Read the unabridged one.", "1", "1"),
        goodreads_row(
            "20518872", "三体", "刘慈欣", "刘, 慈欣", "Ken Liu", "", "", "4", "4.08", "重庆出版社", "Paperback", "302",
            "2008", "2006", "2021/05/02", "2021/04/01", "", "", "read",
            "Read it in Chinese. The VR game chapters, with &quot;Three-Body&quot; as a puzzle, are the best part "
            "&#8212; the rest I&#39;ll reread.",
            "false", "", "1", "0"),
        goodreads_row(
            "19089", "Middlemarch", "George Eliot", "Eliot, George", "", "0141439548", "9780141439549", "0", "3.99",
            "Penguin Classics", "Paperback", "880", "2003", "1871", "", "2024/01/05", "to-read", "to-read (#7)",
            "to-read", "", "", "", "0", "0"),
        goodreads_row(
            "50202953", "Piranesi", "Susanna Clarke", "Clarke, Susanna", "", "1635575630", "9781635575637", "5",
            "4.24", "Bloomsbury Publishing", "Hardcover", "272", "2020", "2020", "2023/07/01", "2023/06/20", "", "",
            "read", "", "", "", "1", "0"),
        goodreads_row(
            "4934", "The Brothers Karamazov", "Fyodor Dostoevsky", "Dostoevsky, Fyodor",
            "Richard Pevear, Larissa Volokhonsky", "0374528373", "9780374528379", "0", "4.37",
            "Farrar, Straus and Giroux", "Paperback", "796", "2002", "1880", "", "2024/02/11", "currently-reading",
            "currently-reading (#1)", "currently-reading", "", "", "", "0", "1"),
        goodreads_row(
            "18423", "The Left Hand of Darkness", "Ursula K. Le Guin", "Le Guin, Ursula K.", "", "0441478123",
            "9780441478125", "4", "4.09", "Ace", "Paperback", "304", "2000", "1969", "2023/11/20", "2023/11/01",
            "sci-fi", "sci-fi (#13)", "read",
            "See <a href=\"https://www.ursulakleguin.com/\">her site</a> for the essay &#8220;Is Gender Necessary?"
            "&#8221;<br/>Winter on Gethen, as cold as it sounds.&nbsp;<b>Bring a coat.</b>",
            "false", "", "1", "0"),
    ]


# MARK: IMDb

IMDB = [
    "Const", "Your Rating", "Date Rated", "Title", "Original Title", "URL", "Title Type", "IMDb Rating",
    "Runtime (mins)", "Year", "Genres", "Num Votes", "Release Date", "Directors",
]


def imdb_row(const, rating, rated, title, original, kind, average, runtime, year, genres, votes, released, directors):
    return [const, rating, rated, title, original, f"https://www.imdb.com/title/{const}/", kind, average, runtime,
            year, genres, votes, released, directors]


def imdb_rows():
    return [
        imdb_row("tt0111161", "10", "2023-01-02", "The Shawshank Redemption", "The Shawshank Redemption", "Movie",
                 "9.3", "142", "1994", "Drama", "2934652", "1994-09-23", "Frank Darabont"),
        imdb_row("tt0211915", "8", "2023-02-14", "Amélie", "Le fabuleux destin d'Amélie Poulain", "Movie", "8.3",
                 "122", "2001", "Comedy, Romance", "801229", "2001-04-25", "Jean-Pierre Jeunet"),
        imdb_row("tt0245429", "9", "2023-03-05", "Spirited Away", "千と千尋の神隠し", "Movie", "8.6", "125", "2001",
                 "Animation, Adventure, Family, Fantasy", "853011", "2001-07-20", "Hayao Miyazaki"),
        imdb_row("tt0903747", "9", "2023-05-01", "Breaking Bad", "Breaking Bad", "TV Series", "9.5", "45", "2008",
                 "Crime, Drama, Thriller", "2150323", "2008-01-20", ""),
        imdb_row("tt0185906", "10", "2023-06-10", "Band of Brothers", "Band of Brothers", "TV Mini Series", "9.4",
                 "594", "2001", "Action, Drama, History, War", "539001", "2001-09-09", ""),
        imdb_row("tt2301451", "10", "2023-06-20", "Breaking Bad: Ozymandias", "Ozymandias", "TV Episode", "10",
                 "47", "2013", "Crime, Drama, Thriller", "232781", "2013-09-15", "Rian Johnson"),
        imdb_row("tt2140553", "9", "2023-08-01", "The Last of Us", "The Last of Us", "Video Game", "9.7", "",
                 "2013", "Action, Adventure, Drama", "66012", "2013-06-14", "Neil Druckmann, Bruce Straley"),
        imdb_row("tt0091455", "7", "2023-09-09", "Luxo Jr.", "Luxo Jr.", "Short", "7.4", "2", "1986",
                 "Animation, Comedy, Family, Short", "30123", "1986-08-17", "John Lasseter"),
        imdb_row("tt9495224", "1", "2024-01-01", "Black Mirror: Bandersnatch", "Black Mirror: Bandersnatch",
                 "TV Movie", "7.1", "90", "2018", "Drama, Mystery, Sci-Fi, Thriller", "170145", "2018-12-28",
                 "David Slade"),
    ]


# MARK: StoryGraph

STORYGRAPH = [
    "Title", "Authors", "Contributors", "ISBN/UID", "Format", "Read Status", "Date Added", "Last Date Read",
    "Dates Read", "Read Count", "Moods", "Pace", "Character- or Plot-Driven?", "Strong Character Development?",
    "Loveable Characters?", "Diverse Characters?", "Flawed Characters?", "Star Rating", "Review",
    "Content Warnings", "Content Warning Description", "Tags", "Owned?",
]


def storygraph_rows():
    return [
        ["Piranesi", "Susanna Clarke", "", "9781635575637", "hardcover", "read", "2023/01/01", "2023/01/10",
         "2023/01/02-2023/01/10", "1", "mysterious, reflective", "medium", "Character", "Yes", "Yes", "No", "Yes",
         "4.25",
         "**The House** is beautiful and its tides are kind.\n\nA book about *being alone* that never feels lonely."
         " <br>Read it slowly.",
         "Graphic: Kidnapping; Moderate: Gaslighting", "", "fantasy, favourites", "Yes"],
        ["Dune", "Frank Herbert", "", "9780441013593", "paperback", "read", "2022/12/01", "2023/01/15",
         "2022/12/03-2023/01/15", "1", "adventurous, challenging", "slow", "Plot", "It's complicated", "No", "No",
         "Yes", "3.75",
         "# Arrakis\nToo long in the middle, but the desert_chapters are great. Rating: 3.75/5 [sand] > water.",
         "", "", "", "No"],
        ["The Three-Body Problem", "Cixin Liu", "Ken Liu (Translator)", "9780765382030", "digital", "read",
         "2022/02/20", "2023/11/15", "2022/03/01-2022/03/20, 2023/11/02-2023/11/15", "2", "challenging, mysterious",
         "medium", "Plot", "No", "No", "Yes", "Yes", "", "", "", "", "", "No"],
        ["Les Misérables", "Victor Hugo", "Isabel F. Hapgood (Translator)", "9780451419439", "paperback", "to-read",
         "2024/01/05", "", "", "0", "", "", "", "", "", "", "", "", "", "", "", "", "Yes"],
        ["Middlemarch", "George Eliot", "Juliet Stevenson (Narrator)", "B003NX7N16", "audio", "currently-reading",
         "2024/02/01", "", "", "0", "", "", "", "", "", "", "", "", "", "", "", "", "No"],
        ["Ulysses", "James Joyce", "", "9780679722762", "paperback", "did-not-finish", "2023/05/01", "2023/05/20",
         "2023/05/02-2023/05/20", "0", "challenging", "slow", "Character", "N/A", "N/A", "N/A", "N/A", "",
         "Gave up at chapter 4, \"Calypso\". <i>Maybe</i> next year.", "", "", "", "No"],
    ]


# MARK: Broken files

def hostile_files():
    header = LETTERBOXD_REVIEWS
    good = ["2024-01-01", "Amélie", "2001", "https://boxd.it/abc1", "4.5", "", "Lovely.", "", "2024-01-01"]
    later = ["2024-01-03", "Heat", "1995", "https://boxd.it/abc3", "4", "", "Long and good.", "", "2024-01-02"]
    head = ",".join(header) + "\n"
    line = lambda row: ",".join(field(value) for value in row) + "\n"
    return {
        # A review whose quote is never closed: the line after it is read again.
        "unterminated-quote.csv": (
            head + line(good) + '2024-01-02,Ça,2017,https://boxd.it/abc2,3,,"Never closed, the file ends,,2024-01-02\n'
            + line(later)).encode(),
        # A row of 5 fields where the header has 9.
        "short-row.csv": (head + line(good) + "2024-01-02,Ça,2017,https://boxd.it/abc2,3\n" + line(later)).encode(),
        # A quote in the middle of an unquoted review.
        "stray-quote.csv": (
            head + line(good) + '2024-01-02,Ça,2017,https://boxd.it/abc2,3,,He said "hi",,2024-01-02\n'
            + line(later)).encode(),
        # Text between a closing quote and the comma.
        "text-after-closing-quote.csv": (
            head + line(good) + '2024-01-02,"Ça" (2017),2017,https://boxd.it/abc2,3,,Fine.,,2024-01-02\n'
            + line(later)).encode(),
        # Latin-1, as a spreadsheet may save it: "Amélie" with é as the byte 0xE9.
        "not-utf8.csv": (head + line(good)).encode("latin-1"),
        "empty.csv": b"",
        "header-only.csv": head.encode(),
    }


# MARK: Benchmark

class Generator:
    """xorshift64*: the same numbers on every Python."""

    def __init__(self, seed):
        self.state = seed or 1

    def next(self):
        x = self.state
        x ^= (x >> 12)
        x ^= (x << 25) & 0xFFFFFFFFFFFFFFFF
        x ^= (x >> 27)
        self.state = x
        return (x * 0x2545F4914F6CDD1D) & 0xFFFFFFFFFFFFFFFF

    def below(self, n):
        return self.next() % n


WORDS = ("the film a slow burn of light and sound, every frame \"careful\" but never cold; I laughed twice "
         "cried once <i>rewatched</i> it the next day & still found new things in the score Amélie Ça 千と千尋 "
         "its ending earns every minute though the middle drags a little").split(" ")


def letterboxd_bench(count, folder):
    """A Letterboxd export of `count` reviews of 300 to 1,500 bytes (about 600 on average), each its own
    film, with the diary, ratings and watched files that go with them."""
    generator = Generator(count * 2654435761 + 17)
    reviews, diary, ratings, watched = [], [], [], []
    for number in range(1, count + 1):
        name = f"Film {number} " + WORDS[generator.below(len(WORDS))].capitalize()
        year = str(1920 + generator.below(105))
        day = f"20{10 + number % 14:02}-{1 + number % 12:02}-{1 + number % 28:02}"
        entry = f"https://boxd.it/b{number:x}"
        film = f"https://boxd.it/f{number:x}"
        rating = "" if number % 11 == 0 else str((1 + generator.below(10)) / 2).removesuffix(".0")
        # Most reviews short, a few long: about 600 bytes on average.
        target = 300 + generator.below(1201) * generator.below(1201) // 1200
        review = WORDS[generator.below(len(WORDS))]
        while len(review.encode()) < target:
            review += ("\n\n" if generator.below(40) == 0 else " ") + WORDS[generator.below(len(WORDS))]
        rewatch = "Yes" if number % 13 == 0 else ""
        reviews.append([day, name, year, entry, rating, rewatch, review, "", day])
        diary.append([day, name, year, entry, rating, rewatch, "", day])
        if rating:
            ratings.append([day, name, year, film, rating])
        watched.append([day, name, year, film])
    write(os.path.join(folder, "reviews.csv"), csv_bytes(LETTERBOXD_REVIEWS, reviews))
    write(os.path.join(folder, "diary.csv"), csv_bytes(LETTERBOXD_DIARY, diary))
    write(os.path.join(folder, "ratings.csv"), csv_bytes(LETTERBOXD_RATINGS, ratings))
    write(os.path.join(folder, "watched.csv"), csv_bytes(LETTERBOXD_WATCHED, watched))


# MARK: Main

def main(arguments):
    if arguments[:1] == ["--letterboxd-bench"]:
        if len(arguments) != 3 or not arguments[1].isdigit():
            sys.exit("usage: make-imports.py --letterboxd-bench N DIR")
        letterboxd_bench(int(arguments[1]), arguments[2])
        return
    if arguments:
        sys.exit("usage: make-imports.py [--letterboxd-bench N DIR]")
    files = write_letterboxd(os.path.join(HERE, "letterboxd"))
    archive = zip_bytes(files)
    write(os.path.join(HERE, "letterboxd.zip"), archive)
    with zipfile.ZipFile(io.BytesIO(archive)) as check:
        assert {name: check.read(name) for name in check.namelist()} == files
    write(os.path.join(HERE, "goodreads.csv"), csv_bytes(GOODREADS, goodreads_rows(), newline="\r\n", bom=True))
    write(os.path.join(HERE, "imdb.csv"), csv_bytes(IMDB, imdb_rows()))
    write(os.path.join(HERE, "storygraph.csv"), csv_bytes(STORYGRAPH, storygraph_rows()))
    for name, data in hostile_files().items():
        write(os.path.join(HERE, "hostile", name), data)


if __name__ == "__main__":
    main(sys.argv[1:])
