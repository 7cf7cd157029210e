//! Wikitext to plain text, with the page's links and its disambiguation flag.
//!
//! This is not a MediaWiki parser: it keeps what a reader sees as prose (link labels, headings,
//! list items) and drops what is machinery (templates, references, tables, files, categories).
//! It makes one pass over the input with a byte table to find the next interesting character,
//! so it runs in linear time. Unbalanced markup never makes it loop or rescan: when a construct
//! has no end, its opening marker is dropped, and a flag stops later openers of the same kind
//! from searching again (so a page full of unclosed `{{` costs one scan, not one per opener).

use crate::title;
use memchr::memmem;

/// What [`to_plain`] returns for one page.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Plain {
    /// Plain text: words and punctuation, one paragraph per block, headings on their own lines.
    pub text: String,
    /// Normalised main-namespace link targets, in order of appearance, duplicates kept.
    pub links: Vec<String>,
    /// True when a disambiguation or set-index template (or `__DISAMBIG__`) is present.
    pub is_disambiguation: bool,
}

/// Converts a page's wikitext (already XML-unescaped) to plain text and collects its links.
pub fn to_plain(wikitext: &str) -> Plain {
    let mut c = Converter::new(wikitext);
    c.run();
    Plain {
        text: tidy(&c.out),
        links: c.links,
        is_disambiguation: c.dab,
    }
}

/// The normalised target of a `#REDIRECT [[Target]]` page, for dumps whose `<page>` lacks a
/// `<redirect>` element. `None` when the text is not a redirect.
pub fn redirect_target(wikitext: &str) -> Option<String> {
    let t = wikitext.trim_start();
    let head = t.get(..9)?;
    if !head.eq_ignore_ascii_case("#redirect") {
        return None;
    }
    let rest = &t[9..];
    let open = rest.find("[[")?;
    let inner = &rest[open + 2..];
    let close = inner.find([']', '|', '\n'])?;
    let target = inner[..close].trim().trim_start_matches(':');
    let target = title::normalize(&decode_entities(target));
    (!target.is_empty()).then_some(target)
}

/// Bytes at which the main loop stops copying text and looks closer.
static SPECIAL: [bool; 256] = {
    let mut t = [false; 256];
    let specials = b"{}[]<&'\n_";
    let mut i = 0;
    while i < specials.len() {
        t[specials[i] as usize] = true;
        i += 1;
    }
    t
};

/// Tags whose content is machinery, not prose: dropped with their content.
const SKIP_TAGS: &[&str] = &[
    "ref",
    "references",
    "gallery",
    "math",
    "chem",
    "ce",
    "score",
    "timeline",
    "syntaxhighlight",
    "source",
    "imagemap",
    "graph",
    "mapframe",
    "maplink",
    "templatedata",
    "templatestyles",
    "hiero",
    "categorytree",
    "inputbox",
    "includeonly",
    "charinsert",
    "indicator",
    "ref-group",
    "math-chem",
    "style",
    "script",
];

/// Tags whose content is shown as written (no markup inside is interpreted).
const RAW_TAGS: &[&str] = &["nowiki", "pre"];

/// HTML and MediaWiki tags that are stripped while their content is kept; the flag says the tag
/// breaks a line, so that words on either side do not run together.
const KEEP_TAGS: &[(&str, bool)] = &[
    ("b", false),
    ("i", false),
    ("u", false),
    ("s", false),
    ("del", false),
    ("ins", false),
    ("strike", false),
    ("small", false),
    ("big", false),
    ("sub", false),
    ("sup", false),
    ("span", false),
    ("font", false),
    ("em", false),
    ("strong", false),
    ("cite", false),
    ("code", false),
    ("tt", false),
    ("var", false),
    ("kbd", false),
    ("samp", false),
    ("abbr", false),
    ("dfn", false),
    ("mark", false),
    ("q", false),
    ("bdi", false),
    ("bdo", false),
    ("time", false),
    ("data", false),
    ("ruby", false),
    ("rb", false),
    ("rt", false),
    ("rp", false),
    ("wbr", false),
    ("noinclude", false),
    ("onlyinclude", false),
    ("section", false),
    ("translate", false),
    ("td", false),
    ("th", false),
    ("caption", false),
    ("br", true),
    ("hr", true),
    ("p", true),
    ("div", true),
    ("center", true),
    ("blockquote", true),
    ("poem", true),
    ("table", true),
    ("tr", true),
    ("tbody", true),
    ("thead", true),
    ("tfoot", true),
    ("ul", true),
    ("ol", true),
    ("li", true),
    ("dl", true),
    ("dt", true),
    ("dd", true),
    ("h1", true),
    ("h2", true),
    ("h3", true),
    ("h4", true),
    ("h5", true),
    ("h6", true),
];

/// Template names (lower-case, spaces) that mark a disambiguation or set-index page.
const DAB_TEMPLATES: &[&str] = &[
    "disambiguation",
    "disambig",
    "disamb",
    "dab",
    "dbig",
    "disambiguation cleanup",
    "disambig-cleanup",
    "dab cleanup",
    "hndis",
    "hndis-cleanup",
    "human name disambiguation",
    "geodis",
    "geo-dis",
    "set index",
    "set index article",
    "setindex",
    "sia",
    "shipindex",
    "ship index",
    "mountainindex",
    "mountain index",
    "roadindex",
    "road index",
    "sportindex",
    "sport index",
    "lakeindex",
    "lake index",
    "plant common name",
    "chemistry index",
    "molecular formula index",
];

