//! One normal form for titles, so that a link written any way finds its page.

use percent_encoding::percent_decode_str;

/// Normalises a title as Wikipedia displays it: underscores become spaces, runs of white space
/// collapse, leading and trailing space goes, and the first letter is upper-cased.
/// A `#fragment` is dropped. Percent-encoding is *not* decoded here (see [`decode_url_title`]),
/// since a literal `%` is legal in titles.
pub fn normalize(raw: &str) -> String {
    let raw = raw.split('#').next().unwrap_or("");
    let mut out = String::with_capacity(raw.len());
    let mut pending_space = false;
    for c in raw.chars() {
        let c = if c == '_' { ' ' } else { c };
        if c.is_whitespace() {
            pending_space = !out.is_empty();
            continue;
        }
        if pending_space {
            out.push(' ');
            pending_space = false;
        }
        if out.is_empty() {
            out.extend(c.to_uppercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// Decodes a URL-style title (`AT%26T`, `%C3%81ed%C3%A1n_mac_Gabr%C3%A1in`) and normalises it.
/// Invalid UTF-8 after decoding is replaced rather than rejected: titles are labels, not data.
pub fn decode_url_title(raw: &str) -> String {
    normalize(&percent_decode_str(raw).decode_utf8_lossy())
}

/// The canonical (language-independent) name of a standard MediaWiki namespace, which every
/// wiki accepts as a prefix; `None` for articles (0) and for namespaces without one.
pub fn canonical_namespace(ns: i32) -> Option<&'static str> {
    Some(match ns {
        -2 => "Media",
        -1 => "Special",
        1 => "Talk",
        2 => "User",
        3 => "User talk",
        4 => "Project",
        5 => "Project talk",
        6 => "File",
        7 => "File talk",
        8 => "MediaWiki",
        9 => "MediaWiki talk",
        10 => "Template",
        11 => "Template talk",
        12 => "Help",
        13 => "Help talk",
        14 => "Category",
        15 => "Category talk",
        _ => return None,
    })
}

/// The namespace a full title names by its prefix (`Category:Fruits` → 14, `Wikipedia:About` →
/// 4, the project namespace's local name on every English wiki), 0 for an article. Text dumps
/// such as WikiExtractor's carry titles without namespace numbers; Simple English Wikipedia's
/// keeps 34,750 pages of other namespaces (category stubs, project pages) that are no article
/// text.
pub fn namespace_of_title(title: &str) -> i32 {
    let Some((prefix, rest)) = title.split_once(':') else {
        return 0;
    };
    if rest.is_empty() || rest.starts_with(' ') {
        // `Star Wars: Episode I`, `Ratio: a story` are articles.
        return 0;
    }
    if prefix == "Wikipedia" {
        return 4;
    }
    if prefix == "Portal" {
        return 100;
    }
    if prefix == "Module" {
        return 828;
    }
    (-2..=15)
        .find(|&ns| canonical_namespace(ns) == Some(prefix))
        .unwrap_or(0)
}

/// The full title of `title` in namespace `ns`, as a link or a redirect would write it:
/// `Category:Fruit` for (14, `Fruit`). Namespaces without a canonical name get `Namespace N:`,
/// which never matches an article, so such targets stay unresolved rather than being mistaken
/// for one.
pub fn with_namespace(ns: i32, title: &str) -> String {
    match (ns, canonical_namespace(ns)) {
        (0, _) => title.to_string(),
        (_, Some(name)) => format!("{name}:{title}"),
        (_, None) => format!("Namespace {ns}:{title}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn namespaces_from_title_prefixes() {
        assert_eq!(namespace_of_title("Apple"), 0);
        assert_eq!(namespace_of_title("Category:Fruits"), 14);
        assert_eq!(namespace_of_title("Wikipedia:About"), 4);
        assert_eq!(namespace_of_title("MediaWiki:Sidebar"), 8);
        assert_eq!(namespace_of_title("Help:Contents"), 12);
        assert_eq!(namespace_of_title("File:Apple.jpg"), 6);
        assert_eq!(namespace_of_title("User:Jimbo"), 2);
        assert_eq!(namespace_of_title("Template:Infobox"), 10);
        assert_eq!(namespace_of_title("Portal:Science"), 100);
        // Articles with a colon in their title stay articles.
        assert_eq!(namespace_of_title("Star Wars: Episode I"), 0);
        assert_eq!(namespace_of_title("Re:Zero"), 0);
        assert_eq!(namespace_of_title("Category:"), 0);
    }

    #[test]
    fn prefixes_namespaces() {
        assert_eq!(with_namespace(0, "Apple"), "Apple");
        assert_eq!(with_namespace(14, "Fruits"), "Category:Fruits");
        assert_eq!(with_namespace(3, "Jimbo"), "User talk:Jimbo");
        assert_eq!(with_namespace(100, "Cats"), "Namespace 100:Cats");
    }

    #[test]
    fn normalizes_like_wikipedia_displays() {
        assert_eq!(normalize("apple_pie"), "Apple pie");
        assert_eq!(normalize("  Bill   Gates "), "Bill Gates");
        assert_eq!(normalize("éclair"), "Éclair");
        assert_eq!(normalize("Paris#History"), "Paris");
        assert_eq!(normalize(""), "");
    }

    #[test]
    fn decodes_url_titles() {
        assert_eq!(decode_url_title("AT%26T"), "AT&T");
        assert_eq!(
            decode_url_title("%C3%81ed%C3%A1n_mac_Gabr%C3%A1in"),
            "Áedán mac Gabráin"
        );
        assert_eq!(decode_url_title("Bat_%28animal%29"), "Bat (animal)");
    }
}
