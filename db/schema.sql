-- clue-db store, schema version 8. Documented table by table in db/README.md.
-- Titles are stored as Wikipedia displays them: spaces, URL-decoded, first letter upper-case.
-- Terms and clues are lower-case.

CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS pages (
    id                INTEGER PRIMARY KEY,         -- MediaWiki page id (Wikispeedia: 1-based row of articles.tsv)
    title             TEXT    NOT NULL,
    ns                INTEGER NOT NULL DEFAULT 0,  -- namespace, 0 = articles
    redirect_to       TEXT,                        -- target title if this page is a redirect, else NULL
    is_disambiguation INTEGER NOT NULL DEFAULT 0,  -- 1 for disambiguation pages
    length            INTEGER NOT NULL DEFAULT 0,  -- characters of plain text
    pagerank          REAL                         -- filled by the pagerank stage; mean page = 1
);
CREATE UNIQUE INDEX IF NOT EXISTS pages_ns_title ON pages (ns, title);

-- Links between stored pages, redirects already resolved to their targets; no duplicates.
CREATE TABLE IF NOT EXISTS links (
    src INTEGER NOT NULL,
    dst INTEGER NOT NULL,
    PRIMARY KEY (src, dst)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS links_dst ON links (dst, src);

-- The same links as a CSR in blobs (crates/store/src/graph.rs, db/README.md "link_graph"): what
-- the stages read. Chunk 0 is the header, chunks 1.. the data. `links` is written only with
-- --keep-links.
CREATE TABLE IF NOT EXISTS link_graph (
    chunk INTEGER PRIMARY KEY,
    data  BLOB NOT NULL
);

CREATE TABLE IF NOT EXISTS page_text (
    id   INTEGER PRIMARY KEY,  -- pages.id
    text TEXT NOT NULL         -- plain text, markup removed
);

-- Every card word listed in pipeline/terms.txt; the covered ones (with term pages) have covered = 1.
CREATE TABLE IF NOT EXISTS terms (
    term       TEXT PRIMARY KEY,           -- lower-case card word
    page_count INTEGER NOT NULL DEFAULT 0, -- its rows in term_pages
    covered    INTEGER NOT NULL DEFAULT 0  -- 1 when page_count > 0: the corpus covers it
) WITHOUT ROWID;

-- The word lists the terms stage read, by name, each in its order: `codenames` for
-- pipeline/terms.txt, a file's stem for any other (`duet`, `deep-undercover`, a group's pack).
-- The decks `play`, `eval` and `serve` draw boards from, wherever they run (added at schema 8;
-- a database built before has none, and its readers fall back to the files).
CREATE TABLE IF NOT EXISTS word_lists (
    list     TEXT    NOT NULL,
    position INTEGER NOT NULL,  -- 0-based; each word once in a list
    word     TEXT    NOT NULL,  -- as terms.term: lower case, a hyphen read as a space
    PRIMARY KEY (list, position)
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS term_pages (
    term    TEXT    NOT NULL,
    page_id INTEGER NOT NULL,
    origin  TEXT    NOT NULL,  -- disambiguation | exact | sense | supplement
    PRIMARY KEY (term, page_id)
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS synonyms (
    term    TEXT NOT NULL,
    synonym TEXT NOT NULL,
    PRIMARY KEY (term, synonym)
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS clue_pages (
    page_id      INTEGER PRIMARY KEY,
    link_score   REAL    NOT NULL,  -- sum over terms of the per-term link score
    terms_linked INTEGER NOT NULL   -- how many terms' pages it neighbours
);

-- The per-term link score behind clue_pages: 1 for a link in one direction, 1.5 for both, the
-- best over the term's pages.
CREATE TABLE IF NOT EXISTS clue_page_terms (
    page_id    INTEGER NOT NULL,
    term       TEXT    NOT NULL,
    link_score REAL    NOT NULL,
    PRIMARY KEY (page_id, term)
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS counts (
    page_id INTEGER NOT NULL,  -- clue page
    term    TEXT    NOT NULL,
    count   INTEGER NOT NULL,  -- the largest bucket: one part of speech, or one named entity
    pos     TEXT,              -- UPOS of that bucket (NOUN, VERB, ...), NULL for an entity bucket
    entity  TEXT,              -- the named entity of that bucket, NULL for a part-of-speech bucket
    excerpt TEXT,              -- one sentence of the page using the term
    PRIMARY KEY (page_id, term)
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS chunks (
    page_id INTEGER NOT NULL,  -- term page
    term    TEXT    NOT NULL,
    clue    TEXT    NOT NULL,  -- root noun of noun chunks, lower-case
    count   INTEGER NOT NULL,
    excerpt TEXT,              -- the first sentence of the page with such a chunk
    PRIMARY KEY (page_id, term, clue)
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS scores (
    clue      TEXT    NOT NULL,
    term      TEXT    NOT NULL,
    score     REAL    NOT NULL,  -- min(1, PR/6) * (1 - 0.7^count), the maximum over evidence
    page_id   INTEGER NOT NULL,  -- the page the best evidence came from
    direction TEXT    NOT NULL,  -- 'clue_page' (term counted in the clue's page) | 'term_page' (clue counted in a term page)
    count     INTEGER NOT NULL,
    excerpt   TEXT,
    PRIMARY KEY (clue, term)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS scores_term ON scores (term, score DESC);

-- Which clue words are inflections of which board words, precomputed by the scores and
-- relatedness stages so that queries apply the legality rule without loading inflection tables.
-- Complete for every clue of `scores` and `clue_words` against every form of a listed card word
-- (the word, and for a card of several words each word and the words joined: "ice cream" ->
-- icecream, ice, cream) and every word of `clue_words` (what a word no list names can be as a
-- card); each such form has a row for itself, which marks it as covered by the table.
CREATE TABLE IF NOT EXISTS inflections (
    form TEXT NOT NULL,  -- a form of a listed card word, or a word of clue_words
    word TEXT NOT NULL,  -- the form itself, or a clue that is an inflection of it
    PRIMARY KEY (form, word)
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS term_docs (
    term  TEXT    NOT NULL,
    word  TEXT    NOT NULL,
    count INTEGER NOT NULL,
    PRIMARY KEY (term, word)
) WITHOUT ROWID;

-- Relatedness (stage `relatedness`): how strongly each card word relates to each clue word,
-- learned from all page text. Dense: every listed card word has a value with every clue word.

-- The clue words: content words of letters a-z seen at least `relatedness.min_count` times
-- (plurals folded into the singular), ids in order of frequency.
CREATE TABLE IF NOT EXISTS clue_words (
    id    INTEGER PRIMARY KEY,  -- 0-based; the position of the word's score in relatedness_vectors.scores
    word  TEXT    NOT NULL UNIQUE,
    count INTEGER NOT NULL,     -- occurrences in all page text (plural forms included)
    pages INTEGER NOT NULL,     -- pages it occurs on, summed over its forms (an upper bound)
    risk  REAL    NOT NULL      -- the score a card word the corpus does not know is assumed to
                                -- have with this clue: the 90th percentile of its scores with
                                -- the card words (a risk, never "safe")
);

-- clue_words packed for the query engine, which reads every clue word for each board (row by
-- row, that was half of a whole `suggest` process): one row, written with clue_words. `words`
-- is each clue word in clue_words.id order followed by a line break (UTF-8); `counts` one
-- little-endian uint64 and `risks` one little-endian float32 per clue word, in the same order.
-- Databases built before it lack it (readers then read clue_words).
CREATE TABLE IF NOT EXISTS clue_words_packed (
    words  BLOB NOT NULL,
    counts BLOB NOT NULL,
    risks  BLOB NOT NULL
);

-- The card words of the relatedness (every listed card word the text or the dictionary knows:
-- relatedness.card_words_unknown in meta names the others), ids in sorted order: what
-- relatedness_by_id says instead of repeating the word on each of its rows.
CREATE TABLE IF NOT EXISTS card_words (
    id   INTEGER PRIMARY KEY,  -- 0-based; relatedness_by_id.card_id
    word TEXT    NOT NULL UNIQUE  -- terms.term
);

-- One row per (card word, clue word): the score and the evidence it is made of, keyed by ids
-- (card_words.id, clue_words.id) rather than words, the three measures as whole numbers of
-- ten-thousandths (2-3 bytes each, not a REAL's 8): ~20 bytes a row. Read them through the
-- `relatedness` view, which gives them as REALs. Schema 8: the measures were REALs before.
CREATE TABLE IF NOT EXISTS relatedness_by_id (
    card_id       INTEGER NOT NULL,  -- card_words.id
    clue_id       INTEGER NOT NULL,  -- clue_words.id
    score_e4      INTEGER NOT NULL,  -- round(10000 * score); score = z(w*z(ppmi) + (1-w)*z(cosine) + e*z(ln(1 + cooccurrences*f))), raised by definitions; see db/README.md
    ppmi_e4       INTEGER NOT NULL,  -- round(10000 * ppmi); first order: mean of PPMI(term, clue) and
                                     -- PPMI(clue, term); 0 for a pair that never meets (most rows)
    cosine_e4     INTEGER NOT NULL,  -- round(10000 * cosine); second order: cosine of the joined word vectors
    cooccurrences INTEGER NOT NULL,  -- meetings within the window, same sentence; a page counted
                                     -- as its corpus's text weight says (meta relatedness.text_weights)
    PRIMARY KEY (card_id, clue_id)
) WITHOUT ROWID;

-- relatedness_by_id with the words and the measures as REALs: the table of schemas 4 and 5, so
-- that queries written for it still run.
CREATE VIEW IF NOT EXISTS relatedness (term, clue, score, ppmi, cosine, cooccurrences) AS
SELECT c.word, w.word, r.score_e4 / 10000.0, r.ppmi_e4 / 10000.0, r.cosine_e4 / 10000.0,
       r.cooccurrences
FROM relatedness_by_id r
JOIN card_words c ON c.id = r.card_id
JOIN clue_words w ON w.id = r.clue_id;

-- The same scores packed for the query engine: one row per card word, `scores` holding one
-- little-endian float32 per clue word in clue_words.id order (4 bytes x clue_words rows).
-- A rowid table with an index on `term`: in a WITHOUT ROWID table a row of 64 KB is its own
-- key, and SQLite read each row it compared whole while seeking one (640 KB per lookup).
CREATE TABLE IF NOT EXISTS relatedness_vectors (
    term   TEXT    PRIMARY KEY,
    count  INTEGER NOT NULL,  -- occurrences of the card word in all page text
    scores BLOB    NOT NULL   -- relatedness.score per clue word
);

-- How a guesser reads a clue it is given (db/README.md, "Reading") is not stored: it is
-- computed from relatedness_by_id's measures and the scales in `meta` (relatedness.reading_*).
-- Schemas 5 to 7 kept it as the table relatedness_reading.

-- The other written forms of the clue words (plurals folded into one word): a form people write
-- (`bird`) leads to the clue word it was counted under (`birds`, the form written most).
CREATE TABLE IF NOT EXISTS clue_forms (
    form TEXT PRIMARY KEY,  -- a lower-case form seen in the text, never itself a clue word
    clue TEXT NOT NULL      -- clue_words.word
) WITHOUT ROWID;

-- Where a card word and a clue word meet: the sentence and page of one meeting, for the pairs
-- a query may show (each card word's strongest clue words).
CREATE TABLE IF NOT EXISTS relatedness_evidence (
    term    TEXT    NOT NULL,
    clue    TEXT    NOT NULL,
    page_id INTEGER NOT NULL,  -- the page where they meet most often
    meetings INTEGER NOT NULL, -- their meetings on that page
    excerpt TEXT,              -- a sentence of that page where they meet
    PRIMARY KEY (term, clue)
) WITHOUT ROWID;

-- Any vocabulary word as a card (stage `relatedness`; db/README.md, "Any word as a card"): a
-- word typed on a board that no list named is scored at query time from what these keep of
-- every clue word. New in schema 8.
-- The joined word vectors of the clue words, packed in one row: `vectors` holds `dims`
-- little-endian IEEE half-precision floats per clue word, in clue_words.id order.
CREATE TABLE IF NOT EXISTS clue_vectors (
    dims    INTEGER NOT NULL,
    vectors BLOB    NOT NULL
);

-- Per clue word, what its score as a card needs beside its vector: the clue words it meets
-- most, the rest of its meetings summed, and the clue words its dictionary definition names.
CREATE TABLE IF NOT EXISTS clue_company (
    id            INTEGER PRIMARY KEY,  -- clue_words.id
    meetings      BLOB    NOT NULL,     -- (clue_words.id uint32, meetings uint16, at most 65535) little-endian, by id
    rest_meetings INTEGER NOT NULL,     -- its meetings with the clue words not in `meetings`, summed
    rest_pairs    INTEGER NOT NULL,     -- how many of those it meets at all
    definition    BLOB    NOT NULL      -- (clue_words.id uint32, share float32) little-endian: words its definition names
);

-- The set-network spymaster's trained weights (stage `setnet`, `--strategy setnet`): one row per
-- named tensor, `shape` its dimensions joined by `x` (`64x96`), `data` one little-endian float32
-- per value, row-major. Added within schema 6: a database built before it has no such table and
-- answers every other strategy as before (db/README.md, "Set network").
CREATE TABLE IF NOT EXISTS setnet_weights (
    name  TEXT PRIMARY KEY,
    shape TEXT NOT NULL,
    data  BLOB NOT NULL
) WITHOUT ROWID;