/// Namespaces whose links are shown as text but are not article links.
const OTHER_NAMESPACES: &[&str] = &[
    "talk",
    "user",
    "user talk",
    "wikipedia",
    "wikipedia talk",
    "wp",
    "wt",
    "project",
    "project talk",
    "file talk",
    "image talk",
    "mediawiki",
    "mediawiki talk",
    "template",
    "template talk",
    "help",
    "help talk",
    "category talk",
    "portal",
    "portal talk",
    "book",
    "book talk",
    "draft",
    "draft talk",
    "education program",
    "education program talk",
    "timedtext",
    "timedtext talk",
    "module",
    "module talk",
    "gadget",
    "gadget talk",
    "gadget definition",
    "gadget definition talk",
    "topic",
    "special",
    // Interwiki prefixes: shown as text, they lead off Wikipedia.
    "wikt",
    "wiktionary",
    "s",
    "wikisource",
    "b",
    "wikibooks",
    "q",
    "wikiquote",
    "n",
    "wikinews",
    "v",
    "wikiversity",
    "voy",
    "wikivoyage",
    "species",
    "wikispecies",
    "d",
    "wikidata",
    "c",
    "commons",
    "m",
    "meta",
    "metawiki",
    "mw",
    "mediawikiwiki",
    "foundation",
    "wmf",
    "incubator",
    "phab",
    "outreach",
    "oldwikisource",
    "w",
];

/// Language codes longer than three letters (shorter ones are recognised by shape).
const LONG_LANGUAGES: &[&str] = &[
    "simple",
    "be-tarask",
    "be-x-old",
    "zh-min-nan",
    "zh-yue",
    "zh-classical",
    "roa-rup",
    "roa-tara",
    "map-bms",
    "nds-nl",
    "bat-smg",
    "fiu-vro",
    "cbk-zam",
];

/// External link schemes recognised after a single `[`.
const URL_SCHEMES: &[&str] = &[
    "http://",
    "https://",
    "//",
    "ftp://",
    "ftps://",
    "sftp://",
    "mailto:",
    "irc://",
    "ircs://",
    "news:",
    "gopher://",
    "git://",
    "svn://",
    "telnet://",
    "nntp://",
    "urn:",
    "geo:",
];

/// What a `[[...]]` target is, by its namespace prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LinkKind {
    /// An article: shown, and recorded as a link.
    Main,
    /// `[[#Section]]`: shown, not recorded.
    Section,
    /// Another namespace or wiki: shown, not recorded.
    Other,
    /// File, image or media: dropped with its caption.
    File,
    /// Category membership: dropped.
    Category,
    /// Interlanguage link: dropped.
    Language,
}

struct Converter<'a> {
    src: &'a str,
    b: &'a [u8],
    i: usize,
    out: String,
    links: Vec<String>,
    dab: bool,
    /// Open `[[target|` labels whose `]]` is still to come.
    link_depth: u32,
    /// Inside the label of `[http://url label]`.
    ext_open: bool,
    /// Where the trailing `==` of the current heading line starts.
    heading_end: Option<usize>,
    /// A template scan once ran off the end: later `{{` are dropped without scanning.
    template_failed: bool,
    /// A table scan once ran off the end.
    table_failed: bool,
    /// A file/category link scan once ran off the end.
    file_failed: bool,
    /// Bit per entry of SKIP_TAGS and RAW_TAGS (offset by SKIP_TAGS.len()) whose close is missing.
    tag_failed: u64,
}

impl<'a> Converter<'a> {
    fn new(src: &'a str) -> Self {
        Converter {
            src,
            b: src.as_bytes(),
            i: 0,
            out: String::with_capacity(src.len() / 2),
            links: Vec::new(),
            dab: false,
            link_depth: 0,
            ext_open: false,
            heading_end: None,
            template_failed: false,
            table_failed: false,
            file_failed: false,
            tag_failed: 0,
        }
    }

    fn at(&self, i: usize) -> u8 {
        self.b.get(i).copied().unwrap_or(0)
    }

    fn run(&mut self) {
        let n = self.b.len();
        self.line_start();
        while self.i < n {
            let start = self.i;
            let limit = match self.heading_end {
                Some(h) if h >= start => h,
                Some(_) => {
                    // A construct inside the heading swallowed its closing `==`.
                    self.heading_end = None;
                    n
                }
                None => n,
            };
            let mut j = start;
            while j < limit && !SPECIAL[self.b[j] as usize] {
                j += 1;
            }
            self.out.push_str(&self.src[start..j]);
            self.i = j;
            if j >= n {
                break;
            }
            if Some(j) == self.heading_end {
                self.close_heading();
                continue;
            }
            match self.b[j] {
                b'\n' => {
                    self.out.push('\n');
                    self.i += 1;
                    self.ext_open = false;
                    self.heading_end = None;
                    self.line_start();
                }
                b'{' => self.open_brace(),
                b'}' => {
                    if self.at(j + 1) == b'}' {
                        self.i += 2; // stray template close
                    } else {
                        self.out.push('}');
                        self.i += 1;
                    }
                }
                b'[' => self.open_bracket(),
                b']' => self.close_bracket(),
                b'<' => self.angle(),
                b'&' => self.entity(),
                b'\'' => {
                    let mut k = j;
                    while self.at(k) == b'\'' {
                        k += 1;
                    }
                    if k - j == 1 {
                        self.out.push('\'');
                    }
                    self.i = k;
                }
                b'_' => self.magic_word(),
                _ => {
                    // Unreachable by SPECIAL's contents; copy the byte's char to stay safe.
                    self.copy_char();
                }
            }
        }
    }

