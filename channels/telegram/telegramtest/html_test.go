package telegramtest

import (
	"html"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/go-telegram/bot/models"
)

func TestParseHTML(t *testing.T) {
	ent := func(typ models.MessageEntityType, offset, length int) models.MessageEntity {
		return models.MessageEntity{Type: typ, Offset: offset, Length: length}
	}
	tests := []struct {
		name, in, plain string
		entities        []models.MessageEntity
	}{
		{"plain text", "plain", "plain", nil},
		{"named and numeric entities", `<b>bold</b> &lt;x&gt; &amp; &quot;q&quot; &#39;&#x41;`,
			`bold <x> & "q" 'A`, []models.MessageEntity{ent(models.MessageEntityTypeBold, 0, 4)}},
		{"entity without semicolon, as tdlib", "&lt b&gt", "< b>", nil},
		{"bare > is kept, as tdlib", "a > b", "a > b", nil},
		{"every simple tag", "<strong>a</strong><i>b</i><em>c</em><u>d</u><ins>e</ins>" +
			"<s>f</s><strike>g</strike><del>h</del>",
			"abcdefgh", []models.MessageEntity{
				ent(models.MessageEntityTypeBold, 0, 1),
				ent(models.MessageEntityTypeItalic, 1, 1),
				ent(models.MessageEntityTypeItalic, 2, 1),
				ent(models.MessageEntityTypeUnderline, 3, 1),
				ent(models.MessageEntityTypeUnderline, 4, 1),
				ent(models.MessageEntityTypeStrikethrough, 5, 1),
				ent(models.MessageEntityTypeStrikethrough, 6, 1),
				ent(models.MessageEntityTypeStrikethrough, 7, 1),
			}},
		{"spoilers", `<span class="tg-spoiler">s</span><tg-spoiler>t</tg-spoiler>`, "st",
			[]models.MessageEntity{ent(models.MessageEntityTypeSpoiler, 0, 1),
				ent(models.MessageEntityTypeSpoiler, 1, 1)}},
		{"link with an entity in its href", `<a href="https://example.com/?a=1&amp;b=2">link</a>`,
			"link", []models.MessageEntity{{Type: models.MessageEntityTypeTextLink, Length: 4,
				URL: "https://example.com/?a=1&b=2"}}},
		{"pre with a language is one entity",
			`<pre><code class="language-go">x := 1</code></pre>`, "x := 1", []models.MessageEntity{
				{Type: models.MessageEntityTypePre, Length: 6, Language: "go"},
			}},
		{"pre and code", "<pre>p</pre><code>c</code>", "pc", []models.MessageEntity{
			ent(models.MessageEntityTypePre, 0, 1), ent(models.MessageEntityTypeCode, 1, 1)}},
		{"blockquotes", "<blockquote>q</blockquote><blockquote expandable>e</blockquote>", "qe",
			[]models.MessageEntity{ent(models.MessageEntityTypeBlockquote, 0, 1),
				ent(models.MessageEntityTypeExpandableBlockquote, 1, 1)}},
		{"offsets in UTF-16 units", "😀<b>😀é</b>", "😀😀é",
			[]models.MessageEntity{ent(models.MessageEntityTypeBold, 2, 3)}},
		{"astral numeric entity", "&#128512;&#x1F600;", "😀😀", nil},
		{"tags are case-insensitive", "<B>x</B>", "x",
			[]models.MessageEntity{ent(models.MessageEntityTypeBold, 0, 1)}},
		{"an empty entity is dropped", "<b></b>x", "x", nil},
		{"an empty end tag closes the last one", "<b>x</>", "x",
			[]models.MessageEntity{ent(models.MessageEntityTypeBold, 0, 1)}},
		{"nested, outer first", "<b>a<i>b</i></b>", "ab", []models.MessageEntity{
			ent(models.MessageEntityTypeBold, 0, 2), ent(models.MessageEntityTypeItalic, 1, 1)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plain, entities, err := parseHTML(tt.in)
			if err != nil {
				t.Fatalf("parseHTML(%q): %v", tt.in, err)
			}
			if plain != tt.plain || !reflect.DeepEqual(entities, tt.entities) {
				t.Errorf("parseHTML(%q) = %q, %+v; want %q, %+v",
					tt.in, plain, entities, tt.plain, tt.entities)
			}
		})
	}
}

func TestParseHTMLErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{"a < b", `Unsupported start tag "" at byte offset 2`},
		{"<p>x</p>", `Unsupported start tag "p" at byte offset 0`},
		{"<b>x", "Can't find end tag corresponding to start tag b"},
		{"<b>x</i>", `Unmatched end tag at byte offset 4, expected "</b>", found "</i>"`},
		{"x</b>", "Unexpected end tag at byte offset 1"},
		{"x <b", "Unclosed start tag at byte offset 2"},
		{"<b>x</b y>", "Unclosed end tag at byte offset 4"},
		{"<span>x</span>", `Tag "span" must have class "tg-spoiler" at byte offset 0`},
		{`<span class="tg-other">x</span>`,
			`Tag "span" must have class "tg-spoiler" at byte offset 0`},
		{"<b class>x</b>",
			`Expected equal sign in declaration of an attribute of the tag "b" at byte offset 0`},
		{"<b =x>x</b>", `Empty attribute name in the tag "b" at byte offset 0`},
		{"<a href=x?>x</a>", "Unexpected end of name token at byte offset 8"},
		{`<a href="x`, "Unclosed start tag at byte offset 0"},
		{`<tg-emoji emoji-id="abc">x</tg-emoji>`, "Invalid custom emoji identifier specified"},
		{"&#xD83D;", "Text contains invalid Unicode characters after decoding HTML entities, " +
			"check for unmatched surrogate code units"},
		// Stricter than Telegram (documented): every & must start an entity.
		{"Tom & Jerry",
			`unescaped "&" at byte offset 4 (stricter than Telegram: the docs require "&amp;")`},
		{"&nbsp;",
			`unescaped "&" at byte offset 0 (stricter than Telegram: the docs require "&amp;")`},
		{"&#0;",
			`unescaped "&" at byte offset 0 (stricter than Telegram: the docs require "&amp;")`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			plain, entities, err := parseHTML(tt.in)
			if err == nil || err.Error() != tt.want {
				t.Fatalf("parseHTML(%q) = %q, %v, %v; want error %q",
					tt.in, plain, entities, err, tt.want)
			}
		})
	}
}

// FuzzParseHTML checks that parsing never panics, that entities stay inside the text,
// and that any text escaped with html.EscapeString comes back unchanged, without
// entities: what a bot that escapes its arguments relies on.
func FuzzParseHTML(f *testing.F) {
	for _, s := range []string{
		"", "<b>&lt;x&gt;</b>", "a < b & c", "😀<i>é</i>", `<a href="u">l</a>`,
		"<pre><code class=\"language-go\">x</code></pre>",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) { // the server refuses it before parsing (ErrNotUTF8)
			_, _, _ = parseHTML(s) // but parsing it must not panic
			return
		}
		plain, entities, err := parseHTML(s)
		if err == nil {
			n := utf16Count(plain)
			for _, e := range entities {
				if e.Offset < 0 || e.Length <= 0 || e.Offset+e.Length > n {
					t.Fatalf("parseHTML(%q): entity %+v outside a text of %d UTF-16 units",
						s, e, n)
				}
			}
		}
		plain, entities, err = parseHTML(html.EscapeString(s))
		if err != nil || plain != s || entities != nil {
			t.Fatalf("parseHTML(EscapeString(%q)) = %q, %v, %v; want the text back",
				s, plain, entities, err)
		}
	})
}

func TestTextLengthUnits(t *testing.T) {
	s := strings.Repeat("😀", 3) + "é"
	if got := textLength(s); got != 4 {
		t.Errorf("textLength(%q) = %d, want 4 code points", s, got)
	}
	if got := utf16Count(s); got != 7 {
		t.Errorf("utf16Count(%q) = %d, want 7 UTF-16 units", s, got)
	}
}
