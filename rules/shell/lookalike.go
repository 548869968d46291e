package shell

import (
	"strings"
	"unicode/utf8"
)

// LookAlikeOption reports whether the word w reads as an option but is spelt with
// letters or dashes that only look like ASCII ones: "--оutput" with a Cyrillic о,
// "－－output" in fullwidth forms, "−o" with a minus sign. Such a word is no option a
// program reads, yet a human reading the prompt takes it for one, and a program that
// folds its arguments may take it as one too; the gate cannot tell which. A word
// counts when it starts with a dash (ASCII or a look-alike) and, its look-alikes taken
// as the ASCII they look like, its name (up to "=") is ASCII letters, digits and
// dashes, at least one of them changed. Foreign text ("-привет") is not flagged.
func LookAlikeOption(w string) bool {
	if w == "" || w[0] < utf8.RuneSelf && w[0] != '-' {
		return false
	}
	if name, _, ok := strings.Cut(w, "="); ok {
		w = name
	} else if name, _, ok := strings.Cut(w, "＝"); ok {
		w = name
	}
	changed, letter := false, false
	for i, r := range w {
		a, ok := asciiLook(r)
		if !ok {
			return false
		}
		if i == 0 && a != '-' {
			return false
		}
		changed = changed || a != r
		letter = letter || a != '-'
	}
	return changed && letter
}

// asciiLook returns the ASCII letter, digit or dash r is or looks like, and false for
// any other rune.
func asciiLook(r rune) (rune, bool) {
	switch {
	case r == '-', r == '_', 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9':
		return r, true
	case 0xFF01 <= r && r <= 0xFF5E: // fullwidth ASCII
		return asciiLook(r - 0xFEE0)
	case 0x2010 <= r && r <= 0x2015, r == 0x2212, r == 0xFE58, r == 0xFE63, r == 0x2043:
		return '-', true // hyphens, dashes, the minus sign
	}
	a, ok := confusables[r]
	return a, ok
}

// confusables are the Cyrillic, Greek and other letters that look like an ASCII one.
var confusables = map[rune]rune{
	'а': 'a', 'в': 'b', 'е': 'e', 'о': 'o', 'р': 'p', 'с': 'c', 'у': 'y', 'х': 'x',
	'і': 'i', 'ј': 'j', 'ѕ': 's', 'һ': 'h', 'ԁ': 'd', 'ԛ': 'q', 'ԝ': 'w', 'к': 'k',
	'м': 'm', 'н': 'h', 'т': 't', 'ӏ': 'l',
	'А': 'A', 'В': 'B', 'Е': 'E', 'К': 'K', 'М': 'M', 'Н': 'H', 'О': 'O', 'Р': 'P',
	'С': 'C', 'Т': 'T', 'Х': 'X', 'І': 'I', 'Ј': 'J', 'Ѕ': 'S', 'У': 'Y',
	'α': 'a', 'ο': 'o', 'ρ': 'p', 'ν': 'v', 'ι': 'i', 'κ': 'k', 'υ': 'u', 'τ': 't',
	'Α': 'A', 'Β': 'B', 'Ε': 'E', 'Ζ': 'Z', 'Η': 'H', 'Ι': 'I', 'Κ': 'K', 'Μ': 'M',
	'Ν': 'N', 'Ο': 'O', 'Ρ': 'P', 'Τ': 'T', 'Υ': 'Y', 'Χ': 'X',
	'ı': 'i', 'ℓ': 'l', 'օ': 'o', 'ո': 'n', 'ս': 'u',
}