    /// Copies the char at `self.i` (never splits a UTF-8 sequence).
    fn copy_char(&mut self) {
        if let Some(c) = self.src[self.i..].chars().next() {
            self.out.push(c);
            self.i += c.len_utf8();
        } else {
            self.i = self.b.len();
        }
    }

    /// Line-start markup: headings, list markers, tables, rules.
    fn line_start(&mut self) {
        let n = self.b.len();
        let mut j = self.i;
        match self.at(j) {
            b'=' => {
                self.heading();
                return;
            }
            b'*' | b'#' | b':' | b';' => {
                while matches!(self.at(j), b'*' | b'#' | b':' | b';') {
                    j += 1;
                }
                self.i = j;
            }
            b'-' => {
                while self.at(j) == b'-' {
                    j += 1;
                }
                if j - self.i >= 4 {
                    self.i = j;
                }
                return;
            }
            _ => {}
        }
        // A table may be indented (`:{|`) or preceded by spaces.
        let mut k = self.i;
        while matches!(self.at(k), b' ' | b'\t') {
            k += 1;
        }
        if k + 1 < n && self.b[k] == b'{' && self.b[k + 1] == b'|' {
            self.i = k;
            self.table();
        } else if k + 1 < n && self.b[k] == b'|' && self.b[k + 1] == b'}' {
            self.i = k + 2; // stray table close
        }
    }

    /// `== Heading ==`: the text between the `=` runs, on its own line.
    fn heading(&mut self) {
        let n = self.b.len();
        let line_end = memchr::memchr(b'\n', &self.b[self.i..]).map_or(n, |p| self.i + p);
        let mut end = line_end;
        while end > self.i && matches!(self.b[end - 1], b' ' | b'\t' | b'\r') {
            end -= 1;
        }
        let mut close = end;
        while close > self.i && self.b[close - 1] == b'=' {
            close -= 1;
        }
        let mut open = self.i;
        while open < close && self.b[open] == b'=' {
            open += 1;
        }
        if close == end || open >= close {
            // No closing `=` run (or nothing but `=`): not a heading; show the line as text.
            self.out.push_str(&self.src[self.i..open.max(self.i)]);
            self.i = open.max(self.i);
            return;
        }
        self.out.push('\n');
        self.i = open;
        self.heading_end = Some(close);
    }

    fn close_heading(&mut self) {
        let n = self.b.len();
        let mut j = self.i;
        while j < n && matches!(self.b[j], b'=' | b' ' | b'\t' | b'\r') {
            j += 1;
        }
        self.i = j;
        self.heading_end = None;
        self.out.push('\n');
    }

    /// `{| ... |}` with nested tables, line by line; dropped whole.
    fn table(&mut self) {
        if self.table_failed {
            self.skip_line();
            return;
        }
        let n = self.b.len();
        let mut depth = 0u32;
        let mut line = self.i;
        loop {
            let mut k = line;
            while matches!(self.at(k), b' ' | b'\t' | b':') {
                k += 1;
            }
            if self.at(k) == b'{' && self.at(k + 1) == b'|' {
                depth += 1;
            } else if self.at(k) == b'|' && self.at(k + 1) == b'}' && self.at(k + 2) != b'}' {
                depth -= 1;
                if depth == 0 {
                    self.i = k + 2;
                    return;
                }
            }
            match memchr::memchr(b'\n', &self.b[line..]) {
                Some(p) => line = line + p + 1,
                None => break,
            }
            if line >= n {
                break;
            }
        }
        self.table_failed = true;
        self.skip_line();
    }

    fn skip_line(&mut self) {
        self.i = memchr::memchr(b'\n', &self.b[self.i..]).map_or(self.b.len(), |p| self.i + p);
    }

    fn open_brace(&mut self) {
        let j = self.i;
        if self.at(j + 1) != b'{' {
            self.out.push('{');
            self.i += 1;
            return;
        }
        if self.template_failed {
            self.i += 2;
            return;
        }
        // Count single braces so that `{{{param}}}` and `{|` inside balance too.
        let mut depth = 0i64;
        let mut k = j;
        let end = loop {
            match memchr::memchr2(b'{', b'}', &self.b[k..]) {
                Some(p) => {
                    k += p;
                    if self.b[k] == b'{' {
                        depth += 1;
                    } else {
                        depth -= 1;
                        if depth == 0 {
                            break Some(k + 1);
                        }
                    }
                    k += 1;
                }
                None => break None,
            }
        };
        match end {
            Some(end) => {
                if is_dab_template(&self.src[j + 2..end]) {
                    self.dab = true;
                }
                self.i = end;
            }
            None => {
                self.template_failed = true;
                self.i += 2;
            }
        }
    }

    fn open_bracket(&mut self) {
        let j = self.i;
        if self.at(j + 1) == b'[' {
            self.link();
            return;
        }
        let rest = &self.b[j + 1..];
        let is_url = URL_SCHEMES
            .iter()
            .any(|s| rest.len() >= s.len() && rest[..s.len()].eq_ignore_ascii_case(s.as_bytes()));
        if !is_url {
            self.out.push('[');
            self.i += 1;
            return;
        }
        let mut k = j + 1;
        while k < self.b.len() && !matches!(self.b[k], b' ' | b'\t' | b']' | b'\n' | b'<' | b'"') {
            k += 1;
        }
        match self.at(k) {
            b']' => self.i = k + 1, // no label: MediaWiki shows a number
            b' ' | b'\t' | b'<' | b'"' => {
                while matches!(self.at(k), b' ' | b'\t') {
                    k += 1;
                }
                self.ext_open = true;
                self.i = k;
            }
            _ => {
                // Not closed on its line: the URL is plain text.
                self.i += 1;
            }
        }
    }

