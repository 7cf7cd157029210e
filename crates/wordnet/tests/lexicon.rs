//! The lexicon: the embedded WordNet against facts of WordNet 3.0, a tiny lexicon's contexts
//! against a hand computation, and bad lines refused with their file and line.

use wordnet::Lexicon;

/// Synsets: 0 bird (hypernym of 1), 1 crane the bird, 2 crane the machine (links to 3),
/// 3 lift, 4 Crane the poet (an instance), 5 Jupiter the planet (an instance).
const SYNSETS: &str = "\
n\tbird\t0\t\t\twarm-blooded animal that flies
n\tcrane\t0\t0\t0\tlarge wading bird of marshes
n\tcrane\t0\t\t3\tlifts heavy weights
v\tlift\t0\t\t\traise
n\tcrane\t1\t\t\tpoet
n\tjupiter\t1\t\t\tthe largest planet
";
const SENSES: &str = "\
bird\t0:3
crane\t1:0 2:1 4:0
lift\t3:0
jupiter\t5:0
marsh\t
";

fn tiny() -> Lexicon {
    Lexicon::parse(SYNSETS, SENSES).unwrap()
}

fn row(lex: &Lexicon, lemma: &str) -> Vec<(String, f32)> {
    let c = lex.contexts();
    let i = c.lemmas.iter().position(|l| l == lemma).unwrap();
    let mut out: Vec<(String, f32)> = c.rows[i]
        .iter()
        .map(|&(col, x)| (c.columns[col as usize].clone(), x))
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

#[test]
fn a_words_contexts_by_hand() {
    let lex = tiny();
    // crane: the bird (count 0 → weight 0.5), the machine (count 1 → 1.5); the poet is an
    // instance and crane names other things: left out.
    // Bird sense: gloss "large wading bird of marshes" → large, wading, bird, marsh (folded:
    // "marsh" is a lemma) at 1; its link (bird) at 0.5; its hypernym's gloss → warm-blooded,
    // animal, flies at 0.25. Machine sense: lifts → lift (folded), heavy, weights at 1; link
    // lift at 0.5. Lemma "crane" itself left out.
    let want = [
        ("animal", 0.5 * 0.25),
        ("bird", 0.5 * 1.0 + 0.5 * 0.5),
        ("flies", 0.5 * 0.25),
        ("heavy", 1.5),
        ("large", 0.5),
        ("lift", 1.5 * 1.0 + 1.5 * 0.5),
        ("marsh", 0.5),
        ("wading", 0.5),
        ("warm-blooded", 0.5 * 0.25),
        ("weights", 1.5),
    ];
    let got = row(&lex, "crane");
    assert_eq!(got.len(), want.len(), "{got:?}");
    for ((w, x), (gw, gx)) in want.iter().zip(&got) {
        assert_eq!(w, gw, "{got:?}");
        assert!((*x as f32 - gx).abs() < 1e-6, "{w}: {gx}, want {x}");
    }
}

#[test]
fn a_name_counts_when_the_word_names_nothing_else() {
    let lex = tiny();
    let got = row(&lex, "jupiter");
    // "the largest planet": largest, planet, each at 0.5 (count 0).
    assert_eq!(
        got,
        vec![("largest".to_string(), 0.5), ("planet".to_string(), 0.5)]
    );
    assert!(row(&lex, "marsh").is_empty(), "a lemma without senses");
}

#[test]
fn words_are_filed_under_their_lemma() {
    let lex = tiny();
    assert_eq!(lex.lemma_of("cranes"), Some("crane"));
    assert_eq!(lex.lemma_of("marshes"), Some("marsh"));
    assert_eq!(lex.lemma_of("crane"), Some("crane"));
    assert_eq!(lex.lemma_of("snowman"), None);
    assert_eq!(
        lex.gloss_words("Lifts the heavy weights of a marsh's"),
        ["lift", "heavy", "weights", "marsh's"]
    );
}

#[test]
fn bad_lines_are_refused_with_file_and_line() {
    let e = Lexicon::parse("n\tbird\t0\t\t\tok\nx\tbad\t0\t\t\tgloss\n", "").unwrap_err();
    assert_eq!(
        e.to_string(),
        "WordNet synsets, line 2: part of speech \"x\""
    );
    let e = Lexicon::parse("n\tbird\t0\t7\t\tok\n", "").unwrap_err();
    assert!(
        e.to_string()
            .starts_with("WordNet synsets, line 1: \"7\" is no synset"),
        "{e}"
    );
    let e = Lexicon::parse("n\tbird\t0\t\t\tok\n", "bird\t0:1\nfish 0:1\n").unwrap_err();
    assert_eq!(
        e.to_string(),
        "WordNet senses, line 2: no tab after the lemma"
    );
    let e = Lexicon::parse("n\tbird\t0\t\t\tok\n", "bird\t1:1\n").unwrap_err();
    assert!(e.to_string().contains("\"1:1\" is no synset:count"), "{e}");
}

/// The embedded WordNet 3.0: its size and a few entries as the dictionary writes them.
#[test]
fn the_embedded_wordnet_is_wordnet_3_0() {
    let lex = Lexicon::embedded();
    assert_eq!(lex.synsets.len(), 117_659);
    let snowman = lex.senses("snowman");
    assert_eq!(snowman.len(), 1);
    let s = &lex.synsets[snowman[0].synset as usize];
    assert_eq!(s.gloss, "a figure of a person made of packed snow");
    assert_eq!(s.pos, 'n');
    // crane: five noun senses (two poets and the constellation, all named instances; the
    // machine, the bird), one verb.
    let crane = lex.senses("crane");
    assert_eq!(crane.len(), 6);
    assert_eq!(
        crane
            .iter()
            .filter(|s| lex.synsets[s.synset as usize].instance)
            .count(),
        3
    );
    assert_eq!(lex.lemma_of("ice cream"), Some("ice_cream"));
    // A vocabulary word is looked up as a reader would: `waited` under `wait`.
    assert_eq!(lex.lemma_of("waited"), None);
    assert_eq!(lex.headword("waited"), Some("wait"));
    assert_eq!(lex.headword("swam"), Some("swim"));
    assert_eq!(
        lex.headword("cranes"),
        Some("crane"),
        "not `cran`, a measure of herring"
    );
    assert_eq!(lex.lemma_of("boxes"), Some("box"));
    assert_eq!(lex.headword("youtube"), None);
    let c = lex.contexts();
    let i = c.lemmas.iter().position(|l| l == "snowman").unwrap();
    let words: Vec<&str> = c.rows[i]
        .iter()
        .map(|&(col, _)| c.columns[col as usize].as_str())
        .collect();
    assert!(
        words.contains(&"snow") && words.contains(&"figure"),
        "{words:?}"
    );
}

#[test]
fn a_words_definition_by_hand() {
    let lex = tiny();
    let defs = lex.definitions();
    // crane: the bird sense (count 0 → 0.5) and the machine (count 1 → 1.5) share 2.0: ¼ and
    // ¾; the poet is an instance of a word that names other things, left out. The bird's
    // definition "large wading bird of marshes" → large, wading, bird, marsh (folded), and its
    // hypernym's lemma bird; the machine's "lifts heavy weights" → lift (folded), heavy,
    // weights, and its link's lemma lift again (once). Crane itself is left out.
    let want = [
        ("bird", 0.25),
        ("heavy", 0.75),
        ("large", 0.25),
        ("lift", 0.75),
        ("marsh", 0.25),
        ("wading", 0.25),
        ("weights", 0.75),
    ];
    let got = defs.of("crane");
    assert_eq!(got.len(), want.len(), "{got:?}");
    for ((w, x), (gw, gx)) in want.iter().zip(&got) {
        assert_eq!(w, gw, "{got:?}");
        assert!((x - gx).abs() < 1e-12, "{w}: {gx}, want {x}");
    }
    // A plural is looked up under its lemma; a name counts when it names nothing else.
    assert_eq!(defs.of("cranes"), got);
    assert_eq!(
        defs.of("jupiter"),
        vec![("largest".to_string(), 1.0), ("planet".to_string(), 1.0)]
    );
    assert!(defs.of("marsh").is_empty(), "a lemma without senses");
    assert!(defs.of("zebra").is_empty(), "a word WordNet lacks");
}

#[test]
fn the_defining_vocabulary_is_left_out_of_definitions() {
    // Three definitions: "tool" and "used" are in two of them, more than 1 % of three (and at
    // least two): they say what kind of definition it is, not what a knife is.
    let lex = Lexicon::parse(
        "n\tknife\t0\t\t\ta tool used to cut\nn\tspade\t0\t\t\ta tool used to dig\nn\tsnow\t0\t\t\tfrozen rain\n",
        "knife\t0:2\nspade\t1:0\nsnow\t2:5\n",
    )
    .unwrap();
    let defs = lex.definitions();
    assert_eq!(defs.of("knife"), vec![("cut".to_string(), 1.0)]);
    assert_eq!(
        defs.of("snow"),
        vec![("frozen".to_string(), 1.0), ("rain".to_string(), 1.0)]
    );
}

#[test]
fn the_embedded_dictionary_defines_a_snowman_by_snow() {
    let lex = Lexicon::embedded();
    let defs = lex.definitions();
    let snowman = defs.of("snowman");
    let share = |w: &str| snowman.iter().find(|(x, _)| x == w).map(|x| x.1);
    // "a figure of a person made of packed snow", a kind of figure (its hypernym).
    assert_eq!(share("snow"), Some(1.0), "{snowman:?}");
    assert_eq!(share("packed"), Some(1.0));
    assert_eq!(share("figure"), Some(1.0));
    // "person" and "made" define thousands of things: the defining vocabulary.
    assert_eq!(share("person"), None);
    assert_eq!(share("made"), None);
    assert_eq!(share("snowman"), None, "not itself");
}

#[test]
fn a_definition_takes_the_senses_it_links_to_but_not_its_kinds() {
    // dog: a kind of animal (hypernym), with a tail (a part, linked), and poodle a kind of dog
    // (its hyponym: linked, but no part of what a dog is).
    let lex = Lexicon::parse(
        "n\tanimal\t0\t\t1\ta living thing\n\
         n\tdog\t0\t0\t0 2 3\ta domestic canine\n\
         n\tpoodle\t0\t1\t1\ta breed with a curly coat\n\
         n\ttail\t0\t\t1\tthe rear appendage\n",
        "animal\t0:0\ndog\t1:3\npoodle\t2:0\ntail\t3:0\n",
    )
    .unwrap();
    let words: Vec<String> = lex
        .definitions()
        .of("dogs")
        .into_iter()
        .map(|(w, x)| {
            assert_eq!(x, 1.0, "{w}: one sense");
            w
        })
        .collect();
    assert_eq!(words, ["animal", "canine", "domestic", "tail"]);
}
