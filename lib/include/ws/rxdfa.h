/*
 * ws/rxdfa.h - which lines a simple regex matches, by a DFA (for wsgrep).
 *
 * PCRE2 backtracks: a pattern with no literal to look for first, such as
 * \w{5}\s+\w{5}, is tried at every starting position, several steps
 * each, where a DFA reads each byte once (ripgrep's and GNU grep's way).
 * wsgrep runs this DFA over a buffer to find the first line that holds a
 * match, then asks PCRE2 for the match in that line alone, so that
 * results are PCRE2's and PCRE2 sees only the lines that match.
 *
 * The DFA answers one question: does a line (the bytes between two
 * newlines, without them) hold a match of the pattern?  It knows a
 * subset of PCRE2's syntax without UTF, where its answer is PCRE2's:
 * literal bytes (ASCII), escaped punctuation, \t \n \r \f, \w \s \d,
 * classes [...] of those and of ranges (not negated), groups (...) and
 * (?:...), alternation, and the quantifiers * + ? {n} {n,} {n,m} (lazy
 * too, not possessive).  Case-insensitive means ASCII letters, as PCRE2
 * without UTF.  Anything else (anchors, \b, lookaround, back-references,
 * options, ".", negated classes, bytes above 0x7f, a pattern that
 * matches the empty string, or a DFA past its size bound) is declined,
 * and the caller uses PCRE2 alone.
 */
#ifndef WS_RXDFA_H
#define WS_RXDFA_H

#include <stdbool.h>
#include <stddef.h>

struct ws_rxdfa;

/*
 * Build the DFA of the alternation of the n patterns in *out, or set *out
 * to NULL where a pattern is outside the subset above or the automaton
 * would be too large.  Errors: WS_ENOMEM.
 */
int ws_rxdfa_compile(const char *const *patterns, size_t n, bool icase,
		     struct ws_rxdfa **out);

/*
 * The offset in buf[0..len) of the last byte of the first match that lies
 * within one line, where the DFA first knows that its line matches; len
 * when no line of buf matches.  Lines are split at '\n'; the scan starts
 * as at the start of a line.
 */
size_t ws_rxdfa_scan(const struct ws_rxdfa *d, const char *buf, size_t len);

/* Free d (NULL is fine). */
void ws_rxdfa_free(struct ws_rxdfa *d);

#endif