    fn close_bracket(&mut self) {
        let j = self.i;
        if self.ext_open {
            self.ext_open = false;
            self.i += 1;
        } else if self.at(j + 1) == b']' {
            self.link_depth = self.link_depth.saturating_sub(1);
            self.i += 2;
        } else {
            self.out.push(']');
            self.i += 1;
        }
    }

    /// `[[target]]`, `[[target|label]]`, files, categories, interlanguage links.
    fn link(&mut self) {
        let n = self.b.len();
        let t0 = self.i + 2;
        let mut j = t0;
        while j < n
            && !matches!(
                self.b[j],
                b'|' | b']' | b'[' | b'{' | b'}' | b'<' | b'>' | b'\n'
            )
        {
            j += 1;
        }
        let closes = self.at(j) == b']' && self.at(j + 1) == b']';
        if !(self.at(j) == b'|' || closes) {
            // Not a link (a template or tag in the target, or no end): drop the brackets.
            self.i = t0;
            return;
        }
        let raw = &self.src[t0..j];
        let colon = raw.trim_start().starts_with(':');
        let name = raw.trim_start().trim_start_matches(':');
        let mut kind = classify(name);
        if colon
            && matches!(
                kind,
                LinkKind::File | LinkKind::Category | LinkKind::Language
            )
        {
            kind = LinkKind::Other; // `[[:Category:X]]` is a visible link to the category
        }
        if matches!(
            kind,
            LinkKind::File | LinkKind::Category | LinkKind::Language
        ) {
            if !self.file_failed {
                if let Some(end) = self.nested_link_end(self.i) {
                    self.i = end;
                    return;
                }
                self.file_failed = true;
            }
            // Unclosed: its text shows, as MediaWiki would show it.
            self.i = t0;
            return;
        }
        if kind == LinkKind::Main {
            let target = title::normalize(&decode_entities(name));
            if !target.is_empty() {
                self.links.push(target);
            }
        }
        if closes {
            self.push_decoded(name);
            self.i = j + 2;
        } else if self.at(j + 1) == b']' && self.at(j + 2) == b']' {
            // Pipe trick: `[[Paris (France)|]]` shows "Paris".
            self.push_decoded(pipe_trick(name));
            self.i = j + 3;
        } else {
            self.link_depth += 1;
            self.i = j + 1;
        }
    }

    /// End of `[[ ... ]]` starting at `from`, counting nested `[[`/`]]` pairs (file captions).
    fn nested_link_end(&self, from: usize) -> Option<usize> {
        let mut depth = 0u32;
        let mut k = from;
        loop {
            let p = memchr::memchr2(b'[', b']', &self.b[k..])?;
            k += p;
            let c = self.b[k];
            if self.at(k + 1) == c {
                if c == b'[' {
                    depth += 1;
                } else {
                    depth -= 1;
                    if depth == 0 {
                        return Some(k + 2);
                    }
                }
                k += 2;
            } else {
                k += 1;
            }
        }
    }

    /// `<!-- -->`, tags whose content is dropped, raw tags, stripped tags; else a literal `<`.
    fn angle(&mut self) {
        let j = self.i;
        let n = self.b.len();
        if self.b[j..].starts_with(b"<!--") {
            self.i = memmem::find(&self.b[j + 4..], b"-->").map_or(n, |p| j + 4 + p + 3);
            return;
        }
        let mut k = j + 1;
        let closing = self.at(k) == b'/';
        if closing {
            k += 1;
        }
        let name_start = k;
        if !self.at(k).is_ascii_alphabetic() {
            self.literal_lt();
            return;
        }
        while self.at(k).is_ascii_alphanumeric() || self.at(k) == b'-' {
            k += 1;
        }
        let name = &self.src[name_start..k];
        if !matches!(self.at(k), b'>' | b'/' | b' ' | b'\t' | b'\n' | b'\r') {
            self.literal_lt();
            return;
        }
        let Some(p) = memchr::memchr2(b'>', b'<', &self.b[k..]) else {
            self.literal_lt();
            return;
        };
        let gt = k + p;
        if self.b[gt] != b'>' {
            self.literal_lt();
            return;
        }
        let self_closing = self.b[gt - 1] == b'/';
        let after = gt + 1;
        if let Some(idx) = SKIP_TAGS.iter().position(|t| t.eq_ignore_ascii_case(name)) {
            self.i = after;
            if closing || self_closing || self.tag_failed & (1 << idx) != 0 {
                return;
            }
            match find_close(self.b, after, name.as_bytes()) {
                Some((_, end)) => self.i = end,
                None => self.tag_failed |= 1 << idx,
            }
        } else if let Some(idx) = RAW_TAGS.iter().position(|t| t.eq_ignore_ascii_case(name)) {
            self.i = after;
            let bit = 1 << (SKIP_TAGS.len() + idx);
            if closing || self_closing || self.tag_failed & bit != 0 {
                return;
            }
            match find_close(self.b, after, name.as_bytes()) {
                Some((start, end)) => {
                    let content = &self.src[after..start];
                    self.push_decoded(content);
                    self.i = end;
                }
                None => self.tag_failed |= bit,
            }
        } else if let Some(&(_, block)) =
            KEEP_TAGS.iter().find(|(t, _)| t.eq_ignore_ascii_case(name))
        {
            if block {
                self.out.push('\n');
            }
            self.i = after;
        } else {
            self.literal_lt();
        }
    }

