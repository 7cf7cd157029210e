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

#[cfg(test)]
mod tests {
    use super::*;

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
