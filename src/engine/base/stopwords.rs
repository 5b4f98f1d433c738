//! Words of a question that name nothing in code, one home for the engine: the English
//! function words every query drops, and the words of commit messages that rank drops as
//! well. Search (`search::query`) and rank (`rank::pagerank`'s query terms) read them. Pure
//! data; runs on whichever thread asks.

/// English function words (articles, pronouns, auxiliaries, prepositions, conjunctions and
/// their like): a query's words that name nothing in code. Search and rank drop them (search
/// keeps one written in backticks or shaped like code). Sorted.
const STOPWORDS: &[&str] = &[
    "a", "all", "also", "an", "and", "any", "are", "as", "at", "be", "been", "being", "both",
    "but", "by", "can", "could", "did", "do", "does", "doing", "e", "each", "eg", "etc", "few",
    "for", "from", "g", "had", "has", "have", "how", "i", "ie", "if", "in", "instead", "into",
    "is", "it", "its", "itself", "just", "may", "me", "might", "more", "most", "must", "my", "no",
    "nor", "not", "now", "of", "off", "on", "once", "only", "or", "other", "our", "out", "over",
    "own", "per", "same", "shall", "she", "should", "so", "some", "such", "than", "that", "the",
    "their", "them", "then", "there", "these", "they", "this", "those", "through", "to", "too",
    "under", "until", "up", "very", "via", "was", "we", "were", "what", "when", "where", "which",
    "while", "who", "whom", "why", "will", "with", "would", "you", "your",
];

/// Words a commit message or a task uses to say what a change does (`fix`, `add`, `use`,
/// `ensure`) and function words of order and negation (`after`, `before`, `without`):
/// rank drops them too, since its query terms personalize a map and come from such texts.
/// Search keeps them, because `get`, `use`, `before` and `every` also name code (it weights
/// the most generic commit words low: `search::query`'s `NOISE_WORDS`). Sorted.
const CHANGE_WORDS: &[&str] = &[
    "about",
    "above",
    "add",
    "added",
    "adds",
    "after",
    "again",
    "allow",
    "avoid",
    "back",
    "before",
    "cannot",
    "correct",
    "correctly",
    "doesn",
    "don",
    "during",
    "else",
    "ensure",
    "even",
    "every",
    "fix",
    "fixed",
    "fixes",
    "get",
    "improve",
    "make",
    "makes",
    "properly",
    "support",
    "use",
    "used",
    "uses",
    "using",
    "without",
];

/// Whether lowercase `word` is a function word (`STOPWORDS`).
pub(crate) fn is_stopword(word: &str) -> bool {
    STOPWORDS.binary_search(&word).is_ok()
}

/// Whether lowercase `word` is a function word or a commit message's word for a change
/// (`CHANGE_WORDS`): what rank drops from a query.
pub(crate) fn is_stopword_or_change_word(word: &str) -> bool {
    is_stopword(word) || CHANGE_WORDS.binary_search(&word).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lists_are_sorted_and_disjoint() {
        assert!(STOPWORDS.windows(2).all(|w| w[0] < w[1]));
        assert!(CHANGE_WORDS.windows(2).all(|w| w[0] < w[1]));
        assert!(!CHANGE_WORDS.iter().any(|w| is_stopword(w)));
    }

    #[test]
    fn search_drops_function_words_and_rank_change_words_too() {
        for w in ["the", "a", "of", "which", "itself"] {
            assert!(is_stopword(w) && is_stopword_or_change_word(w), "{w}");
        }
        for w in ["fix", "use", "before", "without"] {
            assert!(!is_stopword(w) && is_stopword_or_change_word(w), "{w}");
        }
        for w in ["parse", "config", "get_user", "The"] {
            assert!(!is_stopword_or_change_word(w), "{w}");
        }
    }
}