    fn literal_lt(&mut self) {
        self.out.push('<');
        self.i += 1;
    }

    /// `&name;`, `&#123;`, `&#x1F;`; a bare `&` stays.
    fn entity(&mut self) {
        match push_entity(&mut self.out, &self.src[self.i..]) {
            Some(len) => self.i += len,
            None => {
                self.out.push('&');
                self.i += 1;
            }
        }
    }

    /// `__TOC__`-style magic words are dropped; `__DISAMBIG__` marks a disambiguation page.
    fn magic_word(&mut self) {
        let j = self.i;
        if self.at(j + 1) == b'_' {
            let mut k = j + 2;
            while self.at(k).is_ascii_uppercase() {
                k += 1;
            }
            if k > j + 2 && self.at(k) == b'_' && self.at(k + 1) == b'_' {
                if &self.b[j + 2..k] == b"DISAMBIG" {
                    self.dab = true;
                }
                self.i = k + 2;
                return;
            }
        }
        self.out.push('_');
        self.i += 1;
    }

    fn push_decoded(&mut self, s: &str) {
        push_entities_decoded(&mut self.out, s);
    }
}

/// Start and end of `</name ...>` at or after `from`, matching the name without case.
fn find_close(b: &[u8], from: usize, name: &[u8]) -> Option<(usize, usize)> {
    let finder = memmem::Finder::new(b"</");
    let mut p = from;
    while let Some(off) = finder.find(&b[p..]) {
        let s = p + off;
        let nm = s + 2;
        let after = nm + name.len();
        if after <= b.len()
            && b[nm..after].eq_ignore_ascii_case(name)
            && matches!(b.get(after), Some(b'>' | b' ' | b'\t' | b'\n' | b'\r'))
        {
            let gt = memchr::memchr(b'>', &b[after..])?;
            return Some((s, after + gt + 1));
        }
        p = s + 2;
    }
    None
}

/// Classifies a link target (leading colon already removed) by its namespace prefix.
fn classify(name: &str) -> LinkKind {
    let name = name.trim_start();
    if name.starts_with('#') {
        return LinkKind::Section;
    }
    let Some(p) = name.find(':') else {
        return LinkKind::Main;
    };
    let prefix = name[..p].trim();
    let is = |list: &[&str]| list.iter().any(|ns| ns_eq(prefix, ns));
    if is(&["file", "image", "media"]) {
        LinkKind::File
    } else if ns_eq(prefix, "category") {
        LinkKind::Category
    } else if is(OTHER_NAMESPACES) {
        LinkKind::Other
    } else if is_language_code(prefix) {
        LinkKind::Language
    } else {
        LinkKind::Main
    }
}

/// Namespace names compare without case, with `_` equal to a space.
fn ns_eq(prefix: &str, ns: &str) -> bool {
    prefix.len() == ns.len()
        && prefix.bytes().zip(ns.bytes()).all(|(a, b)| {
            let a = if a == b'_' { b' ' } else { a };
            a.eq_ignore_ascii_case(&b)
        })
}

/// Interlanguage prefixes are lower-case codes: `fr`, `ast`, `zh-yue`, `simple`.
fn is_language_code(prefix: &str) -> bool {
    let b = prefix.as_bytes();
    (matches!(b.len(), 2 | 3) && b.iter().all(|c| c.is_ascii_lowercase()))
        || LONG_LANGUAGES.contains(&prefix)
}

/// `{{name|...}}` (without the outer braces) names a disambiguation or set-index template.
fn is_dab_template(inner: &str) -> bool {
    let end = inner.find(['|', '}', '{', '<']).unwrap_or(inner.len());
    let mut name = inner[..end].trim();
    if name
        .get(..9)
        .is_some_and(|p| p.eq_ignore_ascii_case("template:"))
    {
        name = name[9..].trim();
    }
    if name.len() > 64 {
        return false;
    }
    let lower: String = name
        .chars()
        .map(|c| {
            if c == '_' {
                ' '
            } else {
                c.to_ascii_lowercase()
            }
        })
        .collect();
    DAB_TEMPLATES.contains(&lower.as_str())
        || (lower.ends_with(" disambiguation") && !lower.starts_with("r "))
}

/// The label MediaWiki's pipe trick makes: namespace and trailing `(...)` or `, ...` removed.
fn pipe_trick(name: &str) -> &str {
    let name = name.trim();
    let name = match name.find(':') {
        Some(p) if classify(name) != LinkKind::Main => &name[p + 1..],
        _ => name,
    };
    let name = match name.rfind(" (") {
        Some(p) if name.ends_with(')') => &name[..p],
        _ => match name.find(", ") {
            Some(p) => &name[..p],
            None => name,
        },
    };
    name.trim()
}

/// Decodes the entity at the start of `s` (which begins with `&`) onto `out`; returns its
/// length in `s`, or `None` (and pushes nothing) when `s` does not start with one.
fn push_entity(out: &mut String, s: &str) -> Option<usize> {
    let b = s.as_bytes();
    if b.get(1) == Some(&b'#') {
        let (digits_at, radix) = match b.get(2) {
            Some(b'x' | b'X') => (3, 16),
            _ => (2, 10),
        };
        let semi = b
            .get(digits_at..)?
            .iter()
            .take(9)
            .position(|&c| c == b';')?
            + digits_at;
        let code = u32::from_str_radix(&s[digits_at..semi], radix).ok()?;
        match code {
            0xA0 | 0x2002 | 0x2003 | 0x2009 => out.push(' '),
            0xAD | 0x200B..=0x200D => {}
            _ => out.push(char::from_u32(code).filter(|&c| c != '\0')?),
        }
        return Some(semi + 1);
    }
    let semi = b.get(1..)?.iter().take(33).position(|&c| c == b';')? + 1;
    let name = &s[1..semi];
    if name.is_empty() || !name.bytes().all(|c| c.is_ascii_alphanumeric()) {
        return None;
    }
    out.push_str(named_entity(name)?);
    Some(semi + 1)
}

/// Appends `s` to `out` with HTML entities decoded.
fn push_entities_decoded(out: &mut String, s: &str) {
    let mut rest = s;
    while let Some(p) = rest.find('&') {
        out.push_str(&rest[..p]);
        rest = &rest[p..];
        match push_entity(out, rest) {
            Some(len) => rest = &rest[len..],
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
}

/// `s` with HTML entities decoded (borrowed when there are none).
fn decode_entities(s: &str) -> std::borrow::Cow<'_, str> {
    if s.contains('&') {
        let mut out = String::with_capacity(s.len());
        push_entities_decoded(&mut out, s);
        out.into()
    } else {
        s.into()
    }
}

/// The named HTML entities that occur in Wikipedia articles. Spacing entities become a plain
/// space, and invisible ones nothing, so that words split where a reader sees them split.
fn named_entity(name: &str) -> Option<&'static str> {
    Some(match name {
        "nbsp" | "ensp" | "emsp" | "thinsp" | "numsp" | "puncsp" | "hairsp" => " ",
        "shy" | "zwj" | "zwnj" | "lrm" | "rlm" | "ZeroWidthSpace" => "",
        "amp" => "&",
        "lt" => "<",
        "gt" => ">",
        "quot" => "\"",
        "apos" => "'",
        "ndash" => "–",
        "mdash" => "—",
        "minus" => "−",
        "hellip" => "…",
        "lsquo" => "‘",
        "rsquo" => "’",
        "ldquo" => "“",
        "rdquo" => "”",
        "sbquo" => "‚",
        "bdquo" => "„",
        "laquo" => "«",
        "raquo" => "»",
        "lsaquo" => "‹",
        "rsaquo" => "›",
        "prime" => "′",
        "Prime" => "″",
        "bull" => "•",
        "middot" => "·",
        "times" => "×",
        "divide" => "÷",
        "plusmn" => "±",
        "deg" => "°",
        "micro" => "µ",
        "para" => "¶",
        "sect" => "§",
        "copy" => "©",
        "reg" => "®",
        "trade" => "™",
        "euro" => "€",
        "pound" => "£",
        "yen" => "¥",
        "cent" => "¢",
        "curren" => "¤",
        "frac12" => "½",
        "frac14" => "¼",
        "frac34" => "¾",
        "sup1" => "¹",
        "sup2" => "²",
        "sup3" => "³",
        "ordf" => "ª",
        "ordm" => "º",
        "iexcl" => "¡",
        "iquest" => "¿",
        "dagger" => "†",
        "Dagger" => "‡",
        "permil" => "‰",
        "larr" => "←",
        "rarr" => "→",
        "uarr" => "↑",
        "darr" => "↓",
        "harr" => "↔",
        "rArr" => "⇒",
        "lArr" => "⇐",
        "hArr" => "⇔",
        "le" => "≤",
        "ge" => "≥",
        "ne" => "≠",
        "asymp" => "≈",
        "equiv" => "≡",
        "infin" => "∞",
        "sum" => "∑",
        "prod" => "∏",
        "radic" => "√",
        "part" => "∂",
        "int" => "∫",
        "isin" => "∈",
        "cap" => "∩",
        "cup" => "∪",
        "sub" => "⊂",
        "sube" => "⊆",
        "and" => "∧",
        "or" => "∨",
        "not" => "¬",
        "forall" => "∀",
        "exist" => "∃",
        "empty" => "∅",
        "nabla" => "∇",
        "lowast" => "∗",
        "sdot" => "⋅",
        "prop" => "∝",
        "ang" => "∠",
        "there4" => "∴",
        "sim" => "∼",
        "cong" => "≅",
        "oplus" => "⊕",
        "otimes" => "⊗",
        "perp" => "⊥",
        "loz" => "◊",
        "spades" => "♠",
        "clubs" => "♣",
        "hearts" => "♥",
        "diams" => "♦",
        "acute" => "´",
        "cedil" => "¸",
        "uml" => "¨",
        "macr" => "¯",
        "brvbar" => "¦",
        "frasl" => "⁄",
        "oline" => "‾",
        "Alpha" => "Α",
        "Beta" => "Β",
        "Gamma" => "Γ",
        "Delta" => "Δ",
        "Theta" => "Θ",
        "Lambda" => "Λ",
        "Pi" => "Π",
        "Sigma" => "Σ",
        "Phi" => "Φ",
        "Psi" => "Ψ",
        "Omega" => "Ω",
        "alpha" => "α",
        "beta" => "β",
        "gamma" => "γ",
        "delta" => "δ",
        "epsilon" => "ε",
        "zeta" => "ζ",
        "eta" => "η",
        "theta" => "θ",
        "iota" => "ι",
        "kappa" => "κ",
        "lambda" => "λ",
        "mu" => "μ",
        "nu" => "ν",
        "xi" => "ξ",
        "omicron" => "ο",
        "pi" => "π",
        "rho" => "ρ",
        "sigmaf" => "ς",
        "sigma" => "σ",
        "tau" => "τ",
        "upsilon" => "υ",
        "phi" => "φ",
        "chi" => "χ",
        "psi" => "ψ",
        "omega" => "ω",
        "Agrave" => "À",
        "Aacute" => "Á",
        "Acirc" => "Â",
        "Atilde" => "Ã",
        "Auml" => "Ä",
        "Aring" => "Å",
        "AElig" => "Æ",
        "Ccedil" => "Ç",
        "Egrave" => "È",
        "Eacute" => "É",
        "Ecirc" => "Ê",
        "Euml" => "Ë",
        "Igrave" => "Ì",
        "Iacute" => "Í",
        "Icirc" => "Î",
        "Iuml" => "Ï",
        "ETH" => "Ð",
        "Ntilde" => "Ñ",
        "Ograve" => "Ò",
        "Oacute" => "Ó",
        "Ocirc" => "Ô",
        "Otilde" => "Õ",
        "Ouml" => "Ö",
        "Oslash" => "Ø",
        "Ugrave" => "Ù",
        "Uacute" => "Ú",
        "Ucirc" => "Û",
        "Uuml" => "Ü",
        "Yacute" => "Ý",
        "THORN" => "Þ",
        "szlig" => "ß",
        "agrave" => "à",
        "aacute" => "á",
        "acirc" => "â",
        "atilde" => "ã",
        "auml" => "ä",
        "aring" => "å",
        "aelig" => "æ",
        "ccedil" => "ç",
        "egrave" => "è",
        "eacute" => "é",
        "ecirc" => "ê",
        "euml" => "ë",
        "igrave" => "ì",
        "iacute" => "í",
        "icirc" => "î",
        "iuml" => "ï",
        "eth" => "ð",
        "ntilde" => "ñ",
        "ograve" => "ò",
        "oacute" => "ó",
        "ocirc" => "ô",
        "otilde" => "õ",
        "ouml" => "ö",
        "oslash" => "ø",
        "ugrave" => "ù",
        "uacute" => "ú",
        "ucirc" => "û",
        "uuml" => "ü",
        "yacute" => "ý",
        "thorn" => "þ",
        "yuml" => "ÿ",
        "OElig" => "Œ",
        "oelig" => "œ",
        "Scaron" => "Š",
        "scaron" => "š",
        "Yuml" => "Ÿ",
        "fnof" => "ƒ",
        "circ" => "ˆ",
        "tilde" => "˜",
        _ => return None,
    })
}

/// Whitespace as a reader sees it: runs of spaces collapse, lines are trimmed, no space before
/// closing punctuation or after an opening bracket, empty brackets left by removed templates
/// go, and at most one blank line separates paragraphs.
fn tidy(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut pending_newlines = 0;
    let mut line_buf = String::new();
    for line in raw.split('\n') {
        line_buf.clear();
        for word in line.split_ascii_whitespace() {
            let glue = line_buf.is_empty() || closes(word) || line_buf.ends_with(['(', '[']);
            if !glue {
                line_buf.push(' ');
            }
            line_buf.push_str(word);
        }
        if line_buf.contains("()") {
            let cleaned = line_buf.replace("()", "");
            line_buf.clear();
            for word in cleaned.split_ascii_whitespace() {
                let glue = line_buf.is_empty() || closes(word);
                if !glue {
                    line_buf.push(' ');
                }
                line_buf.push_str(word);
            }
        }
        if line_buf.is_empty() {
            if !out.is_empty() {
                pending_newlines += 1;
            }
            continue;
        }
        if !out.is_empty() {
            out.push_str(if pending_newlines > 0 { "\n\n" } else { "\n" });
        }
        pending_newlines = 0;
        out.push_str(&line_buf);
    }
    out
}

/// A word that attaches to the previous one: closing punctuation not starting a word itself
/// (so `.` and `),` attach, `.NET` does not).
fn closes(word: &str) -> bool {
    let b = word.as_bytes();
    matches!(b[0], b',' | b'.' | b';' | b':' | b')' | b'!' | b'?')
        && !b.get(1).is_some_and(|c| c.is_ascii_alphanumeric())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(s: &str) -> String {
        to_plain(s).text
    }

    #[test]
    fn keeps_link_labels_and_trails() {
        let p = to_plain("A [[Apple pie|pie]] and [[banana]]s, [[Paris#History]].");
        assert_eq!(p.text, "A pie and bananas, Paris#History.");
        assert_eq!(p.links, vec!["Apple pie", "Banana", "Paris"]);
    }

    #[test]
    fn label_markup_is_processed() {
        let p = to_plain("See [[Moby-Dick|''Moby-Dick'' (novel)]] now.");
        assert_eq!(p.text, "See Moby-Dick (novel) now.");
        assert_eq!(p.links, vec!["Moby-Dick"]);
    }

    #[test]
    fn drops_namespaces_and_interlanguage() {
        let p = to_plain(
            "x [[File:A.jpg|thumb|A [[cat]] on a [[mat|rug]]]] y [[Category:Cats]] \
             [[fr:Chat]] [[:Category:Dogs|dogs]] [[Wikipedia:About]] [[#Top|up]] \
             [[wikt:cat|cat]] [[Image:b.png]] [[Star Wars: Episode I]] [[Talk:X|t]]",
        );
        assert_eq!(
            p.text,
            "x y dogs Wikipedia:About up cat Star Wars: Episode I t"
        );
        assert_eq!(p.links, vec!["Star Wars: Episode I"]);
    }

    #[test]
    fn leading_colon_main_namespace_link() {
        let p = to_plain("[[:apple]] and [[ :Banana_split |split]]");
        assert_eq!(p.text, "apple and split");
        assert_eq!(p.links, vec!["Apple", "Banana split"]);
    }

    #[test]
    fn pipe_trick() {
        let p = to_plain("[[Paris (France)|]] and [[Help:Contents|]]");
        assert_eq!(p.text, "Paris and Contents");
        assert_eq!(p.links, vec!["Paris (France)"]);
    }

    #[test]
    fn removes_templates_refs_comments_tables() {
        let s = "Albedo ({{IPA|{{lang|en|x}}|æl}}) is<ref name=\"a\">{{cite|x}}</ref> a \
                 ''measure''<ref name=\"a\"/> of '''light'''.<!-- hidden [[Link]] -->\n\
                 {| class=\"wikitable\"\n|-\n| a || {{flag|X}}\n{|\n| nested\n|}\n|}\nAfter <math>x^2</math>table.";
        let p = to_plain(s);
        assert_eq!(p.text, "Albedo is a measure of light.\n\nAfter table.");
        assert!(p.links.is_empty());
    }

    #[test]
    fn headings_lists_and_entities() {
        let s = "Intro&nbsp;text &amp; more&ndash;done &#8212; &#x41;.\n==  History ==\n* one\n# two\n: three\n----\n__TOC__";
        assert_eq!(
            text(s),
            "Intro text & more–done — A.\n\nHistory\n\none\ntwo\nthree"
        );
    }

    #[test]
    fn external_links_keep_labels() {
        assert_eq!(
            text("See [http://example.com the ''site''] and [https://x.org] and [ftp://a b]."),
            "See the site and and b."
        );
        assert_eq!(text("a [not a link] b"), "a [not a link] b");
    }

    #[test]
    fn html_tags() {
        assert_eq!(
            text(
                "m<sup>2</sup> and <span style=\"x\">span</span><br/>next <nowiki>[[raw]]</nowiki> a < b"
            ),
            "m2 and span\nnext [[raw]] a < b"
        );
    }

    #[test]
    fn detects_disambiguation() {
        for s in [
            "x {{disambiguation}}",
            "x {{Disambiguation|geo|hndis}}",
            "x {{ dab }}",
            "{{geodis}}",
            "{{hndis|Smith, John}}",
            "{{Set index article|ship}}",
            "{{sia}}",
            "{{Airport disambiguation}}",
            "{{Template:Disambig}}",
            "x __DISAMBIG__",
        ] {
            assert!(to_plain(s).is_disambiguation, "{s}");
        }
        for s in [
            "x {{disambiguation needed}}",
            "{{Other uses}}",
            "{{About|x|y|Foo (disambiguation)}}",
            "disambiguation",
        ] {
            assert!(!to_plain(s).is_disambiguation, "{s}");
        }
    }

    #[test]
    fn unbalanced_markup_terminates() {
        for s in [
            "{{",
            "{{a",
            "}}",
            "[[",
            "[[a",
            "[[a|b",
            "]]]]",
            "<ref>x",
            "<ref",
            "<!-- x",
            "{|\n| x",
            "''''",
            "&",
            "&#;",
            "&#x110000;",
            "&#99999999999;",
            "[http://x",
            "==",
            "= x",
            "[[File:x|[[a]]",
            "<nowiki>",
            "é{{é",
            "\u{1F600}[[\u{1F600}|\u{1F600}",
        ] {
            let _ = to_plain(s);
        }
        // A template opener that never closes drops only its braces.
        assert_eq!(text("a {{b c"), "a b c");
        assert_eq!(text("a <ref>b c"), "a b c");
        assert_eq!(text("a [[b c"), "a b c");
    }

    #[test]
    fn random_markup_never_panics() {
        const PIECES: &[&str] = &[
            "{{",
            "}}",
            "{",
            "}",
            "[[",
            "]]",
            "[",
            "]",
            "|",
            "{|",
            "|}",
            "\n",
            "==",
            "=",
            "'''",
            "''",
            "'",
            "<ref>",
            "</ref>",
            "<ref name=x/>",
            "<!--",
            "-->",
            "<",
            ">",
            "/",
            "&",
            "&amp;",
            "&#",
            "&#x",
            ";",
            "#",
            ":",
            "*",
            "File:",
            "Category:",
            "fr:",
            "http://",
            "__",
            "TOC",
            "é",
            "\u{1F600}",
            "Template:",
            "Templaté:",
            "<nowiki>",
            "</nowiki>",
            "<br/>",
            " ",
            "a",
            "dab",
            "x",
            "<math>",
            "</math",
            "-",
            "----",
            "(",
            ")",
        ];
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..5000 {
            let len = next() % 40;
            let s: String = (0..len)
                .map(|_| PIECES[(next() % PIECES.len() as u64) as usize])
                .collect();
            let p = to_plain(&s);
            assert!(p.text.len() <= s.len() * 4, "{s:?}");
            let _ = redirect_target(&s);
        }
    }

    #[test]
    fn many_unclosed_openers_stay_linear() {
        let s = "{{ [[File: <ref> {|\n".repeat(50_000);
        let start = std::time::Instant::now();
        let _ = to_plain(&s);
        assert!(start.elapsed().as_secs() < 5, "took {:?}", start.elapsed());
    }

    #[test]
    fn redirects() {
        assert_eq!(
            redirect_target("#REDIRECT [[Computer_accessibility#x]] {{R from CamelCase}}"),
            Some("Computer accessibility".to_string())
        );
        assert_eq!(
            redirect_target("#redirect[[AT&amp;T]]"),
            Some("AT&T".into())
        );
        assert_eq!(redirect_target("Redirect [[x]]"), None);
    }
}
